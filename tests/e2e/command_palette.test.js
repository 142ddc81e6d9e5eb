// Issue 25 end to end, the command palette: Ctrl+K opens it over the open
// session, typing a session's title and Enter switches to it, "theme" and
// Enter toggles the theme (saved in the settings), and the composer's
// `/reasoning` alone opens the palette's levels, where Enter sets one that
// the session records. Screenshots of the palette at 1024 and 1440 px in
// light and dark.

import assert from "node:assert/strict";
import { before, describe } from "node:test";
import { Harness, eventually } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";
import { Keys } from "./lib/webdriver.js";

const FIRST = "Look around the project";
const SECOND = "Summarise the parser module";

describe("the command palette (issue 25)", { timeout: 240_000 }, () => {
  let h;

  before(async () => {
    // A model the catalog says reasons, so the reasoning levels can be chosen.
    h = await Harness.start("command_palette", { model: "gpt-5.4" });
    await h.cliSession(FIRST, (req) => req.respondText("A README and src/main.rs.", usage({ input: 1_500, output: 12 })));
    await h.cliSession(SECOND, (req) => req.respondText("It tokenises, then parses.", usage({ input: 1_400, output: 9 })));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);
  const paletteField = () => h.find(".command-palette-input");
  const openPalette = async () => {
    const body = await h.find("body");
    await h.driver.sendKeys(body, `${Keys.CONTROL}k${Keys.NULL}`);
    await h.waitFor("the command palette", () => document.activeElement?.classList.contains("command-palette-input"));
  };
  const activeTitle = () => h.run(() => norm(document.querySelector(".command-palette-option.active .command-palette-title")?.textContent));

  step("Ctrl+K opens the palette over the open session, its field a combobox with the actions' shortcuts", async () => {
    await h.openFromSidebar(FIRST);
    await openPalette();
    const field = await h.run(() => {
      const input = document.querySelector(".command-palette-input");
      return { role: input.getAttribute("role"), expanded: input.getAttribute("aria-expanded"), active: input.getAttribute("aria-activedescendant") };
    });
    assert.equal(field.role, "combobox");
    assert.equal(field.expanded, "true");
    assert.ok(field.active, "an option is active");
    const keys = await h.run(() => all(".command-palette-keys").map((el) => el.getAttribute("aria-label")));
    assert.ok(keys.includes("Shortcut Ctrl+N") && keys.includes("Shortcut Ctrl+Shift+D"), JSON.stringify(keys));
    for (const width of [1024, 1440]) {
      await h.resizeTo({ width, height: 800 });
      await h.screenshotBoth(`command-palette-${width}`);
    }
    await h.resizeTo({ width: 1280, height: 800 });
    // Filtered to a few, with an unavailable one saying why.
    await h.driver.sendKeys(await paletteField(), "stop the");
    await h.waitFor("the stop action, unavailable", () => all(".command-palette-option.disabled").some((el) => el.textContent.includes("No turn is running.")));
    await h.screenshotBoth("command-palette-filtered");
  });

  step("typing a session's title and Enter switches to it, and the palette closes", async () => {
    const field = await paletteField();
    await h.driver.clear(field);
    await h.driver.sendKeys(field, "summarise parser");
    await h.waitFor("the second session first", () => norm(document.querySelector(".command-palette-option.active .command-palette-title")?.textContent) === "Summarise the parser module");
    await h.driver.sendKeys(field, Keys.ENTER);
    await h.waitFor("the second session open", () => norm(document.querySelector(".conversation-header h1")?.textContent) === "Summarise the parser module");
    assert.equal(await h.run(() => document.querySelector(".command-palette")), null);
  });

  step("'theme' and Enter switches the theme and saves it", async () => {
    const before = await h.run(() => document.documentElement.dataset.theme);
    await openPalette();
    await h.driver.sendKeys(await paletteField(), "theme");
    assert.match(await activeTitle(), /^Switch to the (dark|light) theme$/);
    await h.driver.sendKeys(await paletteField(), Keys.ENTER);
    await h.waitFor("the other theme", (was) => document.documentElement.dataset.theme !== was, [before]);
    await h.screenshot("command-palette-after-theme");
    // Back again, through the palette too.
    await openPalette();
    await h.driver.sendKeys(await paletteField(), "theme");
    await h.driver.sendKeys(await paletteField(), Keys.ENTER);
    await h.waitFor("the first theme again", (was) => document.documentElement.dataset.theme === was, [before]);
  });

  step("/reasoning alone opens its levels in the palette; Enter on High sets it and the session records it", async () => {
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    const input = await h.find("#composer-input");
    await h.driver.click(input);
    await h.driver.sendKeys(input, "/reasoning");
    await h.driver.sendKeys(input, Keys.ENTER);
    await h.waitFor("the reasoning levels", () => all(".command-palette-option").length === 5);
    await h.screenshotBoth("command-palette-reasoning");
    await h.driver.sendKeys(await paletteField(), "high");
    await h.driver.sendKeys(await paletteField(), Keys.ENTER);
    await h.waitFor("the control to show High", () => norm(document.getElementById("reasoning-effort")?.textContent).startsWith("High"));
    const id = await h.sessionIdOf(SECOND);
    const settings = await eventually("a reasoning_set record", async () => {
      const found = (await h.records(id)).filter((r) => r.type === "reasoning_set").map((r) => r.payload);
      return found.length > 0 ? found : null;
    });
    assert.deepEqual(settings, [{ effort: "high" }]);
    // Focus went back where it was: the composer.
    await h.waitFor("focus back in the composer", () => document.activeElement?.id === "composer-input");
  });
});
