// Issue 11 end to end: layered context management in the real app. A turn
// reads files through the real read_file tool against the mock provider
// until the reported context crosses the threshold; the console shows the
// eviction and the layered summary with its state sheet and loss audit; the
// gauge says "estimated" right after a compaction; Preview shows what a
// compaction would do without changing the file; the policy changes per
// session and in Settings. Screenshots in light and dark.

import assert from "node:assert/strict";
import fsp from "node:fs/promises";
import path from "node:path";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";

const FIRST_PROMPT = "Review the billing module for rounding bugs";
// Two large files, three small ones, two large ones: each round reads the
// next. At the first crossing of 10,000 the last three rounds are small, so
// evicting the two large outputs is enough; at the second the two large
// ones are among the last three rounds, which eviction never touches, so
// what it could leave is over 75% of the threshold and a summary follows.
const FILES = ["invoice.rs", "tax.rs", "ledger.rs", "refund.rs", "report.rs", "audit.rs", "export.rs"];
const SMALL = new Set(["ledger.rs", "refund.rs", "report.rs"]);
const REPORTED = [3_200, 5_900, 6_300, 6_700, 10_400, 6_800, 11_300, 7_000];
const SUMMARY = "SUMMARY-LAYERED: the billing files were reviewed for rounding.";

/** A source file of about 9 KB (1 KB for the small ones). */
function source(name) {
  const lines = SMALL.has(name) ? 12 : 130;
  return Array.from({ length: lines }, (_, i) => `pub fn ${name.replace(".rs", "")}_amount_${i}(cents: u64) -> u64 { cents * ${i + 1} / 100 } // line ${i}`).join("\n") + "\n";
}

describe("layered context management (issue 11)", { timeout: 300_000 }, () => {
  let h;
  let sessionId;

  before(async () => {
    h = await Harness.start("context", { policy: "layered" });
    await fsp.mkdir(path.join(h.workspace, "src", "billing"), { recursive: true });
    for (const file of FILES) await fsp.writeFile(path.join(h.workspace, "src", "billing", file), source(file));
    sessionId = await h.cliSession(FIRST_PROMPT, (req) => req.respondText("I will read the billing files one by one.", usage({ input: 1_900, output: 30 })));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);
  /** The summary requests the reading turn made (answered by drive). */
  let inTurnSummaries = [];

  /**
   * Answers the app's model requests until the turn is over: each round
   * reads the next file (then answers), every summary request gets SUMMARY.
   */
  async function drive(rounds) {
    let round = 0;
    const summaries = [];
    for (;;) {
      const req = await h.mock.nextRequest({ what: `round ${round + 1}`, timeout: 30_000 });
      if (req.isSummary) {
        summaries.push(req);
        req.respondText(SUMMARY, usage({ input: 3_000, output: 60 }));
        continue;
      }
      const reported = usage({ input: REPORTED[round] ?? 7_000, output: 40 });
      if (round < rounds) {
        req.respondFunctionCall("read_file", { path: `src/billing/${FILES[round]}` }, reported);
        round += 1;
      } else {
        req.respondText("DONE-REVIEW: invoice.rs rounds half-cents down; tax.rs is fine.", reported);
        break;
      }
    }
    await h.waitFor("the turn to finish", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);
    return summaries;
  }

  step("a turn of file reads crosses the threshold: older outputs are evicted, then a layered summary", async () => {
    await h.openFromSidebar(FIRST_PROMPT);
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    await h.send("Read every file in src/billing, one per round");
    inTurnSummaries = await drive(FILES.length);
    // A manual compaction last, so no round has reported since.
    await h.send("/compact");
    for (;;) {
      const req = await h.mock.nextRequest({ what: "the manual summary", timeout: 30_000 });
      assert.ok(req.isSummary, "a manual compaction asks only for a summary");
      req.respondText(SUMMARY, usage({ input: 2_800, output: 60 }));
      break;
    }
    await h.waitFor("the compaction to finish", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);
    const records = await h.records(sessionId);
    const evictions = records.filter((r) => r.type === "tool_outputs_evicted");
    const layered = records.filter((r) => r.type === "layered_compaction");
    assert.ok(evictions.length >= 1, `evictions: ${records.map((r) => r.type).join(",")}`);
    for (const record of evictions.filter((r) => r.payload.trigger === "auto")) {
      // At the threshold, never below it (the round reporting 11,300 of 10,000).
      assert.ok(record.payload.context_tokens >= record.payload.threshold, JSON.stringify(record.payload));
    }
    assert.ok(layered.length >= 1, "a layered summary");
    for (const record of layered) {
      assert.deepEqual(record.payload.loss_audit.paths, [], "no path lost");
      assert.deepEqual(record.payload.loss_audit.commands, [], "no command lost");
      assert.ok(record.payload.state_sheet.files.some((f) => f.path.includes("invoice.rs")), "the sheet keeps the files read");
    }
  });

  step("right after the compaction the footer gauge shows an estimate, labelled", async () => {
    const gauge = await h.waitFor("an estimated gauge", () => {
      const el = document.querySelector("[data-testid=context-gauge]");
      return el && el.classList.contains("estimated") ? norm(el.textContent) : null;
    });
    assert.match(gauge, /≈ \d/);
    // The app's own tooltip, not a native title (issue 27, item 15): its text is on the gauge, shown on hover.
    assert.match(await h.run(() => one("[data-testid=context-gauge]")?.dataset.tooltip), /^Estimated after a compaction/);
    assert.equal(await h.run(() => document.querySelectorAll("[data-testid=context-gauge], [data-testid=context-gauge] [title]").length), 1, "no native title in the gauge");
    assert.equal(await h.run(() => one("[data-testid=context-gauge]").hasAttribute("title")), false);
    const meter = await h.run(() => one("[role=meter]").getAttribute("aria-valuetext"));
    assert.match(meter, /estimated after a compaction/);
    assert.doesNotMatch(gauge, /11\.3k/, "never the pre-compaction report");
  });

  step("a summary is asked for in the session's own context, with no eviction before it at its boundary", async () => {
    assert.equal(inTurnSummaries.length, 1, "one summary in the reading turn");
    const [summary] = inTurnSummaries;
    // The round's own request (its tools, its items) with the instruction appended,
    // so a provider's prompt cache reads the prefix back.
    assert.ok(summary.isInContextSummary, "the session's context with the compaction instruction");
    assert.ok(summary.body.tools.length > 0, "the round's tools, unchanged");
    assert.ok(summary.inputText.includes("read_file"), "the round's calls, as sent");
    const records = await h.records(sessionId);
    // Records the transcript draws nothing for.
    const silent = new Set(["round", "token_usage", "checkpoint", "compaction_guard", "response_item"]);
    const steps = records.filter((r) => !silent.has(r.type) && ["tool_outputs_evicted", "layered_compaction", "turn_started", "turn_finished"].includes(r.type)).map((r) => r.type);
    // The reading turn: an eviction at the first crossing, a summary alone at the second.
    const turn = steps.slice(steps.lastIndexOf("turn_started", steps.indexOf("layered_compaction")));
    assert.deepEqual(turn.slice(0, 4), ["turn_started", "tool_outputs_evicted", "layered_compaction", "turn_finished"], steps.join(","));
    const summaryRecord = records.find((r) => r.type === "layered_compaction");
    assert.match(summaryRecord.payload.summary.metadata.reason, /summarized in the session's own context/);
    const divider = await h.scrollToFind(".compaction-divider");
    const detail = await h.run((el) => ({ eviction: !!el.querySelector("[data-testid=divider-eviction]"), text: norm(el.textContent) }), divider);
    assert.equal(detail.eviction, false, "the divider says only the summary");
    assert.match(detail.text, /Context compacted/);
    await h.screenshot("context-one-divider");
  });

  step("the console shows eviction and summary cards with trigger, policy, state sheet and loss audit", async () => {
    await h.click("button", "Debug console");
    await h.find("[role=tab][aria-selected=true]", "Compactions");
    await h.waitFor("an eviction card", () => all("[data-testid=eviction-card]").length >= 1);
    await h.waitFor("a summary card", () => all("[data-testid=compaction-card]:not(.eviction-card)").length >= 1);
    const reading = await h.run(() => norm(one("[data-testid=context-reading]").textContent));
    assert.match(reading, /^≈ [\d,]+ tokens estimate until the next model call reports/);
    const eviction = await h.run(() => {
      const card = one("[data-testid=eviction-card]");
      return { count: norm(card.querySelector("[data-testid=eviction-count]").textContent), freed: norm(card.querySelector("[data-testid=eviction-freed]").textContent) };
    });
    assert.ok(Number(eviction.count) >= 1, JSON.stringify(eviction));
    assert.match(eviction.freed, /^≈ [\d,]+$/, "an estimate, marked ≈");
    assert.ok(Number(eviction.freed.replace(/[≈\s,]/g, "")) > 0, JSON.stringify(eviction));
    const newest = await h.run(() => {
      const card = one("[data-testid=compaction-card]:not(.eviction-card)");
      return { trigger: norm(card.querySelector("[data-testid=compaction-trigger]").textContent), policy: norm(card.querySelector("[data-testid=compaction-policy]")?.textContent), audit: norm(card.querySelector("[data-testid=loss-audit]")?.textContent) };
    });
    assert.equal(newest.trigger, "Asked for");
    assert.equal(newest.policy, "Layered");
    assert.match(newest.audit, /every path, command and error/);
    await h.click("[data-testid=compaction-card] button", "State sheet");
    const files = await h.waitFor("the state sheet", () => norm(one("[data-testid=sheet-files]")?.textContent));
    assert.match(files, /src\/billing\/invoice\.rs/);
    // Scroll the console alone (scrollIntoView would move the whole window too).
    await h.run(() => {
      const body = document.querySelector(".console-body");
      const card = one("[data-testid=state-sheet]").closest("[data-testid=compaction-card]");
      body.scrollTo(0, body.scrollTop + card.getBoundingClientRect().top - body.getBoundingClientRect().top - 8);
    });
    await h.screenshot("context-console-cards");
    await h.run(() => {
      document.querySelector(".console-body").scrollTo(0, 0);
    });
  });

  step("Preview shows what a compaction would do and leaves the file byte-identical", async () => {
    const sessionFile = await h.sessionFile(sessionId);
    const before = await fsp.readFile(sessionFile);
    await h.click("button", "Preview compaction");
    await h.find("[role=dialog]", "Compaction preview");
    await h.waitFor("the preview's figures", () => !!one("[data-testid=preview-before]"));
    const figures = await h.run(() => ({
      policy: norm(one("[data-testid=preview-policy]").textContent),
      before: norm(one("[data-testid=preview-before]").textContent),
      after: norm(one("[data-testid=preview-after]").textContent),
      summary: norm(one("[data-testid=preview-summary]").textContent),
    }));
    assert.equal(figures.policy, "Layered");
    assert.ok(Number(figures.before.replace(/,/g, "")) > 0, JSON.stringify(figures));
    assert.match(figures.summary, /kept|keep/);
    await h.screenshot("context-preview");
    // Dark, the same dialog.
    await h.run(() => {
      document.documentElement.dataset.theme = "dark";
    });
    await h.screenshot("context-preview-dark");
    await h.run(() => {
      document.documentElement.dataset.theme = "light";
    });
    await h.click("[role=dialog] button", "Close");
    await h.waitFor("the preview to close", () => !document.querySelector("[data-testid=compaction-preview]"));
    assert.deepEqual(await fsp.readFile(sessionFile), before, "the preview wrote nothing");
    assert.equal(h.mock.unanswered().length, 0, "the preview called no model");
  });

  step("the session's policy changes from the console and is recorded", async () => {
    await h.click("[role=radiogroup][aria-label='Compaction policy for this session'] label", "Off");
    await h.waitFor("off selected", () => one("[role=radiogroup] input[value=off]")?.checked === true);
    const records = await h.records(sessionId);
    const policies = records.filter((r) => r.type === "compaction_policy").map((r) => r.payload.policy);
    assert.equal(policies.at(-1), "off");
    await h.click("[role=radiogroup][aria-label='Compaction policy for this session'] label", "Layered");
    await h.waitFor("layered selected", () => one("[role=radiogroup] input[value=layered]")?.checked === true);
    // The footer and the console read the same figure.
    const figures = await h.waitFor("the footer and the console to agree", () => {
      const footer = norm(one("[data-testid=context-gauge] .gauge-numbers")?.textContent);
      const console = norm(one("[data-testid=context-reading] strong")?.textContent);
      // Both are the labelled estimate; the footer rounds to tenths of a
      // thousand ("≈ 2.1k"), the console prints the count ("≈ 2,112").
      const tokens = (text) => {
        const m = /^≈ ([\d.,]+)(k?)/.exec(text ?? "");
        return m ? Number(m[1].replace(/,/g, "")) * (m[2] ? 1000 : 1) : null;
      };
      const [f, c] = [tokens(footer), tokens(console)];
      return f !== null && c !== null && Math.abs(f - c) <= 50 ? { footer, console } : null;
    });
    assert.ok(figures);
    await h.run(() => {
      document.documentElement.dataset.theme = "dark";
    });
    await h.screenshot("context-console-dark");
    await h.run(() => {
      document.documentElement.dataset.theme = "light";
    });
  });

  step("the next round's report replaces the estimate; the rounds tab shows estimate drift", async () => {
    await h.send("What is left?");
    const req = await h.mock.nextRequest({ what: "the round after the compaction" });
    assert.ok(req.inputText.includes("invoice.rs"), "the state sheet travels with the history");
    req.respondText("Only the refund path.", usage({ input: 2_500, output: 20 }));
    await h.waitFor("a reported gauge", () => {
      const el = document.querySelector("[data-testid=context-gauge]");
      return el && !el.classList.contains("estimated") && norm(el.textContent).includes("2.5k");
    });
    await h.click("[role=tab]", "Rounds and events");
    await h.click("button", "How far the estimates were off");
    await h.waitFor("drift rows", () => all("[data-testid=drift-row]").length > 0);
    const last = await h.run(() =>
      all("[data-testid=drift-row]")
        .map((r) => Array.from(r.children).map((cell) => norm(cell.textContent)))
        .at(-1),
    );
    assert.equal(last[2], "2,500", `reported input of the last round: ${last}`);
    assert.match(last[1], /^≈ [\d,]+$/);
    assert.match(last[3], /^[+−±]\d+%$/);
    await h.screenshot("context-drift");
  });

  step("Settings offer the default policy and a threshold in three forms, checked by the app", async () => {
    await h.click("button", "Settings");
    const group = await h.find("[role=dialog] fieldset", "Context management");
    assert.ok(group);
    const input = await h.find("[role=dialog] input[placeholder=\"Each policy's default\"]");
    await h.driver.click(input);
    await h.driver.sendKeys(input, "left:8000");
    const note = await h.waitFor("the checked threshold", () => {
      const text = norm(one("[data-testid=threshold-note]")?.textContent);
      return text.startsWith("Compacts at") ? text : null;
    });
    assert.match(note, /Compacts at 24,000 tokens of the active profile's 32,000-token window/);
    await h.run(() => {
      const box = document.querySelector("[role=dialog] .modal-body");
      box.scrollTo(0, box.scrollTop + one("[data-testid=compaction-settings]").getBoundingClientRect().top - box.getBoundingClientRect().top - 8);
    });
    await h.screenshot("context-settings");
    await h.click("[role=dialog] button", "Save settings");
    await h.waitFor("the dialog to close", () => !document.querySelector("[role=dialog]"));
    const prefs = await fsp.readFile(path.join(h.home, "config", "desktop.toml"), "utf8");
    assert.match(prefs, /compact_threshold = "left:8000"/);
  });
});

