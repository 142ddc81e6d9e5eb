// Issue 24 in the real app: a home folder holding a Claude Code session and
// a Codex session (written here in each tool's format) is discovered; the
// app asks once whether to show them, and after Show both are in the
// sidebar with their source badges. The Claude Code one opens read-only
// with its compaction card showing the file's preTokens; the Codex one's
// card shows its tokens before and after; the Claude Code card's loss audit
// lists a path read before the compaction and absent from its summary.
// Neither file is written.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { Keys } from "./lib/webdriver.js";

const PRE_TOKENS = 48_213;
const PLANTED_PATH = "src/parser/lexer.rs";
const norm = (text) => (text ?? "").replace(/\s+/g, " ").trim();
const jsonl = (records) => records.map((r) => JSON.stringify(r)).join("\n") + "\n";

function claudeSession() {
  const at = "2026-01-22T01:40:57.814Z";
  const base = { parentUuid: null, isSidechain: false, cwd: "/work/demo", sessionId: "claude-e2e-1", version: "2.1.30", timestamp: at };
  const usage = { input_tokens: 3, cache_creation_input_tokens: 10, cache_read_input_tokens: 100, output_tokens: 40 };
  return [
    { ...base, type: "user", uuid: "u1", message: { role: "user", content: "Find the failing test" } },
    { ...base, type: "assistant", uuid: "u2", requestId: "r1", message: { model: "claude-test", id: "m1", role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "cargo test" } }], usage } },
    { ...base, type: "user", uuid: "u3", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "1 failed" }], is_error: false }] } },
    // Planted: read before the compaction, named nowhere after it.
    { ...base, type: "assistant", uuid: "u3a", requestId: "r1", message: { model: "claude-test", id: "m1", role: "assistant", content: [{ type: "tool_use", id: "toolu_2", name: "Read", input: { file_path: PLANTED_PATH } }], usage } },
    { ...base, type: "user", uuid: "u3b", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: "fn lex() {}", is_error: false }] } },
    { ...base, type: "system", uuid: "u4", subtype: "compact_boundary", compactMetadata: { trigger: "manual", preTokens: PRE_TOKENS } },
    { ...base, type: "user", uuid: "u5", isCompactSummary: true, message: { role: "user", content: "This session is being continued. Summary: the parser test fails." } },
    { ...base, type: "assistant", uuid: "u6", requestId: "r2", message: { model: "claude-test", id: "m2", role: "assistant", content: [{ type: "text", text: "The parser test fails on empty input." }], usage } },
  ];
}

function codexSession() {
  const t = "2026-06-26T12:00:00.000Z";
  const codex = (type, payload) => ({ timestamp: t, type, payload });
  const tokens = (input, output, total) => ({ type: "token_count", info: { total_token_usage: { input_tokens: 0, output_tokens: 0, total_tokens: total }, last_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: output, reasoning_output_tokens: 0, total_tokens: input + output }, model_context_window: 200000 } });
  const user = { type: "message", role: "user", content: [{ type: "input_text", text: "Tidy the build script" }] };
  return [
    codex("session_meta", { id: "thread-e2e-1", timestamp: t, cwd: "/work/demo", cli_version: "0.150.0" }),
    codex("turn_context", { turn_id: "turn-1", cwd: "/work/demo", model: "gpt-test" }),
    codex("response_item", user),
    codex("event_msg", { type: "user_message", message: "Tidy the build script" }),
    codex("event_msg", tokens(5000, 100, 5100)),
    codex("compacted", { message: "", replacement_history: [user, { type: "compaction", encrypted_content: "gAAA" }] }),
    codex("event_msg", { type: "token_count", info: { last_token_usage: { input_tokens: 0, output_tokens: 0, total_tokens: 900 } } }),
    codex("event_msg", { type: "context_compacted" }),
    codex("response_item", { type: "message", role: "assistant", content: [{ type: "output_text", text: "Done." }] }),
    codex("event_msg", tokens(1200, 50, 6350)),
  ];
}

describe("other agents' sessions in the library (issue 24)", { timeout: 300_000 }, () => {
  let h;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "strata-e2e-imported-home-"));
  const claudeFile = path.join(home, ".claude/projects/-work-demo/claude-e2e-1.jsonl");
  const codexFile = path.join(home, ".codex/sessions/2026/06/26/rollout-2026-06-26T12-00-00-thread-e2e-1.jsonl");
  const stamp = (file) => `${fs.statSync(file).mtimeMs}:${fs.readFileSync(file, "utf8")}`;
  let stamps;

  before(async () => {
    for (const [file, records] of [[claudeFile, claudeSession()], [codexFile, codexSession()]]) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, jsonl(records));
    }
    stamps = [stamp(claudeFile), stamp(codexFile)];
    h = await Harness.start("imported", { env: { HOME: home } });
    await h.launchApp();
  });
  after(() => fs.rmSync(home, { recursive: true, force: true }));

  const step = sharedAppSteps(() => h);
  const list = "ul[aria-label=\"Other agents' sessions\"]";

  step("asks once, naming what it found, and Show lists both with their badges", async () => {
    const banner = await h.find("[role=region][aria-label=\"Other agents' sessions\"]");
    const text = norm(await h.run((el) => el.textContent, banner));
    assert.match(text, /Strata found 1 Claude Code and 1 Codex sessions on this computer: show them in your library\?/);
    await h.screenshotBoth("imported-consent");
    await h.click("[role=region] button", "Show");
    const rows = await h.waitFor("both imported sessions", (l) => {
      const found = [...document.querySelectorAll(`${l} li`)].map((li) => li.textContent.replace(/\s+/g, " ").trim());
      return found.length === 2 ? found : null;
    }, [list]);
    assert.ok(rows.some((row) => row.includes("From Claude Code")), rows.join(" | "));
    assert.ok(rows.some((row) => row.includes("From Codex")), rows.join(" | "));
    assert.equal(await h.run(() => document.querySelector("[role=region][aria-label=\"Other agents' sessions\"]")), null, "asked once");
  });

  step("the Claude Code session opens read-only with its compaction card's preTokens", async () => {
    await h.click(`${list} .session-open`, "Claude Code");
    const before = await h.find("main[aria-label=\"Imported session\"] [data-testid=imported-tokens-before]");
    assert.equal(norm(await h.run((el) => el.textContent, before)), PRE_TOKENS.toLocaleString("en-US"));
    const trigger = await h.find("main[aria-label=\"Imported session\"] [data-testid=compaction-trigger]");
    assert.equal(norm(await h.run((el) => el.textContent, trigger)), "Asked for");
    const note = await h.find("[data-testid=imported-readonly]");
    assert.match(norm(await h.run((el) => el.textContent, note)), /Read-only/);
    assert.equal(await h.run(() => document.getElementById("composer-input")), null, "no composer");
    await h.screenshotBoth("imported-claude");
  });

  step("the Claude Code card's loss audit lists the planted path", async () => {
    const loss = await h.find("main[aria-label=\"Imported session\"] [data-testid=imported-loss]");
    await h.run((el) => el.querySelector("details")?.setAttribute("open", ""), loss);
    const text = norm(await h.run((el) => el.textContent, loss));
    assert.match(text, /Lost at this compaction: 1 path, 1 command/);
    const items = await h.run((el) => [...el.querySelectorAll("li")].map((li) => li.textContent), loss);
    assert.ok(items.includes(PLANTED_PATH), items.join(" | "));
    await h.screenshotBoth("imported-loss-audit");
  });

  step("the Codex session's card shows its tokens before and after", async () => {
    await h.click(`${list} .session-open`, "Codex");
    await h.waitFor("the Codex session", () => document.querySelector("main[aria-label=\"Imported session\"] .source-codex"));
    const figures = await h.waitFor("the Codex card's figures", () => {
      const b = document.querySelector("[data-testid=imported-tokens-before]")?.textContent;
      const a = document.querySelector("[data-testid=imported-tokens-after]")?.textContent;
      return b && a ? `${b} → ${a}` : null;
    });
    assert.equal(figures, "5,100 → 900");
    await h.screenshotBoth("imported-codex");
  });

  step("a search hit in another agent's session opens that session at its message", async () => {
    const search = await h.find("nav[aria-label=Sessions] input[type=search]");
    await h.driver.click(search);
    await h.driver.sendKeys(search, "empty input");
    await h.click("section[aria-label=\"Matches in other agents' sessions\"] .search-hit", "parser test");
    const target = await h.waitFor("the hit's message marked", () => document.querySelector("main[aria-label=\"Imported session\"] .search-target")?.textContent ?? null);
    assert.match(norm(target), /The parser test fails on empty input/);
  });

  step("Settings shows each tool's folders on or off, and turning Codex off takes its session from the sidebar", async () => {
    await h.click("button", "Settings");
    const section = await h.find("section", "Other agents' sessions");
    await h.run((el) => el.scrollIntoView(), section);
    await h.screenshotBoth("imported-settings");
    await h.click("label.checkbox-row", "Codex");
    await h.waitFor("the Codex session gone", (l) => [...document.querySelectorAll(`${l} li`)].length === 1, [list]);
    await h.driver.sendKeys(await h.run(() => document.activeElement), Keys.ESCAPE);
    await h.waitFor("Settings closed", () => !document.querySelector("[role=dialog]"));
  });

  step("removing a session from the library leaves its file as it was", async () => {
    await h.click(`${list} .imported-hide`);
    await h.click("[role=dialog] button", "Remove from library");
    await h.waitFor("the list empty", (l) => document.querySelectorAll(`${l} li`).length === 0, [list]);
    assert.deepEqual([stamp(claudeFile), stamp(codexFile)], stamps, "neither file was written");
  });
});
