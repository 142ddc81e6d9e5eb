// Issue 27, items 10, 11 and 15's Settings parts: provider failures and
// connecting a provider, in the real app against the mock provider.
//
// A rejected key and then a closed port (the mock stopped): each failure is
// one card with a human sentence, its ways out (Retry, Open profile
// settings, Switch profile) and the raw text under Details; a run of retries
// is one line that counts up; the header's dot turns red. "Open profile
// settings" opens Settings on the session's profile, and Escape closes it
// with focus back where it was.

import assert from "node:assert/strict";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";

const PROMPT = "Summarise the README of this project in one line";

describe("provider failures a person can act on (issue 27, item 11)", { timeout: 300_000 }, () => {
  let h;
  let port;

  before(async () => {
    h = await Harness.start("providers");
    port = h.mock.port;
    await h.cliSession(PROMPT, (req) => req.respondText("A small project the end-to-end tests work in."));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);

  step("a rejected key is one card that says so, offers the profile, keeps the raw text under Details, and turns the dot red", async () => {
    await h.openFromSidebar(PROMPT);
    const resume = await h.run(() => Boolean(one("button", "Resume session")));
    if (resume) await h.click("button", "Resume session");
    assert.equal(await h.run(() => one("[data-testid=provider-dot]")?.className), "model-dot ok");
    await h.send("And the licence?");
    const req = await h.mock.nextRequest({ what: "the turn's request" });
    req.respondError(401, "Incorrect API key provided: sk-e2e-****", "invalid_request_error");
    const card = await h.waitFor("the failure card", () => {
      const el = one("[data-testid=provider-failure]");
      return el && { kind: el.dataset.failure, sentence: norm(el.querySelector(".failure-sentence")?.textContent) };
    });
    assert.deepEqual(card, { kind: "key_rejected", sentence: "This key was rejected. Check it in the profile's settings." });
    const buttons = await h.run(() => all("[data-testid=provider-failure] .failure-actions button").map((b) => norm(b.textContent)));
    assert.deepEqual(buttons, ["Open profile settings", "Switch profile"]);
    const details = await h.run(() => norm(one("[data-testid=provider-failure] details pre")?.textContent));
    assert.match(details, /HTTP 401: Incorrect API key provided/);
    assert.equal(await h.run(() => one("[data-testid=provider-failure] details").open), false, "Details start folded");
    await h.waitFor("the dot to turn red", () => one("[data-testid=provider-dot]")?.classList.contains("failed"));
    assert.equal(await h.run(() => one("[data-testid=provider-dot]").getAttribute("aria-label")), "The last request to the provider failed");
    // The chip names the profile, not the provider's slug.
    assert.equal(await h.run(() => norm(one(".model-chip .model-label").textContent).includes("openai-responses")), false);
    await h.screenshotBoth("providers/key-rejected");
  });

  step("Open profile settings opens Settings on the session's profile; Escape closes it and focus comes back", async () => {
    await h.click("[data-testid=provider-failure] .failure-actions button", "Open profile settings");
    await h.waitFor("Settings on the mock profile", () => one("[role=dialog] .profile-tab.selected")?.textContent.includes("mock") || one("[role=dialog] [aria-selected=true]")?.textContent.includes("mock"));
    await h.run(() => document.activeElement.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true })));
    await h.waitFor("Settings to close", () => !one("[role=dialog]"));
    const focused = await h.run(() => norm(document.activeElement?.textContent));
    assert.equal(focused, "Open profile settings", "focus returns to the button that opened Settings");
  });

  step("a closed port: one retry line that counts up, then \"Can't reach … — is the server running?\" with Retry first", async () => {
    await h.mock.stop();
    await h.send("Try once more");
    // The retries (five attempts in all) show as one line that replaces itself.
    await h.waitFor("a retry line", () => one("[data-testid=retry-line]"), [], 20_000);
    const card = await h.waitFor("the unreachable card", () => {
      const cards = all("[data-testid=provider-failure]");
      const last = cards[cards.length - 1];
      return last?.dataset.failure === "unreachable" && norm(last.querySelector(".failure-sentence").textContent);
    }, [], 30_000);
    assert.equal(card, `Can't reach 127.0.0.1:${port} — is the server running?`);
    const lines = await h.run(() => all("[data-testid=retry-line]").map((el) => norm(el.textContent)));
    assert.equal(lines.length, 1, `one retry line for the turn: ${JSON.stringify(lines)}`);
    assert.match(lines[0], /^Retried \d+ times?$/);
    const buttons = await h.run(() => {
      const cards = all("[data-testid=provider-failure]");
      return all(".failure-actions button", null, cards[cards.length - 1]).map((b) => norm(b.textContent));
    });
    assert.deepEqual(buttons, ["Retry", "Open profile settings", "Switch profile"]);
    // Only the newest error offers its ways out.
    assert.equal(await h.run(() => all(".failure-actions").length), 1);
    const raw = await h.run(() => all("[data-testid=provider-failure]").map((el) => norm(el.querySelector("strong").textContent)).join(" "));
    assert.ok(!raw.includes("tcp connect"), raw);
    await h.waitFor("the dot to stay red", () => one("[data-testid=provider-dot]")?.classList.contains("failed"));
    await h.run(() => {
      const cards = all("[data-testid=provider-failure]");
      cards[cards.length - 1].querySelector("details").open = true;
    });
    await h.screenshotBoth("providers/unreachable");
  });
});
