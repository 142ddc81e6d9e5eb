// Issue 26's Changes view in the real app: a session whose first turn ran
// on the command line in `auto` (its change seen after the fact) and whose
// second ran in the app (a write the person allowed) shows both turns'
// files with their diffs, and the write's card shows its diff too. "Restore
// to before this turn" previews what it changes, restores (checked on disk),
// refuses over a file the person edited since (naming it, changing nothing),
// and the restore is undone from the view.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";
import { Keys } from "./lib/webdriver.js";

const FIRST_PROMPT = "Describe the project in the README";
const README_AFTER = "# demo-project\n\nA small Rust program that prints hello.\n\nRun it with `cargo run`.\n";
const NOTES = "# Notes\n\n- main.rs prints hello\n- no tests yet\n";

const norm = (text) => (text ?? "").replace(/\s+/g, " ").trim();

describe("the Changes view: two turns' diffs, a restore with its preview (issue 26)", { timeout: 300_000 }, () => {
  let h;
  let readmeBefore;

  before(async () => {
    h = await Harness.start("changes");
    readmeBefore = fs.readFileSync(path.join(h.workspace, "README.md"), "utf8");
    // Turn 1, in `auto` on the command line: the model rewrites the README.
    let round = 0;
    const run = await h.cli(["run", "--workspace", h.workspace, "--approval", "auto", "--sandbox", "off", "-p", FIRST_PROMPT], (req) => {
      round += 1;
      if (round === 1) req.respondFunctionCall("write_file", { path: "README.md", content: README_AFTER }, usage({ input: 900, output: 40 }));
      else req.respondText("The README now says what the program does.", usage({ input: 1_000, output: 20 }));
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(fs.readFileSync(path.join(h.workspace, "README.md"), "utf8"), README_AFTER);
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);
  const ready = () => h.waitFor("the app to be ready", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);
  const file = (name) => {
    const at = path.join(h.workspace, name);
    return fs.existsSync(at) ? fs.readFileSync(at, "utf8") : null;
  };
  const panel = "aside[aria-label=Changes]";
  /** The preview's files as `step path` (or `path reason` when refused). */
  const previewFiles = (dialog) => h.run((d) => [...document.querySelectorAll(`${d} .restore-files li`)].map((li) => [...li.children].map((c) => c.textContent.trim()).join(" ")), dialog);
  /** The open diff's rows under `scope` as `tag old new text`. */
  const diffRows = (scope) =>
    h.run((s) => [...document.querySelectorAll(`${s} .diff-line`)].map((tr) => {
      const tag = tr.className.replace("diff-line diff-", "");
      const [old, now, text] = [...tr.querySelectorAll("td")].map((td) => td.textContent);
      return `${tag} ${old || "-"} ${now || "-"} ${text.replace(/^[ +−]/, "").replace(/^(Added|Removed): /, "")}`;
    }), scope);

  step("a second turn in the app writes a file the person allows", async () => {
    await h.openFromSidebar(FIRST_PROMPT);
    await h.send("Write a NOTES.md");
    (await h.mock.nextRequest({ what: "the write round" })).respondFunctionCall("write_file", { path: "NOTES.md", content: NOTES }, usage({ input: 1_200, output: 40 }));
    await h.click("[role=group][aria-label='Approval needed for write_file'] button", "Allow once");
    (await h.mock.nextRequest({ what: "the answer round" })).respondText("NOTES.md lists what the program does.", usage({ input: 1_300, output: 20 }));
    await ready();
    assert.equal(file("NOTES.md"), NOTES);
  });

  step("the Changes view opens from the header and by Ctrl+Shift+G, listing both turns", async () => {
    await h.click(".header-actions button", "Changes");
    await h.find(`${panel} section[aria-label='Turn 2']`);
    const groups = await h.run(
      (p) =>
        [...document.querySelectorAll(`${p} .changes-group`)].map((g) =>
          [".changes-group-title", ".changes-group-meta", ".changes-restore"].map((s) => norm(g.querySelector(s)?.textContent)).join(" | "),
        ),
      panel,
    );
    assert.deepEqual(groups, ["Turn 1 | 1 file · +3 −1 | Restore to before this turn", "Turn 2 | 1 file · +4 −0 | Restore to before this turn"]);
    // Beside the transcript at this width.
    const geometry = await h.run((p) => {
      const list = document.querySelector(".message-list-frame").getBoundingClientRect();
      const aside = document.querySelector(p).getBoundingClientRect();
      return { listRight: Math.round(list.right), asideLeft: Math.round(aside.left) };
    }, panel);
    assert.ok(Math.abs(geometry.listRight - geometry.asideLeft) <= 1, JSON.stringify(geometry));
    // The shortcut closes it and opens it again.
    const body = await h.find("body");
    await h.driver.sendKeys(body, `${Keys.CONTROL}${Keys.SHIFT}g${Keys.NULL}`);
    await h.waitFor("the panel to close", (p) => !document.querySelector(p), [panel]);
    await h.driver.sendKeys(body, `${Keys.CONTROL}${Keys.SHIFT}g${Keys.NULL}`);
    await h.find(`${panel} section[aria-label='Turn 1']`);
  });

  step("each turn's file opens to its diff: numbered lines, removals and additions", async () => {
    await h.click(`${panel} section[aria-label='Turn 1'] .change-file-head`, "README.md");
    await h.find(`${panel} section[aria-label='Turn 1'] table.diff-table`);
    assert.deepEqual(await diffRows(`${panel} section[aria-label='Turn 1']`), [
      "context 1 1 # demo-project",
      "context 2 2 ",
      "removed 3 - A small project the end-to-end tests let the agent work in.",
      "added - 3 A small Rust program that prints hello.",
      "added - 4 ",
      "added - 5 Run it with `cargo run`.",
    ]);
    await h.click(`${panel} section[aria-label='Turn 2'] .change-file-head`, "NOTES.md");
    await h.find(`${panel} section[aria-label='Turn 2'] table.diff-table`);
    assert.deepEqual(await diffRows(`${panel} section[aria-label='Turn 2']`), [
      "added - 1 # Notes",
      "added - 2 ",
      "added - 3 - main.rs prints hello",
      "added - 4 - no tests yet",
    ]);
    await h.screenshotBoth("changes-two-turns");
  });

  step("the whole session lists each file once, and the write's tool card shows its diff, folded", async () => {
    await h.click(`${panel} .segmented label`, "Whole session");
    const files = await h.waitFor("the session's files", (p) => {
      const rows = [...document.querySelectorAll(`${p} section[aria-label='Whole session'] .change-path`)].map((el) => el.textContent);
      return rows.length === 2 ? rows : null;
    }, [panel]);
    assert.deepEqual(files, ["NOTES.md", "README.md"]);
    await h.click(`${panel} .segmented label`, "By turn");

    const card = "section.tool-card[aria-label='Tool call write_file']";
    const cardOf = (name) =>
      h.run((c, n) => [...document.querySelectorAll(c)].find((el) => el.querySelector(".tool-hint")?.textContent === n), card, name);
    const notesCard = await h.waitFor("the NOTES.md card", (c) => [...document.querySelectorAll(c)].find((el) => el.querySelector(".tool-hint")?.textContent === "NOTES.md") ?? null, [card]);
    assert.ok(notesCard && (await cardOf("NOTES.md")));
    await h.driver.click(await h.run((el) => el.querySelector(".tool-card-header"), notesCard));
    const row = await h.waitFor("the card's changed file", (el) => el.querySelector(".tool-changes .change-file-head"), [notesCard]);
    assert.equal(await h.run((el) => el.getAttribute("aria-expanded"), row), "false", "the diff is folded");
    await h.driver.click(row);
    await h.waitFor("the card's diff", (el) => el.querySelectorAll(".tool-changes .diff-added").length === 4, [notesCard]);
    await h.run((el) => el.scrollIntoView({ block: "center" }), notesCard);
    await h.screenshotBoth("changes-tool-card");
  });

  step("restoring to before turn 2 is previewed, then deletes the file it created", async () => {
    await h.click(`${panel} section[aria-label='Turn 2'] button`, "Restore to before this turn");
    const dialog = "[role=dialog].restore-dialog";
    await h.find(dialog, "Restore files to before turn 2");
    await h.find(`${dialog} [aria-label='Files the restore changes']`);
    assert.deepEqual(await previewFiles(dialog), ["Delete NOTES.md"]);
    assert.equal(file("NOTES.md"), NOTES, "a preview changes nothing");
    await h.screenshotBoth("changes-restore-preview");
    await h.click(`${dialog} button`, "Restore 1 file");
    await h.waitFor("the dialog to close", (d) => !document.querySelector(d), [dialog]);
    await h.find(`${panel} section[aria-label='Restore']`);
    assert.equal(file("NOTES.md"), null, "NOTES.md is gone");
    assert.equal(file("README.md"), README_AFTER, "turn 1's change stays");
  });

  step("a restore over a file the person edited since is refused, naming it, changing nothing", async () => {
    fs.writeFileSync(path.join(h.workspace, "README.md"), "# demo-project\n\nMy own words.\n");
    await h.click(`${panel} section[aria-label='Turn 1'] button`, "Restore to before this turn");
    const dialog = "[role=dialog].restore-dialog";
    await h.find(dialog, "Restore files to before turn 1");
    const refusal = await h.find(`${dialog} .restore-refused`);
    assert.ok(refusal);
    assert.match(norm(await h.run((el) => el.textContent, refusal)), /Strata will not restore these files/);
    assert.deepEqual(await previewFiles(dialog), ["README.md changed outside Strata since its last recorded change"]);
    assert.equal(await h.run((d) => [...document.querySelectorAll(`${d} button`)].some((b) => b.textContent.startsWith("Restore")), dialog), false, "no way to go ahead");
    await h.screenshotBoth("changes-restore-refused");
    await h.click(`${dialog} .modal-footer button`, "Close");
    await h.waitFor("the dialog to close", (d) => !document.querySelector(d), [dialog]);
    assert.equal(file("README.md"), "# demo-project\n\nMy own words.\n", "the person's edit stays");
    assert.notEqual(file("README.md"), readmeBefore);
  });

  step("the restore is undone from the view: the file comes back", async () => {
    await h.click(`${panel} section[aria-label='Restore'] button`, "Undo this restore");
    const dialog = "[role=dialog].restore-dialog";
    await h.find(dialog, "Restore files to before this restore");
    await h.find(`${dialog} [aria-label='Files the restore changes']`);
    assert.deepEqual(await previewFiles(dialog), ["Write back NOTES.md"]);
    await h.click(`${dialog} button`, "Restore 1 file");
    await h.waitFor("the dialog to close", (d) => !document.querySelector(d), [dialog]);
    assert.equal(file("NOTES.md"), NOTES);
    await h.waitFor("two restores in the view", (p) => document.querySelectorAll(`${p} section[aria-label='Restore']`).length === 2, [panel]);
  });

  step("in a narrow window the view sits below the transcript, still scrolling on its own", async () => {
    await h.resizeTo({ width: 880, height: 760 });
    const geometry = await h.run((p) => {
      const list = document.querySelector(".message-list-frame").getBoundingClientRect();
      const aside = document.querySelector(p).getBoundingClientRect();
      return { listBottom: Math.round(list.bottom), asideTop: Math.round(aside.top), asideHeight: Math.round(aside.height) };
    }, panel);
    assert.ok(Math.abs(geometry.listBottom - geometry.asideTop) <= 1, JSON.stringify(geometry));
    assert.ok(geometry.asideHeight > 120, JSON.stringify(geometry));
    await h.screenshotBoth("changes-narrow");
    await h.resizeTo({ width: 1280, height: 800 });
  });
});
