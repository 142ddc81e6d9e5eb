// Issue 20, item 4: the session header with the debug console open. In each
// header state (read-only, live, running, waiting for approval), at the
// smallest supported window (src-tauri/tauri.conf.json's minWidth and
// minHeight) and at 1024, 1280 and 1440 wide, in light and dark, the
// header's geometry is measured in the page: the title shows at least its
// first 30 characters (all of it in its tooltip), every piece of secondary
// text and every button label is on one line, no button is cut, and no two
// controls overlap each other or the docked console (under 1200 px the
// console is a drawer over the chat, issue 27 item 12: see layout.test.js). The screenshots (under
// target/screenshots/header/) are for people to look at; the measurements
// are what passes or fails.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe } from "node:test";
import { Harness, REPO } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";

// 77 characters: the whole prompt is the session's title (titles keep 80).
const TITLE = "Give me a tour of this project and explain how the build and the tests fit in";
const KEPT_CHARS = 30;

const WINDOW = JSON.parse(fs.readFileSync(path.join(REPO, "src-tauri", "tauri.conf.json"), "utf8")).app.windows[0];
const SIZES = [
  { width: WINDOW.minWidth, height: WINDOW.minHeight },
  { width: 1024, height: 640 },
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
];

/**
 * Runs in the page: what is wrong with the session header's layout, as
 * sentences (none when it holds). Geometry only, measured on the rendered
 * boxes and text ranges.
 */
function headerProblems(title, keptChars) {
  const problems = [];
  const header = document.querySelector(".conversation-header");
  if (!header) return ["no session header"];
  const h1 = header.querySelector("h1");
  const consolePanel = document.querySelector("aside.console");
  if (!consolePanel) problems.push("the debug console is not open");
  const docked = consolePanel && !consolePanel.classList.contains("console-drawer");

  const label = (el) => `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).trim().replace(/\s+/g, ".")}` : ""} "${norm(el.textContent).slice(0, 40)}"`;

  // The title: one line, its tooltip the whole title, and at least its first `keptChars` characters shown.
  if (!h1) {
    problems.push("no title");
  } else {
    if (h1.getAttribute("title") !== title) problems.push(`the title's tooltip is ${JSON.stringify(h1.getAttribute("title"))}, not the full title`);
    if (lines(h1) !== 1) problems.push(`the title takes ${lines(h1)} lines`);
    const text = document.createTreeWalker(h1, NodeFilter.SHOW_TEXT).nextNode();
    const style = getComputedStyle(h1);
    const box = h1.getBoundingClientRect();
    const contentRight = Math.min(box.left + h1.clientLeft + h1.clientWidth - parseFloat(style.paddingRight), visibleRect(h1).right);
    const cut = h1.scrollWidth > h1.clientWidth;
    const canvas = document.createElement("canvas").getContext("2d");
    canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    // A cut title ends in an ellipsis, which takes the place of the characters under it.
    const limit = contentRight - (cut ? canvas.measureText("…").width : 0) + 0.5;
    const endOf = (n) => {
      const range = document.createRange();
      range.setStart(text, 0);
      range.setEnd(text, n);
      return range.getBoundingClientRect().right;
    };
    let shown = 0;
    while (shown < text.length && endOf(shown + 1) <= limit) shown++;
    const wanted = Math.min(keptChars, title.length);
    if (shown < wanted) problems.push(`the title shows ${shown} of its first ${wanted} characters ("${title.slice(0, shown)}…")`);
    // Cut while there is room beside it: the title must be the last thing to give up space.
    if (cut) {
      const mine = visibleRect(h1);
      const besideRight = Array.from(header.querySelectorAll("button, [role=status]"))
        .map(visibleRect)
        .filter((r) => r.width > 0 && r.top < mine.bottom && r.bottom > mine.top && r.left >= mine.right - 1)
        .map((r) => r.left);
      const headerBox = header.getBoundingClientRect();
      const end = Math.min(headerBox.right - parseFloat(getComputedStyle(header).paddingRight), ...besideRight);
      if (end - mine.right > 40) problems.push(`the title is cut with ${Math.round(end - mine.right)} px free beside it`);
    }
  }

  // Secondary text (every element holding text of its own) on one line; the workspace line as a whole too.
  const withText = Array.from(header.querySelectorAll("*")).filter(
    (el) => visible(el) && Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim()),
  );
  const workspaceLine = header.querySelector(".workspace");
  for (const el of new Set([...withText, ...(workspaceLine ? [workspaceLine] : [])])) {
    if (el === h1) continue;
    const n = lines(el);
    if (n !== 1) problems.push(`${label(el)} takes ${n} lines`);
  }

  // Buttons: the label on one line and whole, the button not cut by anything around it.
  const buttons = all("button", null, header);
  for (const button of buttons) {
    const n = lines(button);
    if (n !== 1) problems.push(`the button ${label(button)} wraps its label over ${n} lines`);
    if (button.scrollWidth > button.clientWidth + 1) problems.push(`the button ${label(button)} cuts its label`);
    const box = button.getBoundingClientRect();
    const shown = visibleRect(button);
    if (shown.width < box.width - 1 || shown.height < box.height - 1) problems.push(`the button ${label(button)} is cut (${Math.round(shown.width)} of ${Math.round(box.width)} px shown)`);
  }

  // No two controls overlap (an element and what it contains aside), nor any of them the console.
  const controls = [...new Set([...(h1 ? [h1] : []), ...buttons, ...withText])].filter((el) => visibleRect(el).width > 0);
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  controls.forEach((a, i) => {
    const ra = visibleRect(a);
    // Under 1200 px the console is a drawer over the chat by design; docked, nothing may run under it.
    if (docked && overlap(ra, consolePanel.getBoundingClientRect())) problems.push(`${label(a)} runs under the debug console`);
    for (const b of controls.slice(i + 1)) {
      if (a.contains(b) || b.contains(a)) continue;
      if (overlap(ra, visibleRect(b))) problems.push(`${label(a)} overlaps ${label(b)}`);
    }
  });
  return problems;
}

describe("session header (issue 20)", { timeout: 300_000 }, () => {
  let h;

  before(async () => {
    h = await Harness.start("header");
    await h.cliSession(TITLE, (req) => req.respondText("This is demo-project: a README and src/main.rs.", usage({ input: 1_800, output: 30 })));
    await h.launchApp();
    await h.click("button", "Debug console");
    await h.find("aside.console");
  });

  const step = sharedAppSteps(() => h);

  /** Every size and theme: the header's problems, each prefixed with where; a screenshot of each. */
  async function checkHeader(state) {
    const found = [];
    for (const size of SIZES) {
      await h.resizeTo(size);
      for (const theme of ["light", "dark"]) {
        await h.run((t) => {
          document.documentElement.dataset.theme = t;
        }, theme);
        const problems = await h.run(headerProblems, TITLE, KEPT_CHARS);
        found.push(...problems.map((p) => `${size.width}x${size.height} ${theme}: ${p}`));
        await h.screenshot(`header/header-${size.width}-${state}-${theme}`);
      }
    }
    await h.run(() => {
      document.documentElement.dataset.theme = "light";
    });
    assert.deepEqual(found, [], `the ${state} header`);
  }

  const ready = () => h.waitFor("the app to be ready", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);

  step("read-only (the CLI holds the session): the title, the notice and Check again fit at every width", async () => {
    const held = await h.holdWithCli(await h.sessionIdOf(TITLE), "What is in src?");
    await h.openFromSidebar(TITLE);
    await h.find(".conversation-header [role=status] .readonly-badge", "Read-only");
    await checkHeader("readonly");
    const done = await held.finish("Only main.rs.");
    assert.equal(done.code, 0, done.stderr);
  });

  step("live: the title, the workspace line and Switch profile fit at every width", async () => {
    await h.waitFor("the session to open live once the CLI let go", () => !document.getElementById("composer-input").disabled, [], 30_000);
    await checkHeader("live");
  });

  step("running: the header holds while an answer streams", async () => {
    await h.send("Describe the layout of the project");
    const req = await h.mock.nextRequest({ what: "the streamed round" });
    const stream = req.openStream();
    stream.delta("The project has ");
    await h.find(".message-assistant[aria-busy=true]", "The project has");
    await h.find("button", "Stop");
    await checkHeader("running");
    stream.delta("a README and one source file.");
    stream.complete(usage({ input: 2_000, output: 20 }));
    await ready();
  });

  step("waiting for approval: the header holds while a write waits", async () => {
    await h.send("Write a NOTES.md");
    const req = await h.mock.nextRequest({ what: "the write round" });
    req.respondFunctionCall("write_file", { path: "NOTES.md", content: "# Notes\n" });
    await h.find("[role=group]", "Approval needed for write_file");
    await checkHeader("approval");
    await h.click("[role=group][aria-label='Approval needed for write_file'] button", "Deny");
    const after = await h.mock.nextRequest({ what: "the round after the denial" });
    after.respondText("Understood, nothing written.", usage({ input: 2_200, output: 10 }));
    await ready();
  });
});
