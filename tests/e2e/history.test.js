// Issue 12 end to end: the history actions on transcript items in the real
// app, against the mock provider, under the layered policy. A read_file
// output is pinned from its card and stays whole through two compactions
// (the model view and the next request both carry it); "Compact up to here"
// on a message puts the divider just above it and keeps what follows;
// "Fork from here" says the workspace is not rewound, opens a new session
// holding the earlier items only, and the sidebar lists it. Screenshots in
// light and dark at each step.

import assert from "node:assert/strict";
import fsp from "node:fs/promises";
import path from "node:path";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";

const FIRST_PROMPT = "Keep the release checklist in mind while we tidy the parser";
const NOTES = Array.from({ length: 24 }, (_, i) => `NOTE-${String(i + 1).padStart(2, "0")}: release step ${i + 1} must stay exactly as written`);
const SUMMARY = "SUMMARY-HISTORY: the parser is being tidied; the release notes are pinned.";

describe("history actions on messages and tool cards (issue 12)", { timeout: 300_000 }, () => {
  let h;
  let sessionId;

  before(async () => {
    h = await Harness.start("history", { policy: "layered" });
    await fsp.mkdir(path.join(h.workspace, "docs"), { recursive: true });
    await fsp.writeFile(path.join(h.workspace, "docs", "release.md"), `${NOTES.join("\n")}\n`);
    sessionId = await h.cliSession(FIRST_PROMPT, (req) => req.respondText("Understood: the checklist first.", usage({ input: 1_200, output: 20 })));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);

  const ready = () => h.waitFor("the app to be ready", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);

  /** One turn answered with `text`. */
  async function turn(prompt, text, input) {
    await h.send(prompt);
    const req = await h.mock.nextRequest({ what: `the answer to "${prompt}"` });
    assert.ok(!req.isSummary);
    req.respondText(text, usage({ input, output: 20 }));
    await ready();
  }

  /** The "…" button of the transcript item (`article` or tool card) holding `text`, focused so its row shows it. */
  async function menuButtonOf(selector, text) {
    // The transcript is virtualised: bring the item's row in first.
    await h.scrollToFind(selector, text);
    return h.waitFor(`the actions of "${text}"`, (s, t) => {
      const item = all(s).find((el) => norm(el.textContent).includes(t));
      const button = item?.querySelector("[data-testid=item-menu-button]");
      button?.focus();
      return button ?? null;
    }, [selector, text]);
  }

  const both = (name) => h.screenshotBoth(name);

  step("a read_file output is pinned from its card and the pin is recorded", async () => {
    await h.openFromSidebar(FIRST_PROMPT);
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    await h.send("Read the release notes in docs/release.md");
    let req = await h.mock.nextRequest({ what: "the read" });
    req.respondFunctionCall("read_file", { path: "docs/release.md" }, usage({ input: 1_500, output: 20 }));
    req = await h.mock.nextRequest({ what: "the answer after the read" });
    req.respondText("NOTES-READ: 24 release steps.", usage({ input: 2_100, output: 20 }));
    await ready();

    const card = "section[aria-label='Tool call read_file']";
    const pin = await h.find(`${card} [data-testid=pin-button]`);
    assert.equal(await h.run((el) => el.dataset.tooltip, pin), "Pin — kept verbatim through every compaction");
    await h.driver.click(pin);
    await h.waitFor("the card to show its pin", (c) => {
      const button = one(`${c} [data-testid=pin-button]`);
      return button?.getAttribute("aria-pressed") === "true" && !!one(`${c} [data-testid=pinned-badge]`);
    }, [card]);
    const records = await h.records(sessionId);
    const output = records.find((r) => r.type === "response_item" && r.payload.type === "function_call_output" && r.payload.output.includes("NOTE-01"));
    const pins = records.filter((r) => r.type === "item_pin");
    assert.deepEqual(pins.map((r) => r.payload), [{ item_id: output.payload.id, pinned: true }]);
    await both("history-pinned");
  });

  step("two compactions later the pinned output is whole in the model view and in the next request", async () => {
    for (const n of [1, 2]) {
      await h.send("/compact");
      const req = await h.mock.nextRequest({ what: `summary ${n}` });
      assert.ok(req.isSummary, "a manual compaction asks only for a summary");
      req.respondText(`${SUMMARY} (${n})`, usage({ input: 2_400, output: 60 }));
      await ready();
      if (n === 1) await turn("Tidy the tokenizer next", "TOKENIZER-TIDIED", 2_600);
    }
    const records = await h.records(sessionId);
    assert.equal(records.filter((r) => r.type === "layered_compaction").length, 2, records.map((r) => r.type).join(","));
    // Still pinned after a reopen: the transcript reads the pin from the file.
    await h.openFromSidebar(FIRST_PROMPT);
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    await h.scrollToFind("section[aria-label='Tool call read_file'] [data-testid=pinned-badge]");

    await h.click("button", "Debug console");
    await h.click("[role=tab]", "Model view");
    await h.waitFor("the pinned output in the model view", () => {
      const item = all("[data-testid=model-item]").find((li) => li.textContent.includes("NOTE-01"));
      return item?.querySelector("button[aria-expanded]") ?? null;
    });
    // Scroll the console alone to the item (scrollIntoView would move the whole window too).
    const scrollToItem = () =>
      h.run(() => {
        const body = document.querySelector(".console-body");
        const item = all("[data-testid=model-item]").find((li) => li.textContent.includes("NOTE-01"));
        body.scrollTo(0, body.scrollTop + item.getBoundingClientRect().top - body.getBoundingClientRect().top - 8);
      });
    await scrollToItem();
    // "Show all …": a console control, pressed in the page (the step is about what it shows).
    await h.run(() => all("[data-testid=model-item]").find((li) => li.textContent.includes("NOTE-01")).querySelector("button[aria-expanded]").click());
    const shown = await h.run(() => all("[data-testid=model-item]").find((li) => li.textContent.includes("NOTE-01")).textContent);
    for (const line of NOTES) assert.ok(shown.includes(line), `the model view lost "${line}"`);
    await scrollToItem();
    await both("history-pinned-model-view");
    await h.click("button", "Debug console");

    await h.send("Which release steps are there?");
    const req = await h.mock.nextRequest({ what: "the round after two compactions" });
    for (const line of NOTES) assert.ok(req.inputText.includes(line), `the request lost "${line}"`);
    assert.ok(req.inputText.includes(`${SUMMARY} (2)`), "the second summary travels too");
    req.respondText("All 24, as pinned.", usage({ input: 2_900, output: 20 }));
    await ready();
  });

  step("Compact up to here on a message puts the divider just above it and keeps what follows", async () => {
    await turn("Rename parse_value to parse_item", "RENAMED-PARSE-ITEM", 3_100);
    await turn("Now update the docs for parse_item", "DOCS-UPDATED", 3_300);
    await h.driver.click(await menuButtonOf("article[aria-label=You]", "Now update the docs for parse_item"));
    await h.find("[role=menu]");
    await both("history-item-menu");
    await h.click("[role=menuitem]", "Compact up to here");
    await h.find("[role=dialog]", "Compact up to here?");
    const input = await h.find("[role=dialog] input");
    await h.driver.sendKeys(input, "the parse_item rename");
    const text = await h.run(() => norm(one("[role=dialog]").textContent));
    assert.match(text, /Everything before this item is summarised/);
    assert.match(text, /This item and everything after it stay verbatim/);
    await both("history-compact-dialog");
    await h.click("[role=dialog] button", "Compact up to here");
    const req = await h.mock.nextRequest({ what: "the partial summary" });
    assert.ok(req.isSummary);
    assert.ok(req.inputText.includes("the parse_item rename"), "the focus reaches the summariser");
    req.respondText(`${SUMMARY} (3)`, usage({ input: 2_000, output: 60 }));
    await ready();

    const order = await h.waitFor("the divider above the message", () => {
      const rows = all(".message-row");
      const at = rows.findIndex((row) => norm(row.textContent).includes("Now update the docs for parse_item") && row.querySelector("article"));
      if (at < 1) return null;
      return { above: !!rows[at - 1].querySelector(".compaction-divider"), after: rows.slice(at).map((row) => norm(row.textContent)).join(" | ") };
    });
    assert.ok(order.above, "the divider sits just before the item");
    assert.match(order.after, /DOCS-UPDATED/);
    const records = await h.records(sessionId);
    const partial = records.filter((r) => r.type === "layered_compaction").at(-1).payload;
    const idOf = (text) => records.find((r) => r.type === "response_item" && r.payload.content === text)?.payload.id;
    assert.ok(partial.kept.includes(idOf("Now update the docs for parse_item")), "the item is kept verbatim");
    assert.ok(partial.kept.includes(idOf("DOCS-UPDATED")), "what follows is kept verbatim");
    assert.ok(!partial.kept.includes(idOf("Rename parse_value to parse_item")), "what came before is summarised");
    await both("history-compacted-up-to");
  });

  step("Fork from here says files are not rewound and opens a new session with the earlier items only", async () => {
    await h.driver.click(await menuButtonOf("article[aria-label=Strata]", "RENAMED-PARSE-ITEM"));
    await h.click("[role=menuitem]", "Fork from here");
    const notice = await h.waitFor("the fork's notice", () => norm(one("[role=dialog] [data-testid=fork-files-notice]")?.textContent));
    assert.match(notice, /Files in the workspace are not rewound/);
    assert.ok(notice.includes(h.workspace), notice);
    await both("history-fork-dialog");
    await h.click("[role=dialog] button", "Fork session");
    await h.find(".toast", "Workspace files were not rewound");

    const { stdout } = await h.cli(["sessions", "list", "--json"]);
    const sessions = stdout
      .split("\n")
      .filter(Boolean)
      .flatMap((line) => JSON.parse(line).sessions ?? []);
    assert.equal(sessions.length, 2);
    const fork = sessions.find((s) => s.id !== sessionId);
    const forked = (await h.records(fork.id)).find((r) => r.type === "session_forked");
    assert.equal(forked.payload.parent_session_id, sessionId);
    assert.equal(forked.payload.point.kind, "at_item");

    // The new session is the one open: the earlier items, nothing later.
    await h.waitFor("the fork's transcript", () => {
      const text = norm(document.querySelector("[role=log]")?.textContent);
      return text.includes("RENAMED-PARSE-ITEM") && !text.includes("Now update the docs") && !text.includes("DOCS-UPDATED");
    });
    await h.scrollToFind("section[aria-label='Tool call read_file']");
    const rows = await h.run(() => all("nav[aria-label=Sessions] .session-open").map((el) => el.getAttribute("aria-current")));
    assert.equal(rows.length, 2, "the sidebar lists the fork");
    assert.equal(rows.filter((current) => current === "page").length, 1);
    // The parent is unchanged.
    assert.ok((await h.records(sessionId)).every((r) => r.type !== "session_forked"));
    await both("history-forked");
  });
});
