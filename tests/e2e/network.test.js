// Issue 26 on the desktop: the sandbox's network. Settings' "Approval policy
// and sandbox" section has a Network control under the sandbox mode (off and
// disabled without a sandbox); choosing "Allowed domains…" edits the domains,
// which Save writes to config.toml's [tools]. The new-session sheet offers the
// same control with the settings' domains, and the session it starts records
// the choice in its sandbox_set; the session info names it.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe } from "node:test";
import { Harness, eventually } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { Keys } from "./lib/webdriver.js";

const norm = (text) => (text ?? "").replace(/\s+/g, " ").trim();

/** Every session file under `dir`. */
function sessionFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sessionFiles(full);
    return entry.name.endsWith(".jsonl") ? [full] : [];
  });
}

describe("the sandbox's network in Settings and the new-session sheet (issue 26)", { timeout: 300_000 }, () => {
  let h;

  before(async () => {
    // The person chose no sandbox: the network control starts disabled.
    h = await Harness.start("network", { sandbox: "off" });
    await h.cliSession("Hello", (req) => req.respondText("Hello."));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);
  const networkGroup = "[role=dialog] [data-testid=sandbox-network] [role=radiogroup]";

  step("Settings: the network sits under the sandbox, disabled without one; allowed domains are edited and saved to [tools]", async () => {
    await h.click("button", "Settings");
    await h.find("[role=dialog]", "Approval policy and sandbox");
    const disabled = await h.run((s) => Array.from(document.querySelectorAll(`${s} input`)).every((i) => i.disabled), networkGroup);
    assert.equal(disabled, true, "no sandbox: the network is the person's own");
    await h.run(() => document.querySelector("[data-testid=sandbox-network]").scrollIntoView({ block: "center" }));
    await h.click("[role=dialog] .settings-sandbox label", "Workspace");
    await h.click(`${networkGroup} label`, "Allowed domains…");
    const domains = await h.find("[role=dialog] textarea[aria-label='Allowed domains']");
    await h.driver.sendKeys(domains, `crates.io${Keys.ENTER}*.npmjs.org`);
    await h.run(() => document.querySelector("[data-testid=sandbox-network]").scrollIntoView({ block: "center" }));
    await h.screenshotBoth("network/settings");
    await h.click("[role=dialog] button", "Save settings");
    await h.waitFor("the dialog to close", () => !document.querySelector("[role=dialog]"));
    const config = fs.readFileSync(path.join(h.home, "config", "config.toml"), "utf8");
    assert.match(config, /sandbox = "workspace-write"/);
    assert.match(config, /sandbox_network = "allow-list"/);
    assert.match(config, /sandbox_allow_domains = \[\s*"crates\.io",\s*"\*\.npmjs\.org",?\s*\]/);
  });

  step("the new-session sheet offers the settings' network and domains, and the session records them", async () => {
    await h.click("nav[aria-label=Sessions] button", "New session");
    await h.find("[role=dialog]", "New session");
    await h.find("[role=dialog] [data-testid=sandbox-network-domains]", "Allowed: crates.io, *.npmjs.org");
    const checked = await h.run((s) => norm(document.querySelector(`${s} label.selected`)?.textContent), networkGroup);
    assert.equal(checked, "Allowed domains…");
    await h.screenshotBoth("network/new-session");
    await h.click("[role=dialog] button", "Start session");
    await h.waitFor("the sheet to close", () => !document.querySelector("[role=dialog]"));
    const allowListed = () =>
      sessionFiles(h.home)
        .flatMap((file) => fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line)))
        .filter((record) => record.type === "sandbox_set" && record.payload.network === "allow-list");
    const recorded = await eventually("a session recording the allow-list", () => {
      const found = allowListed();
      return found.length > 0 ? found : null;
    });
    assert.deepEqual(recorded.map((r) => r.payload), [{ mode: "workspace-write", network: "allow-list", allow_domains: ["crates.io", "*.npmjs.org"] }]);
    await h.click("button[aria-label='Session info']");
    await h.find("[data-testid=info-network]", "network allow-list (crates.io, *.npmjs.org)");
    await h.screenshot("network/session-info");
  });
});
