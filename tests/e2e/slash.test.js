// Issue 25 end to end, slash commands: the workspace's and the person's
// prompt files in the composer's palette (keyboard only), a chosen command's
// expanded body is what the model is sent, and an unknown /name is not sent.
// Screenshots of the palette in light and dark.

import assert from "node:assert/strict";
import fsp from "node:fs/promises";
import path from "node:path";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";
import { Keys } from "./lib/webdriver.js";

const FIRST_PROMPT = "Look around the project";

describe("slash commands and prompt files (issue 25)", { timeout: 240_000 }, () => {
  let h;

  before(async () => {
    h = await Harness.start("slash");
    const commands = path.join(h.workspace, ".strata", "commands");
    await fsp.mkdir(commands, { recursive: true });
    await fsp.writeFile(
      path.join(commands, "review.md"),
      "---\ndescription: Review a part of the code for bugs\nargument-hint: <part>\n---\nReview $ARGUMENTS for bugs; list each with its line.\n",
    );
    const own = path.join(h.home, "config", "commands");
    await fsp.mkdir(own, { recursive: true });
    await fsp.writeFile(path.join(own, "standup.md"), "# Write my standup\nSummarise what changed today.\n");
    await h.cliSession(FIRST_PROMPT, (req) => req.respondText("A README and src/main.rs.", usage({ input: 1_500, output: 12 })));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);
  const composer = () => h.find("#composer-input");
  const optionNames = () => h.run(() => all("[role=listbox][aria-label=Commands] [role=option] .slash-name").map((el) => norm(el.textContent)));

  step("a / at the start lists the built-ins and both prompt files with where they come from", async () => {
    await h.openFromSidebar(FIRST_PROMPT);
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    const input = await composer();
    await h.driver.click(input);
    await h.driver.sendKeys(input, "/");
    await h.waitFor("the palette with the prompt files", () => all("[role=option]").some((el) => el.textContent.includes("standup")));
    const names = await optionNames();
    assert.equal(names[0], "/compact [focus]");
    assert.ok(names.includes("/review <part>") && names.includes("/standup") && names.includes("/clear"), JSON.stringify(names));
    const badges = await h.run(() => Object.fromEntries(all("[role=option]").map((el) => [norm(el.querySelector(".slash-name").textContent), norm(el.querySelector(".badge").textContent)])));
    assert.equal(badges["/review <part>"], "workspace");
    assert.equal(badges["/standup"], "user");
    assert.equal(await h.run(() => document.getElementById("composer-input").getAttribute("aria-expanded")), "true");
    await h.screenshotBoth("slash-palette");
    // The same open list at the narrowest and widest windows the walk checks.
    for (const width of [1024, 1440]) {
      await h.resizeTo({ width, height: 800 });
      await h.screenshotBoth(`slash-palette-${width}`);
    }
    await h.resizeTo({ width: 1280, height: 800 });
  });

  step("typing filters, Tab chooses, and the model is sent the expanded body", async () => {
    const input = await composer();
    await h.driver.sendKeys(input, "rev");
    await h.waitFor("only /review", () => all("[role=option]").length === 1);
    await h.driver.sendKeys(input, Keys.TAB);
    await h.waitFor("the name filled in", () => document.getElementById("composer-input").value === "/review ");
    await h.driver.sendKeys(input, "the parser");
    await h.driver.sendKeys(input, Keys.ENTER);
    const req = await h.mock.nextRequest({ what: "the prompt file's turn" });
    const users = req.inputItems.filter((item) => item.role === "user").map((item) => item.text);
    assert.equal(users.at(-1), "Review the parser for bugs; list each with its line.");
    req.respondText("No bugs found.", usage({ input: 1_700, output: 5 }));
    await h.waitFor("the answer", () => all(".assistant-body").some((el) => el.textContent.includes("No bugs found.")));
  });

  step("an unknown /name is not sent and the composer says why", async () => {
    const input = await composer();
    await h.driver.sendKeys(input, "/reveiw x");
    await h.driver.sendKeys(input, Keys.ENTER);
    const hint = await h.waitFor("the refusal", () => norm(document.querySelector(".composer-hint.error")?.textContent));
    assert.match(hint, /There is no \/reveiw command/);
    assert.equal(await h.run(() => document.getElementById("composer-input").value), "/reveiw x");
    assert.deepEqual(h.mock.unanswered().map((r) => r.number), [], "nothing was sent");
  });
});
