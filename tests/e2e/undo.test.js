// Issue 12 end to end, the console and the sidebar: a manual compaction,
// then Undo on its card restores the model view to the items from before it;
// an item id copied from the console is pasted as a person would and given to
// the real `strata fork --at`; the sidebar shows the fork under its parent
// and its link selects the parent. Screenshots in light and dark.

import assert from "node:assert/strict";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";
import { Keys } from "./lib/webdriver.js";

const FIRST_PROMPT = "Plan the migration of the orders table";
const SECOND_PROMPT = "List the risky columns first";
const SUMMARY = "SUMMARY-UNDO: the orders migration was planned; risky columns listed.";

describe("undo, copyable ids and fork lineage (issue 12)", { timeout: 300_000 }, () => {
  let h;
  let sessionId;
  let beforeIds;
  let copiedId;
  let forkId;

  before(async () => {
    h = await Harness.start("undo");
    sessionId = await h.cliSession(FIRST_PROMPT, (req) => req.respondText("I will start with the schema.", usage({ input: 1_800, output: 20 })));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);

  /** The ids of what the model sees, from the console's model view. */
  const modelIds = () => h.run(() => all("[data-testid=model-item] [data-testid=history-item]").map((el) => el.dataset.itemId));

  const ready = () => h.waitFor("the app to be ready", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);

  async function theme(name, shot) {
    await h.run((t) => {
      document.documentElement.dataset.theme = t;
    }, name);
    await h.screenshot(shot);
  }

  step("a second turn, then a manual compaction replaces the history with a summary", async () => {
    await h.openFromSidebar(FIRST_PROMPT);
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    await h.send(SECOND_PROMPT);
    (await h.mock.nextRequest({ what: "the second turn" })).respondText("customer_id and total_cents are risky.", usage({ input: 2_100, output: 30 }));
    await ready();
    await h.click("button", "Debug console");
    await h.click("[role=tab]", "Model view");
    await h.waitFor("the model view with both requests", (t) => all("[data-testid=model-item]").some((li) => li.textContent.includes(t)), [SECOND_PROMPT]);
    beforeIds = await modelIds();
    assert.ok(beforeIds.length >= 5 && beforeIds.every(Boolean), JSON.stringify(beforeIds));

    await h.send("/compact");
    const req = await h.mock.nextRequest({ what: "the manual summary" });
    assert.ok(req.isSummary, "a manual compaction asks only for a summary");
    req.respondText(SUMMARY, usage({ input: 2_000, output: 40 }));
    await ready();
    await h.waitFor("the summary in the model view", () => all("[data-testid=model-item]").some((li) => li.dataset.kind === "compaction_summary"));
    assert.notDeepEqual(await modelIds(), beforeIds);
  });

  step("Undo on the latest compaction card says what it restores, then restores the model view", async () => {
    await h.click("[role=tab]", "Compactions");
    const card = await h.find("[data-testid=compaction-card]");
    assert.ok(card);
    assert.equal(await h.run(() => all("[data-testid=compaction-card] [data-testid=compaction-undo]").length), 1, "Undo is offered on the latest card only");
    await h.click("[data-testid=compaction-card] [data-testid=compaction-undo]");
    const explained = await h.waitFor("the explanation", () => norm(one("[data-testid=compaction-card] [data-testid=undo-confirm]")?.textContent));
    assert.match(explained, /exactly as it was just before this compaction, plus everything added since/);
    await h.run(() => {
      const body = document.querySelector(".console-body");
      const box = one("[data-testid=compaction-card] [data-testid=undo-confirm]").closest("[data-testid=compaction-card]");
      body.scrollTo(0, body.scrollTop + box.getBoundingClientRect().top - body.getBoundingClientRect().top - 8);
    });
    await h.screenshot("undo-confirm");
    await h.click("[data-testid=compaction-card] [data-testid=undo-confirm-button]");
    const undoCard = await h.waitFor("the undo as its own step", () => norm(one("[data-testid=undo-card]")?.textContent), [], 20_000);
    assert.match(undoCard, /Compaction #1 undone/);
    assert.equal(await h.run(() => all("[data-testid=compaction-undo]").length), 0, "nothing left to undo, on a card or a divider");
    assert.match(await h.run(() => norm(one("[data-testid=compaction-undone]")?.textContent)), /Undone/);
    await h.run(() => {
      const body = document.querySelector(".console-body");
      const card = one("[data-testid=undo-card]");
      body.scrollTo(0, body.scrollTop + card.getBoundingClientRect().top - body.getBoundingClientRect().top - 40);
    });
    await h.screenshot("undo-console");
    await theme("dark", "undo-console-dark");
    await theme("light", "undo-console-light");

    const records = await h.records(sessionId);
    const undone = records.filter((r) => r.type === "compaction_undone");
    assert.equal(undone.length, 1);
    assert.deepEqual(undone[0].payload.restored, beforeIds, "the record restores the pre-compaction items");

    await h.click("[role=tab]", "Model view");
    await h.waitFor("the restored model view", (ids) => {
      const now = all("[data-testid=model-item] [data-testid=history-item]").map((el) => el.dataset.itemId);
      return JSON.stringify(now) === JSON.stringify(ids);
    }, [beforeIds]);
    assert.equal(await h.run(() => all("[data-testid=model-item]").some((li) => li.dataset.kind === "compaction_summary")), false);
  });

  step("an item id copied from the console pastes whole, as a person uses it with the CLI", async () => {
    const chip = await h.waitFor("the second request's id chip", (t) => {
      const item = all("[data-testid=model-item]").find((li) => li.textContent.includes(t) && li.querySelector("[data-kind=user]"));
      return item?.querySelector("[data-testid=item-id]") ?? null;
    }, [SECOND_PROMPT]);
    const shown = await h.run((el) => ({ short: norm(el.querySelector("code").textContent), full: el.dataset.itemId }), chip);
    assert.equal(shown.short, `${shown.full.slice(0, 8)}…${shown.full.slice(-4)}`);
    const button = await h.run((el) => el.querySelector("button"), chip);
    await h.driver.click(button);
    await h.waitFor("the button to say Copied", (el) => norm(el.querySelector("button").textContent) === "Copied", [chip]);
    await h.screenshot("undo-copy-id");
    const input = await h.find("#composer-input");
    await h.driver.click(input);
    await h.driver.sendKeys(input, `${Keys.CONTROL}v${Keys.NULL}`);
    copiedId = await h.waitFor("the pasted id", () => document.getElementById("composer-input").value.trim() || null);
    assert.equal(copiedId, shown.full);
    await h.driver.clear(input);
  });

  step("a fork made with the real CLI shows its lineage in the sidebar, and its link selects the parent", async () => {
    const forked = await h.cli(["fork", sessionId, "--at", copiedId, "--json"]);
    assert.equal(forked.code, 0, forked.stderr);
    const view = JSON.parse(forked.stdout.trim().split("\n").at(-1));
    forkId = view.session_id;
    assert.equal(view.parent_session_id, sessionId);

    const lineage = await h.waitFor("the fork under its parent", (parent, fork) => {
      const node = document.querySelector(`.session-node[data-session-id="${parent}"] .session-forks .session-node[data-session-id="${fork}"]`);
      return norm(node?.querySelector("[data-testid=session-lineage]")?.textContent) || null;
    }, [sessionId, forkId], 20_000);
    assert.ok(lineage.includes(`Fork of ${FIRST_PROMPT} · after item ${copiedId.slice(0, 8)}…${copiedId.slice(-4)}`), lineage);
    assert.match(await h.run((p) => norm(document.querySelector(`.session-node[data-session-id="${p}"] > [data-testid=forks-toggle]`)?.textContent), sessionId), /^▸ ?1 fork$/);

    await h.click(`.session-node[data-session-id="${forkId}"] .session-open`);
    await h.waitFor("the fork to open", (f) => document.querySelector(`.session-node[data-session-id="${f}"] .session-open`)?.getAttribute("aria-current") === "page", [forkId]);
    // The fork sees exactly what the model saw right after the copied item.
    await h.click("[role=tab]", "Model view");
    const forkIds = await h.waitFor("the fork's model view", (last) => {
      const ids = all("[data-testid=model-item] [data-testid=history-item]").map((el) => el.dataset.itemId);
      return ids.at(-1) === last ? ids : null;
    }, [copiedId]);
    assert.deepEqual(forkIds, beforeIds.slice(0, beforeIds.indexOf(copiedId) + 1));
    await h.screenshot("undo-fork-lineage");
    await theme("dark", "undo-fork-lineage-dark");
    await theme("light", "undo-fork-lineage-light");

    // Keyboard: the link is a button in the tab order; Enter selects the parent.
    const link = await h.find(`.session-node[data-session-id="${forkId}"] [data-testid=lineage-parent]`);
    await h.driver.sendKeys(link, Keys.ENTER);
    await h.waitFor("the parent to be selected", (p) => document.querySelector(`.session-node[data-session-id="${p}"] > .session-row .session-open`)?.getAttribute("aria-current") === "page", [sessionId]);
  });
});
