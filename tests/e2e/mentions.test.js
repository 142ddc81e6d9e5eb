// Issue 25 end to end, @ mentions: typing @ in the composer opens the finder
// over the workspace's paths (keyboard only), the chosen path becomes @path
// and is listed as attached, and the model is sent the message with the
// file's contents appended; a .env is attached as a refusal, never its value.

import assert from "node:assert/strict";
import fsp from "node:fs/promises";
import path from "node:path";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";
import { Keys } from "./lib/webdriver.js";

const FIRST_PROMPT = "Look around the project";

describe("@ mentions (issue 25)", { timeout: 240_000 }, () => {
  let h;

  before(async () => {
    h = await Harness.start("mentions");
    await fsp.writeFile(path.join(h.workspace, ".env"), "API_TOKEN=e2e-never-sent\n");
    await h.cliSession(FIRST_PROMPT, (req) => req.respondText("A README and src/main.rs.", usage({ input: 1_500, output: 12 })));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);
  const composer = () => h.find("#composer-input");

  step("an @ opens the finder, Tab inserts the path, and the model gets the file", async () => {
    await h.openFromSidebar(FIRST_PROMPT);
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    const input = await composer();
    await h.driver.click(input);
    await h.driver.sendKeys(input, "explain @main");
    await h.waitFor("the finder with src/main.rs", () =>
      all("[role=listbox][aria-label=Files] [role=option] .slash-name").some((el) => el.textContent === "src/main.rs"),
    );
    assert.equal(await h.run(() => document.getElementById("composer-input").getAttribute("aria-expanded")), "true");
    await h.screenshotBoth("mention-finder");
    // The same open list at the narrowest and widest windows the walk checks.
    for (const width of [1024, 1440]) {
      await h.resizeTo({ width, height: 800 });
      await h.screenshotBoth(`mention-finder-${width}`);
    }
    await h.resizeTo({ width: 1280, height: 800 });
    await h.driver.sendKeys(input, Keys.TAB);
    await h.waitFor("the path filled in", () => document.getElementById("composer-input").value === "explain @src/main.rs ");
    const chips = await h.run(() => all(".mention-chip").map((el) => norm(el.textContent)));
    assert.deepEqual(chips, ["src/main.rs"]);
    await h.driver.sendKeys(input, "and @.env");
    await h.driver.sendKeys(input, Keys.ESCAPE);
    await h.driver.sendKeys(input, Keys.ENTER);
    const req = await h.mock.nextRequest({ what: "the turn with mentions" });
    const users = req.inputItems.filter((item) => item.role === "user").map((item) => item.text);
    const sent = users.at(-1);
    assert.ok(sent.startsWith("explain @src/main.rs and @.env\n\n"), sent);
    assert.ok(sent.includes('src/main.rs (attached with @):\n```\nfn main() {\n    println!("hello");\n}\n```'), sent);
    assert.ok(sent.includes("looks like a secret file"), sent);
    assert.ok(!sent.includes("e2e-never-sent"), sent);
    req.respondText("It prints hello.", usage({ input: 1_700, output: 5 }));
    await h.waitFor("the answer", () => all(".assistant-body").some((el) => el.textContent.includes("It prints hello.")));
  });
});
