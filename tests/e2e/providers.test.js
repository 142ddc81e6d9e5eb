// Issue 27, items 10, 11 and 15's Settings parts: provider failures and
// connecting a provider, in the real app against the mock provider.
//
// "Connect a provider" (on the demo profile) is its own small dialog: pick a
// compatible server, paste a key, "Test connection" answers inline (a wrong
// key: "This key was rejected."; the right one: ✓, and the model list comes
// from the server's GET /v1/models), one Save makes it the active profile
// by its name. In Settings the provider drop-down is the app's listbox, and
// Escape closes Settings after a key was stored, focus kept.
//
// A rejected key and then a closed port (the mock stopped): each failure is
// one card with a human sentence, its ways out (Retry, Open profile
// settings, Switch profile) and the raw text under Details; a run of retries
// is one line that counts up; the header's dot turns red. "Open profile
// settings" opens Settings on the session's profile, and Escape closes it
// with focus back where it was.

import assert from "node:assert/strict";
import { before, describe } from "node:test";
import fsp from "node:fs/promises";
import path from "node:path";
import { FAKE_API_KEY, Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { Keys } from "./lib/webdriver.js";

const PROMPT = "Summarise the README of this project in one line";

describe("connecting a provider and its failures (issue 27, items 10, 11, 15)", { timeout: 400_000 }, () => {
  let h;
  let port;

  before(async () => {
    h = await Harness.start("providers");
    port = h.mock.port;
    await h.cliSession(PROMPT, (req) => req.respondText("A small project the end-to-end tests work in."));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);

  /** Types into the input `selector` as a person would (after clearing it). */
  const typeInto = async (selector, text) => {
    const input = await h.find(selector);
    await h.driver.clear(input);
    await h.driver.sendKeys(input, text);
  };
  /** Presses Escape where the focus is now (the body, when it was lost). */
  const escapeWhereFocused = async () => {
    const active = await h.run(() => document.activeElement);
    await h.driver.sendKeys(active, Keys.ESCAPE);
  };

  step("on the demo profile, Connect a provider is a focused flow: test inline, models from the server, one Save", async () => {
    // Make the offline demo the active profile, as a first run is.
    await h.click(".header-actions button", "Settings");
    await h.click("[role=dialog] .profile-tab", "Offline demo");
    await h.click("[role=dialog] button", "Use this profile");
    await h.click("[role=dialog] button", "Save settings");
    await h.waitFor("the demo banner", () => one(".demo-banner"));
    await h.click(".demo-banner button", "Connect a provider");
    const title = await h.waitFor("the connect dialog", () => norm(one("[role=dialog] h2")?.textContent));
    assert.equal(title, "Connect a provider");
    assert.equal(await h.run(() => Boolean(one("[role=dialog] legend", "Approval policy"))), false, "not the whole Settings form");
    await h.click("[role=dialog] .connect-choice", "A compatible server");
    await typeInto("#connect-name", "Mock server");
    await typeInto("#connect-base-url", h.mock.baseUrl);
    await typeInto("#connect-key", "sk-wrong-key-0000");
    await h.click("[role=dialog] button", "Test connection");
    const refused = await h.waitFor("the inline failure", () => {
      const el = one("[data-testid=connection-result]");
      return el?.dataset.tone === "error" && norm(el.textContent);
    });
    assert.match(refused, /^This key was rejected\./);
    await typeInto("#connect-key", FAKE_API_KEY);
    await h.click("[role=dialog] button", "Test connection");
    const ok = await h.waitFor("the ✓", () => {
      const el = one("[data-testid=connection-result]");
      return el?.dataset.tone === "ok" && norm(el.textContent);
    });
    assert.match(ok, /^✓ Connected: gpt-5\.4-mini answered in \d/);
    assert.equal(await h.run(() => norm(one("#connect-model-hint").textContent)), "2 models on this server; type to pick one.");
    assert.deepEqual(await h.run(() => Array.from(document.querySelectorAll("#connect-model-options option")).map((o) => o.value)), ["gpt-5.4-mini", "qwen3:8b"]);
    assert.ok(h.mock.checks.includes("GET /v1/models") && h.mock.checks.includes("POST /v1/chat/completions"), h.mock.checks.join(", "));
    await h.screenshotBoth("providers/connect");
    await h.click("[role=dialog] button", "Save and use");
    await h.waitFor("the dialog to close and the banner to go", () => !one("[role=dialog]") && !one(".demo-banner"));
    // The header names the new profile, never its id or the provider's slug.
    const chip = await h.waitFor("the chip to name the profile", () => {
      const text = norm(one(".model-chip .model-label")?.textContent);
      return text === "Mock server" && text;
    });
    assert.equal(chip, "Mock server");
    const config = await fsp.readFile(path.join(h.home, "config", "config.toml"), "utf8");
    assert.ok(!config.includes(FAKE_API_KEY), "the key is not in config.toml");
    assert.match(config, /kind = "openai-chat"/);
  });

  step("Settings: the provider drop-down is the app's listbox, keys mark profiles, and Escape closes after a key is stored", async () => {
    await h.click(".header-actions button", "Settings");
    await h.click("[role=dialog] .profile-tab", "Mock server");
    const combo = await h.find("[role=dialog] #profile-kind");
    assert.equal(await h.run(() => one("[role=dialog] #profile-kind").getAttribute("role")), "combobox");
    assert.equal(await h.run(() => all("[role=dialog] select").length), 0, "no native select");
    await h.driver.sendKeys(combo, Keys.ARROW_DOWN);
    await h.waitFor("the listbox", () => one("[role=dialog] [role=listbox]"));
    const options = await h.run(() => all("[role=dialog] [role=option]").map((o) => norm(o.textContent)));
    assert.deepEqual(options, ["OpenAI Responses", "OpenAI-compatible Chat Completions", "Anthropic Messages", "Offline demo"]);
    await h.screenshotBoth("providers/settings-listbox");
    await escapeWhereFocused();
    await h.waitFor("the list to close, the dialog to stay", () => !one("[role=dialog] [role=listbox]") && one("[role=dialog]"));
    // The demo profile has no key and needs none; the new one has its key.
    const tabs = await h.run(() => all("[role=dialog] .profile-tab").map((t) => norm(t.textContent)));
    assert.ok(tabs.some((t) => t.startsWith("Mock server") && t.includes("Active") && !t.includes("No key")), tabs.join(" | "));
    // Store a key for a saved profile, then Escape wherever the focus is.
    await h.click("[role=dialog] .profile-tab", "Mock server");
    await typeInto("#profile-api-key", FAKE_API_KEY);
    await h.click("[role=dialog] button", "Replace key");
    await h.waitFor("the key to be stored", () => norm(one("#profile-api-key-status")?.textContent) === "Key stored. It is never shown again.");
    assert.notEqual(await h.run(() => document.activeElement === document.body), true, "focus is not lost");
    await escapeWhereFocused();
    await h.waitFor("Settings to close on Escape", () => !one("[role=dialog]"));
  });

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
    // The session's profile ("mock", named from its kind and model), not the active one.
    const tab = await h.waitFor("Settings on the session's profile", () => norm(one("[role=dialog] .profile-tab.selected")?.textContent));
    assert.match(tab, /gpt-5\.4-mini/);
    await escapeWhereFocused();
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
