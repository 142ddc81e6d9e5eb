// Issue 27, item 15: WCAG AA contrast on the main screens, light and dark,
// measured in the real app's DOM (lib/contrast.js): the welcome screen, a
// session (sidebar, header, transcript, composer, the find bar), the debug
// console's tabs, Settings and the shortcuts dialog. Every text 4.5:1 (3:1
// large), every placeholder 4.5:1, every text field's boundary 3:1.
// Screenshots under target/screenshots/contrast/.

import assert from "node:assert/strict";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { Keys } from "./lib/webdriver.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";
import { contrastProblems } from "./lib/contrast.js";

const PROMPT = "List the files of this project and say what each one is for";

describe("contrast on the main screens (issue 27, item 15)", { timeout: 300_000 }, () => {
  let h;

  before(async () => {
    h = await Harness.start("contrast");
    await h.cliSession(PROMPT, (req) => req.respondText("There is a `README.md` and `src/main.rs`; the README explains the build.", usage({ input: 1_500, output: 30 })));
    await h.launchApp();
    await h.resizeTo({ width: 1280, height: 800 });
  });

  const step = sharedAppSteps(() => h);

  /** The screen's contrast failures in both themes, with a screenshot of each. */
  async function checkContrast(name) {
    const found = await h.problemsInBothThemes(`contrast/${name}`, async (theme) => {
      const { problems, measured } = await h.run(contrastProblems);
      assert.ok(measured > 5, `${name} ${theme}: only ${measured} texts measured`);
      return problems;
    });
    assert.deepEqual(found, [], `contrast on ${name}`);
  }

  step("the welcome screen", async () => {
    await h.find("main[aria-label=Welcome]");
    await checkContrast("welcome");
  });

  step("a session: sidebar, header, transcript and composer", async () => {
    await h.openFromSidebar(PROMPT);
    // Live, the composer shows its placeholder (a read-only one is disabled, and exempt).
    const resume = await h.run(() => one("button", "Resume session"));
    if (resume) await h.driver.click(resume);
    await h.waitFor("an enabled composer", () => !document.getElementById("composer-input").disabled);
    await checkContrast("session");
  });

  step("the find bar", async () => {
    const log = await h.find("[role=log]");
    await h.driver.click(log);
    await h.driver.sendKeys(log, `${Keys.CONTROL}f${Keys.NULL}`);
    await h.find("[role=search] input");
    await checkContrast("find");
    await h.driver.sendKeys(await h.run(() => document.activeElement), Keys.ESCAPE);
  });

  step("the debug console, each tab", async () => {
    await h.click("button", "Debug console");
    await h.find("aside.console");
    for (const tab of ["Compactions", "Model view", "Rounds and events"]) {
      await h.click("aside.console [role=tab]", tab);
      await h.find("aside.console [role=tab][aria-selected=true]", tab);
      await checkContrast(`console-${tab.toLowerCase().replace(/\W+/g, "-")}`);
    }
    await h.click("aside.console button", "Close debug console");
  });

  step("Settings", async () => {
    await h.click("button", "Settings");
    await h.find("[role=dialog]", "Settings");
    await checkContrast("settings");
    await h.driver.sendKeys(await h.run(() => document.activeElement), Keys.ESCAPE);
    await h.waitFor("Settings closed", () => !document.querySelector("[role=dialog]"));
  });

  step("the shortcuts dialog", async () => {
    await h.driver.sendKeys(await h.find("[role=log]"), "?");
    await h.find("[role=dialog]", "Keyboard shortcuts");
    await checkContrast("shortcuts");
  });
});
