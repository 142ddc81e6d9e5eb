// Forking from before a compaction, from both places that offer it: the
// transcript's compaction divider and the debug console's compaction card.
// Each asks first (the files-not-rewound notice), writes a new session whose
// `session_forked` record names the point, and opens it: the originals
// before the compaction, no summary, nothing later. The parent is unchanged.
// Then Undo on the parent's divider: it asks first, records
// `compaction_undone`, and the next request carries the restored history.

import assert from "node:assert/strict";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { Keys } from "./lib/webdriver.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";

const FIRST_PROMPT = "Sketch the invoice export";
const SECOND_PROMPT = "Which fields does the CSV need";
const SECOND_ANSWER = "FIELDS-ANSWER: number, date, customer, total.";
const SUMMARY = "SUMMARY-FORK: the invoice export was sketched; the CSV fields were listed.";

describe("fork from before a compaction, from the divider and the card; undo from the divider", { timeout: 300_000 }, () => {
  let h;
  let sessionId;
  const forks = [];

  before(async () => {
    h = await Harness.start("forkcompaction");
    sessionId = await h.cliSession(FIRST_PROMPT, (req) => req.respondText("Start with the CSV columns.", usage({ input: 1_500, output: 20 })));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);

  const ready = () => h.waitFor("the app to be ready", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);

  /** The ids of the sessions the CLI lists, the parent's included. */
  async function sessionIds() {
    const { stdout } = await h.cli(["sessions", "list", "--json"]);
    return stdout
      .split("\n")
      .filter(Boolean)
      .flatMap((line) => JSON.parse(line).sessions ?? [])
      .map((s) => s.id);
  }

  /** Confirms the open fork dialog; returns the new session's id once its file names its point. */
  async function confirmFork() {
    const notice = await h.waitFor("the fork's notice", () => norm(one("[role=dialog] [data-testid=fork-files-notice]")?.textContent));
    assert.match(notice, /Files in the workspace are not rewound/);
    assert.match(await h.run(() => norm(one("[role=dialog]")?.textContent)), /just before compaction 1/);
    const known = new Set([sessionId, ...forks]);
    await h.click("[role=dialog] button", "Fork session");
    await h.find(".toast", "Workspace files were not rewound");
    const fresh = (await sessionIds()).filter((id) => !known.has(id));
    assert.equal(fresh.length, 1, JSON.stringify(fresh));
    const [id] = fresh;
    const records = await h.records(id);
    const forked = records.find((r) => r.type === "session_forked");
    assert.equal(forked.payload.parent_session_id, sessionId);
    assert.deepEqual(forked.payload.point, { kind: "before_compaction", number: 1 });
    assert.ok(records.every((r) => !(r.type === "response_item" && r.payload.type === "compaction_summary")), "no summary in the fork");
    forks.push(id);
    return id;
  }

  /** The open session shows the originals from before the compaction and no divider. */
  async function showsTheOriginals(id) {
    await h.waitFor("the fork to be open", (f) => document.querySelector(`.session-node[data-session-id="${f}"] .session-open`)?.getAttribute("aria-current") === "page", [id], 20_000);
    await h.waitFor("the fork's transcript", (answer, summary) => {
      const log = document.querySelector("[role=log]");
      const text = norm(log?.textContent);
      return text.includes(answer) && !text.includes(summary) && !log.querySelector(".compaction-divider");
    }, [SECOND_ANSWER, SUMMARY]);
  }

  step("a second turn, then a manual compaction puts a divider in the transcript", async () => {
    await h.openFromSidebar(FIRST_PROMPT);
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    await h.send(SECOND_PROMPT);
    (await h.mock.nextRequest({ what: "the second turn" })).respondText(SECOND_ANSWER, usage({ input: 1_900, output: 30 }));
    await ready();
    await h.send("/compact");
    const req = await h.mock.nextRequest({ what: "the manual summary" });
    assert.ok(req.isSummary, "a manual compaction asks only for a summary");
    req.respondText(SUMMARY, usage({ input: 1_800, output: 40 }));
    await ready();
    await h.find("[role=log] .compaction-divider");
  });

  step("Fork from before this on the transcript's divider opens a fork holding the originals", async () => {
    await h.click("[role=log] .compaction-divider button", "Fork from before this");
    const id = await confirmFork();
    await showsTheOriginals(id);
  });

  step("the fork's title says (fork); its notice names no id and its link opens the parent; the info popover names the parent (issue 27, items 4, 5 and 14)", async () => {
    const [forkId] = forks;
    const title = await h.waitFor("the fork's title", () => norm(document.querySelector(".conversation-header h1")?.textContent));
    assert.equal(title, `${FIRST_PROMPT} (fork)`);
    const records = await h.records(forkId);
    assert.ok(records.some((r) => r.type === "title_set" && r.payload.title === `${FIRST_PROMPT} (fork)`), "the fork records its own title");
    const notice = await h.waitFor("the fork's notice", () => norm(one("[role=log] [data-testid=fork-notice]")?.textContent));
    assert.match(notice, /^Forked from another session just before its compaction #1: everything above is copied from it\. Open the parent session, “Sketch the invoice export”$/);
    // No raw id in the transcript: neither the parent's nor any item's.
    const log = await h.run(() => norm(document.querySelector("[role=log]")?.textContent));
    assert.doesNotMatch(log, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i);
    assert.doesNotMatch(log, /Compaction policy|Created on/, "the session's facts are not transcript lines");
    // The info popover: a button with aria-expanded; Escape closes it and focus returns.
    // (The fork's toast sits over the header until dismissed.)
    await h.click(".toast button[aria-label=Dismiss]");
    await h.waitFor("the toast gone", () => !document.querySelector(".toast"));
    await h.click(".conversation-header button[aria-label='Session info']");
    const info = await h.waitFor("the session info", () => {
      const panel = one("[data-testid=session-info]");
      const field = (id) => norm(panel?.querySelector(`[data-testid=${id}]`)?.textContent);
      return panel && { parent: field("info-parent"), policy: field("info-policy"), folder: field("info-folder"), profile: field("info-profile") };
    });
    assert.equal(info.parent, "Sketch the invoice export · copied up to just before its compaction #1");
    assert.match(info.policy, /^Base — summarises the history at the threshold$/);
    assert.match(info.folder, /workspace\/demo-project$/);
    assert.match(info.profile, /gpt-5\.4-mini/);
    assert.equal(await h.run(() => one(".conversation-header button[aria-label='Session info']").getAttribute("aria-expanded")), "true");
    await h.screenshot("fork-info-popover");
    await h.driver.sendKeys(await h.run(() => document.activeElement), Keys.ESCAPE);
    await h.waitFor("the popover to close", () => !document.querySelector("[data-testid=session-info]"));
    assert.equal(await h.run(() => document.activeElement?.getAttribute("aria-label")), "Session info");
    // The notice's link opens the parent.
    await h.click("[role=log] [data-testid=fork-parent-link]");
    await h.waitFor("the parent to open", (p) => document.querySelector(`.session-node[data-session-id="${p}"] > .session-row .session-open`)?.getAttribute("aria-current") === "page", [sessionId]);
    assert.equal(await h.run(() => norm(document.querySelector(".conversation-header h1")?.textContent)), FIRST_PROMPT);
  });

  step("Fork from before this on the console's compaction card opens another such fork", async () => {
    await h.click(`.session-node[data-session-id="${sessionId}"] > .session-row .session-open`);
    await h.waitFor("the parent to open", (p) => document.querySelector(`.session-node[data-session-id="${p}"] > .session-row .session-open`)?.getAttribute("aria-current") === "page", [sessionId]);
    await h.click("button", "Debug console");
    await h.click("[role=tab]", "Compactions");
    await h.click("[data-testid=compaction-card] button", "Fork from before this");
    const id = await confirmFork();
    await showsTheOriginals(id);
    // The parent still holds its compaction and nothing of the forks.
    const parent = await h.records(sessionId);
    assert.ok(parent.some((r) => r.type === "response_item" && r.payload.type === "compaction_summary"));
    assert.ok(parent.every((r) => r.type !== "session_forked"));
  });

  step("Undo on the transcript's divider asks first, records the undo, and the next request carries the restored history", async () => {
    await h.click(`.session-node[data-session-id="${sessionId}"] > .session-row .session-open`);
    await h.waitFor("the parent to open", (p) => document.querySelector(`.session-node[data-session-id="${p}"] > .session-row .session-open`)?.getAttribute("aria-current") === "page", [sessionId]);
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    // Offered on the divider once the status names the compaction; the console's card offers its own.
    await h.click("[role=log] .compaction-divider [data-testid=compaction-undo]");
    const explained = await h.waitFor("the divider's explanation", () => norm(one("[role=log] .compaction-divider [data-testid=undo-confirm]")?.textContent));
    assert.match(explained, /Undo this compaction\? The model will see the history exactly as it was just before this compaction, plus everything added since/);
    assert.ok((await h.records(sessionId)).every((r) => r.type !== "compaction_undone"), "nothing is undone before the confirmation");
    await h.run(() => one("[role=log] .compaction-divider [data-testid=undo-confirm]").scrollIntoView({ block: "nearest" }));
    await h.screenshot("undo-divider-confirm");
    await h.click("[role=log] .compaction-divider [data-testid=undo-confirm-button]");
    await h.find(".toast", "Compaction undone");
    await h.waitFor("the divider without Undo", () => document.querySelector("[role=log] .compaction-divider") && !document.querySelector("[role=log] [data-testid=compaction-undo]"), [], 20_000);
    const logText = await h.run(() => norm(document.querySelector("[role=log]")?.textContent));
    assert.match(logText, /Compaction undone: the model sees the history from before the latest compaction again/);
    // Never a raw id in a transcript line (issue 27, item 4).
    assert.doesNotMatch(logText, /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i);
    await h.screenshot("undo-divider-done");

    const records = await h.records(sessionId);
    const undone = records.filter((r) => r.type === "compaction_undone");
    assert.equal(undone.length, 1);
    const summary = records.find((r) => r.type === "response_item" && r.payload.type === "compaction_summary");
    assert.equal(undone[0].payload.summary_item_id, summary.payload.id);

    await h.send("Add a header row");
    const next = await h.mock.nextRequest({ what: "the turn after the undo" });
    assert.ok(!next.isSummary);
    const users = next.inputItems.filter((i) => i.role === "user").map((i) => i.text);
    assert.deepEqual(users, [FIRST_PROMPT, SECOND_PROMPT, "Add a header row"], "the originals again");
    assert.ok(next.inputText.includes("FIELDS-ANSWER"), "the answer the summary had replaced");
    assert.ok(!next.inputText.includes("SUMMARY-FORK"), "no summary");
    next.respondText("Added.", usage({ input: 1_950, output: 10 }));
    await ready();
  });
});
