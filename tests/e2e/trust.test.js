// Issue 10 on the desktop: hostile text and links in the real app. The shared
// payloads (tests/fixtures/xss-payloads.json) go everywhere the app shows
// model, tool or file text: a session title, a user message, answers, file
// names, tool arguments and outputs, approvals, a compaction summary and an
// error. None may run (window.__xss stays unset, the local beacon server sees
// nothing, the page never leaves the app) and the page never holds live
// markup (tests/fixtures/xss-audit.mjs). Links open only after a dialog that
// shows the real address, and only through the app's re-checking command
// (which a debug build records instead of starting a browser).

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { after, before, describe } from "node:test";
import { findXssViolations } from "../fixtures/xss-audit.mjs";
import { Harness, THRESHOLD } from "./lib/harness.js";
import { usage } from "./lib/mock-provider.js";
import { sharedAppSteps } from "./lib/steps.js";

const fixture = JSON.parse(fs.readFileSync(new URL("../fixtures/xss-payloads.json", import.meta.url), "utf8"));

/** A local server a payload would reach if it ever fetched anything. */
async function startBeacon() {
  const hits = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(204);
    res.end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${server.address().port}`;
  return { hits, host, url: `http://${host}/beacon`, stop: () => new Promise((resolve) => server.close(resolve)) };
}

const DOCS_URL = "https://docs.example.com/guide/install?from=strata#linux";
const LINKS_ANSWER = [
  `The install guide is in [the docs](${DOCS_URL}).`,
  "",
  "Do not use [this shortcut](javascript:window.__xss='link-click') or [this file](file:///etc/passwd).",
  "",
  "Sign in at [https://www.paypal.com/signin](https://paypal.com.account-check.example/signin).",
].join("\n");

describe("hostile text and links (issue 10)", { timeout: 300_000 }, () => {
  let h;
  let beacon;
  let payloads;
  let everything;
  let sessionId;
  let appUrl;

  before(async () => {
    beacon = await startBeacon();
    payloads = fixture.payloads.map((p) => ({
      ...p,
      text: p.payload.replaceAll("{{BEACON}}", beacon.url).replaceAll("{{BEACON_HOST}}", beacon.host),
    }));
    everything = payloads.map((p) => p.text).join("\n\n");
    h = await Harness.start("trust", { sandbox: "off" });
    // Files named after the payloads a file name can hold, and one holding them all.
    for (const p of payloads) {
      if (!/[/\n]/.test(p.text) && Buffer.byteLength(p.text) < 200) fs.writeFileSync(path.join(h.workspace, p.text), "x\n");
    }
    fs.writeFileSync(path.join(h.workspace, "hostile.md"), everything);
    sessionId = await h.cliSession(everything, (req) => req.respondText(everything));
    await h.launchApp();
    appUrl = await h.run(() => location.href);
  });

  after(() => beacon?.stop());

  const step = sharedAppSteps(() => h);

  /** Calls an app command as the UI does, its request as `request`; resolves to `{ ok }` or `{ error }`. */
  const invoke = (command, request) =>
    h.driver.executeAsync(
      `const [command, request, done] = arguments;
       window.__TAURI_INTERNALS__.invoke(command, { request }).then((ok) => done({ ok: ok ?? null }), (error) => done({ error }));`,
      command,
      request,
    );

  /**
   * Nothing ran and nothing is live: expands every tool card on screen (the
   * transcript is virtualised: what was just added is what is rendered) and
   * audits the whole page.
   */
  async function assertNothingRan(where) {
    const state = await h.driver.executeAsync(
      `const findXssViolations = ${findXssViolations.toString()};
       const done = arguments[0];
       const frames = (n, then) => (n ? requestAnimationFrame(() => frames(n - 1, then)) : then());
       document.querySelectorAll("section.tool-card .tool-card-header[aria-expanded=false]").forEach((b) => b.click());
       frames(2, () => done({
         violations: findXssViolations(document.body),
         sentinel: window.__xss === undefined ? null : String(window.__xss),
         url: location.href,
         bodyShown: getComputedStyle(document.body).display !== "none",
       }));`,
    );
    assert.equal(state.sentinel, null, `${where}: a payload set window.__xss`);
    assert.equal(state.url, appUrl, `${where}: the page left the app`);
    assert.ok(state.bodyShown, `${where}: injected CSS hid the page`);
    assert.deepEqual(state.violations, [], `${where}: live markup in the page`);
    assert.deepEqual(beacon.hits, [], `${where}: a payload reached the network`);
  }

  /** Clicks the last answer's link `text` as a person would (again, if the click landed while the list still moved). */
  async function clickLink(text) {
    await h.waitFor("the turn to finish", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready");
    for (let attempt = 0; ; attempt++) {
      await h.driver.click(await findAtEnd(".message-assistant a", text));
      try {
        return await h.waitFor("the link dialog", () => one("[role=dialog]"), [], 2_000);
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
  }

  /** Waits for `selector` (with `text`) at the end of the transcript, scrolling there. */
  const findAtEnd = (selector, text) =>
    h.waitFor(`${selector} with "${text}" at the end of the transcript`, (s, t) => {
      const list = document.querySelector("[role=log]");
      if (list) list.scrollTop = list.scrollHeight;
      return one(s, t);
    }, [selector, text]);

  step("shows a hostile session title, prompt and answer as text", async () => {
    assert.ok(payloads.length >= 50, `${payloads.length} payloads`);
    // The sidebar's rename sends this command; the list is read again on reload.
    // The app takes a title of one line up to 200 characters (longer or
    // control-bearing ones are refused): as many whole payloads as fit.
    let hostileTitle = "";
    for (const p of payloads) {
      const text = p.text.split(/\s+/).filter(Boolean).join(" ");
      const next = hostileTitle ? `${hostileTitle} ${text}` : text;
      if (/[\u0000-\u001f\u007f]/.test(text) || [...next].length > 200) continue;
      hostileTitle = next;
    }
    assert.ok(hostileTitle.length > 100, `a title of ${hostileTitle.length} characters`);
    assert.ok("ok" in (await invoke("rename_session", { session_id: sessionId, title: hostileTitle })));
    await h.run(() => location.reload());
    await h.waitFor("the app to load again", () => !!document.querySelector(".model-chip .model-label"), [], 30_000);
    const title = await h.waitFor("the hostile title in the sidebar", () => one("nav[aria-label=Sessions] .session-title")?.textContent || null);
    assert.ok(title === hostileTitle, `the title is shown as text, not as ${title.slice(0, 200)}`);
    await h.click("nav[aria-label=Sessions] .session-open");
    await h.find(".conversation-title h1");
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    await assertNothingRan("the opened session");
    const userText = await h.run(() => document.querySelector(".user-text")?.textContent ?? null);
    assert.ok(userText === everything, `the prompt is shown exactly, as text, not as ${userText?.slice(0, 200)}`);
  });

  step("shows hostile file names, tool arguments, outputs and approvals as text", async () => {
    await h.send("Look around the project");
    (await h.mock.nextRequest({ what: "round 1" })).respondFunctionCall("list_directory", { path: "." });
    const round2 = await h.mock.nextRequest({ what: "round 2" });
    const listing = round2.body.input.find((i) => i.type === "function_call_output");
    assert.match(listing.output, /onerror/, "the hostile file names are listed");
    round2.respondFunctionCall("read_file", { path: "hostile.md" });
    await findAtEnd("section.tool-card[aria-label='Tool call read_file'] .status-pill", "Done");
    await assertNothingRan("the listing of hostile file names and the hostile file");
    const outputs = await h.run(() => all("section.tool-card .tool-pre").map((pre) => pre.textContent));
    assert.ok(outputs.some((o) => o.includes(`<img src=x onerror="window.__xss='img-onerror'">`)), "a hostile file name is shown as text");
    assert.ok(outputs.some((o) => o.includes("<script>window.__xss='script-plain'</script>")), "the hostile file is shown as text");

    const hostileName = payloads.find((p) => p.id === "img-onerror").text;
    (await h.mock.nextRequest({ what: "round 3" })).respondFunctionCall("write_file", { path: hostileName, content: everything });
    await findAtEnd("[role=group]", "Approval needed for write_file");
    await assertNothingRan("the write approval");
    await h.driver.click(await findAtEnd("[role=group][aria-label='Approval needed for write_file'] button", "Deny"));

    (await h.mock.nextRequest({ what: "round 4" })).respondFunctionCall("run_shell", { command: everything });
    await findAtEnd("[role=group]", "Approval needed for run_shell");
    await assertNothingRan("the shell approval");
    await h.driver.click(await findAtEnd("[role=group][aria-label='Approval needed for run_shell'] button", "Deny"));

    // The answer crosses the threshold: the summary the model writes is hostile too.
    const round5 = await h.mock.nextRequest({ what: "round 5" });
    round5.respondText(everything, usage({ input: THRESHOLD + 2_000, output: 400 }));
    const summary = await h.mock.nextRequest({ what: "the compaction summary" });
    assert.ok(summary.isSummary, "a summary request");
    summary.respondText(everything, usage({ input: 3_000, output: 500 }));
    await h.waitFor("the turn to finish", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready");
    await findAtEnd("[role=separator].compaction-divider", null);
    await assertNothingRan("the answer");
    assert.equal(fs.readFileSync(path.join(h.workspace, hostileName), "utf8"), "x\n", "the denied write wrote nothing");
  });

  step("shows a hostile compaction summary and provider error as text", async () => {
    await h.click("button", "Debug console");
    await h.click("[data-testid=compaction-card] button", "Summary sent to the model");
    const shown = await h.run(() => document.querySelector("[data-testid=compaction-summary]")?.textContent ?? "");
    assert.ok(shown.includes("<script>window.__xss='script-plain'</script>"), "the summary is shown as text");
    await assertNothingRan("the compaction summary in the console");
    await h.click("button", "Debug console");

    await h.send("Try once more");
    (await h.mock.nextRequest({ what: "the failing round" })).respondError(400, everything, "invalid_request_error");
    await findAtEnd(".notice-error", null);
    await assertNothingRan("the error notice");
  });

  step("asks before opening a link, showing its real address; Cancel opens nothing", async () => {
    await h.send("Where is the install guide?");
    (await h.mock.nextRequest({ what: "the links answer" })).respondText(LINKS_ANSWER);
    await clickLink("the docs");
    const dialog = await h.find("[role=dialog]", "Open this link in your browser?");
    assert.ok(dialog);
    assert.equal(await h.run(() => norm(one("[data-testid=link-host]").textContent)), "docs.example.com");
    assert.equal(await h.run(() => one("[data-testid=link-url]").textContent), DOCS_URL);
    assert.equal(await h.run(() => location.href), appUrl, "the click did not navigate the app");
    await h.screenshot("link-confirm");
    await h.click("[role=dialog] button", "Cancel");
    await h.waitFor("the dialog to close", () => !document.querySelector("[role=dialog]"));
    assert.deepEqual(h.openedLinks(), [], "Cancel opened nothing");
  });

  step("opens a confirmed link through the app's command; script and file links stay inert", async () => {
    await clickLink("the docs");
    await h.find("[role=dialog]", "Open this link in your browser?");
    await h.click("[role=dialog] button", "Open in browser");
    await h.waitFor("the dialog to close", () => !document.querySelector("[role=dialog]"));
    await eventuallyOpened([DOCS_URL]);

    for (const text of ["this shortcut", "this file"]) {
      const inert = await findAtEnd(".message-assistant .inert-link", text);
      await h.driver.click(inert);
    }
    assert.equal(await h.run(() => !!document.querySelector("[role=dialog]")), false, "inert links ask nothing");
    assert.equal(await h.run(() => all(".message-assistant").pop().querySelectorAll("a").length), 2, "only the two web links are links");

    await clickLink("https://www.paypal.com/signin");
    await h.find("[role=dialog] [role=alert]", "The link's text says paypal.com, but it goes to paypal.com.account-check.example.");
    await h.run(() => (document.documentElement.dataset.theme = "dark"));
    await h.screenshot("link-confirm-mismatch-dark");
    await h.run(() => (document.documentElement.dataset.theme = "light"));
    await h.click("[role=dialog] button", "Cancel");
    await h.waitFor("the dialog to close", () => !document.querySelector("[role=dialog]"));

    // The command checks again whatever the page sends.
    for (const url of ["javascript:window.__xss='ipc'", "file:///etc/passwd", "data:text/html,hi", "https://bank.example@evil.example/"]) {
      const result = await invoke("open_external_link", { url });
      assert.equal(result.error?.kind, "invalid_input", `${url}: ${JSON.stringify(result)}`);
    }
    assert.deepEqual(h.openedLinks(), [DOCS_URL], "nothing else was opened");
    await assertNothingRan("the links");
  });

  step("shows on the shell approval that an approved command runs unsandboxed, with the person's rights", async () => {
    await h.send("Clean the build");
    (await h.mock.nextRequest({ what: "the shell round" })).respondFunctionCall("run_shell", { command: "rm -rf target && cargo build --release" });
    const warning = await findAtEnd("[role=group][aria-label='Approval needed for run_shell'] [data-testid=shell-warning]", null);
    assert.match(await h.driver.text(warning), /runs as you, with your rights, outside any sandbox/);
    await h.screenshot("approval-shell");
    await h.run(() => (document.documentElement.dataset.theme = "dark"));
    await h.screenshot("approval-shell-dark");
    await h.run(() => (document.documentElement.dataset.theme = "light"));
    await h.driver.click(await findAtEnd("[role=group][aria-label='Approval needed for run_shell'] button", "Deny"));
    (await h.mock.nextRequest({ what: "after the denial" })).respondText("Understood, nothing was run.");
    await findAtEnd(".message-assistant", "Understood, nothing was run.");
  });

  step("never lets the page navigate away from the app", async () => {
    // Were the navigation allowed, the local beacon would see the request.
    await h.run((url) => {
      location.href = url;
    }, `${beacon.url}/navigation`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(await h.run(() => location.href), appUrl);
    assert.deepEqual(beacon.hits, [], "the navigation never left the app");
    await findAtEnd(".message-assistant", "Understood, nothing was run.");
    const log = fs.readdirSync(path.join(h.home, "logs")).map((f) => fs.readFileSync(path.join(h.home, "logs", f), "utf8")).join("");
    assert.match(log, /refused a navigation away from the app scheme="http" host="127\.0\.0\.1"/);
  });

  async function eventuallyOpened(expected) {
    for (let i = 0; i < 50 && h.openedLinks().length < expected.length; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(h.openedLinks(), expected);
  }
});
