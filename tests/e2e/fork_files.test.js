// Issue 26's fork "with files" in the real app: in a git repository, a
// session writes NOTES.md in its first turn and rewrites README.md in its
// second. Fork from here on the first turn's reply offers the Files choice
// with a preview: "New git worktree at that point" makes a detached
// worktree beside the repository holding the files as they were there (the
// original checkout's HEAD and status untouched), and "Restore this folder
// to that point" takes the README back in place, recorded in the fork.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { before, describe } from "node:test";
import { Harness } from "./lib/harness.js";
import { sharedAppSteps } from "./lib/steps.js";
import { usage } from "./lib/mock-provider.js";

const FIRST_PROMPT = "Start a NOTES.md for the project";
const FIRST_REPLY = "NOTES-STARTED: NOTES.md lists what main.rs does.";
const NOTES = "# Notes\n\n- main.rs prints hello\n";
const README_LATER = "# demo-project\n\nPrints hello. Run it with `cargo run`.\n";
const AUTO = ["--approval", "auto", "--sandbox", "off"];

describe("fork with files: a new git worktree, then the folder in place (issue 26)", { timeout: 300_000 }, () => {
  let h;
  let parentId;
  let readmeCommitted;
  const git = (dir, ...args) => execFileSync("git", ["-C", dir, "-c", "user.name=e2e", "-c", "user.email=e2e@example.com", ...args], { encoding: "utf8" });
  const read = (root, name) => {
    const at = path.join(root, name);
    return fs.existsSync(at) ? fs.readFileSync(at, "utf8") : null;
  };

  /** One CLI turn in `auto` that writes `file` with `content`, then answers `reply`. */
  const writeTurn = (args, file, content, reply) => {
    let round = 0;
    return h.cli([...args, ...AUTO], (req) => {
      round += 1;
      if (round === 1) req.respondFunctionCall("write_file", { path: file, content }, usage({ input: 900, output: 40 }));
      else req.respondText(reply, usage({ input: 1_000, output: 20 }));
    });
  };

  before(async () => {
    h = await Harness.start("forkfiles");
    git(h.workspace, "init", "--quiet", "-b", "main");
    git(h.workspace, "add", ".");
    git(h.workspace, "commit", "--quiet", "-m", "base");
    readmeCommitted = read(h.workspace, "README.md");
    const first = await writeTurn(["run", "--workspace", h.workspace, "-p", FIRST_PROMPT], "NOTES.md", NOTES, FIRST_REPLY);
    assert.equal(first.code, 0, first.stderr);
    parentId = await h.sessionIdOf(FIRST_PROMPT);
    const second = await writeTurn(["resume", parentId, "-p", "Say how to run it in the README"], "README.md", README_LATER, "The README says how to run it.");
    assert.equal(second.code, 0, second.stderr);
    assert.equal(read(h.workspace, "README.md"), README_LATER);
    await h.launchApp();
  });

  const step = sharedAppSteps(() => h);

  async function openForkDialog() {
    await h.openFromSidebar(FIRST_PROMPT);
    await h.scrollToFind("article[aria-label=Strata]", "NOTES-STARTED");
    const button = await h.waitFor("the reply's actions", (t) => {
      const item = [...document.querySelectorAll("article[aria-label=Strata]")].find((el) => (el.textContent ?? "").includes(t));
      const menu = item?.querySelector("[data-testid=item-menu-button]");
      menu?.focus();
      return menu ?? null;
    }, ["NOTES-STARTED"]);
    await h.driver.click(button);
    await h.click("[role=menuitem]", "Fork from here");
    await h.find("[role=dialog]", "Fork from here?");
  }

  /** The dialog's preview, once Rust answered: the files that would change. */
  const previewList = () =>
    h.waitFor("the files preview", () => {
      const list = document.querySelector("[role=dialog] [aria-label='Files that would change']");
      return list ? [...list.querySelectorAll("li")].map((li) => li.textContent.replace(/\s+/g, " ").trim()) : null;
    });

  /** The one session the CLI lists that `known` does not hold. */
  async function newSession(known) {
    const { stdout } = await h.cli(["sessions", "list", "--json"]);
    const fresh = JSON.parse(stdout).sessions.map((s) => s.id).filter((id) => !known.includes(id));
    assert.equal(fresh.length, 1, stdout);
    return fresh[0];
  }

  step("the Files choice previews a new git worktree at that point, then forks into it", async () => {
    const status = git(h.workspace, "status", "--porcelain");
    const head = git(h.workspace, "rev-parse", "HEAD");
    await openForkDialog();
    await h.click("[role=dialog] .fork-files-choice", "New git worktree at that point");
    assert.deepEqual(await previewList(), ["Restore README.md"]);
    const where = await h.waitFor("the worktree's folder", () => document.querySelector("[data-testid=fork-files-preview] code")?.textContent ?? null);
    assert.equal(path.dirname(where), path.dirname(h.workspace));
    assert.match(path.basename(where), /^demo-project-fork-[0-9a-f]{8}$/);
    await h.screenshotBoth("fork-files-worktree-preview");
    await h.click("[role=dialog] button", "Fork session");
    await h.find(".toast", "1 file was returned to that point");
    const forkId = await newSession([parentId]);

    // The original checkout: untouched.
    assert.equal(git(h.workspace, "status", "--porcelain"), status);
    assert.equal(git(h.workspace, "rev-parse", "HEAD"), head);
    assert.equal(read(h.workspace, "README.md"), README_LATER);
    // The worktree: the files at the point, and the fork works there.
    assert.equal(read(where, "README.md"), readmeCommitted);
    assert.equal(read(where, "NOTES.md"), NOTES);
    const records = await h.records(forkId);
    assert.equal(records[0].payload.workspace, where);
    assert.deepEqual(
      records.filter((r) => r.type === "file_change" && r.payload.cause === "restore").map((r) => r.payload.path),
      ["README.md"],
    );
    await h.click(".toast button[aria-label=Dismiss]");
  });

  step("Restore this folder to that point takes the README back in place, recorded in the new fork", async () => {
    const known = JSON.parse((await h.cli(["sessions", "list", "--json"])).stdout).sessions.map((s) => s.id);
    await openForkDialog();
    await h.click("[role=dialog] .fork-files-choice", "Restore this folder to that point");
    assert.deepEqual(await previewList(), ["Restore README.md"]);
    assert.equal(read(h.workspace, "README.md"), README_LATER, "a preview changes nothing");
    await h.screenshotBoth("fork-files-in-place-preview");
    await h.click("[role=dialog] button", "Fork session");
    await h.find(".toast", "1 file was returned to that point");
    const forkId = await newSession(known);
    assert.equal(read(h.workspace, "README.md"), readmeCommitted);
    assert.equal(read(h.workspace, "NOTES.md"), NOTES);
    const records = await h.records(forkId);
    assert.equal(records[0].payload.workspace, h.workspace);
    assert.ok(records.some((r) => r.type === "file_change" && r.payload.cause === "restore" && r.payload.path === "README.md"));
    const title = await h.waitFor("the fork's title", () => (document.querySelector(".conversation-header h1")?.textContent ?? "").replace(/\s+/g, " ").trim() || null);
    assert.equal(title, `${FIRST_PROMPT} (fork)`);
  });
});
