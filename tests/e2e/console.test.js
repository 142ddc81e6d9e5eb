// Issue 6 end to end: the debug console on the real app. Turns run against
// the mock provider until two compactions happen; the console must show
// what the mock reported and returned, live and again after a restart.

import assert from "node:assert/strict";
import { before, describe } from "node:test";
import { Harness, THRESHOLD } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { Keys } from "./lib/webdriver.js";
import { usage } from "./lib/mock-provider.js";

// Five turns: the CLI's, one crossing the threshold, one after it (smaller,
// as a compacted history is), one crossing again, then one more.
const PROMPTS = [
  "What is in this repository?",
  "Add a CHANGELOG entry please",
  "Which files mention the version?",
  "Now bump the version to 0.2.0",
];
const ANSWERS = [
  "FIRST-ANSWER: a README and a main.rs.",
  "ASSISTANT-TWO: the changelog needs a version header.",
  "ASSISTANT-THREE: only Cargo.toml mentions it.",
  "ASSISTANT-FOUR: bumped to 0.2.0 in Cargo.toml.",
];
const REPORTED = [
  usage({ input: 3_100, output: 40 }),
  usage({ input: 10_412, output: 96 }), // 10,508: crosses 10,000
  usage({ input: 4_150, output: 52 }), // 4,202 after the first compaction
  usage({ input: 10_960, output: 120 }), // 11,080: crosses again
];
const CROSSING_TOKENS = [10_508, 11_080];
const SUMMARIES = [
  "SUMMARY-ONE: the user toured the repository and asked for a changelog entry.",
  "SUMMARY-TWO: repository tour, changelog entry and the version bump to 0.2.0.",
];
const SUMMARY_USAGE = [usage({ input: 2_050, output: 64 }), usage({ input: 1_800, output: 70 })];
// The core's rule: keep the leading system message and the user messages,
// add the summary, drop the rest (answers, and an earlier summary).
const EXPECTED_COUNTS = [
  { removed: 2, kept: 3 }, // [system, u1, a1, u2, a2]
  { removed: 3, kept: 5 }, // [system, summary 1, u1, u2, u3, a3, u4, a4]
];

const exact = (n) => n.toLocaleString("en-US");

describe("debug console (issue 6)", { timeout: 240_000 }, () => {
  let h;
  let sessionId;
  let liveCards;
  let liveChart;
  let liveFreed;

  before(async () => {
    h = await Harness.start("console");
    sessionId = await h.cliSession(PROMPTS[0], (req) => req.respondText(ANSWERS[0], REPORTED[0]));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);

  /** Every card's numbers, in display order (newest first). */
  const cards = () =>
    h.run(() =>
      all("[data-testid=compaction-card]").map((card) => {
        const field = (id) => norm(card.querySelector(`[data-testid=${id}]`)?.textContent);
        return {
          contextTokens: field("compaction-context-tokens"),
          threshold: field("compaction-threshold"),
          removed: field("compaction-removed"),
          kept: field("compaction-kept"),
          summary: field("compaction-summary"),
          usage: field("compaction-summarizer-usage"),
        };
      }),
    );

  /** Turn `n` (1-based after the CLI's 0): its answer, and when it crosses the threshold, the summary. */
  async function turn(n) {
    const compactionsBefore = await h.run(() => all("[role=separator].compaction-divider").length);
    await h.send(PROMPTS[n]);
    const round = await h.mock.nextRequest({ what: `turn ${n}` });
    round.respondText(ANSWERS[n], REPORTED[n]);
    const crossing = CROSSING_TOKENS.indexOf(REPORTED[n].input_tokens + REPORTED[n].output_tokens);
    if (crossing >= 0) {
      const summary = await h.mock.nextRequest({ what: `summary ${crossing + 1}` });
      assert.ok(!(summary.body.tools?.length > 0), "the summary request offers no tools");
      assert.ok(summary.inputText.includes(ANSWERS[n]), "the summarizer sees the answer it replaces");
      summary.respondText(SUMMARIES[crossing], SUMMARY_USAGE[crossing]);
      await h.waitFor(`compaction divider ${crossing + 1}`, (count) => all("[role=separator].compaction-divider").length === count, [crossing + 1]);
    }
    await h.find(".message-assistant", ANSWERS[n]);
    await h.waitFor("the turn to finish", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready");
    assert.equal(await h.run(() => all("[role=separator].compaction-divider").length), compactionsBefore + (crossing >= 0 ? 1 : 0));
  }

  step("runs turns until two compactions happen", async () => {
    await h.openFromSidebar(PROMPTS[0]);
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    for (const n of [1, 2, 3]) await turn(n);

    const records = await h.records(sessionId);
    const compactions = records.filter((r) => r.type === "response_item" && r.payload.type === "compaction_summary");
    assert.equal(compactions.length, 2, "two compaction records in the session file");
    compactions.forEach((record, i) => {
      const m = record.payload.metadata;
      assert.equal(m.context_tokens, CROSSING_TOKENS[i]);
      assert.equal(m.threshold, THRESHOLD);
      assert.deepEqual({ removed: m.removed, kept: m.kept }, EXPECTED_COUNTS[i]);
      assert.equal(m.trigger, "auto");
    });
  });

  step("the tile says 2 and each card shows what the mock reported and returned", async () => {
    await h.click("button", "Debug console");
    await h.find("[role=tab][aria-selected=true]", "Compactions");
    await h.waitFor("the tile to count 2", () => norm(one("[data-testid=compactions-count]")?.textContent) === "2");
    await h.waitFor("two cards", () => all("[data-testid=compaction-card]").length === 2);
    // Freed: the fold's estimate of each history before minus after, one estimator, marked ≈.
    liveFreed = await h.run(() => norm(one("[data-testid=compactions-reclaimed]").textContent));
    assert.match(liveFreed, /^≈ \d/);
    // Expand both summaries.
    for (const button of await h.driver.findAll("[data-testid=compaction-card] button[aria-expanded=false]")) {
      await h.driver.click(button);
    }
    await h.waitFor("both summaries shown", () => all("[data-testid=compaction-summary]").length === 2);

    liveCards = await cards();
    // Newest first: card 0 is compaction 2.
    [1, 0].forEach((n, position) => {
      const card = liveCards[position];
      assert.equal(card.contextTokens, exact(CROSSING_TOKENS[n]), `card ${n + 1} token count`);
      assert.equal(card.threshold, exact(THRESHOLD), `card ${n + 1} threshold`);
      assert.equal(card.removed, String(EXPECTED_COUNTS[n].removed), `card ${n + 1} removed`);
      assert.equal(card.kept, String(EXPECTED_COUNTS[n].kept), `card ${n + 1} kept`);
      assert.ok(card.summary.includes(SUMMARIES[n]), `card ${n + 1} summary: ${card.summary}`);
      assert.ok(card.usage.includes(`${(SUMMARY_USAGE[n].input_tokens / 1000).toFixed(1).replace(/\.0$/, "")}k in`), `card ${n + 1} summarizer usage: ${card.usage}`);
    });
    await h.run(() => document.querySelector(".console-body").scrollTo(0, document.querySelector("[data-testid=compaction-list]").offsetTop - 40));
    await h.screenshot("console-compactions");
  });

  step("the chart plots every round with the threshold and both compactions", async () => {
    await h.run(() => document.querySelector(".console-body").scrollTo(0, 0));
    const chart = await h.find("[data-testid=context-chart] [role=img]");
    assert.ok(chart);
    liveChart = await h.run(() => one("[data-testid=context-chart] [role=img]").getAttribute("aria-label"));
    assert.match(liveChart, /over 4 rounds; peak 11\.1k, threshold 10k, window 32k; 2 compactions\./);
    assert.ok(await h.run(() => !!one("[data-testid=context-chart] canvas")), "uPlot drew a canvas");
    // Keyboard: from the last round, one step left reads round 3's numbers.
    await h.driver.sendKeys(chart, Keys.ARROW_LEFT);
    const readout = await h.waitFor("the readout for round 3", () => {
      const text = norm(one("[data-testid=chart-readout]")?.textContent);
      return text.includes("Round 3") ? text : null;
    });
    assert.match(readout, /4\.2k context \(4\.2k in, 52 out\)/);
    await h.screenshot("console-chart");
  });

  step("the before/after view shows what the model lost and what it got", async () => {
    // Card 0 is the newest: compaction 2.
    const [newest] = await h.driver.findAll("[data-testid=compaction-card]");
    assert.ok(newest);
    await h.click("[data-testid=compaction-card] button", "Before / after");
    await h.find("[data-testid=before-after]");
    const before = await h.run(() => norm(one("[data-testid=before-after-before]").textContent));
    const afterText = await h.run(() => norm(one("[data-testid=before-after-after]").textContent));
    assert.ok(before.includes("ASSISTANT-FOUR"), "the removed answer is on the left");
    assert.ok(afterText.includes("SUMMARY-TWO"), "the new summary is on the right");
    assert.ok(!afterText.includes("ASSISTANT-FOUR"), "the removed answer is not kept");
    assert.ok(afterText.includes(PROMPTS[3]), "the user's messages are kept");
    await h.screenshot("console-before-after");
    await h.click("[role=dialog] button[aria-label=Close]");
    await h.waitFor("the dialog to close", () => !document.querySelector("[data-testid=before-after]"));
  });

  step("the model view shows system, summary and kept user messages, not the removed answers", async () => {
    await h.click("[role=tab]", "Model view");
    await h.find("[data-testid=model-view]");
    const items = await h.waitFor("the model items", () => {
      const found = all("[data-testid=model-item]").map((li) => ({ kind: li.dataset.kind, text: norm(li.textContent) }));
      return found.length ? found : null;
    });
    const text = items.map((i) => i.text).join("\n");
    assert.equal(items.length, 6, `system + summary + 4 user messages: ${JSON.stringify(items.map((i) => i.kind))}`);
    assert.match(items[0].text, /You are Strata/);
    assert.equal(items.filter((i) => i.kind === "compaction_summary").length, 1);
    assert.ok(text.includes("SUMMARY-TWO"), "the latest summary");
    assert.ok(!text.includes("SUMMARY-ONE"), "not the replaced summary");
    for (const prompt of PROMPTS) assert.ok(text.includes(prompt), `kept: ${prompt}`);
    for (const answer of ANSWERS) assert.ok(!text.includes(answer.split(":")[0]), `removed: ${answer}`);
    await h.screenshot("console-model-view");

    // And that is what the model is sent next.
    await h.send("What is left to do?");
    const next = await h.mock.nextRequest({ what: "the round after two compactions" });
    assert.ok(next.inputText.includes("SUMMARY-TWO"));
    for (const answer of ANSWERS) assert.ok(!next.inputText.includes(answer.split(":")[0]), `not sent: ${answer}`);
    for (const prompt of PROMPTS) assert.ok(next.inputText.includes(prompt), `sent: ${prompt}`);
    next.respondText("FOURTH-ANSWER: tag the release.", usage({ input: 2_400, output: 30 }));
    await h.find(".message-assistant", "FOURTH-ANSWER");
    await h.waitFor("the turn to finish", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready");
  });

  step("the rounds and events log lists every round", async () => {
    await h.click("[role=tab]", "Rounds and events");
    await h.find("[data-testid=event-log]");
    await h.waitFor("log rows", () => all("[data-testid=log-row]").length > 0);
    // Five rounds: the CLI's, the three turns above and the one after them.
    await h.waitFor("the log count", () => /· 5 model calls/.test(norm(one("[data-testid=log-count]")?.textContent)));
    await h.screenshot("console-log");
    await h.click("[role=group][aria-label='Event kinds'] button", "Compactions");
    const rows = await h.waitFor("only compaction rows", () => {
      const found = all("[data-testid=log-row]").map((r) => norm(r.textContent));
      return found.length > 0 && found.every((r) => /compact/i.test(r)) ? found : null;
    });
    assert.ok(rows.some((r) => r.includes("11,080") || r.includes("11.1k")), `rows: ${rows.join(" | ")}`);
  });

  step("after a restart, the session opened from the sidebar shows the same cards and chart", async () => {
    await h.restartApp();
    await h.openFromSidebar(PROMPTS[0]);
    await h.click("button", "Debug console");
    await h.waitFor("the tile to count 2", () => norm(one("[data-testid=compactions-count]")?.textContent) === "2");
    for (const button of await h.driver.findAll("[data-testid=compaction-card] button[aria-expanded=false]")) {
      await h.driver.click(button);
    }
    await h.waitFor("both summaries shown", () => all("[data-testid=compaction-summary]").length === 2);
    assert.deepEqual(await cards(), liveCards, "the same cards as live");
    // The console folded from the file again shows what the live updates built.
    assert.equal(await h.run(() => norm(one("[data-testid=compactions-reclaimed]").textContent)), liveFreed);
    const chart = await h.run(() => one("[data-testid=context-chart] [role=img]")?.getAttribute("aria-label"));
    // One more round ran (the fourth turn) since the live check.
    assert.match(chart, /over 5 rounds; peak 11\.1k, threshold 10k, window 32k; 2 compactions\./);
    assert.notEqual(liveChart, undefined);
  });

  step("one figure per concept: every estimate marked ≈, Preview offers Compact now (issue 27 item 14)", async () => {
    await h.click("[role=tab]", "Compactions");
    await h.waitFor("two cards", () => all("[data-testid=compaction-card]").length === 2);
    const text = await h.run(() => norm(one(".console-body").textContent));
    assert.ok(!/reclaimed|trigger − next round|Between rounds|drift/.test(text), `old words in the console: ${text.slice(0, 400)}`);
    const figures = await h.textOf("[data-testid=compaction-estimate]");
    assert.equal(figures.length, 2);
    for (const line of figures) assert.match(line, /^≈ [\d,]+ → ≈ [\d,]+ tokens · ≈ [\d,]+ freed/);
    await h.click("button", "Preview compaction");
    const compact = await h.find("[role=dialog] button", "Compact now");
    assert.ok(compact, "the preview offers Compact now");
    await h.screenshotBoth("console-figures-preview");
    await h.click("[role=dialog] footer.modal-footer button", "Close");
    await h.waitFor("the preview to close", () => !document.querySelector("[data-testid=compaction-preview]"));
    await h.screenshotBoth("console-figures");
  });

  step("the rounds log fills the panel under its filters, follows the newest row, tabs open at the top (issue 27 item 13)", async () => {
    // Scrolled down in one tab, another tab opens at its top.
    await h.run(() => document.querySelector(".console-body").scrollTo(0, 400));
    await h.click("[role=tab]", "Rounds and events");
    await h.find("[data-testid=event-log]");
    assert.equal(await h.run(() => document.querySelector(".console-body").scrollTop), 0, "the tab opened at its top");
    // The estimate table is folded away: it no longer takes the log's rows.
    assert.equal(await h.run(() => all("[data-testid=drift-row]").length), 0, "the drift table is folded");
    const layout = await h.run(() => {
      const panel = document.querySelector(".console-body").getBoundingClientRect();
      const log = document.querySelector(".log-scroller").getBoundingClientRect();
      return { share: log.height / panel.height, rows: all("[data-testid=log-row]").filter((r) => { const b = r.getBoundingClientRect(); return b.bottom > log.top && b.top < log.bottom; }).length };
    });
    assert.ok(layout.share > 0.6, `the log takes ${Math.round(layout.share * 100)}% of the panel`);
    assert.ok(layout.rows > 5, `${layout.rows} rows in view`);
    assert.equal(await h.run(() => document.querySelector("[data-testid=log-follow]").checked), true, "follows the newest row");
    // The newest row is in view at the bottom.
    assert.ok(await h.run(() => {
      const log = document.querySelector(".log-scroller");
      return log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    }), "scrolled to the newest row");
    await h.screenshotBoth("console-log-fills");
  });

  step("with the console open, a streamed turn reloads nothing: its updates arrive on the turn's events (issue 21)", async () => {
    // The person's own session is open live: the composer takes the next message at once.
    await h.waitFor("the composer to be writable", () => document.querySelector(".composer textarea")?.disabled === false);
    await h.click("[role=tab]", "Rounds and events");
    await h.waitFor("the log count", () => /· 5 model calls/.test(norm(one("[data-testid=log-count]")?.textContent)));
    await h.startCommandLog();
    await h.send("One more question");
    const round = await h.mock.nextRequest({ what: "the turn with the console open" });
    round.respondText("STREAMED-ANSWER: a long answer in many pieces.", usage({ input: 2_600, output: 40 }));
    await h.find(".message-assistant", "STREAMED-ANSWER");
    await h.waitFor("the turn to finish", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready");
    // The new round reached the log through the live updates.
    await h.waitFor("the log to count the new round", () => /· 6 model calls/.test(norm(one("[data-testid=log-count]")?.textContent)));
    const log = await h.commandLog();
    assert.ok(log.includes("send_message"), `commands: ${log.join(", ")}`);
    const reloads = log.filter((cmd) => ["open_session", "open_console", "compaction_views", "compaction_status", "open_transcript", "round_requests"].includes(cmd));
    assert.deepEqual(reloads, [], `no whole-session reload during or after the turn: ${log.join(", ")}`);
  });
});
