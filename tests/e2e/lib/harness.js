// The end-to-end harness: a throwaway STRATA_HOME whose config points the
// real app at the local mock provider, a workspace folder with a few files,
// tauri-driver (over WebKitWebDriver) started and stopped here, the app
// launched, restarted and closed through WebDriver, the real `strata` CLI for
// setting sessions up, DOM polling helpers and screenshots.
//
// Reusable by any test file:
//
//   const h = await Harness.start("chat");
//   const id = await h.cliSession("Say hello", (req) => req.respondText("Hello."));
//   await h.launchApp();
//   ...
//   await h.stop();
//
// Environment: STRATA_E2E_APP (the app binary), STRATA_E2E_CLI (the strata
// binary), TAURI_DRIVER, WEBKIT_DRIVER, CARGO_TARGET_DIR (where the debug
// binaries are looked for), STRATA_E2E_KEEP=1 (keep the temp folders).

import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MockProvider } from "./mock-provider.js";
import { Keys, WebDriver } from "./webdriver.js";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const SCREENSHOTS = path.join(REPO, "target", "screenshots");
const TARGET = process.env.CARGO_TARGET_DIR || path.join(os.homedir(), ".cache", "strata", "target");
export const APP = path.resolve(process.env.STRATA_E2E_APP || path.join(TARGET, "debug", "strata-desktop"));
export const CLI = path.resolve(process.env.STRATA_E2E_CLI || path.join(TARGET, "debug", "strata"));
const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER || "/usr/bin/WebKitWebDriver";

/** A fake key: used for real by the app (the mock checks it) and never shown. */
export const FAKE_API_KEY = "sk-e2e-FAKE-7f3c9a12d4b8e6f0a5c1";
export const THRESHOLD = 10_000;
export const CONTEXT_WINDOW = 32_000;
export const MODEL = "gpt-5.4-mini";

function which(binary) {
  for (const dir of (process.env.PATH || "").split(":")) {
    const candidate = path.join(dir, binary);
    if (fs.existsSync(candidate)) return candidate;
  }
  const cargoBin = path.join(os.homedir(), ".cargo", "bin", binary);
  return fs.existsSync(cargoBin) ? cargoBin : null;
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Polls `check` until it returns a truthy value, or fails with `what`. */
export async function eventually(what, check, { timeout = 15_000, interval = 100 } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeout} ms waiting for ${what} (last: ${detail})`);
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

// Helpers defined in the page before every script: `all(selector, text)` is
// the visible elements matching `selector` whose accessible name or text
// contains `text`; `one` the first of them.
const PAGE_LIB = `
const visible = (el) => !!(el.offsetParent || el.getClientRects().length);
const norm = (s) => (s || "").replace(/\\s+/g, " ").trim();
const nameOf = (el) => norm(el.getAttribute("aria-label")) + " " + norm(el.textContent);
const all = (selector, text, root) => Array.from((root || document).querySelectorAll(selector))
  .filter(visible).filter((el) => text == null || nameOf(el).includes(text));
const one = (selector, text, root) => all(selector, text, root)[0] || null;
// The part of \`el\` left visible by the ancestors that clip their overflow, and the viewport.
const visibleRect = (el) => {
  let { left, top, right, bottom } = el.getBoundingClientRect();
  for (let a = el.parentElement; a; a = a.parentElement) {
    const style = getComputedStyle(a);
    const box = a.getBoundingClientRect();
    if (style.overflowX !== "visible") [left, right] = [Math.max(left, box.left), Math.min(right, box.right)];
    if (style.overflowY !== "visible") [top, bottom] = [Math.max(top, box.top), Math.min(bottom, box.bottom)];
  }
  [right, bottom] = [Math.min(right, innerWidth), Math.min(bottom, innerHeight)];
  return { left, top, right, bottom, width: Math.max(0, right - left), height: Math.max(0, bottom - top) };
};
// How many lines the element's text takes: its text boxes grouped by vertical overlap.
const lines = (el) => {
  const range = document.createRange();
  range.selectNodeContents(el);
  const boxes = Array.from(range.getClientRects())
    .filter((b) => b.width > 0 && b.height > 0)
    .sort((a, b) => a.top - b.top);
  let count = 0;
  let bottom = -Infinity;
  for (const b of boxes) {
    if (b.top >= bottom - 1) {
      count++;
      bottom = b.bottom;
    } else {
      bottom = Math.max(bottom, b.bottom);
    }
  }
  return count;
};
`;

/** Processes running `binary` with STRATA_HOME=`home` (this harness's app instances). */
function processesOf(binary, home) {
  const found = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readlinkSync(`/proc/${entry}/exe`) !== binary) continue;
      const env = fs.readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      if (env.includes(`STRATA_HOME=${home}`)) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

// Whatever this process started, so an interrupted run (Ctrl+C, the script's
// trap) still stops tauri-driver and the app before exiting.
const live = new Set();
function killEverything() {
  for (const h of live) h.killNow();
}
process.once("exit", killEverything);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.once(signal, () => {
    killEverything();
    process.exit(130);
  });
}

/**
 * A PNG of the screen area `rect` (the app window) as the X server shows it,
 * taken with ImageMagick's `import`. WebDriver's own screenshot is not used:
 * with WebKitGTK's DMA-BUF renderer off (as the app starts by default, see
 * src-tauri/src/webview.rs) WebKitWebDriver waits for the page's next paint,
 * which on a settled page may never come. The capture is of the screen, so
 * it wants the harness's own Xvfb (scripts/e2e.sh starts one when there is
 * no DISPLAY): on a desktop, windows over the app would be in it. A window
 * partly off the screen fails the capture rather than give a cut picture.
 */
function captureWindow(rect) {
  const [x, y, width, height] = [rect.x, rect.y, rect.width, rect.height].map(Math.round);
  const offset = (n) => (n < 0 ? `${n}` : `+${n}`);
  const crop = `${width}x${height}${offset(x)}${offset(y)}`;
  return new Promise((resolve, reject) => {
    execFile(
      "import",
      ["-silent", "-window", "root", "-crop", crop, "+repage", "png:-"],
      { encoding: "buffer", maxBuffer: 64 * 1024 * 1024, timeout: 15_000 },
      (error, png, stderr) => {
        if (error) return reject(new Error(`screen capture failed: ${error.message} ${stderr}`));
        // A PNG's size: the IHDR chunk's width and height, big-endian, at bytes 16 and 20.
        const size = png.length >= 24 ? [png.readUInt32BE(16), png.readUInt32BE(20)] : [0, 0];
        if (size[0] !== width || size[1] !== height) {
          return reject(new Error(`screen capture of the window ${crop} came out ${size[0]}x${size[1]}: is the window on the screen?`));
        }
        resolve(png);
      },
    );
  });
}

/** Sends `sig` to `pid` (a negative one: its process group), if it is still there. */
function signal(pid, sig) {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

export class Harness {
  static async start(name, options = {}) {
    const h = new Harness(name, options);
    try {
      await h.setUp();
    } catch (error) {
      await h.stop();
      throw error;
    }
    return h;
  }

  constructor(name, { threshold = THRESHOLD, contextWindow = CONTEXT_WINDOW, env = {}, policy = "base", profileToml = [], model = MODEL, sandbox = null } = {}) {
    this.name = name;
    // The mock profile's model: the catalog's entry for it decides what the app offers (reasoning).
    this.model = model;
    // Extra lines for the mock profile's config (e.g. its own `[profiles.mock.price]`).
    this.profileToml = profileToml;
    this.threshold = threshold;
    this.contextWindow = contextWindow;
    // Extra environment for the app and the CLI (e.g. STRATA_LOG).
    this.extraEnv = env;
    this.policy = policy;
    // `[tools] sandbox` for new sessions; null: the app's default (workspace-write).
    this.sandbox = sandbox;
    this.screenshots = [];
  }

  async setUp() {
    for (const [what, file] of [["app", APP], ["strata CLI", CLI], ["WebKitWebDriver", WEBKIT_DRIVER]]) {
      if (!fs.existsSync(file)) throw new Error(`${what} not found at ${file} (build it first: make e2e)`);
    }
    this.tauriDriverBin = process.env.TAURI_DRIVER || which("tauri-driver");
    if (!this.tauriDriverBin) throw new Error("tauri-driver not found (cargo install tauri-driver --locked)");
    if (!process.env.DISPLAY) throw new Error("no DISPLAY: run under Xvfb (scripts/e2e.sh does)");

    this.root = await fsp.mkdtemp(path.join(os.tmpdir(), `strata-e2e-${this.name}-`));
    this.home = path.join(this.root, "home");
    this.workspace = path.join(this.root, "workspace", "demo-project");
    await fsp.mkdir(path.join(this.home, "config"), { recursive: true });
    await fsp.mkdir(path.join(this.workspace, "src"), { recursive: true });
    await fsp.writeFile(
      path.join(this.workspace, "README.md"),
      "# demo-project\n\nA small project the end-to-end tests let the agent work in.\n",
    );
    await fsp.writeFile(path.join(this.workspace, "src", "main.rs"), 'fn main() {\n    println!("hello");\n}\n');

    this.mock = await new MockProvider({ apiKey: FAKE_API_KEY }).start();
    await fsp.writeFile(path.join(this.home, "config", "mock-key.txt"), `${FAKE_API_KEY}\n`, { mode: 0o600 });
    await fsp.writeFile(
      path.join(this.home, "config", "config.toml"),
      [
        'default_profile = "mock"',
        'key_store = "file"',
        // The suites of issues 5 and 6 describe the base design's compaction;
        // issue 11's picks the layered policy.
        `compaction_policy = "${this.policy}"`,
        "",
        "[profiles.mock]",
        'kind = "openai-responses"',
        `model = "${this.model}"`,
        `base_url = "${this.mock.baseUrl}"`,
        'api_key = { file = "mock-key.txt" }',
        `context_window = ${this.contextWindow}`,
        "max_output_tokens = 4000",
        `compaction_threshold = ${this.threshold}`,
        "",
        ...this.profileToml,
        "",
        ...(this.sandbox ? ["[tools]", `sandbox = "${this.sandbox}"`, ""] : []),
      ].join("\n"),
    );

    // A debug build appends confirmed links here instead of opening a browser.
    this.openedLinksFile = path.join(this.root, "opened-links.txt");
    this.env = {
      ...process.env,
      ...this.extraEnv,
      STRATA_HOME: this.home,
      NO_COLOR: "1",
      STRATA_E2E_OPENED_LINKS: this.openedLinksFile,
    };
    delete this.env.OPENAI_API_KEY;
    delete this.env.ANTHROPIC_API_KEY;
    delete this.env.OPENAI_BASE_URL;

    const port = await freePort();
    const nativePort = await freePort();
    this.driverLog = fs.openSync(path.join(this.root, "tauri-driver.log"), "a");
    this.driverProcess = spawn(
      this.tauriDriverBin,
      ["--port", String(port), "--native-port", String(nativePort), "--native-driver", WEBKIT_DRIVER],
      { env: this.env, stdio: ["ignore", this.driverLog, this.driverLog], detached: true },
    );
    this.driverExited = new Promise((resolve) => this.driverProcess.on("exit", resolve));
    live.add(this);
    this.driver = new WebDriver(`http://127.0.0.1:${port}`);
    await eventually("tauri-driver to listen", async () => {
      if (this.driverProcess.exitCode !== null) throw new Error("tauri-driver exited");
      return new Promise((resolve) => {
        const socket = net.connect(port, "127.0.0.1", () => {
          socket.end();
          resolve(true);
        });
        socket.on("error", () => resolve(false));
      });
    });
  }

  /**
   * Runs the real `strata` CLI with this harness's home (a new session in the
   * workspace, or any other command), answering its model requests with
   * `answer(request)` meanwhile. Resolves to `{ code, stdout, stderr }`.
   */
  async cli(args, answer) {
    const child = spawn(CLI, args, { env: this.env, cwd: this.workspace, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    const stop = new AbortController();
    exited.then(() => stop.abort());
    let failure = null;
    if (answer) {
      try {
        for (;;) {
          const request = await this.mock.nextRequest({ timeout: 30_000, what: "the CLI's request", signal: stop.signal });
          await answer(request);
        }
      } catch (error) {
        if (!stop.signal.aborted) {
          failure = error;
          child.kill("SIGKILL");
        }
      }
    }
    const code = await exited;
    if (failure) throw new Error(`strata ${args[0]}: ${failure.message}; stderr: ${stderr}`);
    return { code, stdout, stderr };
  }

  /** A new session made by `strata run` in the workspace (one turn); returns its id. */
  async cliSession(prompt, answer) {
    const run = await this.cli(["run", "--workspace", this.workspace, "-p", prompt], answer);
    if (run.code !== 0) throw new Error(`strata run failed (${run.code}): ${run.stderr}`);
    const list = await this.cli(["sessions", "list", "--json"]);
    // One `SessionPage` line (docs/cli-json.md) holding the rows.
    const sessions = list.stdout
      .split("\n")
      .filter(Boolean)
      .flatMap((line) => JSON.parse(line).sessions ?? []);
    const match = sessions.find((s) => JSON.stringify(s).includes(prompt.slice(0, 30)));
    if (!match) throw new Error(`the CLI's session is not listed: ${list.stdout}`);
    return match.id ?? match.session_id;
  }

  /**
   * Runs `strata resume <sessionId> -p <prompt>` and holds its model stream open, so the CLI holds
   * the session (its writer lock) meanwhile; resolves once the model was asked. `finish(text)`
   * completes the answer with `text` and resolves to the CLI's `{ code, stdout, stderr }` once it
   * exited (and let go of the session).
   */
  async holdWithCli(sessionId, prompt) {
    let stream = null;
    let asked;
    const requested = new Promise((resolve) => (asked = resolve));
    let release;
    const released = new Promise((resolve) => (release = resolve));
    const run = this.cli(["resume", sessionId, "-p", prompt], async (request) => {
      if (stream) throw new Error("the held CLI turn asked the model twice");
      stream = request.openStream();
      asked();
      await released;
    });
    await Promise.race([requested, run.then((r) => Promise.reject(new Error(`strata resume exited early (${r.code}): ${r.stderr}`)))]);
    return {
      finish: (text) => {
        stream.delta(text);
        stream.complete();
        release();
        return run;
      },
    };
  }

  /** The id of the session whose title starts with `title`, as `strata sessions list --json` lists it. */
  async sessionIdOf(title) {
    const list = await this.cli(["sessions", "list", "--json"]);
    const row = JSON.parse(list.stdout).sessions.find((s) => (s.title ?? "").startsWith(title));
    if (!row) throw new Error(`no session titled "${title}": ${list.stdout}`);
    return row.id;
  }

  /** The session's records, as the file on disk has them. */
  async records(sessionId) {
    return (await fsp.readFile(await this.sessionFile(sessionId), "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  }

  /** The path of the session's file. */
  async sessionFile(sessionId) {
    const dir = path.join(this.home, "sessions");
    const files = [];
    const walk = async (d) => {
      for (const entry of await fsp.readdir(d, { withFileTypes: true })) {
        const p = path.join(d, entry.name);
        if (entry.isDirectory()) await walk(p);
        else if (entry.name.endsWith(".jsonl") && entry.name.includes(sessionId)) files.push(p);
      }
    };
    await walk(dir);
    if (files.length !== 1) throw new Error(`expected one session file for ${sessionId}, found ${files.length}`);
    return files[0];
  }

  async launchApp() {
    await this.driver.newSession(APP);
    await this.waitFor("the app to load its profile", () => !!document.querySelector(".model-chip .model-label"), [], 30_000);
  }

  /** Closes the app (its process exits) and starts it again on the same home. */
  async restartApp() {
    await this.closeApp();
    await this.launchApp();
  }

  async closeApp() {
    await this.driver.deleteSession();
    await eventually("the app process to exit", () => processesOf(APP, this.home).length === 0, { timeout: 15_000 });
  }

  // ---- the page ----------------------------------------------------------

  /** Runs `fn` (serialised; pass what it needs in `args`) in the page. */
  run(fn, ...args) {
    return this.driver.execute(`${PAGE_LIB}\nreturn (${fn.toString()})(...arguments);`, ...args);
  }

  /**
   * Starts the command log: every command the UI invokes from now on is
   * recorded by name (ui/src/api/commands.ts), read by `commandLog`.
   */
  async startCommandLog() {
    await this.run(() => {
      window.__strataCommandLog = [];
    });
  }

  /** The commands invoked since `startCommandLog`, in order. */
  commandLog() {
    return this.run(() => window.__strataCommandLog ?? []);
  }

  /** Polls `fn` in the page until it returns something truthy. */
  waitFor(what, fn, args = [], timeout = 15_000) {
    return eventually(what, () => this.run(fn, ...args), { timeout });
  }

  /** The first visible element matching `selector` (and containing `text`), waiting for it. */
  find(selector, text = null, timeout = 15_000) {
    const what = text == null ? selector : `${selector} with "${text}"`;
    return this.waitFor(what, (s, t) => one(s, t), [selector, text], timeout);
  }

  async click(selector, text = null) {
    const element = await this.find(selector, text);
    await this.driver.click(element);
    return element;
  }

  /** Types into the composer and presses Enter, as a person would. */
  async send(text) {
    const input = await this.waitFor("an enabled composer", () => {
      const el = document.getElementById("composer-input");
      return el && !el.disabled ? el : null;
    });
    await this.driver.click(input);
    await this.driver.sendKeys(input, text);
    await this.driver.sendKeys(input, Keys.ENTER);
  }

  /**
   * Finds an element of the (virtualised) transcript: scrolls the list from
   * the top down, half a screen at a time, until it is rendered.
   */
  async scrollToFind(selector, text = null, list = "[role=log]") {
    for (let top = 0, step = 0; step < 200; step++) {
      // Scroll, let the virtualiser render (two frames), and look.
      const state = await this.driver.executeAsync(
        `${PAGE_LIB}
         const [l, s, t, top, done] = arguments;
         const el = document.querySelector(l);
         el.scrollTop = top;
         requestAnimationFrame(() => requestAnimationFrame(() => {
           el.scrollTop = top;
           requestAnimationFrame(() => requestAnimationFrame(() => done({
             found: one(s, t),
             bottom: el.scrollTop + el.clientHeight >= el.scrollHeight - 2,
             half: el.clientHeight / 2,
           })));
         }));`,
        list,
        selector,
        text,
        top,
      );
      if (state.found) return state.found;
      if (state.bottom) break;
      top += state.half;
    }
    throw new Error(`${selector} with "${text}" not found anywhere in ${list}`);
  }

  /** Resizes the window to `size` (at the screen's top left, so all of it is captured) and waits for the page to follow. */
  async resizeTo({ width, height }) {
    await this.driver.setWindowRect({ x: 0, y: 0, width, height });
    await this.waitFor(`the page at ${width}x${height}`, (w, ht) => innerWidth === w && innerHeight === ht, [width, height]);
    // Two frames: the layout after the resize is the one measured.
    await this.driver.executeAsync("const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done()));");
  }

  textOf(selector) {
    return this.run((s) => Array.from(document.querySelectorAll(s)).map((el) => norm(el.textContent)), selector);
  }

  /** Opens a sidebar session by its title (live, unless another process holds it). */
  async openFromSidebar(title) {
    await this.click("nav[aria-label=Sessions] .session-open", title);
    await this.waitFor(`session "${title}" to open`, (t) => {
      const h1 = document.querySelector(".conversation-title h1");
      return h1 && norm(h1.textContent).includes(t);
    }, [title.slice(0, 40)]);
  }

  /** The links the app would have opened in the system browser, in order. */
  openedLinks() {
    return fs.existsSync(this.openedLinksFile) ? fs.readFileSync(this.openedLinksFile, "utf8").split("\n").filter(Boolean) : [];
  }

  /** Fails when the API key appears anywhere in the page. */
  async assertKeyHidden() {
    const source = await this.driver.source();
    if (source.includes(FAKE_API_KEY) || source.includes(FAKE_API_KEY.slice(-12))) {
      throw new Error("the API key is visible in the page");
    }
  }

  /** A PNG of the window under target/screenshots/<name>.png, once the page has painted. */
  async screenshot(name) {
    await this.assertKeyHidden();
    await this.driver.executeAsync(
      `const done = arguments[arguments.length - 1];
       requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 300)));`,
    );
    const png = await captureWindow(await this.driver.getWindowRect());
    const file = path.join(SCREENSHOTS, `${name}.png`);
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await fsp.writeFile(file, png);
    this.screenshots.push(file);
    return file;
  }

  /** `screenshot(name)` in the light theme and `screenshot(name-dark)` in the dark one, back to light after. */
  async screenshotBoth(name) {
    await this.screenshot(name);
    await this.run(() => {
      document.documentElement.dataset.theme = "dark";
    });
    await this.screenshot(`${name}-dark`);
    await this.run(() => {
      document.documentElement.dataset.theme = "light";
    });
  }

  /**
   * In the light theme, then the dark one (back to light after): `measure(theme)`'s problems,
   * each prefixed with its theme, and a screenshot `<name>-<theme>` of each, taken once the
   * theme's colour transitions have ended.
   */
  async problemsInBothThemes(name, measure) {
    const found = [];
    for (const theme of ["light", "dark"]) {
      await this.run((t) => {
        document.documentElement.dataset.theme = t;
      }, theme);
      // Endless animations (a streaming answer's caret) are not waited for: they never finish.
      await this.driver.executeAsync(
        "const done = arguments[0]; requestAnimationFrame(() => Promise.all(document.getAnimations().filter((a) => a.effect?.getComputedTiming().iterations !== Infinity).map((a) => a.finished.catch(() => {}))).then(() => requestAnimationFrame(() => done())));",
      );
      found.push(...(await measure(theme)).map((p) => `${theme}: ${p}`));
      await this.screenshot(`${name}-${theme}`);
    }
    await this.run(() => {
      document.documentElement.dataset.theme = "light";
    });
    return found;
  }

  /** SIGKILL this home's app processes. */
  killApps() {
    if (!this.home) return;
    for (const pid of processesOf(APP, this.home)) signal(pid, "SIGKILL");
  }

  /** Synchronous last resort: SIGKILL tauri-driver's group and this home's app processes. */
  killNow() {
    live.delete(this);
    if (this.driverProcess && this.driverProcess.exitCode === null) signal(-this.driverProcess.pid, "SIGKILL");
    this.killApps();
    if (this.root && !process.env.STRATA_E2E_KEEP) fs.rmSync(this.root, { recursive: true, force: true });
  }

  async stop({ failed = false } = {}) {
    live.delete(this);
    if (this.driver?.retried) {
      process.stderr.write(`e2e: ${this.driver.retried} WebDriver command(s) sent again after a dropped connection\n`);
    }
    try {
      if (this.driver?.sessionId) await this.driver.deleteSession();
    } catch {
      // the app may be gone already
    }
    if (this.driverProcess && this.driverProcess.exitCode === null) {
      signal(-this.driverProcess.pid, "SIGTERM");
      await Promise.race([this.driverExited, new Promise((r) => setTimeout(r, 3000))]);
      if (this.driverProcess.exitCode === null) signal(-this.driverProcess.pid, "SIGKILL");
    }
    this.killApps();
    if (this.driverLog !== undefined) fs.closeSync(this.driverLog);
    if (this.mock) await this.mock.stop();
    if (this.root && !failed && !process.env.STRATA_E2E_KEEP) {
      await fsp.rm(this.root, { recursive: true, force: true });
    } else if (this.root) {
      process.stderr.write(`e2e: kept ${this.root} for inspection\n`);
    }
  }
}
