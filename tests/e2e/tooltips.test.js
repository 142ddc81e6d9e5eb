// Issue 27, item 15: tooltips are the app's own and close when their
// click opens a dialog or a menu (a native title stayed up over them),
// and focus is never lost when a dialog or menu closes: back to the
// button that opened it, or, when that is gone (a deleted session's row),
// somewhere in the page rather than nowhere. Screenshots under
// target/screenshots/tooltips/, light and dark.

import assert from "node:assert/strict";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { Keys } from "./lib/webdriver.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";

const KEPT = "Summarise the README of this project";
const DOOMED = "A throwaway session to delete";

describe("tooltips and focus (issue 27, item 15)", { timeout: 300_000 }, () => {
  let h;

  before(async () => {
    h = await Harness.start("tooltips");
    await h.cliSession(DOOMED, (req) => req.respondText("Nothing to keep here.", usage({ input: 900, output: 10 })));
    await h.cliSession(KEPT, (req) => req.respondText("The README explains the build and the tests.", usage({ input: 1_200, output: 20 })));
    await h.launchApp();
    await h.resizeTo({ width: 1280, height: 800 });
    await h.openFromSidebar(KEPT);
  });

  const step = sharedAppSteps(() => h);

  /** Moves the mouse onto the middle of the first visible `selector` (with `text`). */
  async function hover(selector, text = null) {
    const el = await h.find(selector, text);
    const at = await h.run((e) => {
      const r = e.getBoundingClientRect();
      return { x: Math.round(r.left + r.width / 2), y: Math.round(r.top + r.height / 2) };
    }, el);
    await h.driver.performActions([
      { type: "pointer", id: "mouse", parameters: { pointerType: "mouse" }, actions: [{ type: "pointerMove", duration: 50, x: at.x, y: at.y, origin: "viewport" }] },
    ]);
    return el;
  }
  const tooltip = () => h.run(() => norm(document.querySelector("[role=tooltip]")?.textContent) || null);

  step("Settings: its tooltip shows on hover and is gone once its click opens the dialog", async () => {
    const settings = await hover(".header-actions button", "Settings");
    await h.find("[role=tooltip]", "Settings (Ctrl+,)");
    await h.screenshotBoth("tooltips/settings-tooltip");
    await h.driver.click(settings);
    await h.find("[role=dialog]", "Settings");
    assert.equal(await tooltip(), null, "no tooltip over the dialog");
    await h.screenshotBoth("tooltips/settings-open");
    await h.driver.sendKeys(await h.run(() => document.activeElement), Keys.ESCAPE);
    await h.waitFor("Settings closed", () => !document.querySelector("[role=dialog]"));
    await h.waitFor("focus back on Settings", () => norm(document.activeElement?.textContent) === "Settings");
    assert.equal(await tooltip(), null, "closing the dialog does not bring the tooltip back under the resting pointer");
  });

  step("an answer's More actions: the tooltip is gone once the menu opens; Escape gives focus back", async () => {
    await hover(".message-assistant .assistant-body");
    const more = await hover(".message-assistant [data-testid=item-menu-button]");
    await h.find("[role=tooltip]", "More actions");
    await h.driver.click(more);
    await h.find("[role=menu]");
    assert.equal(await tooltip(), null, "no tooltip over the menu");
    await h.screenshotBoth("tooltips/menu-open");
    await h.driver.sendKeys(await h.run(() => document.activeElement), Keys.ESCAPE);
    await h.waitFor("the menu closed", () => !document.querySelector("[role=menu]"));
    await h.waitFor("focus back on More actions", () => document.activeElement?.dataset.testid === "item-menu-button");
  });

  step("a session row's menu: Escape gives focus back to its button", async () => {
    const actions = await h.find("nav[aria-label=Sessions] button", `Actions for ${DOOMED}`);
    await h.driver.click(actions);
    await h.find("[role=menu]");
    await h.driver.sendKeys(await h.run(() => document.activeElement), Keys.ESCAPE);
    await h.waitFor("the row menu closed", () => !document.querySelector("[role=menu]"));
    await h.waitFor("focus back on the row's button", (t) => document.activeElement?.getAttribute("aria-label") === `Actions for ${t}`, [DOOMED]);
  });

  step("deleting a session from its row: focus lands in the page, not on nothing", async () => {
    await h.driver.click(await h.find("nav[aria-label=Sessions] button", `Actions for ${DOOMED}`));
    await h.click("[role=menu] [role=menuitem]", "Delete");
    await h.click("[role=dialog] button", "Delete session");
    await h.waitFor("the row gone", (t) => !Array.from(document.querySelectorAll(".session-open")).some((b) => b.textContent.includes(t)), [DOOMED]);
    await h.waitFor("focus somewhere", () => document.activeElement && document.activeElement !== document.body);
  });

  step("the footer's context gauge has the app's own tooltip; no button or option label keeps a native title (issue 27, item 15)", async () => {
    const gauge = await h.find("[data-testid=context-gauge]");
    assert.equal(await h.run((el) => el.hasAttribute("title") || el.querySelector("[title]") !== null, gauge), false, "no native title in the gauge");
    const text = await h.run((el) => el.dataset.tooltip, gauge);
    assert.match(text, /tokens in context, compacts at/);
    await hover("[data-testid=context-gauge]");
    await h.find("[role=tooltip]", text);
    assert.equal(await h.run((el) => el.getAttribute("aria-describedby") === document.querySelector("[role=tooltip]")?.id, gauge), true);
    await h.screenshotBoth("tooltips/gauge");
    await hover(".conversation-header h1");
    await h.waitFor("the gauge's tooltip gone", () => !document.querySelector("[role=tooltip]"));
    const titled = await h.run(() => Array.from(document.querySelectorAll("button[title], label[title], [role=button][title], [role=tab][title]")).map((el) => norm(el.textContent) || el.getAttribute("aria-label")));
    assert.deepEqual(titled, [], "controls with a native title");
  });

  step("a disabled control still says why on hover: Switch profile while a turn runs", async () => {
    await h.send("Describe the layout of the project");
    const req = await h.mock.nextRequest({ what: "the streamed round" });
    const stream = req.openStream();
    stream.delta("The project has ");
    await h.find(".message-assistant[aria-busy=true]", "The project has");
    const button = await h.find(".conversation-header button.switch-profile");
    assert.equal(await h.run((el) => el.disabled, button), true, "Switch profile is disabled while the turn runs");
    await hover(".conversation-header button.switch-profile");
    await h.find("[role=tooltip]", "Wait for the turn to finish");
    await h.screenshotBoth("tooltips/disabled-switch-profile");
    await hover(".conversation-header h1");
    await h.waitFor("the tooltip gone", () => !document.querySelector("[role=tooltip]"));
    stream.delta("a README and one source file.");
    stream.complete(usage({ input: 2_000, output: 20 }));
    await h.waitFor("the turn finished", () => !document.querySelector(".message-assistant[aria-busy=true]"), [], 30_000);
  });
});
