// Issue 27, items 6, 7 and 8. Items 6 and 7 with the real `strata` CLI writing to the session
// the app shows. The person's own session opens live (no read-only step, no
// Resume). While the CLI holds it, the app shows it read-only with every
// control that writes disabled, follows what the CLI writes, and opens live
// again once the CLI lets go. A CLI turn on the open session appears in the
// app by itself, and the app's next turn (which the model sees with the CLI's
// turn) never interleaves with another writer: once the app holds the
// session, the CLI is refused with a clear message and writes nothing.
// Item 8: New session is a sheet of recent folders (type to filter, Enter to
// start) with the profile and approval; after a restart the app reopens the
// session it showed last.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { usage } from "./lib/mock-provider.js";
import { sharedAppSteps } from "./lib/steps.js";
import { Keys } from "./lib/webdriver.js";

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

describe("new session: recent folders, profile and approval in one sheet; the last session reopens (issue 27)", { timeout: 180_000 }, () => {
  let h;

  before(async () => {
    h = await Harness.start("new-session");
    await h.cliSession(FIRST_PROMPT, (req) => req.respondText("The README describes demo-project."));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);

  step("New session opens a sheet offering the recent folders; typing filters and Enter starts there with the chosen profile and approval", async () => {
    await h.click("nav[aria-label=Sessions] button", "New session");
    await h.find("[role=dialog]", "New session");
    const offered = await h.waitFor("the recent folders", () => {
      const rows = all("[role=listbox][aria-label='Recent folders'] [role=option]").map((o) => o.getAttribute("title"));
      return rows.length > 0 ? rows : null;
    });
    assert.deepEqual(offered, [h.workspace], "the CLI session's folder, offered without any picker");
    await h.screenshotBoth("new-session-sheet");
    const filter = await h.find("[role=dialog] [role=combobox]");
    await h.driver.sendKeys(filter, "nothing-like-it");
    await h.find("[role=dialog] p", "No recent folder matches");
    await h.driver.sendKeys(filter, Keys.BACKSPACE.repeat("nothing-like-it".length) + "demo-pro");
    await h.find("[role=dialog] [data-testid=new-session-folder]", `Starts in ${h.workspace}`);
    await h.run(() => {
      const select = one("[role=dialog] select");
      const demo = Array.from(select.options).find((o) => o.textContent.includes("Offline demo"));
      select.value = demo.value;
      select.dispatchEvent(new Event("change", { bubbles: true }));
    });
    await h.click("[role=dialog] [role=radiogroup] label", "Auto");
    await h.driver.sendKeys(filter, Keys.ENTER);
    await h.waitFor("the sheet to close and the new session to open live", () => !document.querySelector("[role=dialog]") && document.activeElement?.id === "composer-input");
    await h.waitFor("the header to name the demo model", () => norm(one(".conversation-header .workspace")?.textContent).includes("strata-demo"));
    const prefs = fs.readFileSync(path.join(h.home, "config", "desktop.toml"), "utf8");
    assert.match(prefs, /approval_policy = "auto"/);
    const recent = fs.readFileSync(path.join(h.home, "config", "recent.toml"), "utf8");
    assert.ok(recent.includes(h.workspace), recent);
    // A turn on the demo model names the session; the mock provider is sent nothing.
    await h.send("List the files");
    await h.waitFor("the session's title", () => norm(document.querySelector(".conversation-title h1")?.textContent) === "List the files", [], 30_000);
    assert.deepEqual(h.mock.unanswered(), []);
  });

  step("less noise: the demo's disclaimer once per session, no durations under 10 ms, a card's Pin only on hover, no \"1 items\"", async () => {
    await h.send("Read the README");
    await h.waitFor("the second demo answer", () => all("[role=log] .message-assistant").length >= 2, [], 30_000);
    await h.waitFor("the turn to end", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);
    // The pointer away from the transcript, so nothing is hovered.
    await h.driver.click(await h.find(".conversation-title h1"));
    const noise = await h.run(() => ({
      disclaimers: all("[role=log] .message-assistant").filter((m) => m.textContent.includes("I am Strata's offline demo model")).length,
      durations: all("[role=log] .tool-duration").map((d) => norm(d.textContent)).filter((t) => /^\d ms$/.test(t)),
      cards: all("[role=log] section.tool-card").length,
      pinsShown: all("[role=log] section.tool-card .pin-button").filter((b) => getComputedStyle(b).opacity !== "0").length,
      counts: all("nav[aria-label=Sessions] .session-counts").map((c) => norm(c.textContent)),
    }));
    assert.equal(noise.disclaimers, 1, "the demo says what it is once per session");
    assert.deepEqual(noise.durations, [], "no 0-9 ms durations");
    assert.ok(noise.cards > 0);
    assert.equal(noise.pinsShown, 0, "a card's Pin waits for the pointer or the keyboard");
    assert.ok(noise.counts.every((c) => !/\b1 items\b/.test(c)), noise.counts.join(" | "));
    await h.screenshotBoth("quiet-tool-cards");
  });

  step("after a restart the app reopens the session it showed last, live", async () => {
    await h.restartApp();
    await h.waitFor("the last session to reopen", () => norm(document.querySelector(".conversation-title h1")?.textContent) === "List the files", [], 30_000);
    await h.waitFor("it to be live", () => !document.getElementById("composer-input")?.disabled);
    await h.screenshotBoth("last-session-reopened");
  });
});
