// Issue 27, items 6 and 7, with the real `strata` CLI writing to the session
// the app shows. The person's own session opens live (no read-only step, no
// Resume). While the CLI holds it, the app shows it read-only with every
// control that writes disabled, follows what the CLI writes, and opens live
// again once the CLI lets go. A CLI turn on the open session appears in the
// app by itself, and the app's next turn (which the model sees with the CLI's
// turn) never interleaves with another writer: once the app holds the
// session, the CLI is refused with a clear message and writes nothing.

import assert from "node:assert/strict";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { usage } from "./lib/mock-provider.js";
import { sharedAppSteps } from "./lib/steps.js";

const FIRST_PROMPT = "Summarise the README for me";
const HELD_PROMPT = "What is in the src folder?";
const HELD_ANSWER = "Only main.rs, which prints hello.";
const CLI_PROMPT = "Typed in the terminal: count the files";
const CLI_ANSWER = "There are two files.";
const APP_PROMPT = "And now from the app: what did I just ask?";

describe("sessions open live; a session changed outside Strata (issue 27)", { timeout: 240_000 }, () => {
  let h;
  let sessionId;

  before(async () => {
    h = await Harness.start("sessions");
    sessionId = await h.cliSession(FIRST_PROMPT, (req) => req.respondText("The README describes demo-project."));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);
  const composerEnabled = () => !document.getElementById("composer-input")?.disabled;

  step("the person's own session opens live at once: no read-only badge, no Resume, the composer works", async () => {
    await h.openFromSidebar(FIRST_PROMPT);
    await h.waitFor("the composer to be enabled", composerEnabled);
    const state = await h.run(() => ({
      badge: !!document.querySelector(".readonly-badge"),
      resume: all("button").some((b) => /Resume/.test(b.textContent)),
      footer: norm(document.querySelector(".footer-status")?.textContent),
    }));
    assert.deepEqual(state, { badge: false, resume: false, footer: "Ready" });
    await h.screenshotBoth("sessions-open-live");
  });

  let held;
  step("while the CLI holds the session, the app follows it read-only with every control that writes disabled", async () => {
    held = await h.holdWithCli(sessionId, HELD_PROMPT);
    // The CLI's message reaches the open session by itself, and the session turns read-only.
    await h.find("[role=log] .user-text", HELD_PROMPT, 20_000);
    await h.find(".conversation-header [role=status] .readonly-badge", "Read-only");
    await h.click("button", "Debug console");
    await h.find("[role=radiogroup][aria-label='Compaction policy for this session'] input");
    const controls = await h.run(() => ({
      composer: document.getElementById("composer-input").disabled,
      switchProfile: one(".conversation-header button", "Switch profile")?.disabled,
      policy: all("[role=radiogroup][aria-label='Compaction policy for this session'] input").map((input) => input.disabled),
      pins: all("[role=log] button").filter((b) => /^Pin /.test(b.getAttribute("aria-label") ?? "")).length,
      footer: norm(document.querySelector(".footer-status")?.textContent),
    }));
    assert.deepEqual(controls, {
      composer: true,
      switchProfile: true,
      policy: [true, true, true],
      pins: 0,
      footer: "Read-only: held by another process",
    });
    await h.screenshotBoth("sessions-held-by-cli");
  });

  step("once the CLI lets go, its answer is shown and the session is live again", async () => {
    const done = await held.finish(HELD_ANSWER);
    assert.equal(done.code, 0, done.stderr);
    await h.find("[role=log] .message-assistant", HELD_ANSWER, 20_000);
    await h.waitFor("the session to be live again", composerEnabled, [], 20_000);
    await h.find(".toast", "The other process let go of this session");
    assert.equal(await h.run(() => !!document.querySelector(".readonly-badge")), false);
    await h.click("button", "Debug console");
    await h.screenshotBoth("sessions-live-after-cli");
  });

  step("a CLI turn on the session the app shows live appears there, and the app's next turn carries it", async () => {
    const cli = await h.cli(["resume", sessionId, "-p", CLI_PROMPT], (req) => req.respondText(CLI_ANSWER));
    assert.equal(cli.code, 0, cli.stderr);
    await h.find("[role=log] .message-assistant", CLI_ANSWER, 20_000);
    await h.find(".toast", "This session changed outside Strata");
    await h.screenshotBoth("sessions-changed-outside");

    await h.send(APP_PROMPT);
    const req = await h.mock.nextRequest({ what: "the app's turn after the CLI's" });
    const texts = req.inputItems.filter((item) => item.role).map((item) => item.text);
    for (const text of [HELD_PROMPT, HELD_ANSWER, CLI_PROMPT, CLI_ANSWER, APP_PROMPT]) {
      assert.ok(texts.some((t) => t.includes(text)), `the model is sent "${text}": ${JSON.stringify(texts)}`);
    }
    req.respondText("You asked me to count the files.", usage({ input: 300, output: 10 }));
    await h.find("[role=log] .message-assistant", "You asked me to count the files.");
  });

  step("while the app holds the session, a CLI turn is refused with a clear message and writes nothing", async () => {
    const before = (await h.records(sessionId)).length;
    const refused = await h.cli(["resume", sessionId, "-p", "Interleave with the app"]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /open for writing elsewhere|another Strata/i, refused.stderr);
    assert.equal((await h.records(sessionId)).length, before);
    assert.deepEqual(h.mock.unanswered(), []);
  });
});
