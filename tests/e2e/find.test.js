// Issue 27, item 15: Ctrl+F finds in the transcript (every match painted,
// the current one stronger and scrolled into view, "2 of 5", Enter and
// Shift+Enter, Escape closes and gives focus back) and "?" outside a text
// field lists the shortcuts in a dialog. Screenshots under
// target/screenshots/find/, light and dark.

import assert from "node:assert/strict";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { Keys } from "./lib/webdriver.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";

const PROMPT = "Explain how the tokenizer feeds the parser";
const PARAGRAPHS = 20;
const answer = Array.from({ length: PARAGRAPHS }, (_, i) => `Step ${i + 1}: the tokenizer hands one token at a time to the Parser, which keeps going.`).join("\n\n");
// Once in the prompt, once in each paragraph.
const MATCHES = 1 + PARAGRAPHS;

/** Runs in the page: the find bar's count, and the painted matches (how many, the current one's text and whether it shows). */
function findState() {
  const bar = document.querySelector("[role=search][aria-label='Find in the transcript']");
  const list = document.querySelector(".message-list");
  const current = CSS.highlights.get("transcript-find-current");
  const others = CSS.highlights.get("transcript-find");
  const range = current ? Array.from(current)[0] : null;
  const rect = range?.getBoundingClientRect();
  const box = list.getBoundingClientRect();
  return {
    open: !!bar,
    count: bar ? norm(bar.querySelector("[role=status]").textContent) : null,
    painted: (others?.size ?? 0) + (current?.size ?? 0),
    current: range ? range.toString() : null,
    currentShown: !!rect && rect.top >= box.top && rect.bottom <= box.bottom,
  };
}

describe("find in the transcript and the shortcuts (issue 27, item 15)", { timeout: 300_000 }, () => {
  let h;

  before(async () => {
    h = await Harness.start("find");
    await h.cliSession(PROMPT, (req) => req.respondText(answer, usage({ input: 1_500, output: 600 })));
    await h.launchApp();
    await h.resizeTo({ width: 1280, height: 800 });
    await h.openFromSidebar(PROMPT);
  });

  const step = sharedAppSteps(() => h);
  const state = () => h.run(findState);
  const pressInFocused = async (keys) => h.driver.sendKeys(await h.run(() => document.activeElement), keys);

  step("Ctrl+F opens the find bar; typing counts and paints the matches, the first one current and shown", async () => {
    const log = await h.find("[role=log]");
    await h.driver.click(log);
    await h.driver.sendKeys(log, `${Keys.CONTROL}f${Keys.NULL}`);
    await h.waitFor("the find field focused", () => document.activeElement?.getAttribute("aria-label") === "Find in the transcript");
    await pressInFocused("parser");
    await h.waitFor("the count", (n) => norm(document.querySelector("[role=search] [role=status]")?.textContent) === `1 of ${n}`, [MATCHES]);
    // "pars" matches as often as "parser": the count alone can be read while
    // the last keys are still arriving, so wait for the whole word's mark.
    await h.waitFor("the current match is the whole typed word", () => {
      const current = CSS.highlights.get("transcript-find-current");
      return (current ? Array.from(current)[0]?.toString() : null) === "parser";
    });
    const now = await state();
    assert.equal(now.current, "parser", "the current match is the prompt's (typed in lower case)");
    assert.ok(now.currentShown, "the current match is in view");
    assert.ok(now.painted > 1, `more matches painted (${now.painted})`);
    await h.screenshotBoth("find/find-first");
  });

  step("Enter goes to the next match, Shift+Enter back; from the first, back is the last, scrolled to", async () => {
    await pressInFocused(Keys.ENTER);
    await h.waitFor("2 of n", (n) => norm(document.querySelector("[role=search] [role=status]").textContent) === `2 of ${n}`, [MATCHES]);
    assert.equal((await state()).current, "Parser");
    await pressInFocused(`${Keys.SHIFT}${Keys.ENTER}${Keys.NULL}`);
    await h.waitFor("1 of n", (n) => norm(document.querySelector("[role=search] [role=status]").textContent) === `1 of ${n}`, [MATCHES]);
    await pressInFocused(`${Keys.SHIFT}${Keys.ENTER}${Keys.NULL}`);
    await h.waitFor("n of n", (n) => norm(document.querySelector("[role=search] [role=status]").textContent) === `${n} of ${n}`, [MATCHES]);
    await h.waitFor("the last match painted and in view", () => {
      const current = CSS.highlights.get("transcript-find-current");
      const range = current && Array.from(current)[0];
      if (!range || !range.startContainer.textContent.startsWith("Step 20")) return false;
      const rect = range.getBoundingClientRect();
      const box = document.querySelector(".message-list").getBoundingClientRect();
      return rect.top >= box.top && rect.bottom <= box.bottom;
    });
    await h.screenshotBoth("find/find-last");
  });

  step("Escape closes the find bar, takes the marks away and gives focus back", async () => {
    await pressInFocused(Keys.ESCAPE);
    await h.waitFor("the find bar closed", () => !document.querySelector("[role=search][aria-label='Find in the transcript']"));
    assert.equal((await state()).painted, 0, "no marks left");
    await h.waitFor("focus back on the transcript", () => document.activeElement?.getAttribute("role") === "log");
  });

  step('"?" lists the shortcuts in a dialog; Escape closes it and focus goes back', async () => {
    await pressInFocused("?");
    const dialog = await h.find("[role=dialog]", "Keyboard shortcuts");
    assert.ok(dialog);
    const rows = await h.run(() => Array.from(document.querySelectorAll(".shortcut-list dt")).map((dt) => norm(dt.textContent)));
    assert.ok(rows.includes("Ctrl+F") && rows.includes("?"), `the list names Ctrl+F and ? (${rows.join(", ")})`);
    await h.screenshotBoth("find/shortcuts");
    await pressInFocused(Keys.ESCAPE);
    await h.waitFor("the dialog closed", () => !document.querySelector("[role=dialog]"));
    await h.waitFor("focus back on the transcript", () => document.activeElement?.getAttribute("role") === "log");
  });

  step('"?" typed in a text field stays text', async () => {
    const search = await h.find("input[type=search]");
    await h.driver.click(search);
    await h.driver.sendKeys(search, "?");
    await h.waitFor("the ? in the search field", () => document.querySelector("nav[aria-label=Sessions] input[type=search]").value === "?");
    assert.equal(await h.run(() => !!document.querySelector("[role=dialog]")), false, "no dialog over the field");
  });
});
