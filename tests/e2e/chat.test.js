// Issue 5 end to end: the real app on a throwaway STRATA_HOME, talking to the
// local mock provider, driven step by step. The tests in this file share one
// app and one session and run in order.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe } from "node:test";
import { FAKE_API_KEY, Harness, THRESHOLD, eventually } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { Keys } from "./lib/webdriver.js";
import { usage } from "./lib/mock-provider.js";

const FIRST_PROMPT = "Give me a tour of this project";
const OTHER_PROMPT = "Explain the build setup";

describe("chat (issue 5)", { timeout: 240_000 }, () => {
  let h;

  before(async () => {
    h = await Harness.start("chat");
    // A new session needs a workspace folder, which the app asks for in the
    // native folder picker WebDriver cannot drive; the real CLI makes the
    // sessions here (same store, same config), and the app resumes them.
    await h.cliSession(OTHER_PROMPT, (req) => req.respondText("It is a plain Cargo workspace."));
    await h.cliSession(FIRST_PROMPT, (req) =>
      req.respondText("This is **demo-project**: a README and `src/main.rs`.", usage({ input: 1800, output: 40 })),
    );
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);

  step("lists the sessions and resumes one from the sidebar", async () => {
    const titles = await h.waitFor("both sessions in the sidebar", () => {
      const rows = all("nav[aria-label=Sessions] .session-title").map((el) => norm(el.textContent));
      return rows.length === 2 ? rows : null;
    });
    assert.deepEqual(titles, [FIRST_PROMPT, OTHER_PROMPT], "newest first");

    // Search filters by text (here a word of the other session's first message).
    const search = await h.find("nav[aria-label=Sessions] input[type=search]");
    await h.driver.sendKeys(search, "build");
    await h.waitFor("only the matching session", () => {
      const rows = all("nav[aria-label=Sessions] .session-title").map((el) => norm(el.textContent));
      return rows.length === 1 && rows[0] === "Explain the build setup";
    });
    await h.driver.sendKeys(search, Keys.BACKSPACE.repeat("build".length));
    await h.waitFor("both sessions again", () => all("nav[aria-label=Sessions] .session-title").length === 2);

    // Full-text search (the library's index) finds words of an answer, marks
    // the match as text, and opens the session at that item.
    await h.driver.sendKeys(search, "plain cargo");
    const marked = await h.waitFor("a hit in the other session's answer", () => {
      const hit = document.querySelector("[aria-label='Matches in session text'] .search-hit");
      return hit ? hit.querySelector("mark")?.textContent : null;
    });
    assert.equal(marked, "plain Cargo", "the match as the text has it, marked");
    await h.click("[aria-label='Matches in session text'] .search-hit", "Explain the build setup");
    await h.find(".message-assistant", "It is a plain Cargo workspace.");
    await h.waitFor("the picked session to open live", () => !document.getElementById("composer-input").disabled);
    await h.driver.sendKeys(search, Keys.BACKSPACE.repeat("plain cargo".length));
    await h.waitFor("both sessions again", () => all("nav[aria-label=Sessions] .session-title").length === 2);

    await h.openFromSidebar(FIRST_PROMPT);
    await h.find(".message-assistant", "a README and src/main.rs");
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
  });

  step("sends a message and shows the answer while it streams", async () => {
    await h.send("What does main.rs print?");
    const req = await h.mock.nextRequest({ what: "the turn's first round" });
    assert.equal(req.body.stream, true);
    assert.equal(req.headers.authorization, `Bearer ${FAKE_API_KEY}`, "the configured key is sent");
    assert.deepEqual(
      req.inputItems.filter((i) => i.role === "user").map((i) => i.text),
      [FIRST_PROMPT, "What does main.rs print?"],
    );
    const stream = req.openStream();
    stream.delta("It prints ");
    await h.waitFor("the first delta, still streaming", () => {
      const last = all(".message-assistant").pop();
      return last && last.getAttribute("aria-busy") === "true" && norm(last.textContent).includes("It prints");
    });
    await h.find("button", "Stop");
    stream.delta("`hello` and exits.");
    await h.waitFor("the second delta", () => norm(all(".message-assistant").pop()?.textContent).includes("It prints hello and exits."));
    stream.complete(usage({ input: 2100, output: 30 }));
    await h.waitFor("the message to finish streaming", () => all(".message-assistant").pop()?.getAttribute("aria-busy") === "false");
    await h.find("button[type=submit]", "Send");
  });

  step("retries a failed request in place", async () => {
    await h.send("Check the README");
    const failing = await h.mock.nextRequest({ what: "the request that fails" });
    failing.respondError(503, "The server is overloaded");
    const retried = await h.mock.nextRequest({ what: "the retry" });
    assert.deepEqual(retried.body.input, failing.body.input, "the same request is sent again");
    retried.respondText("The README describes demo-project.", usage({ input: 2_300, output: 20 }));
    await h.find(".message-assistant", "The README describes demo-project.");
    // One line for the run of retries, settled to how many there were (issue 27, item 11).
    const notice = await h.find(".notice-retry", "Retried");
    assert.ok(notice);
    assert.equal(await h.run(() => norm(one(".notice-retry").textContent)), "Retried 1 time");
  });

  step("runs a read tool, then asks before writing: allow once", async () => {
    await h.send("List the files, then write a NOTES.md");
    const round1 = await h.mock.nextRequest({ what: "round 1" });
    round1.respondFunctionCall("list_directory", { path: "." });

    // Reads run without asking: the listing goes back to the model.
    const round2 = await h.mock.nextRequest({ what: "round 2 with the listing" });
    const listing = round2.body.input.find((i) => i.type === "function_call_output");
    assert.ok(listing, "the listing is sent back");
    assert.match(listing.output, /README\.md/);
    assert.match(listing.output, /src/);
    round2.respondFunctionCall("write_file", { path: "NOTES.md", content: "# Notes\n\n- prints hello\n" });

    // Writes wait for the person.
    const prompt = await h.find("[role=group]", "Approval needed for write_file");
    assert.ok(prompt);
    await h.find(".approval-waiting", "Waiting for your approval");
    assert.equal(fs.existsSync(path.join(h.workspace, "NOTES.md")), false, "nothing written before the approval");
    assert.deepEqual(h.mock.unanswered().map((r) => r.number), [], "no request while the approval waits");
    await h.screenshot("approval");

    await h.click("[role=group][aria-label='Approval needed for write_file'] button", "Allow once");
    const round3 = await h.mock.nextRequest({ what: "round 3 after the write" });
    const outputs = round3.body.input.filter((i) => i.type === "function_call_output");
    assert.equal(outputs.length, 2);
    assert.equal(fs.readFileSync(path.join(h.workspace, "NOTES.md"), "utf8"), "# Notes\n\n- prints hello\n");
    round3.respondText("Done: **NOTES.md** lists what `main.rs` does.\n\n```rust\nfn main() {\n    println!(\"hello\");\n}\n```", usage({ input: 3400, output: 60 }));

    await h.waitFor("two finished tool cards", () => {
      const cards = all("section.tool-card");
      return (
        cards.length === 2 &&
        cards[0].getAttribute("aria-label") === "Tool call list_directory" &&
        cards[1].getAttribute("aria-label") === "Tool call write_file" &&
        cards.every((c) => norm(c.querySelector(".status-pill")?.textContent) === "Done")
      );
    });
    await h.waitFor("the final answer", () => norm(all(".message-assistant").pop()?.textContent).includes("NOTES.md lists what main.rs does"));
    // Expand the write card: arguments, output and the decision.
    await h.click("section.tool-card[aria-label='Tool call write_file'] .tool-card-header");
    await h.find("section.tool-card[aria-label='Tool call write_file'] .tool-decision", "Allowed once.");
    await h.run(() => {
      const log = document.querySelector("[role=log]");
      log.scrollTop = log.scrollHeight;
    });
    await h.screenshot("chat-tool-cards");
  });

  step("stops a turn mid-stream", async () => {
    await h.send("Write a long essay about the project");
    const req = await h.mock.nextRequest({ what: "the essay round" });
    const stream = req.openStream();
    stream.delta("Once upon a time, ");
    await h.find(".message-assistant[aria-busy=true]", "Once upon a time");
    await h.click("button", "Stop");
    await h.find("[role=status]", "Stopped. The turn was cancelled.");
    // The app hung up on the stream it no longer wants.
    await eventually("the app to close the stream", () => stream.res.destroyed || stream.res.writableEnded || stream.request.req.destroyed, { timeout: 10_000 });
    await stream.closed;
    req.answered = true;
    await h.find("button[type=submit]", "Send");
    await h.waitFor("the footer to say Ready", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready");
  });

  step("crosses the compaction threshold and shows the divider", async () => {
    await h.send("Summarise everything so far");
    const round = await h.mock.nextRequest({ what: "the round that crosses the threshold" });
    round.respondText("Here is everything so far, in detail.", usage({ input: THRESHOLD + 1200, output: 80 }));

    const summary = await h.mock.nextRequest({ what: "the summary request" });
    assert.ok(!(summary.body.tools?.length > 0), "the summary request offers no tools");
    assert.match(summary.inputText, /Here is everything so far, in detail\./, "the summarizer sees the history");
    summary.respondText("The user toured demo-project; NOTES.md was written.", usage({ input: 900, output: 45 }));

    const divider = await h.find("[role=separator].compaction-divider", "Context compacted");
    assert.ok(divider);
    const text = await h.run(() => norm(one("[role=separator].compaction-divider").textContent));
    assert.match(text, /at 11\.3k tokens \(threshold 10k\)/);
    // Right after the compaction the gauge shows an estimate of the compacted
    // history, labelled as one, never the pre-compaction report (11,280).
    await h.waitFor("the gauge to show an estimate of the compacted history", () => {
      const meter = document.querySelector("[role=meter][aria-label='Context tokens']");
      if (!meter) return false;
      const estimated = /estimated after a compaction/.test(meter.getAttribute("aria-valuetext") ?? "");
      return estimated && Number(meter.getAttribute("aria-valuenow")) < 11280;
    });
    await h.screenshot("chat-compaction-divider");

    // The next round sends the compacted history: the summary instead of the removed answer.
    await h.send("And what next?");
    const next = await h.mock.nextRequest({ what: "the round after the compaction" });
    assert.match(next.inputText, /The user toured demo-project; NOTES\.md was written\./);
    assert.doesNotMatch(next.inputText, /Here is everything so far, in detail\./);
    next.respondText("Next, add tests.", usage({ input: 2600, output: 20 }));
    await h.find(".message-assistant", "Next, add tests.");
    // The next report replaces the estimate.
    await h.waitFor("the gauge to show the next round's reported tokens", () => {
      const meter = document.querySelector("[role=meter][aria-label='Context tokens']");
      if (!meter) return false;
      const estimated = /estimated/.test(meter.getAttribute("aria-valuetext") ?? "");
      return !estimated && Number(meter.getAttribute("aria-valuenow")) === 2620;
    });
  });

  step("reopens the session from the sidebar after restarting the app", async () => {
    await h.restartApp();
    await h.openFromSidebar(FIRST_PROMPT);
    // The list is virtualised: walk it from the top.
    await h.scrollToFind(".message-user", FIRST_PROMPT);
    await h.scrollToFind(".message-assistant", "It prints hello and exits.");
    await h.scrollToFind("section.tool-card[aria-label='Tool call write_file']");
    await h.scrollToFind("[role=separator].compaction-divider", "Context compacted");
    await h.scrollToFind(".message-assistant", "Next, add tests.");
    const badge = await h.run(() => norm(one("nav[aria-label=Sessions] .session-open", "Give me a tour")?.textContent));
    assert.match(badge, /1 compaction/);
    await h.click("nav[aria-label=Sessions] button[aria-label='Actions for Give me a tour of this project']");
    await h.find("[role=menu] [role=menuitem]", "Export as Markdown");
    await h.screenshot("session-browser");
    await h.click("[role=menu] [role=menuitem]", "Open");
    await h.waitFor("the menu to close", () => !document.querySelector("[role=menu]"));
  });

  step("shows settings without the API key, and the dark theme", async () => {
    await h.click("button", "Settings");
    await h.find("[role=dialog]", "Theme");
    await h.screenshot("settings");
    await h.assertKeyHidden();
    assert.equal(
      await h.run((key) => document.body.innerText.includes(key) || Array.from(document.querySelectorAll("input")).some((i) => i.value.includes(key)), FAKE_API_KEY),
      false,
    );
    await h.click("[role=dialog] label", "Dark");
    await h.click("[role=dialog] button", "Save settings");
    await h.waitFor("the dialog to close", () => !document.querySelector("[role=dialog]"));
    await h.waitFor("the dark theme", () => document.documentElement.dataset.theme === "dark");
    await h.click("button[aria-label=Dismiss]");
    await h.waitFor("the toast to go", () => !document.querySelector("button[aria-label=Dismiss]"));
    await h.screenshot("chat-dark");
    const prefs = fs.readFileSync(path.join(h.home, "config", "desktop.toml"), "utf8");
    assert.match(prefs, /theme = "dark"/);
  });
});
