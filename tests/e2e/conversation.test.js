// Issue 27, items 1-4, end to end: what a newcomer trips over in the
// conversation. The list keeps to the bottom while a reply streams and on
// send, and offers "Jump to latest" once the person scrolled up; the Y key
// answers a waiting approval from the empty composer, which gets its focus
// back, and the card says the action in plain words, a destructive command
// marked; Stop keeps the partial answer, marked as not sent to the model;
// items above the latest compaction are marked as outside the model's
// context, their Pin disabled. Light and dark screenshots at each step.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe } from "node:test";
import { Harness, THRESHOLD } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";

const FIRST_PROMPT = "Walk me through the project layout";
/** A long answer: many paragraphs, so the transcript is taller than the window. */
const essay = (tag, count) => Array.from({ length: count }, (_, i) => `${tag} paragraph ${i + 1}: the parser reads one line at a time and keeps going.`).join("\n\n");

describe("the conversation (issue 27, items 1-4)", { timeout: 300_000 }, () => {
  let h;

  before(async () => {
    h = await Harness.start("conversation", { sandbox: "off" });
    await h.cliSession(FIRST_PROMPT, (req) => req.respondText(essay("LAYOUT", 24), usage({ input: 1_200, output: 400 })));
    await h.launchApp();
    await h.driver.setWindowRect({ x: 0, y: 0, width: 1280, height: 800 });
  });

  const step = sharedAppSteps(() => h);

  const ready = () => h.waitFor("the app to be ready", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);

  /** Waits for the list to have settled at its bottom, the last row above the composer. */
  const settledAtBottom = (what) =>
    h.waitFor(what, () => {
      const list = document.querySelector("[role=log]");
      const rows = Array.from(list.querySelectorAll(".message-row")).sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index));
      const last = rows.at(-1);
      const composer = document.querySelector(".composer").getBoundingClientRect();
      return list.scrollHeight - list.scrollTop - list.clientHeight < 2 && last.getBoundingClientRect().bottom <= composer.top && !document.querySelector("[data-testid=jump-latest]");
    });

  /** The person scrolls the transcript up to its top. */
  const scrollUp = () =>
    h.run(() => {
      const list = document.querySelector("[role=log]");
      list.scrollTop = 0;
      list.dispatchEvent(new Event("scroll"));
    });

  const both = (name) => h.screenshotBoth(name);

  step("follows a streaming reply to its last line, clear of the composer", async () => {
    await h.openFromSidebar(FIRST_PROMPT);
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    await h.send("Now explain the tests, in detail");
    const req = await h.mock.nextRequest({ what: "the streamed explanation" });
    const stream = req.openStream();
    for (let i = 1; i <= 30; i++) {
      stream.delta(`TESTS paragraph ${i}: each case names the behaviour it checks.\n\n`);
      if (i % 6 === 0) {
        await h.find(".message-assistant[aria-busy=true]", `TESTS paragraph ${i}:`);
        await settledAtBottom(`the list to follow the reply to paragraph ${i}`);
      }
    }
    stream.complete(usage({ input: 2_000, output: 600 }));
    await ready();
    await settledAtBottom("the list at the finished reply's last line");
    await both("conversation-follow");
  });

  step("stays put when the person scrolls up, offers Jump to latest, and goes back with it", async () => {
    await h.send("And the build?");
    const req = await h.mock.nextRequest({ what: "the build answer" });
    const stream = req.openStream();
    stream.delta("BUILD paragraph 1: cargo builds the workspace.\n\n");
    await h.find(".message-assistant[aria-busy=true]", "BUILD paragraph 1");
    await settledAtBottom("the list at the new reply");
    await scrollUp();
    await h.find("[data-testid=jump-latest]", "Jump to latest");
    for (let i = 2; i <= 12; i++) stream.delta(`BUILD paragraph ${i}: one crate at a time.\n\n`);
    // The row may be rendered off screen (the list is virtualised): found, not necessarily visible.
    await h.waitFor("the streamed text to arrive", () => norm(document.querySelector(".message-assistant[aria-busy=true]")?.textContent).includes("BUILD paragraph 12"));
    const scrolled = await h.run(() => document.querySelector("[role=log]").scrollTop);
    assert.ok(scrolled < 100, `the list stayed where the person scrolled to (scrollTop ${scrolled})`);
    await both("conversation-jump-latest");

    await h.click("[data-testid=jump-latest]", "Jump to latest");
    await settledAtBottom("the list back at the bottom");
    stream.delta("BUILD paragraph 13: and links the app last.\n\n");
    await h.find(".message-assistant[aria-busy=true]", "BUILD paragraph 13");
    await settledAtBottom("the list following again");
    stream.complete(usage({ input: 2_600, output: 200 }));
    await ready();
  });

  step("scrolls to the person's new message on send, wherever they were", async () => {
    await scrollUp();
    await h.find("[data-testid=jump-latest]", "Jump to latest");
    await h.send("Thanks, one more question");
    const req = await h.mock.nextRequest({ what: "the short answer" });
    await h.waitFor("the new message in view", () => {
      const list = document.querySelector("[role=log]").getBoundingClientRect();
      const mine = Array.from(document.querySelectorAll(".message-user")).find((el) => norm(el.textContent).includes("Thanks, one more question"));
      const box = mine?.getBoundingClientRect();
      return box && box.top >= list.top && box.bottom <= list.bottom;
    });
    req.respondText("Ask away.", usage({ input: 2_800, output: 10 }));
    await ready();
    await settledAtBottom("the list at the answer");
  });

  step("Y in the empty composer allows a write said in plain words, and the composer keeps the focus", async () => {
    await h.send("Create hello.py that prints hello");
    (await h.mock.nextRequest({ what: "the write" })).respondFunctionCall("write_file", { path: "hello.py", content: "print('hello')\n" });
    const prompt = await h.find("[role=group]", "Approval needed for write_file");
    assert.equal(await h.run((p) => norm(p.querySelector("[data-testid=approval-action]").textContent), prompt), "Create hello.py");
    const json = await h.run((p) => {
      const folded = p.closest("section").querySelector(".tool-args-folded");
      return { folded: !!folded, open: folded?.open ?? null };
    }, prompt);
    assert.deepEqual(json, { folded: true, open: false }, "the JSON arguments are folded away");
    await h.find(".approval-waiting", "Create hello.py");
    await settledAtBottom("the approval in view");
    await both("conversation-approval-write");

    const composer = await h.find("#composer-input");
    assert.equal(await h.run(() => document.activeElement?.id), "composer-input", "the cursor is in the composer");
    await h.driver.sendKeys(composer, "y");
    const next = await h.mock.nextRequest({ what: "the round after the write" });
    assert.equal(fs.readFileSync(path.join(h.workspace, "hello.py"), "utf8"), "print('hello')\n");
    assert.deepEqual(
      await h.run(() => ({ value: document.getElementById("composer-input").value, focused: document.activeElement?.id })),
      { value: "", focused: "composer-input" },
      "no y typed into the composer, whose focus it is again",
    );
    next.respondText("hello.py is written.", usage({ input: 3_000, output: 10 }));
    await ready();
  });

  step("a destructive command is marked beyond the standing warning, and N denies it", async () => {
    await h.send("Clean the build folder");
    (await h.mock.nextRequest({ what: "the shell call" })).respondFunctionCall("run_shell", { command: "rm -rf build" });
    const prompt = await h.find("[role=group]", "Approval needed for run_shell");
    assert.equal(await h.run((p) => norm(p.querySelector("[data-testid=approval-action]").textContent), prompt), "Run: rm -rf build");
    const warning = await h.run((p) => norm(p.querySelector("[data-testid=destructive-warning]")?.textContent), prompt);
    assert.match(warning, /Destructive command\. If you allow it, it deletes files and folders recursively \(rm -r\)\./);
    await h.find("[data-testid=shell-warning]", "Not sandboxed.");
    await settledAtBottom("the approval in view");
    await both("conversation-approval-destructive");

    await h.driver.sendKeys(await h.find("#composer-input"), "n");
    const next = await h.mock.nextRequest({ what: "the round after the denial" });
    const output = next.body.input.filter((i) => i.type === "function_call_output").at(-1);
    assert.match(output.output, /denied/i, "the model is told the call was denied");
    next.respondText("Left the build folder alone.", usage({ input: 3_200, output: 10 }));
    await ready();
    assert.equal(await h.run(() => document.activeElement?.id), "composer-input");
  });

  step("Stop keeps the partial answer, copyable, marked as not sent to the model", async () => {
    await h.send("Write a long essay about the parser");
    const req = await h.mock.nextRequest({ what: "the essay round" });
    const stream = req.openStream();
    stream.delta("PARTIAL-ESSAY: once upon a time, the parser ");
    await h.find(".message-assistant[aria-busy=true]", "PARTIAL-ESSAY");
    await h.click("button", "Stop");
    await h.find("[role=status]", "Stopped. The turn was cancelled.");
    await stream.closed;
    req.answered = true;
    await ready();
    const message = await h.find(".message-assistant.message-unsaved", "PARTIAL-ESSAY");
    const shown = await h.run(
      (m) => ({
        text: norm(m.querySelector(".markdown")?.textContent),
        note: norm(m.querySelector("[data-testid=unsaved-note]")?.textContent),
        copy: !!Array.from(m.querySelectorAll("button")).find((b) => norm(b.textContent) === "Copy partial answer"),
      }),
      message,
    );
    assert.equal(shown.text, "PARTIAL-ESSAY: once upon a time, the parser");
    assert.equal(
      shown.note,
      "Stopped — not sent to the model. The model will not see this partial answer, and it is not saved: it is gone once you reopen the session.",
    );
    assert.ok(shown.copy, "the partial answer has its copy button");
    await settledAtBottom("the stopped answer in view");
    await both("conversation-stopped");

    // What it says is so: the next request does not carry the partial text.
    await h.send("Never mind, just say hi");
    const after = await h.mock.nextRequest({ what: "the round after the stop" });
    assert.doesNotMatch(after.inputText, /PARTIAL-ESSAY/);
    after.respondText("Hi.", usage({ input: 3_300, output: 5 }));
    await ready();
  });

  step("items above the latest compaction are marked out of the model's context, their Pin disabled", async () => {
    await h.send("Summarise where we are");
    (await h.mock.nextRequest({ what: "the round over the threshold" })).respondText("We are here.", usage({ input: THRESHOLD + 1_000, output: 20 }));
    const summary = await h.mock.nextRequest({ what: "the summary request" });
    summary.respondText("SUMMARY: layout, tests, build, hello.py written.", usage({ input: 900, output: 40 }));
    await ready();
    await h.find("[role=separator]", "Context compacted");
    const old = await h.scrollToFind(".message-row", FIRST_PROMPT);
    const marked = await h.run(
      (row) => ({
        note: norm(row.querySelector("[data-testid=context-note] span")?.textContent),
        fork: norm(row.querySelector("[data-testid=context-note] button")?.textContent),
        pin: row.querySelector("[data-testid=pin-button]")?.disabled ?? null,
        ids: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.test(row.textContent),
      }),
      old,
    );
    assert.deepEqual(marked, {
      note: "Not in the model's context — summarised in the compaction below",
      fork: "Fork from before it",
      pin: true,
      ids: false,
    });
    await h.run((row) => row.scrollIntoView({ block: "center" }), old);
    await both("conversation-out-of-context");
    await h.click("[data-testid=jump-latest]", "Jump to latest");
    await settledAtBottom("the list at the newest entry");
  });
});
