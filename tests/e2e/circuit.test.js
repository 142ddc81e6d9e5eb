// Issue 11's circuit breaker end to end, in the real app against the mock
// provider: a turn of file reads whose every round reports more than the
// threshold, while the provider answers every (non-streamed) summary request
// with an error. After three compactions in a row used up their summary
// attempts, the session's auto-compaction circuit opens: the banner says so
// and names the provider's error, the turn goes on uncompacted, and the
// banner's Retry compacts now; the summary succeeds and the banner closes.

import assert from "node:assert/strict";
import fsp from "node:fs/promises";
import path from "node:path";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";

const FIRST_PROMPT = "Audit the ledger module for unbalanced entries";
const FILES = ["journal.rs", "accounts.rs", "balance.rs", "posting.rs"];
const FAILURE = "the summary deployment is unavailable (test server)";
const SUMMARY = "SUMMARY-RETRIED: the ledger files were read; nothing is unbalanced yet.";

/** A source file of about 3 KB. */
function source(name) {
  return Array.from({ length: 40 }, (_, i) => `pub fn ${name.replace(".rs", "")}_entry_${i}(debit: i64, credit: i64) -> i64 { debit - credit } // line ${i}`).join("\n") + "\n";
}

describe("the auto-compaction circuit breaker (issue 11)", { timeout: 300_000 }, () => {
  let h;
  let sessionId;

  before(async () => {
    h = await Harness.start("circuit", { policy: "layered" });
    await fsp.mkdir(path.join(h.workspace, "src", "ledger"), { recursive: true });
    for (const file of FILES) await fsp.writeFile(path.join(h.workspace, "src", "ledger", file), source(file));
    sessionId = await h.cliSession(FIRST_PROMPT, (req) => req.respondText("I will read the ledger files one by one.", usage({ input: 1_900, output: 30 })));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);

  step("three compactions whose summaries fail open the circuit, and the banner names what happened", async () => {
    await h.openFromSidebar(FIRST_PROMPT);
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    await h.send("Read every file in src/ledger, one per round");
    let round = 0;
    let failedSummaries = 0;
    for (;;) {
      const req = await h.mock.nextRequest({ what: `round ${round + 1}`, timeout: 30_000 });
      if (req.isSummary) {
        failedSummaries += 1;
        req.respondError(400, FAILURE, "invalid_request_error");
        continue;
      }
      // Every round reports twice the threshold of 10,000: evicting old
      // outputs cannot bring it under, so each boundary needs a summary.
      const reported = usage({ input: 20_000 + 400 * round, output: 40 });
      if (round < FILES.length) {
        req.respondFunctionCall("read_file", { path: `src/ledger/${FILES[round]}` }, reported);
        round += 1;
      } else {
        req.respondText("DONE-AUDIT: journal.rs posts a debit without its credit.", reported);
        break;
      }
    }
    await h.waitFor("the turn to finish", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);
    assert.ok(failedSummaries >= 3, `summary requests answered with an error: ${failedSummaries}`);

    const records = await h.records(sessionId);
    const failures = records.filter((r) => r.type === "compaction_guard" && r.payload.kind === "summary_failed");
    assert.equal(failures.length, 3, "three failed compactions, then no more attempts");
    assert.equal(records.filter((r) => r.type === "layered_compaction").length, 0);
    // The turn went on uncompacted and finished.
    assert.equal(records.filter((r) => r.type === "turn_finished").at(-1).payload.outcome, "completed");

    const banner = await h.waitFor("the circuit banner", () => norm(document.querySelector("[data-testid=circuit-banner]")?.textContent));
    assert.match(banner, /Automatic compaction is paused\./);
    assert.match(banner, /Three compactions in a row could not get a summary from the model or were refused/);
    const reason = await h.run(() => norm(one("[data-testid=circuit-reason]").textContent));
    assert.ok(reason.startsWith("Last error:") && reason.includes(FAILURE), reason);
    assert.equal(await h.run(() => one("[data-testid=circuit-banner]").getAttribute("role")), "alert");
    await h.screenshot("circuit-banner");

    // The console's context controls say the same, with the reason and a Retry.
    await h.click("button", "Debug console");
    const inConsole = await h.waitFor("the console's circuit notice", () => norm(document.querySelector("[data-testid=console-circuit]")?.textContent));
    assert.match(inConsole, /Automatic compaction is paused after three compactions in a row whose summary failed or was refused\./);
    assert.ok(inConsole.includes(FAILURE), inConsole);
    assert.equal(await h.run(() => one("[data-testid=console-circuit] button").disabled), false);
    await h.screenshot("circuit-console");
    await h.click("button", "Debug console");
  });

  step("Retry compacts now: the summary succeeds, the banner closes and the circuit is recorded closed", async () => {
    await h.click("[data-testid=circuit-banner] button", "Retry compaction");
    const req = await h.mock.nextRequest({ what: "the retried summary", timeout: 30_000 });
    assert.ok(req.isSummary, "Retry asks only for a summary");
    assert.ok(req.inputText.includes("journal.rs"), "the summary is made from the session's reads");
    req.respondText(SUMMARY, usage({ input: 3_000, output: 60 }));
    await h.waitFor("the compaction to finish", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);
    await h.waitFor("the banner to close", () => !document.querySelector("[data-testid=circuit-banner]"));
    const records = await h.records(sessionId);
    const layered = records.filter((r) => r.type === "layered_compaction");
    assert.equal(layered.length, 1);
    assert.ok(layered[0].payload.summary.summary.startsWith(SUMMARY), layered[0].payload.summary.summary);
    assert.equal(layered[0].payload.summary.metadata.trigger, "manual");
    // The gauge shows the estimate the compaction recorded, labelled.
    const gauge = await h.waitFor("an estimated gauge", () => {
      const el = document.querySelector("[data-testid=context-gauge]");
      return el && el.classList.contains("estimated") ? norm(el.textContent) : null;
    });
    assert.match(gauge, /≈ \d/);
    assert.match(await h.run(() => one("[data-testid=context-gauge]")?.dataset.tooltip), /^Estimated after a compaction/);
    await h.screenshot("circuit-closed");
  });
});
