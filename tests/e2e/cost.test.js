// Issue 22, the money part, end to end: a profile with its own price in
// config.toml ([profiles.mock.price]), a session whose rounds the mock
// provider reports with cached input, and the real app showing what it
// cost (in the header beside the model, in its sidebar row, and in the
// console's Cost tab)
// and the cache chart. Light and dark screenshots land in
// $CARGO_TARGET_DIR/screenshots.

import assert from "node:assert/strict";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";
import { Keys } from "./lib/webdriver.js";

const PRICE = ["[profiles.mock.price]", "input = 1.25", "cached_input = 0.125", "output = 10.0"];
const FIRST = "Summarise the README";
const SECOND = "And the main file?";

describe("what a session cost (issue 22)", { timeout: 240_000 }, () => {
  let h;
  let sessionId;

  before(async () => {
    h = await Harness.start("cost", { profileToml: PRICE });
    // 3,100 × $1.25 + 40 × $10 per million: $0.004275.
    sessionId = await h.cliSession(FIRST, (req) => req.respondText("It describes a demo project.", usage({ input: 3_100, output: 40 })));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);

  step("each round's usage record carries its cost at the profile's price, and the app shows the total and the cache chart", async () => {
    await h.openFromSidebar(FIRST);
    await h.waitFor("the composer to be enabled", () => !document.getElementById("composer-input").disabled);
    await h.send(SECOND);
    const round = await h.mock.nextRequest({ what: "the second turn" });
    // 1,000 × $1.25 + 3,000 cached × $0.125 + 50 × $10 per million: $0.002125.
    round.respondText("It prints hello.", usage({ input: 4_000, cached: 3_000, output: 50 }));
    await h.find(".message-assistant", "It prints hello.");
    await h.waitFor("the turn to finish", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready");

    const records = await h.records(sessionId);
    const costs = records.filter((r) => r.type === "token_usage").map((r) => r.payload.cost);
    assert.deepEqual(costs, [
      { usd: 4_275_000_000, price_as_of: "config" },
      { usd: 2_125_000_000, price_as_of: "config" },
    ]);

    await h.waitFor("the session's total in the header", () => norm(document.querySelector(".app-header [data-testid=session-cost-badge]")?.textContent) === "$0.0064");
    await h.click("button", "Debug console");
    await h.click("[role=tab]", "Cost");
    const total = await h.waitFor("the session's cost", () => norm(document.querySelector("[data-testid=session-cost]")?.textContent) || null);
    assert.match(total, /^Session: \$0\.0064 · at the profile's own price/);
    await h.waitFor("two bars in the cache chart", () => document.querySelectorAll("[data-testid=cache-bar]").length === 2);
    const described = await h.run(() => norm(document.querySelector("#cache-chart-desc")?.textContent));
    assert.equal(described, "2 model calls; 42% of their input (3,000 of 7,100 tokens) was read from the cache; the cache broke 0 times.");
    await h.screenshotBoth("console-cost");
  });

  step("renaming the session in the sidebar keeps its row's cost", async () => {
    const row = `.session-node[data-session-id="${sessionId}"] > .session-row`;
    await h.waitFor("the row's cost", (r) => norm(document.querySelector(`${r} [data-testid=session-row-cost]`)?.textContent) === "$0.0064", [row]);
    await h.click(`${row} .session-menu .icon-button`);
    await h.click("[role=menuitem]", "Rename");
    const input = await h.find("#rename-input");
    await h.driver.sendKeys(input, Keys.BACKSPACE.repeat(80));
    await h.driver.sendKeys(input, "Priced session");
    await h.driver.sendKeys(input, Keys.ENTER);
    await h.find(`${row} .session-title`, "Priced session");
    assert.equal(await h.run((r) => norm(document.querySelector(`${r} [data-testid=session-row-cost]`)?.textContent), row), "$0.0064");
    assert.equal(await h.run(() => norm(document.querySelector(".app-header [data-testid=session-cost-badge]")?.textContent)), "$0.0064");
  });
});
