// Issue 27, item 12: the console adapts to the window instead of taking the
// chat's width. At 1440 and 1280 px it docks beside the chat with a splitter
// (dragged, or arrow keys on its role=separator) that never leaves the chat
// under 520 px, and the width chosen is kept when the console closes and
// opens again, and after a restart (save_layout). Under 1200 px (1024
// here) the console is a drawer over the chat (it takes focus, Escape
// closes it and focus goes back) and the
// sidebar is collapsed behind the header's Sessions button (a drawer too).
// At each width, in light and dark, the app header, the session header, the
// composer and the footer are measured: no control is cut, wraps its label
// or overlaps another (or the docked console). Screenshots under
// target/screenshots/layout/.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe } from "node:test";
import { eventually, Harness } from "./lib/harness.js";
import { Keys } from "./lib/webdriver.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";

const TITLE = "Walk me through the build of this project and what each step checks";
const CHAT_MIN = 520;

/**
 * Runs in the page: what is wrong with the window's layout, as sentences. Every control (button,
 * input, heading, status) of the app header, the session header, the composer and the footer:
 * its label on one line and whole, the control not cut by what clips it, no two of them
 * overlapping, none under the docked console.
 */
function layoutProblems(chatMin) {
  const problems = [];
  const label = (el) => `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).trim().replace(/\s+/g, ".")}` : ""} "${norm(el.getAttribute("aria-label") || el.textContent).slice(0, 40)}"`;
  const panel = document.querySelector("aside.console");
  const docked = panel && !panel.classList.contains("console-drawer") ? panel.getBoundingClientRect() : null;
  const chat = document.querySelector("main.conversation");
  if (!chat) return ["no conversation"];
  const chatBox = chat.getBoundingClientRect();
  if (docked && chatBox.width < chatMin - 1) problems.push(`the chat is ${Math.round(chatBox.width)} px wide beside the docked console`);
  if (docked && chatBox.right > docked.left + 1) problems.push("the chat runs under the docked console");
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  for (const root of [".app-header", ".conversation-header", ".composer", ".app-footer"]) {
    const box = document.querySelector(root);
    if (!box) {
      problems.push(`no ${root}`);
      continue;
    }
    const controls = all("button, input, textarea, h1, [role=status], .model-chip", null, box).filter((el) => el.getBoundingClientRect().width > 0);
    for (const el of controls) {
      const rect = el.getBoundingClientRect();
      const shown = visibleRect(el);
      if (shown.width < rect.width - 1 || shown.height < rect.height - 1) problems.push(`${root}: ${label(el)} is cut (${Math.round(shown.width)} of ${Math.round(rect.width)} px shown)`);
      if (el.tagName === "BUTTON") {
        if (lines(el) > 1) problems.push(`${root}: ${label(el)} wraps its label`);
        if (el.scrollWidth > el.clientWidth + 1) problems.push(`${root}: ${label(el)} cuts its label`);
      }
      if (docked && root !== ".app-header" && overlap(shown, docked)) problems.push(`${root}: ${label(el)} runs under the debug console`);
    }
    controls.forEach((a, i) => {
      for (const b of controls.slice(i + 1)) {
        if (!a.contains(b) && !b.contains(a) && overlap(visibleRect(a), visibleRect(b))) problems.push(`${root}: ${label(a)} overlaps ${label(b)}`);
      }
    });
  }
  return problems;
}

describe("the window's layout (issue 27, item 12)", { timeout: 300_000 }, () => {
  let h;

  before(async () => {
    h = await Harness.start("layout");
    await h.cliSession(TITLE, (req) => req.respondText("The build compiles the crates, then the UI; the tests follow.", usage({ input: 1_500, output: 30 })));
    await h.launchApp();
    await h.resizeTo({ width: 1440, height: 900 });
    await h.openFromSidebar(TITLE);
  });

  const step = sharedAppSteps(() => h);
  let chosen = 0;

  /** The layout's problems at this size in both themes, with a screenshot of each. */
  async function checkLayout(name) {
    const found = await h.problemsInBothThemes(`layout/${name}`, () => h.run(layoutProblems, CHAT_MIN));
    assert.deepEqual(found, [], name);
  }

  const splitter = () => h.find("aside.console [role=separator]");
  const splitterValue = () => h.run(() => Number(document.querySelector("aside.console [role=separator]").getAttribute("aria-valuenow")));
  const chatWidth = () => h.run(() => Math.round(document.querySelector("main.conversation").getBoundingClientRect().width));

  step("1440: the console docks beside the chat; its splitter stops where the chat keeps 520 px", async () => {
    await h.click("button", "Debug console");
    await h.find("aside.console");
    assert.equal(await h.run(() => document.querySelector("aside.console").classList.contains("console-drawer")), false, "docked at 1440");
    const handle = await splitter();
    // End: as wide as the window allows.
    await h.driver.sendKeys(handle, Keys.END);
    const max = await h.run(() => Number(document.querySelector("aside.console [role=separator]").getAttribute("aria-valuemax")));
    await h.waitFor("the console at its widest", (m) => Number(document.querySelector("aside.console [role=separator]").getAttribute("aria-valuenow")) === m, [max]);
    assert.ok((await chatWidth()) >= CHAT_MIN, `the chat keeps ${CHAT_MIN} px beside the widest console (${await chatWidth()} px)`);
    // More arrows change nothing past the maximum.
    await h.driver.sendKeys(handle, Keys.ARROW_LEFT.repeat(3));
    assert.equal(await splitterValue(), max);
    await checkLayout("1440-console-widest");
    // Four steps right: 96 px narrower.
    await h.driver.sendKeys(handle, Keys.ARROW_RIGHT.repeat(4));
    await h.waitFor("the console 96 px narrower", (m) => Number(document.querySelector("aside.console [role=separator]").getAttribute("aria-valuenow")) === m - 96, [max]);
  });

  step("1440: dragging the splitter resizes the console, and the width is kept when it closes and opens", async () => {
    const before = await splitterValue();
    const box = await h.run(() => {
      const r = document.querySelector("aside.console [role=separator]").getBoundingClientRect();
      return { x: Math.round(r.left + r.width / 2), y: Math.round(r.top + r.height / 2) };
    });
    await h.driver.performActions([
      {
        type: "pointer",
        id: "mouse",
        parameters: { pointerType: "mouse" },
        actions: [
          { type: "pointerMove", duration: 0, x: box.x, y: box.y, origin: "viewport" },
          { type: "pointerDown", button: 0 },
          { type: "pointerMove", duration: 100, x: box.x + 60, y: box.y, origin: "viewport" },
          { type: "pointerMove", duration: 100, x: box.x + 100, y: box.y, origin: "viewport" },
          { type: "pointerUp", button: 0 },
        ],
      },
    ]);
    await h.waitFor("the console 100 px narrower", (b) => Number(document.querySelector("aside.console [role=separator]").getAttribute("aria-valuenow")) === b - 100, [before]);
    assert.equal(await h.run(() => getSelection().toString()), "", "the drag selected no text");
    await h.click("aside.console button", "Close debug console");
    await h.waitFor("the console closed", () => !document.querySelector("aside.console"));
    await h.click("button", "Debug console");
    await h.find("aside.console");
    assert.equal(await splitterValue(), before - 100, "the chosen width is kept");
    chosen = before - 100;
    await checkLayout("1440-console");
  });

  step("1440: the chosen width comes back after a restart", async () => {
    // Saved once the resize settled (400 ms), into desktop.toml.
    const prefs = path.join(h.home, "config", "desktop.toml");
    await eventually("the width in desktop.toml", () => fs.existsSync(prefs) && fs.readFileSync(prefs, "utf8").includes(`console_width = ${chosen}`));
    await h.restartApp();
    await h.resizeTo({ width: 1440, height: 900 });
    await h.openFromSidebar(TITLE);
    await h.click("button", "Debug console");
    await h.find("aside.console");
    assert.equal(await splitterValue(), chosen, "the console opens at the width chosen in the last run");
  });

  step("1280: docked, the console gives way so the chat keeps its minimum", async () => {
    await h.resizeTo({ width: 1280, height: 800 });
    await h.driver.sendKeys(await splitter(), Keys.END);
    await h.waitFor("the splitter at its maximum", () => {
      const s = document.querySelector("aside.console [role=separator]");
      return s.getAttribute("aria-valuenow") === s.getAttribute("aria-valuemax");
    });
    assert.ok((await chatWidth()) >= CHAT_MIN, `the chat keeps ${CHAT_MIN} px at 1280 (${await chatWidth()} px)`);
    await checkLayout("1280-console");
  });

  step("1024: the console is a drawer over the chat; Escape closes it and focus goes back", async () => {
    await h.resizeTo({ width: 1024, height: 640 });
    await h.waitFor("the console as a drawer", () => document.querySelector("aside.console")?.classList.contains("console-drawer"));
    // The sidebar is collapsed: the chat has the window's width.
    assert.equal(await h.run(() => !!document.querySelector("nav[aria-label=Sessions]")), false, "the sidebar is collapsed");
    assert.ok((await chatWidth()) >= 1000, `the chat takes the window (${await chatWidth()} px)`);
    await h.screenshotBoth("layout/1024-console-drawer");
    await h.waitFor("focus in the drawer", () => document.querySelector("aside.console").contains(document.activeElement));
    await h.driver.sendKeys(await h.run(() => document.activeElement), Keys.ESCAPE);
    await h.waitFor("the drawer closed", () => !document.querySelector("aside.console"));
    await h.waitFor("focus back on the console's button", () => norm(document.activeElement?.textContent) === "Debug console");
    await checkLayout("1024");
  });

  step("1024: the Sessions button opens the sidebar as a drawer; Escape closes it and focus goes back", async () => {
    const toggle = await h.find("button.sidebar-toggle");
    assert.equal(await h.run(() => document.querySelector("button.sidebar-toggle").getAttribute("aria-expanded")), "false");
    await h.driver.click(toggle);
    await h.find("[data-testid=sidebar-drawer] nav[aria-label=Sessions]");
    await h.waitFor("focus in the sidebar drawer", () => document.querySelector("[data-testid=sidebar-drawer]").contains(document.activeElement));
    await h.screenshotBoth("layout/1024-sidebar-drawer");
    await h.driver.sendKeys(await h.run(() => document.activeElement), Keys.ESCAPE);
    await h.waitFor("the sidebar drawer closed", () => !document.querySelector("[data-testid=sidebar-drawer]"));
    await h.waitFor("focus back on the Sessions button", () => document.activeElement?.classList.contains("sidebar-toggle"));
    // Picking a session from the drawer closes it.
    await h.driver.click(toggle);
    await h.click("[data-testid=sidebar-drawer] .session-open", TITLE.slice(0, 30));
    await h.waitFor("the sidebar drawer closed", () => !document.querySelector("[data-testid=sidebar-drawer]"));
  });
});
