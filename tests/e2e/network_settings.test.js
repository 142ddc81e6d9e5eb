// Issue 26 on the desktop: Settings' "Workspace network" section saves the
// open session's workspace's .strata/network.toml through the same app
// function as `strata rules network`. A saved allow-list is on disk and
// trusted: a session `strata run` starts there records it, and the desktop's
// new-session sheet starts from it. A file edited by
// hand afterwards is shown as not applied. The section lays out at 1024 and
// 1440 px in both themes.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, describe } from "node:test";
import { geometryProblems } from "./lib/geometry.js";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";

const PROMPT = "Hello";
const norm = (text) => (text ?? "").replace(/\s+/g, " ").trim();

describe("the workspace's network file in Settings (issue 26)", { timeout: 300_000 }, () => {
  let h;

  before(async () => {
    h = await Harness.start("network-settings");
    await h.cliSession(PROMPT, (req) => req.respondText("Hello."));
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);
  const section = "[role=dialog] section[aria-labelledby]";
  const networkFile = () => path.join(h.workspace, ".strata", "network.toml");
  const openSection = async () => {
    await h.click(".header-actions button", "Settings");
    await h.find("[role=dialog] h3", "Workspace network");
    await h.run(() => [...document.querySelectorAll("[role=dialog] h3")].find((el) => el.textContent === "Workspace network")?.scrollIntoView({ block: "start" }));
  };
  const closeSettings = async () => {
    await h.click("[role=dialog] button", "Cancel");
    await h.waitFor("Settings to close", () => !document.querySelector("[role=dialog]"));
  };
  const domainField = () =>
    h.waitFor("the Domain field", () => [...document.querySelectorAll("[role=group][aria-label='Add a domain'] label")].find((el) => el.textContent.trim() === "Domain")?.control ?? null);
  const state = async () => norm(await h.driver.text(await h.find("[role=dialog] [data-testid=wsnet-state]")));

  step("Settings saves an allow-list to the open session's workspace, on disk as strata rules network writes it", async () => {
    await h.openFromSidebar(PROMPT);
    await openSection();
    assert.equal(norm(await h.driver.text(await h.find("[role=dialog] [data-testid=wsnet-workspace]"))), h.workspace);
    assert.match(await state(), /No network file yet/);
    await h.click(`${section} [role=radiogroup] label`, "Allowed domains");
    const field = await domainField();
    await h.driver.sendKeys(field, "crates.io");
    await h.click("[role=dialog] button", "Add domain");
    await h.driver.sendKeys(await domainField(), "*.npmjs.org");
    await h.click("[role=dialog] button", "Add domain");
    await h.driver.sendKeys(await domainField(), "not a domain");
    await h.click("[role=dialog] button", "Add domain");
    await h.click("[role=dialog] button", "Save workspace network");
    await h.find("[role=dialog] [role=alert]", 'Nothing was saved: "not a domain" is not a domain, a *.domain or an IP address.');
    assert.equal(fs.existsSync(networkFile()), false, "a refused domain writes nothing");
    await h.run(() => document.querySelector("[role=dialog] [role=alert]")?.scrollIntoView({ block: "end" }));
    await h.screenshotBoth("network-settings/refused");
    await h.click("[role=dialog] button[aria-label='Remove not a domain']");
    await h.click("[role=dialog] button", "Save workspace network");
    await h.find("[role=dialog] [role=status]", "Saved: new sessions in this workspace get allowed domains (crates.io, *.npmjs.org).");
    assert.match(await state(), /^Applied ?New sessions here get allowed domains \(crates\.io, \*\.npmjs\.org\), as Strata saved it\./);
    const text = fs.readFileSync(networkFile(), "utf8");
    assert.match(text, /network = "allow-list"/);
    assert.match(text, /allow_domains = \[\s*"crates\.io",\s*"\*\.npmjs\.org",?\s*\]/);
    await closeSettings();
  });

  step("the saved file is trusted: a session strata run starts there records its allow-list, and Settings reads it back applied", async () => {
    const run = await h.cli(["run", "--workspace", h.workspace, "-p", "Which network?"], (req) => req.respondText("Allowed domains."));
    assert.equal(run.code, 0, run.stderr);
    const recorded = (await h.records(await h.sessionIdOf("Which network?"))).filter((record) => record.type === "sandbox_set");
    assert.deepEqual(recorded.map((r) => r.payload), [{ mode: "workspace-write", network: "allow-list", allow_domains: ["crates.io", "*.npmjs.org"] }]);
    // The desktop's own new-session sheet starts from the file too.
    await h.click("nav[aria-label=Sessions] button", "New session");
    await h.find("[role=dialog] [data-testid=new-session-folder]", h.workspace);
    await h.find("[role=dialog] [data-testid=new-session-network-source]", "From this workspace’s .strata/network.toml, saved by Strata.");
    const sheetChoice = await h.run(() => document.querySelector("[role=dialog] [data-testid=sandbox-network] label.selected")?.textContent);
    assert.equal(norm(sheetChoice), "Allowed domains…");
    await h.find("[role=dialog] [data-testid=sandbox-network-domains]", "Allowed: crates.io, *.npmjs.org");
    await h.screenshotBoth("network-settings/new-session");
    await h.click("[role=dialog] button", "Cancel");
    await h.waitFor("the sheet to close", () => !document.querySelector("[role=dialog]"));
    await openSection();
    assert.match(await state(), /^Applied/);
    const checked = await h.run((s) => document.querySelector(`${s} [role=radiogroup] label.selected`)?.textContent, section);
    assert.equal(norm(checked), "Allowed domains");
    await closeSettings();
  });

  step("the section lays out without overlap or overflow at 1024 and 1440 px, light and dark", async () => {
    const found = [];
    for (const width of [1024, 1440]) {
      await h.resizeTo({ width, height: 800 });
      await openSection();
      const problems = await h.problemsInBothThemes(`network-settings/applied-${width}`, async () => (await h.run(geometryProblems)).problems);
      found.push(...problems.map((problem) => `${width} px, ${problem}`));
      await closeSettings();
    }
    assert.deepEqual(found, []);
  });

  step("a file edited by hand afterwards is shown as not applied, its wider choice and domains set aside", async () => {
    fs.writeFileSync(networkFile(), 'network = "on"\nallow_domains = ["evil.example"]\n');
    for (const width of [1024, 1440]) {
      await h.resizeTo({ width, height: 800 });
      await openSection();
      assert.match(await state(), /Not applied: the file changed since Strata saved it/);
      assert.match(norm(await h.driver.text(await h.find("[role=dialog] [data-testid=wsnet-not-applied]"))), /^It asks for ?On ?evil\.example ?not applied$/);
      const checked = await h.run((s) => document.querySelector(`${s} [role=radiogroup] label.selected`)?.textContent, section);
      assert.equal(norm(checked), "Off", "nothing of the hand-edited file is put in the form");
      const problems = await h.problemsInBothThemes(`network-settings/not-applied-${width}`, async () => (await h.run(geometryProblems)).problems);
      assert.deepEqual(problems, []);
      await closeSettings();
    }
    await h.resizeTo({ width: 1280, height: 800 });
  });
});
