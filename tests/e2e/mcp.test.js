// Issue 23 on the desktop: Settings' MCP servers section, on the real
// `@modelcontextprotocol/server-everything` from npm (pinned in
// crates/strata-mcp/tests/npm, installed by `make mcp-npm`). A server added
// there is written to config.toml; Test starts it once and shows its phases,
// tools and their token cost; the next turn of an open session offers its
// tools to the model; switching it off keeps it in config.toml and takes its
// tools away at the next turn.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { before, describe } from "node:test";
import { geometryProblems } from "./lib/geometry.js";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";

const PROMPT = "Look around the project";
const norm = (text) => (text ?? "").replace(/\s+/g, " ").trim();
const NPM_CACHE = process.env.STRATA_NPM_CACHE ?? path.join(os.homedir(), ".cache", "strata", "npm");
const ENTRY = path.join(NPM_CACHE, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");

const mcpTools = (request) => (request.body.tools ?? []).map((tool) => tool.name).filter((name) => name.startsWith("mcp__"));

describe("MCP servers in Settings, tried and used by a session (issue 23)", { timeout: 300_000 }, () => {
  let h;
  let sessionId;

  before(async () => {
    assert.ok(fs.existsSync(ENTRY), `server-everything is not installed at ${ENTRY} (make mcp-npm)`);
    h = await Harness.start("mcp");
    sessionId = await h.cliSession(PROMPT, (req) => req.respondText("The project has a README and a main.rs."));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);
  const ready = () => h.waitFor("the app to be ready", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);
  const config = () => fs.readFileSync(path.join(h.home, "config", "config.toml"), "utf8");
  /** The add form's input whose label reads `label`. */
  const field = (label) =>
    h.waitFor(
      `the ${label} field`,
      (l) => [...document.querySelectorAll("[role=group][aria-label='Add an MCP server'] label")].find((el) => el.textContent.trim() === l)?.control ?? null,
      [label],
    );
  const openSettings = async () => {
    await h.click(".header-actions button", "Settings");
    await h.find("[role=dialog] h3", "MCP servers");
    await h.run(() => [...document.querySelectorAll("[role=dialog] h3")].find((el) => el.textContent === "MCP servers")?.scrollIntoView({ block: "start" }));
  };
  const closeSettings = async () => {
    await h.click("[role=dialog] button", "Cancel");
    await h.waitFor("Settings to close", () => !document.querySelector("[role=dialog]"));
  };
  /** Answers the turn's rounds: harmless listings until `until(request)`, then a text answer. */
  const answerUntil = async (until, text) => {
    for (let round = 0; round < 20; round += 1) {
      const request = await h.mock.nextRequest({ what: `round ${round + 1} of the turn` });
      if (until(request)) {
        request.respondText(text);
        return request;
      }
      // The server starts beside the turn: give it time between rounds.
      await new Promise((resolve) => setTimeout(resolve, 300));
      request.respondFunctionCall("list_directory", {});
    }
    throw new Error("the turn never reached the condition");
  };

  step("a server added in Settings is written to config.toml and listed with its command", async () => {
    await h.openFromSidebar(PROMPT);
    await ready();
    await openSettings();
    await h.find("[role=dialog] p", "No MCP servers yet");
    await h.driver.sendKeys(await field("Name"), "everything");
    await h.driver.sendKeys(await field("Command"), `node ${ENTRY} stdio`);
    await h.click("[role=dialog] button", "Add server");
    const row = await h.find("[role=dialog] [data-testid=mcp-server-row]", "everything");
    assert.match(norm(await h.driver.text(row)), /everything\s*node \S+server-everything\/dist\/index\.js stdio\s*Ask first\s*On/);
    assert.match(config(), /\[mcp_servers\.everything\]\n(?:.*\n)*?command = "node"\n/);
  });

  step("Test starts it once and shows its phases, its tools and what their definitions cost", async () => {
    await h.click("[role=dialog] button[aria-label='Test everything']");
    const result = await h.waitFor("the test's result", () => document.querySelector("[role=dialog] [data-testid=mcp-test-result]"), [], 30_000);
    const text = norm(await h.driver.text(result));
    assert.match(text, /everything \S+ is ready: \d+ tools, [\d,]+ tokens in every request \(o200k_base\)\./);
    assert.match(text, /started \d[\d,]* ms · listed tools \d[\d,]* ms · stopped \d[\d,]* ms/);
    await h.run(() => {
      document.querySelector("[data-testid=mcp-test-result] details")?.setAttribute("open", "");
      document.querySelector("[role=dialog] [data-testid=mcp-server-row]")?.scrollIntoView({ block: "start" });
    });
    const echo = await h.find("[role=dialog] table[aria-label='Tools of everything'] tr", "echo");
    assert.match(norm(await h.driver.text(echo)), /^echo ?\d+ ?Echoes back the input string$/);
    await h.screenshotBoth("settings-mcp");
    // The test's run is kept in the server's log.
    await h.click("[role=dialog] button[aria-label='Logs of everything']");
    const log = await h.find("[role=dialog] pre[aria-label='Log of everything']");
    const logText = await h.driver.text(log);
    assert.match(logText, /=== \S+ pid \d+ tested: ready/);
    assert.match(logText, /Starting default \(STDIO\) server/);
    await closeSettings();
  });

  step("the MCP section lays out without overlap or overflow at 1024, 1280 and 1440 px, light and dark", async () => {
    const found = [];
    for (const width of [1024, 1280, 1440]) {
      await h.resizeTo({ width, height: 800 });
      await openSettings();
      await h.run(() => document.querySelector("[role=dialog] [data-testid=mcp-server-row]")?.scrollIntoView({ block: "start" }));
      const problems = await h.problemsInBothThemes(`mcp/settings-mcp-${width}`, async () => (await h.run(geometryProblems)).problems);
      found.push(...problems.map((problem) => `${width} px, ${problem}`));
      await closeSettings();
    }
    await h.resizeTo({ width: 1280, height: 800 });
    assert.deepEqual(found, []);
  });

  step("the open session's next turn offers the server's tools to the model", async () => {
    await h.send("What tools do you have now?");
    const offered = await answerUntil((request) => mcpTools(request).length > 0, "I can echo now.");
    assert.ok(mcpTools(offered).includes("mcp__everything__echo"), JSON.stringify(mcpTools(offered)));
    await h.find(".message-assistant", "I can echo now.");
    await ready();
  });

  step("an MCP call asks; Always allow saves the tool bound to the server's launch command, and the next call runs by it (issue 26)", async () => {
    const mcpPrompt = "[role=group][aria-label='Approval needed for mcp__everything__echo']";
    await h.send("Echo hi");
    (await h.mock.nextRequest({ what: "the echo round" })).respondFunctionCall("mcp__everything__echo", { message: "hi" });
    const button = await h.waitFor("Always allow on the MCP approval", (s) => {
      const list = document.querySelector("[role=log]");
      if (list) list.scrollTop = list.scrollHeight;
      return [...document.querySelectorAll(s)].find((el) => el.textContent.includes("Always allow")) ?? null;
    }, [`${mcpPrompt} button`]);
    assert.equal(norm(await h.driver.text(button)), "Always allow everything/echo R");
    const note = await h.find(`${mcpPrompt} [data-testid=always-allow-note]`);
    assert.match(norm(await h.driver.text(note)), /later calls of this tool run without asking while the server runs the same launch command \(sha256:[0-9a-f]{12}…\); if its command changes, Strata asks again/);
    await h.screenshotBoth("approval-mcp-always-allow");
    await h.driver.click(button);
    (await h.mock.nextRequest({ what: "after the first echo" })).respondText("Echoed.");
    await h.find(".message-assistant", "Echoed.");
    await ready();
    const saved = fs.readFileSync(path.join(h.workspace, ".strata", "rules.toml"), "utf8");
    assert.match(saved, /mcp_allow = \["everything\/echo@sha256:[0-9a-f]{64}"\]/);

    await h.send("Echo again");
    (await h.mock.nextRequest({ what: "the second echo round" })).respondFunctionCall("mcp__everything__echo", { message: "again" });
    const after = await h.mock.nextRequest({ what: "after the second echo" });
    after.respondText("Echoed again.");
    await h.find(".message-assistant", "Echoed again.");
    await ready();
    assert.equal(await h.run(() => document.querySelectorAll("[role=group][aria-label^='Approval needed']").length), 0, "no prompt was shown");
    const decisions = (await h.records(sessionId)).filter((r) => r.type === "approval_decision").map((r) => r.payload);
    assert.equal(decisions.length, 2, JSON.stringify(decisions));
    assert.equal(decisions[0].decision, "always_allow");
    assert.equal(decisions[1].by, "rule");
    assert.equal(decisions[1].rules[0].kind, "mcp");
    assert.match(decisions[1].rules[0].pattern, /^everything\/echo@sha256:/);

    await openSettings();
    const row = await h.waitFor("the MCP rule in Settings", () =>
      [...document.querySelectorAll("[role=dialog] [data-testid=rule-row]")].find((el) => el.textContent.includes("everything/echo")) ?? null,
    );
    assert.match(norm(await h.driver.text(row)), /Allow MCP tool\s*everything\/echo on the launch command sha256:[0-9a-f]{12}…\s*This workspace \(\.strata\/rules\.toml\)/);
    await h.run(() => document.querySelector("[role=dialog] table[aria-label='Approval rules']")?.scrollIntoView({ block: "center" }));
    await h.screenshotBoth("settings-rules-mcp");
    await closeSettings();
  });

  step("the Rules section with the MCP rule lays out without overlap or overflow at 1024, 1280 and 1440 px, light and dark", async () => {
    const found = [];
    for (const width of [1024, 1280, 1440]) {
      await h.resizeTo({ width, height: 800 });
      await openSettings();
      await h.run(() => document.querySelector("[role=dialog] table[aria-label='Approval rules']")?.scrollIntoView({ block: "start" }));
      const problems = await h.problemsInBothThemes(`mcp/settings-rules-mcp-${width}`, async () => (await h.run(geometryProblems)).problems);
      found.push(...problems.map((problem) => `${width} px, ${problem}`));
      await closeSettings();
    }
    await h.resizeTo({ width: 1280, height: 800 });
    assert.deepEqual(found, []);
  });

  step("switched off, it stays in config.toml and the next turn offers none of its tools", async () => {
    await openSettings();
    await h.click("[role=dialog] [role=switch][aria-label='Start everything in sessions']");
    await h.find("[role=dialog] [data-testid=mcp-server-row]", "Off");
    assert.match(config(), /\[mcp_servers\.everything\]\n(?:.*\n)*?enabled = false\n/);
    await closeSettings();
    await h.send("And now?");
    const request = await h.mock.nextRequest({ what: "the turn after switching the server off" });
    assert.deepEqual(mcpTools(request), []);
    request.respondText("Only my own tools.");
    await h.find(".message-assistant", "Only my own tools.");
    await ready();
  });
});
