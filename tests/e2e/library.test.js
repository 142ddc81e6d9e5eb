// Issue 9 end to end: the sidebar follows what the real `strata` CLI does to
// the app's sessions folder while the app is open (no refresh), a session is
// switched to another profile only after the person confirmed where its
// history goes, and the webview cannot write files on its own. The steps
// share one app and run in order.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe } from "node:test";
import { Harness, eventually } from "./lib/harness.js";
import { usage } from "./lib/mock-provider.js";
import { sharedAppSteps } from "./lib/steps.js";
import { Keys } from "./lib/webdriver.js";

const FIRST_PROMPT = "Summarise the README";
const CLI_PROMPT = "Made by the CLI while the app is open";
const LOG_PROMPT = "Find the deadline in the logs";
/** Text that occurs only in one old tool output (a file the model read). */
const OLD_OUTPUT_TEXT = "zanzibar_deadline_7f3q";

describe("live library and profile switch (issue 9)", { timeout: 240_000 }, () => {
  let h;
  let cliId;

  before(async () => {
    h = await Harness.start("library");
    await h.cliSession(FIRST_PROMPT, (req) => req.respondText("The README describes demo-project."));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);

  step("a session the CLI creates while the app is open appears in the sidebar by itself", async () => {
    await h.waitFor("the first session", (t) => one("nav[aria-label=Sessions] .session-title", t), [FIRST_PROMPT]);
    cliId = await h.cliSession(CLI_PROMPT, (req) => req.respondText("Made."));
    const titles = await h.waitFor(
      "the CLI's session at the top of the sidebar",
      (t) => {
        const rows = all("nav[aria-label=Sessions] .session-title").map((el) => norm(el.textContent));
        return rows[0] === t ? rows : null;
      },
      [CLI_PROMPT],
    );
    assert.deepEqual(titles, [CLI_PROMPT, FIRST_PROMPT]);
  });

  step("a session the CLI appends to updates its row, and one it deletes disappears", async () => {
    const items = () => h.run((t) => Number(/(\d+) items/.exec(norm(one("nav[aria-label=Sessions] .session-open", t)?.textContent))?.[1]), CLI_PROMPT);
    const before = await items();
    assert.ok(before > 0);
    const resumed = await h.cli(["resume", cliId, "-p", "One more thing"], (req) => req.respondText("Done too."));
    assert.equal(resumed.code, 0, resumed.stderr);
    await eventually("the row's item count to grow", async () => (await items()) > before);
    const deleted = await h.cli(["sessions", "delete", cliId]);
    assert.equal(deleted.code, 0, deleted.stderr);
    await h.waitFor("the deleted session to leave the sidebar", (t) => {
      const rows = all("nav[aria-label=Sessions] .session-title").map((el) => norm(el.textContent));
      return rows.length === 1 && !rows.includes(t);
    }, [CLI_PROMPT]);
  });

  step("switches the open session to another profile only after confirming, and shows the switch", async () => {
    await h.openFromSidebar(FIRST_PROMPT);
    await h.click(".conversation-header button", "Switch profile");
    await h.find("[role=dialog]", "Switch profile");
    await h.click("[role=dialog] label", "Offline demo");
    await h.click("[role=dialog] button", "Continue");
    const confirm = await h.find("[role=dialog]", "Send this session's history there?");
    assert.ok(confirm);
    assert.match(
      await h.run(() => norm(one("[role=dialog] [data-testid=switch-endpoint]")?.textContent)),
      /offline demo model/,
    );
    await h.screenshot("switch-profile-confirm");
    await h.click("[role=dialog] button", "Switch and send history there");
    await h.waitFor("the dialog to close", () => !document.querySelector("[role=dialog]"));
    await h.scrollToFind(".notice", "Switched to demo · strata-demo");
    await h.waitFor("the header to name the demo model", () => norm(one(".conversation-header .workspace")?.textContent).includes("strata-demo"));

    const records = await h.records(await h.sessionIdOf(FIRST_PROMPT));
    const profileRecords = records.filter((r) => r.type === "profile_set");
    const switchedAt = profileRecords[profileRecords.length - 1].ts;
    const profiles = profileRecords.map((r) => [r.payload.change, r.payload.provider_kind]);
    assert.deepEqual(profiles, [
      ["created", "openai-responses"],
      ["switched", "demo"],
    ]);

    // The next turn goes to the demo model: the mock provider is sent nothing.
    const sessionId = await h.sessionIdOf(FIRST_PROMPT);
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    await h.send("List the files");
    await eventually(
      "the turn to finish on the demo model",
      async () => (await h.records(sessionId)).some((r) => r.type === "turn_finished" && r.payload.outcome === "completed" && Date.parse(r.ts) > Date.parse(switchedAt)),
      { timeout: 30_000 },
    );
    const rounds = (await h.records(sessionId)).filter((r) => r.type === "round" && Date.parse(r.ts) > Date.parse(switchedAt));
    assert.ok(rounds.length > 0);
    assert.ok(rounds.every((r) => r.payload.provider_kind === "demo" && r.payload.model === "strata-demo"), JSON.stringify(rounds));
    assert.deepEqual(h.mock.unanswered(), []);
  });

  step("a hit in an old tool output opens its session at that card, scrolled into view and marked", async () => {
    fs.writeFileSync(path.join(h.workspace, "orders.log"), `12:00:01 orders_e2e waiting\n12:00:31 ${OLD_OUTPUT_TEXT} after 30 s\n`);
    // The read comes first; then 7 rounds of 30 listings (210 cards) push
    // its card out of the newest page of 200 entries.
    let round = 0;
    await h.cliSession(LOG_PROMPT, (req) => {
      round += 1;
      if (round === 1) return req.respondFunctionCall("read_file", { path: "orders.log" });
      if (round <= 8) {
        const stream = req.openStream();
        for (let n = 0; n < 30; n++) stream.functionCall("list_directory", { path: "." });
        return stream.complete(usage({ input: 100, output: 20 }));
      }
      return req.respondText("The deadline is 30 s.");
    });
    const search = await h.find("nav[aria-label=Sessions] input[type=search]");
    await h.driver.sendKeys(search, OLD_OUTPUT_TEXT);
    await h.click("[aria-label='Matches in session text'] .search-hit", LOG_PROMPT);
    const card = await h.waitFor("the read's card, marked and in view", () => {
      const list = document.querySelector("[role=log]");
      const marked = document.querySelectorAll("[data-search-target=true]");
      if (!list || marked.length !== 1 || !norm(marked[0].textContent).includes("read_file")) return null;
      const box = marked[0].getBoundingClientRect();
      const view = list.getBoundingClientRect();
      const inView = box.bottom > view.top && box.top < view.bottom;
      return inView && marked[0].classList.contains("search-target") ? { text: norm(marked[0].textContent) } : null;
    });
    assert.match(card.text, /orders\.log/);
    // More cards after it than the newest page (200 entries) holds: the page
    // that was opened reached back to it.
    const records = await h.records(await h.sessionIdOf(LOG_PROMPT));
    const later = records.filter((r) => r.type === "response_item" && r.payload.type === "function_call" && r.payload.name === "list_directory");
    assert.ok(later.length > 200, `${later.length} later cards`);
    await h.screenshot("search-hit-tool-card");
    await h.driver.sendKeys(search, Keys.BACKSPACE.repeat(OLD_OUTPUT_TEXT.length));
  });

  step("the page cannot write a file the save dialog did not choose", async () => {
    const target = path.join(h.workspace, "written-by-the-page.md");
    const error = await h.driver.executeAsync(
      `const [file, done] = arguments;
       window.__TAURI_INTERNALS__
         .invoke("plugin:fs|write_text_file", new TextEncoder().encode("x"), { headers: { path: encodeURIComponent(file) } })
         .then(() => done(null), (e) => done(String(e)));`,
      target,
    );
    assert.match(String(error), /forbidden path|not allowed/, "the write was not refused by the fs scope");
    assert.equal(fs.existsSync(target), false);
  });
});
