// Issue 25's plan in the real app: the model's update_plan call shows as a
// plan panel beside the transcript (and as a checklist on its card), the
// panel follows the next update live, and under the default layered policy
// the plan is in the request, verbatim, after two compactions. The step
// names no keyword the old heuristic looked for.

import assert from "node:assert/strict";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";

const FIRST_PROMPT = "Repair the config parser";
const FIRST_PLAN = {
  explanation: "The parser rejects empty sections.",
  plan: [
    { step: "Read src/config.rs", status: "in_progress" },
    { step: "NEXT-STEP-fix-the-parser", status: "pending" },
    { step: "Run cargo test", status: "pending" },
  ],
};
const SECOND_PLAN = {
  explanation: "The parser rejects empty sections.",
  plan: [
    { step: "Read src/config.rs", status: "completed" },
    { step: "NEXT-STEP-fix-the-parser", status: "in_progress" },
    { step: "Run cargo test", status: "pending" },
  ],
};
/** The plan as the state sheet writes it (`Plan::to_text`). */
const SECOND_PLAN_TEXT = "[x] Read src/config.rs\n[>] NEXT-STEP-fix-the-parser\n[ ] Run cargo test\nNote: The parser rejects empty sections.\n";

const norm = (text) => (text ?? "").replace(/\s+/g, " ").trim();

describe("the plan panel and the plan through two compactions (issue 25)", { timeout: 300_000 }, () => {
  let h;

  before(async () => {
    h = await Harness.start("plan", { policy: "layered" });
    await h.cliSession(FIRST_PROMPT, (req) => req.respondText("I will look at the parser first.", usage({ input: 1_200, output: 20 })));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);
  const ready = () => h.waitFor("the app to be ready", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);

  /** The plan panel's steps as `text (status)` and its progress line. */
  const panel = () =>
    h.run(() => {
      const aside = document.querySelector("aside[aria-label=Plan]");
      if (!aside) return null;
      return {
        progress: (aside.querySelector(".plan-progress")?.textContent ?? "").trim(),
        steps: [...aside.querySelectorAll(".plan-step")].map((li) => li.textContent.replace(/\s+/g, " ").trim()),
      };
    });

  /** One turn: the model sets `plan`, then answers `answer`. */
  async function planTurn(prompt, plan, answer) {
    await h.send(prompt);
    (await h.mock.nextRequest({ what: `${prompt}: the plan round` })).respondFunctionCall("update_plan", plan, usage({ input: 1_400, output: 30 }));
    const next = await h.mock.nextRequest({ what: `${prompt}: the answer round` });
    assert.ok(next.body.tools.some((t) => t.name === "update_plan"), "update_plan is offered every round");
    next.respondText(answer, usage({ input: 1_500, output: 20 }));
    await ready();
  }

  step("an update_plan call shows the plan panel beside the transcript, and a checklist on its card", async () => {
    await h.openFromSidebar(FIRST_PROMPT);
    assert.equal(await panel(), null, "no plan, no panel");
    await planTurn("Plan the repair", FIRST_PLAN, "Reading the parser now.");
    const first = await h.waitFor("the plan panel", () => !!document.querySelector("aside[aria-label=Plan] .plan-step"));
    assert.ok(first);
    assert.deepEqual(await panel(), {
      progress: "0 of 3 done",
      steps: ["Read src/config.rs (In progress)", "NEXT-STEP-fix-the-parser (To do)", "Run cargo test (To do)"],
    });
    // Beside the transcript at this width: the panel's left edge is the list's right edge.
    const geometry = await h.run(() => {
      const list = document.querySelector(".message-list-frame").getBoundingClientRect();
      const aside = document.querySelector("aside[aria-label=Plan]").getBoundingClientRect();
      return { listRight: Math.round(list.right), asideLeft: Math.round(aside.left), asideTop: Math.round(aside.top), listTop: Math.round(list.top) };
    });
    assert.ok(Math.abs(geometry.listRight - geometry.asideLeft) <= 1, JSON.stringify(geometry));
    assert.ok(Math.abs(geometry.asideTop - geometry.listTop) <= 1, JSON.stringify(geometry));
    const hint = await h.waitFor("the plan card's hint", () => (document.querySelector("[aria-label='Tool call update_plan'] .tool-hint")?.textContent ?? "").trim());
    assert.equal(hint, "0 of 3 done");
  });

  step("the next update moves the panel on, live", async () => {
    await planTurn("Go on", SECOND_PLAN, "The parser is read; fixing it.");
    await h.waitFor("the panel to move on", () => (document.querySelector("aside[aria-label=Plan] .plan-progress")?.textContent ?? "").trim() === "1 of 3 done");
    assert.deepEqual((await panel()).steps, ["Read src/config.rs (Done)", "NEXT-STEP-fix-the-parser (In progress)", "Run cargo test (To do)"]);
    await h.screenshotBoth("plan-panel");
  });

  step("after two compactions the request carries the plan verbatim in the state sheet", async () => {
    for (const n of [1, 2]) {
      await h.send("/compact");
      const req = await h.mock.nextRequest({ what: `summary ${n}` });
      assert.ok(req.isSummary);
      req.respondText(`SUMMARY-${n}: the parser repair is under way.`, usage({ input: 1_600, output: 30 }));
      await ready();
      if (n === 1) {
        await h.send("Keep going");
        (await h.mock.nextRequest({ what: "the turn between the compactions" })).respondText("Still fixing the parser.", usage({ input: 900, output: 20 }));
        await ready();
      }
    }
    await h.send("What is next?");
    const req = await h.mock.nextRequest({ what: "the turn after two compactions" });
    const sheet = req.inputItems.find((item) => item.role === "user" && item.text.startsWith("[State sheet]"));
    assert.ok(sheet, "a state sheet in the request");
    assert.ok(sheet.text.includes(SECOND_PLAN_TEXT), sheet.text);
    assert.ok(sheet.text.includes("Next step (from the plan):\nNEXT-STEP-fix-the-parser"), sheet.text);
    assert.ok(!req.inputText.includes('"name":"update_plan","arguments"'), "the calls themselves were compacted away");
    req.respondText("Fixing the parser, then the tests.", usage({ input: 900, output: 20 }));
    await ready();
    // The panel still shows the plan, read from the file: reopen the session.
    await h.openFromSidebar(FIRST_PROMPT);
    await h.waitFor("the panel after reopening", () => (document.querySelector("aside[aria-label=Plan] .plan-progress")?.textContent ?? "").trim() === "1 of 3 done");
  });
});
