// Issue 10's secrets audit on the desktop: a known fake key, typed into
// Settings and stored through the app's key flow (set_api_key, the key file
// of a `key_store = "file"` config), then used for real against the mock
// provider. The model reads a file holding the key and an endpoint error
// quotes it back. Afterwards the key is in no view's DOM (text, attributes,
// input values, web storage), no screenshot (OCR'd with tesseract), no
// export, no log (debug level) and no file under STRATA_HOME but the key
// store itself, and no request body the model was sent.

import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { usage } from "./lib/mock-provider.js";
import { sharedAppSteps } from "./lib/steps.js";
import { Keys } from "./lib/webdriver.js";

/** The audited key: only ever typed into Settings, never in a config file. */
const KEY = "sk-desk-AUDIT-3b8e51c07f9a4d26e1c5";
/** Recognisable pieces of it: a cut that kept half is a leak too. */
const PIECES = [KEY, KEY.slice(0, 18), KEY.slice(-16)];

const execFileAsync = promisify(execFile);

const leaks = (text) => PIECES.filter((piece) => text.includes(piece));

/** Every file under `dir`, recursively. */
function filesUnder(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(file) : [file];
  });
}

/** The text tesseract reads in a PNG. */
async function ocr(png) {
  const { stdout } = await execFileAsync("tesseract", [png, "stdout"], { encoding: "utf8", timeout: 120_000 });
  return stdout;
}

describe("secrets audit on the desktop (issue 10)", { timeout: 300_000 }, () => {
  let h;
  let sessionId;

  before(async () => {
    // tesseract comes with `make setup` (scripts/setup.sh).
    execFileSync("tesseract", ["--version"], { stdio: "ignore" });
    // Debug-level logs: everything the app would write, the HTTP stack included.
    h = await Harness.start("secrets", { env: { STRATA_LOG: "debug" } });
    fs.writeFileSync(path.join(h.workspace, "notes.txt"), `deploy notes\nOPENAI_API_KEY=${KEY}\n`);
    sessionId = await h.cliSession("Audit the deploy notes", (req) => req.respondText("Ready for the audit."));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);

  /**
   * What the page holds, everywhere a key could hide: the serialised DOM
   * (text and attributes), every form field's live value and web storage.
   */
  const pageDump = () =>
    h.run(() =>
      [
        document.documentElement.outerHTML,
        ...Array.from(document.querySelectorAll("input, textarea, select")).map((el) => el.value),
        JSON.stringify({ ...localStorage }),
        JSON.stringify({ ...sessionStorage }),
        document.title,
      ].join("\n"),
    );

  /** OCR checks still running: they overlap the next views; each step awaits its own. */
  let reading = [];
  const later = (check) => {
    // Handled here so a failure waits for readAll() instead of crashing the run.
    check.catch(() => {});
    reading.push(check);
  };
  const readAll = async () => {
    const pending = reading;
    reading = [];
    await Promise.all(pending);
  };

  /**
   * The page at this moment, and its screenshot read back by OCR, hold no
   * key; OCR must read one of the labels in `visible` (so it did read the
   * screen). The OCR part finishes by the next `readAll()`.
   */
  async function audit(view, visible) {
    assert.deepEqual(leaks(await pageDump()), [], `${view}: the key is in the page`);
    assert.deepEqual(leaks(await h.driver.source()), [], `${view}: the key is in the page source`);
    const png = await h.screenshot(`secrets-${view}`);
    later(assertScreenHasNoKey(view, png, visible));
  }

  async function assertScreenHasNoKey(view, png, visible) {
    const read = await ocr(png);
    // OCR read the screen (so a shown key would have been read too)...
    // (Case aside: some headings are upper-cased by CSS.)
    const readLower = read.toLowerCase();
    assert.ok(
      visible.some((label) => readLower.includes(label.toLowerCase())),
      `${view}: OCR read none of ${visible} in: ${read.slice(0, 400)}`,
    );
    // ...and no part of the key is on it (OCR may drop the dashes).
    const squeezed = read.replace(/\s+/g, "");
    for (const piece of PIECES) {
      assert.ok(!squeezed.includes(piece) && !squeezed.includes(piece.replaceAll("-", "")), `${view}: OCR read the key on screen`);
    }
  }

  step("stores a key typed into Settings; the field shows it masked", async () => {
    await h.click("button", "Settings");
    const field = await h.find("#profile-api-key");
    await h.driver.sendKeys(field, KEY);
    await h.waitFor("the key in the field", (n) => document.getElementById("profile-api-key").value.length === n, [KEY.length]);
    // The person's own typing is in the field's value until stored; it must
    // still be masked on screen and kept out of the DOM's attributes.
    assert.equal(await h.run(() => document.getElementById("profile-api-key").type), "password");
    assert.deepEqual(leaks(await h.driver.source()), [], "the typed key is in the page source");
    later(assertScreenHasNoKey("settings-typed", await h.screenshot("secrets-settings-typed"), ["API key", "Provider profiles"]));

    await h.click("[role=dialog] button", "Replace key");
    await h.find("#profile-api-key-status", "Key stored");
    await h.waitFor("the field to be cleared", () => document.getElementById("profile-api-key").value === "");
    await audit("settings-stored", ["API key", "Provider profiles"]);
    await h.click("[role=dialog] button[aria-label=Close]");
    await h.waitFor("the dialog to close", () => !document.querySelector("[role=dialog]"));
    // From now on the mock accepts the stored key alone.
    h.mock.apiKey = KEY;
    await readAll();
  });

  step("uses the stored key for real; a file holding it and an error quoting it show no key", async () => {
    await h.openFromSidebar("Audit the deploy notes");
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);

    await h.send("Read the notes");
    const round1 = await h.mock.nextRequest({ what: "the round that reads the notes" });
    assert.equal(round1.headers.authorization, `Bearer ${KEY}`, "the stored key is sent to the configured origin");
    round1.respondFunctionCall("read_file", { path: "notes.txt" });
    const round2 = await h.mock.nextRequest({ what: "the round after the read" });
    const output = round2.body.input.find((item) => item.type === "function_call_output");
    assert.ok(output?.output.includes("deploy notes"), JSON.stringify(output));
    assert.ok(output.output.includes("[redacted]"), `the key was not redacted: ${output.output}`);
    round2.respondText("The notes name a deploy key; it is redacted.", usage({ input: 300, output: 12 }));
    await h.find(".message-assistant", "it is redacted");

    await h.send("Try again");
    (await h.mock.nextRequest({ what: "the round the endpoint refuses" })).respondError(
      401,
      `Incorrect API key provided: ${KEY}. You can find your API key at https://example.invalid.`,
      "invalid_request_error",
    );
    await h.find(".notice-error");
    await h.waitFor("the turn to end", () => !one("button", "Stop"));

    for (const request of h.mock.requests) {
      assert.deepEqual(leaks(JSON.stringify(request.body)), [], `request ${request.number}'s body`);
    }
  });

  step("no view shows the key: transcript, tool output, error and the debug console", async () => {
    // The transcript with every tool card open (the session is short: all rendered).
    await h.run(() => document.querySelectorAll("section.tool-card .tool-card-header[aria-expanded=false]").forEach((b) => b.click()));
    await h.find("section.tool-card", "[redacted]");
    await audit("transcript", ["Try again", "Read the notes", "Settings"]);

    await h.click("button", "Debug console");
    for (const tab of ["Compactions", "Model view", "Rounds and events"]) {
      await h.click("[role=tab]", tab);
      await h.find("[role=tab][aria-selected=true]", tab);
      await audit(`console-${tab.toLowerCase().replaceAll(" ", "-")}`, [tab, "Debug console"]);
    }
    await h.click("button", "Debug console");
    await readAll();
  });

  step("no view shows the key: the session menu and Settings reopened", async () => {
    await h.click("nav[aria-label=Sessions] button[aria-label='Actions for Audit the deploy notes']");
    const item = await h.find("[role=menu] [role=menuitem]", "Export as Markdown");
    assert.deepEqual(leaks(await pageDump()), [], "the session menu");
    await h.driver.sendKeys(item, Keys.ESCAPE);
    await h.waitFor("the menu to close", () => !document.querySelector("[role=menu]"));

    await h.click("button", "Settings");
    await h.find("#profile-api-key");
    await audit("settings-reopened", ["API key", "Provider profiles"]);
    await h.click("[role=dialog] button[aria-label=Close]");
    await h.waitFor("the dialog to close", () => !document.querySelector("[role=dialog]"));
    await readAll();
  });

  step("no export, log or file under STRATA_HOME holds the key but the key store", async () => {
    const exports = [];
    for (const format of ["md", "json"]) {
      const file = path.join(h.root, `export.${format}`);
      // The export's text, as the UI receives it before writing it where the save dialog chose.
      const result = await h.driver.executeAsync(
        `const [request, done] = arguments;
         window.__TAURI_INTERNALS__.invoke("export_session", { request }).then((exported) => done({ ok: true, text: exported.text }), (error) => done({ error }));`,
        { session_id: sessionId, format },
      );
      assert.ok(result.ok, `export ${format}: ${JSON.stringify(result)}`);
      fs.writeFileSync(file, result.text);
      const text = fs.readFileSync(file, "utf8");
      assert.ok(text.includes("Read the notes"), `the ${format} export holds the session`);
      assert.deepEqual(leaks(text), [], `the ${format} export`);
      exports.push(file);
    }

    // The app exits, so its logs are flushed.
    await h.closeApp();
    const files = filesUnder(h.home);
    const logs = files.filter((file) => file.includes(`${path.sep}logs${path.sep}`));
    assert.ok(logs.length > 0, `no log files in ${files.join(", ")}`);
    const logged = logs.map((file) => fs.readFileSync(file, "utf8")).join("\n");
    assert.match(logged, /API key stored/, "the log covers the key being stored");
    assert.match(logged, /DEBUG/, "debug-level logging was on");

    const keyStore = path.join(h.home, "config", "keys.toml");
    assert.deepEqual(leaks(fs.readFileSync(keyStore, "utf8")), PIECES, "the key store holds the key");
    assert.equal(fs.statSync(keyStore).mode & 0o777, 0o600, "the key store is owner-only");
    // The harness's own key file (the CLI's key for the first turn) holds another key.
    const holders = files.filter((file) => leaks(fs.readFileSync(file, "latin1")).length > 0);
    assert.deepEqual(holders, [keyStore], "only the key store holds the key");
    assert.ok(files.some((file) => file.endsWith(".jsonl")), "the session file was audited");
  });
});
