// Issue 26 on the desktop: an "always allow" rule created from an approval
// and then used. The shell approval offers "Always allow `cargo test*`" and
// says what it saves before it is pressed; pressing it saves the rule to the
// workspace's .strata/rules.toml (trusted: Strata keeps its digest), runs the
// call, and the next matching command runs without a prompt, recorded as the
// rule's decision. Settings' Rules section lists the rule with its source,
// and marks a rules file edited outside Strata as not in effect.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";

const PROMPT = "Run the tests";
const norm = (text) => (text ?? "").replace(/\s+/g, " ").trim();

describe("always allow from an approval, then used (issue 26)", { timeout: 300_000 }, () => {
  let h;
  let sessionId;

  before(async () => {
    h = await Harness.start("rules");
    sessionId = await h.cliSession(PROMPT, (req) => req.respondText("I will run them when you ask."));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);
  const ready = () => h.waitFor("the app to be ready", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);
  const shellPrompt = "[role=group][aria-label='Approval needed for run_shell']";
  /** Waits for `selector` (with `text`) at the end of the transcript, scrolling there. */
  const findAtEnd = (selector, text) =>
    h.waitFor(`${selector} with "${text}" at the end of the transcript`, (s, t) => {
      const list = document.querySelector("[role=log]");
      if (list) list.scrollTop = list.scrollHeight;
      return one(s, t);
    }, [selector, text]);

  step("the shell approval offers always allow with the exact rule, and pressing it saves the rule and runs the call", async () => {
    await h.openFromSidebar(PROMPT);
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    await h.send("Run the workspace tests");
    (await h.mock.nextRequest({ what: "the first shell round" })).respondFunctionCall("run_shell", { command: "cargo test --workspace" });
    const button = await findAtEnd(`${shellPrompt} button`, "Always allow");
    assert.equal(norm(await h.driver.text(button)), "Always allow cargo test* R");
    const note = await findAtEnd(`${shellPrompt} [data-testid=always-allow-note]`, null);
    assert.match(norm(await h.driver.text(note)), /saves the rule cargo test\* to this workspace.s \.strata\/rules\.toml/);
    await h.screenshotBoth("approval-always-allow");
    assert.equal(fs.existsSync(path.join(h.workspace, ".strata", "rules.toml")), false, "nothing is saved before the press");
    await h.driver.click(button);
    (await h.mock.nextRequest({ what: "after the first command" })).respondText("The first run finished.");
    await findAtEnd(".message-assistant", "The first run finished.");
    await ready();
    const saved = fs.readFileSync(path.join(h.workspace, ".strata", "rules.toml"), "utf8");
    assert.match(saved, /allow = \["cargo test\*"\]/);
  });

  step("the next matching command runs without a prompt, recorded as the rule's decision", async () => {
    await h.send("Run only the parser tests");
    (await h.mock.nextRequest({ what: "the second shell round" })).respondFunctionCall("run_shell", { command: "cargo test -p parser" });
    const after = await h.mock.nextRequest({ what: "after the second command" });
    after.respondText("The parser tests ran.");
    await findAtEnd(".message-assistant", "The parser tests ran.");
    await ready();
    assert.equal(await h.run(() => document.querySelectorAll("[role=group][aria-label^='Approval needed']").length), 0, "no prompt was shown");
    const decisions = (await h.records(sessionId)).filter((r) => r.type === "approval_decision").map((r) => r.payload);
    assert.equal(decisions.length, 2, JSON.stringify(decisions));
    assert.equal(decisions[0].decision, "always_allow");
    assert.deepEqual(decisions[0].rules, [{ source: "workspace", list: "allow", kind: "command", pattern: "cargo test*" }]);
    assert.equal(decisions[1].by, "rule");
    assert.equal(decisions[1].decision, "allow_once");
    assert.deepEqual(decisions[1].rules, [{ source: "workspace", list: "allow", kind: "command", pattern: "cargo test*" }]);
  });

  step("Settings lists the rule with its source, and says when the workspace file was edited outside Strata", async () => {
    await h.click(".header-actions button", "Settings");
    const row = await h.waitFor("the rule in Settings", () => one("[role=dialog] [data-testid=rule-row]", "cargo test*"));
    assert.match(norm(await h.driver.text(row)), /Allow command\s*cargo test\*\s*This workspace \(\.strata\/rules\.toml\)/);
    await h.run(() => document.querySelector("[role=dialog] table[aria-label='Approval rules']")?.scrollIntoView({ block: "center" }));
    await h.screenshotBoth("settings-rules");
    await h.click("[role=dialog] button", "Cancel");
    await h.waitFor("Settings to close", () => !document.querySelector("[role=dialog]"));

    // A change made outside Strata: its allow rules stop applying.
    const file = path.join(h.workspace, ".strata", "rules.toml");
    fs.writeFileSync(file, 'allow = ["cargo test*", "rm -rf /"]\n');
    await h.click(".header-actions button", "Settings");
    const warning = await h.waitFor("the untrusted note", () => one("[role=dialog] [data-testid=rules-untrusted]"));
    assert.match(norm(await h.driver.text(warning)), /edited outside Strata; its allow rules are ignored until you save it here/);
    const off = await h.run(() => [...document.querySelectorAll("[role=dialog] [data-testid=rule-not-applied]")].map((r) => r.textContent.replace(/\s+/g, " ").trim()));
    assert.equal(off.length, 2, JSON.stringify(off));
    await h.run(() => document.querySelector("[data-testid=rules-untrusted]")?.scrollIntoView({ block: "center" }));
    await h.screenshotBoth("settings-rules-untrusted");
    await h.click("[role=dialog] button", "Cancel");
    await h.waitFor("Settings to close", () => !document.querySelector("[role=dialog]"));
  });
});
