// Issue 22, the reasoning part, end to end: the person picks a reasoning
// setting in the composer's control (recorded in the session), the request
// asks the Responses API for that effort with a readable summary and
// encrypted reasoning (stateless: `store: false`), the summary streams live
// into a "Thinking" block above the answer and folds when the answer is
// done, the model's words stay text (never markup), and the next turn sends
// the encrypted reasoning item back. Light and dark screenshots land in
// $CARGO_TARGET_DIR/screenshots.

import assert from "node:assert/strict";
import { before, describe } from "node:test";
import { Harness, eventually } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";

const FIRST = "Summarise the README";
const SECOND = "Where does main print?";
const THIRD = "Thanks, and the tests?";
// The summary carries markup a careless renderer would run.
const SUMMARY = "The person wants **main**. I should read src/main.rs <img src=x onerror=alert(1)> before answering.";
const ENCRYPTED = "gAAAAB-e2e-encrypted-reasoning";

const norm = (text) => (text ?? "").replace(/\s+/g, " ").trim();

describe("reasoning: the setting, the request and the Thinking block (issue 22)", { timeout: 240_000 }, () => {
  let h;
  let sessionId;

  before(async () => {
    // gpt-5.4 is in the catalog as a model that reasons; the harness's default model is not.
    h = await Harness.start("thinking", { model: "gpt-5.4" });
    sessionId = await h.cliSession(FIRST, (req) => req.respondText("It describes a demo project.", usage({ input: 1_000, output: 20 })));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);
  const ready = () => h.waitFor("the turn to finish", () => norm(document.querySelector(".footer-status")?.textContent) === "Ready", [], 30_000);

  step("the composer's control sets the session's reasoning, and the session records it", async () => {
    await h.openFromSidebar(FIRST);
    await h.waitFor("the reasoning control to be enabled", () => document.getElementById("reasoning-effort")?.disabled === false);
    await h.click("#reasoning-effort");
    await h.click("[role=option]", "High");
    await h.waitFor("the control to show High", () => norm(document.getElementById("reasoning-effort")?.textContent).startsWith("High"));
    const settings = await eventually("a reasoning_set record", async () => {
      const found = (await h.records(sessionId)).filter((r) => r.type === "reasoning_set").map((r) => r.payload);
      return found.length > 0 ? found : null;
    });
    assert.deepEqual(settings, [{ effort: "high" }]);
  });

  step("the request asks for that effort, a summary and encrypted reasoning, and the summary streams into a Thinking block", async () => {
    await h.send(SECOND);
    const request = await h.mock.nextRequest({ what: "the second turn" });
    assert.deepEqual(request.body.reasoning, { effort: "high", summary: "auto" });
    assert.equal(request.body.store, false);
    assert.ok(request.body.include?.includes("reasoning.encrypted_content"), JSON.stringify(request.body.include));

    const stream = request.openStream();
    stream.reasoning(SUMMARY, ENCRYPTED);
    // Live: the block is open and busy while the model still works.
    await h.waitFor(
      "the Thinking block streaming the summary",
      (summary) => {
        const block = document.querySelector("[data-testid=thinking-block]");
        return block?.getAttribute("aria-busy") === "true" && (block.querySelector(".thinking-text")?.textContent ?? "") === summary;
      },
      [SUMMARY],
    );
    stream.delta("It prints hello in ");
    stream.delta("src/main.rs.");
    stream.complete(usage({ input: 1_100, output: 180, reasoning: 150 }));
    await h.find(".message-assistant", "It prints hello in src/main.rs.");
    await ready();

    // Done: folded to its toggle, above the answer.
    const folded = await h.run(() => {
      const block = document.querySelector("[data-testid=thinking-block]");
      const answer = [...document.querySelectorAll(".message-assistant")].pop();
      return {
        expanded: block?.querySelector(".thinking-toggle")?.getAttribute("aria-expanded"),
        label: block?.querySelector(".thinking-toggle")?.textContent?.trim(),
        text: block?.querySelector(".thinking-text") != null,
        above: !!(block && answer && block.compareDocumentPosition(answer) & Node.DOCUMENT_POSITION_FOLLOWING),
      };
    });
    assert.deepEqual(folded, { expanded: "false", label: "▸Thinking", text: false, above: true });
  });

  step("the folded block opens to the model's words as text, never markup", async () => {
    await h.click("[data-testid=thinking-block] .thinking-toggle");
    const shown = await h.waitFor("the summary shown", () => {
      const body = document.querySelector("[data-testid=thinking-block] .thinking-text");
      return body ? { text: body.textContent, elements: body.querySelectorAll("*").length } : null;
    });
    assert.deepEqual(shown, { text: SUMMARY, elements: 0 });
    await h.screenshotBoth("thinking");
  });

  step("the next turn sends the encrypted reasoning back, statelessly", async () => {
    await h.send(THIRD);
    const request = await h.mock.nextRequest({ what: "the third turn" });
    const reasoning = (request.body.input ?? []).filter((item) => item.type === "reasoning");
    assert.equal(reasoning.length, 1, JSON.stringify(request.body.input));
    assert.equal(reasoning[0].encrypted_content, ENCRYPTED);
    request.respondText("The tests are not written yet.", usage({ input: 1_300, output: 12 }));
    await h.find(".message-assistant", "The tests are not written yet.");
    await ready();
  });
});
