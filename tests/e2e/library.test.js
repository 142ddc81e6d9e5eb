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
import { sharedAppSteps } from "./lib/steps.js";

const FIRST_PROMPT = "Summarise the README";
const CLI_PROMPT = "Made by the CLI while the app is open";

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
    await h.waitFor("the header to name the demo model", () => norm(one(".conversation-title")?.textContent).includes("strata-demo"));

    const records = await h.records(await sessionIdOf(h, FIRST_PROMPT));
    const profileRecords = records.filter((r) => r.type === "profile_set");
    const switchedAt = profileRecords[profileRecords.length - 1].ts;
    const profiles = profileRecords.map((r) => [r.payload.change, r.payload.provider_kind]);
    assert.deepEqual(profiles, [
      ["created", "openai-responses"],
      ["switched", "demo"],
    ]);

    // The next turn goes to the demo model: the mock provider is sent nothing.
    const sessionId = await sessionIdOf(h, FIRST_PROMPT);
    await h.click("button", "Resume session");
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

/** The id of the listed session whose title starts with `title` (through the CLI). */
async function sessionIdOf(h, title) {
  const list = await h.cli(["sessions", "list", "--json"]);
  const row = JSON.parse(list.stdout).sessions.find((s) => (s.title ?? "").startsWith(title));
  assert.ok(row, list.stdout);
  return row.id;
}
