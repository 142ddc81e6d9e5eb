// The desktop app's figures of issue 13 (`make bench-desktop`): the release
// build under the current DISPLAY (scripts/bench-desktop.sh starts an Xvfb),
// driven through tauri-driver + WebKitWebDriver, every figure measured
// several times and printed as a table (median, min–max) beside its target
// and a baseline measured in the same run:
//
// - cold start to first paint: a wrapper records the wall clock just before
//   it execs the app; the page's own Paint Timing entry (first-contentful-
//   paint, recorded by WebKit, no instrumentation in the app) is converted to
//   the same clock through `performance.timeOrigin`. Baselines: spawning
//   /bin/true until it exits, and WebKit's MiniBrowser (a bare WebKit window)
//   spawned the same way until its WebDriver session is up, beside the app's
//   own "session up" time.
// - idle memory: PSS (/proc/PID/smaps_rollup) of the app and every process
//   under it (WebKitWebProcess, WebKitNetworkProcess), the library holding
//   1,000 generated sessions, once the sidebar listed them and 5 s passed.
// - a 5,000-round session: from the click on the sidebar's "Resume" to the
//   frame after the one where the newest entry of the transcript's first
//   page is rendered and the composer is enabled (timed in the page with
//   performance.now(), polled every animation frame), beside a 50-round one,
//   alternating.
// - frame times while streaming: requestAnimationFrame intervals in the page
//   while a local server streams an answer at 2,000 deltas a second in the
//   OpenAI Responses wire format (tests/e2e/lib/mock-provider.js), beside
//   the same window idle.
//
// Environment: STRATA_BENCH_APP, STRATA_BENCH_GEN (release binaries),
// STRATA_BENCH_DIR (generated data, kept between runs), STRATA_BENCH_RUNS
// (launches per figure, default 5), STRATA_BENCH_ONLY (a comma-separated
// subset of the phases start, library, stream; default all), WEBKIT_DRIVER,
// TAURI_DRIVER, MINIBROWSER.

import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { MockProvider, usage } from "../tests/e2e/lib/mock-provider.js";
import { Keys, WebDriver } from "../tests/e2e/lib/webdriver.js";
import {
  firstExisting,
  sleep,
  eventually,
  quantile,
  summary,
  ms,
  mb,
  rows,
  row,
  children,
  tree,
  rollup,
  treeMemory,
  freePort,
  loadAverage,
  countType,
  frameStats,
} from "./lib/bench-util.mjs";

const APP = path.resolve(mustEnv("STRATA_BENCH_APP"));
const GEN = path.resolve(mustEnv("STRATA_BENCH_GEN"));
const DATA = path.resolve(mustEnv("STRATA_BENCH_DIR"));
const RUNS = Number(process.env.STRATA_BENCH_RUNS || 5);
const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER || "/usr/bin/WebKitWebDriver";
const MINIBROWSER = process.env.MINIBROWSER || firstExisting(["/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser", "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser"]);
const LIBRARY_SESSIONS = 1_000;
const BIG_ROUNDS = 5_000;
const SMALL_ROUNDS = 50;
const SEED = 13;
/** What the UI asks for when a session opens (ui/src/state/store.ts TRANSCRIPT_PAGE). */
const TRANSCRIPT_PAGE = 200;
const DELTAS_PER_SECOND = 2_000;
const STREAM_SECONDS = Number(process.env.STRATA_BENCH_STREAM_SECONDS || 5);
const PHASES = new Set((process.env.STRATA_BENCH_ONLY || "start,library,stream").split(",").map((p) => p.trim()));

function mustEnv(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run scripts/bench-desktop.sh)`);
  return value;
}

function generateSession(dir, rounds, seed) {
  fs.rmSync(dir, { recursive: true, force: true });
  let records = rounds * 6;
  for (let attempt = 0; attempt < 4; attempt++) {
    fs.rmSync(dir, { recursive: true, force: true });
    execFileSync(GEN, ["session", String(records), dir, String(seed)], { stdio: ["ignore", "ignore", "inherit"] });
    const file = path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith(".jsonl")));
    const counted = countType(file, "round");
    if (counted >= rounds) {
      // The generator dates sessions from 2026-01-01; the library's run to
      // 2026-11-01. One year later keeps every date valid and puts these first.
      const text = fs.readFileSync(file, "utf8").replaceAll('"ts":"2026-', '"ts":"2027-');
      fs.writeFileSync(file, text);
      return { file, id: path.basename(file, ".jsonl"), rounds: counted, records: text.split("\n").filter(Boolean).length, bytes: Buffer.byteLength(text) };
    }
    records = Math.ceil((records * rounds * 1.02) / Math.max(counted, 1));
  }
  throw new Error(`strata-gen did not reach ${rounds} rounds`);
}

async function prepareData() {
  const root = path.join(DATA, `desktop-seed${SEED}-v1`);
  const ready = path.join(root, "ready.json");
  if (fs.existsSync(ready)) return { root, ...JSON.parse(fs.readFileSync(ready, "utf8")) };
  fs.rmSync(root, { recursive: true, force: true });
  const sessions = path.join(root, "library", "sessions");
  console.error(`bench-desktop: generating ${LIBRARY_SESSIONS} sessions and a ${BIG_ROUNDS}- and a ${SMALL_ROUNDS}-round session under ${root}`);
  execFileSync(GEN, ["library", String(LIBRARY_SESSIONS), sessions, String(SEED)], { stdio: ["ignore", "ignore", "inherit"] });
  const made = {};
  for (const [name, rounds, seed] of [["big", BIG_ROUNDS, SEED + 1], ["small", SMALL_ROUNDS, SEED + 2]]) {
    const session = generateSession(path.join(root, `gen-${name}`), rounds, seed);
    const target = path.join(sessions, path.basename(session.file));
    fs.renameSync(session.file, target);
    made[name] = { ...session, file: target };
  }
  fs.writeFileSync(ready, JSON.stringify(made));
  return { root, ...made };
}

/** A copy of the generated library as a data folder (hard links: the app only appends). */
function libraryHome(data, into) {
  const home = path.join(into, "home");
  fs.mkdirSync(path.join(home, "sessions"), { recursive: true });
  const from = path.join(data.root, "library", "sessions");
  for (const file of fs.readdirSync(from)) fs.copyFileSync(path.join(from, file), path.join(home, "sessions", file));
  return home;
}

// ---- the app under WebDriver ---------------------------------------------

class Driver {
  static async start(root) {
    const d = new Driver();
    d.port = await freePort();
    const nativePort = await freePort();
    const log = fs.openSync(path.join(root, "tauri-driver.log"), "a");
    const bin = process.env.TAURI_DRIVER || "tauri-driver";
    d.process = spawn(bin, ["--port", String(d.port), "--native-port", String(nativePort), "--native-driver", WEBKIT_DRIVER], {
      stdio: ["ignore", log, log],
      detached: true,
    });
    await eventually("tauri-driver to listen", () =>
      new Promise((resolve) => {
        const socket = net.connect(d.port, "127.0.0.1", () => {
          socket.end();
          resolve(true);
        });
        socket.on("error", () => resolve(false));
      }),
    );
    return d;
  }

  stop() {
    try {
      process.kill(-this.process.pid, "SIGTERM");
    } catch {
      // gone
    }
  }
}

/**
 * A launcher that records the wall clock (ns) and its pid just before it
 * execs `binary` with `env`: what "spawn" means below.
 */
function launcher(dir, binary, env) {
  const script = path.join(dir, `launch-${path.basename(binary)}.sh`);
  const assignments = Object.entries(env).map(([k, v]) => `${k}='${v}'`).join(" ");
  fs.writeFileSync(
    script,
    `#!/bin/sh\necho $$ > '${dir}/pid'\ndate +%s%N > '${dir}/spawned'\nexec env ${assignments} '${binary}' "$@"\n`,
    { mode: 0o755 },
  );
  return script;
}

const spawnedAt = (dir) => Number(fs.readFileSync(path.join(dir, "spawned"), "utf8").trim()) / 1e6;
const pidOf = (dir) => Number(fs.readFileSync(path.join(dir, "pid"), "utf8").trim());

async function openWindow(driver, dir, binary, env, options = {}) {
  const wd = new WebDriver(`http://127.0.0.1:${driver.port}`);
  const application = launcher(dir, binary, env);
  const capabilities = options.minibrowser
    ? { browserName: "MiniBrowser", "webkitgtk:browserOptions": { binary: application, args: ["--automation"] } }
    : { "tauri:options": { application } };
  const value = await wd.request("POST", "/session", { capabilities: { alwaysMatch: capabilities } });
  const sessionUp = Date.now();
  wd.sessionId = value.sessionId;
  // Building the index of a new library takes longer than the default 30 s.
  await wd.request("POST", wd.s("/timeouts"), { script: 600_000 });
  return { wd, sessionUp, pid: pidOf(dir), spawned: spawnedAt(dir) };
}

async function closeWindow(win) {
  try {
    await win.wd.deleteSession();
  } catch {
    // already gone
  }
  await eventually("the app to exit", () => !fs.existsSync(`/proc/${win.pid}`), 20_000).catch(() => {
    for (const pid of tree(win.pid).reverse()) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  });
}

/**
 * Polls `check` (a function, its source put into the script: the page's CSP
 * refuses eval) every animation frame; resolves with performance.now() at
 * the frame after the one where it held.
 */
async function untilFrame(wd, check, timeout = 60_000) {
  // In slices: the WebDriver client gives up on a request after 60 s.
  const end = Date.now() + timeout;
  for (;;) {
    const slice = Math.min(20_000, end - Date.now());
    let result;
    try {
      result = await untilFrameOnce(wd, check, slice);
    } catch (error) {
      // A page too busy to answer within the client's 60 s: poll again.
      if (error.name !== "TimeoutError" || Date.now() >= end) throw error;
      continue;
    }
    if (!result.error) return result;
    if (Date.now() >= end) throw new Error(`page condition timed out: ${check}`);
  }
}

async function untilFrameOnce(wd, check, timeout) {
  return wd.executeAsync(
    `const [timeout, done] = arguments;
     const test = ${check.toString()};
     const start = performance.now();
     const already = !!test();
     const loop = () => {
       if (test()) requestAnimationFrame(() => done({ at: performance.now(), already }));
       else if (performance.now() - start > timeout) done({ error: "timeout" });
       else requestAnimationFrame(loop);
     };
     loop();`,
    timeout,
  );
}

async function pageTimes(wd) {
  return wd.execute(`
    const paint = performance.getEntriesByType("paint");
    const nav = performance.getEntriesByType("navigation")[0];
    return {
      timeOrigin: performance.timeOrigin,
      fcp: paint.find((e) => e.name === "first-contentful-paint")?.startTime ?? null,
      firstPaint: paint.find((e) => e.name === "first-paint")?.startTime ?? null,
      domContentLoaded: nav ? nav.domContentLoadedEventEnd : null,
      scripts: performance.getEntriesByType("resource").filter((e) => e.initiatorType === "script").map((e) => ({ name: e.name.split("/").pop(), bytes: e.decodedBodySize, ms: e.duration })),
    };`);
}

// ---- the figures -----------------------------------------------------------

async function baselineTrue() {
  const times = [];
  for (let i = 0; i < RUNS * 2; i++) {
    const start = process.hrtime.bigint();
    await new Promise((resolve) => spawn("/bin/true").on("exit", resolve));
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return summary(times);
}

async function coldStarts(driver, work, homeFor, label) {
  const fcp = [];
  const up = [];
  const profile = [];
  let signal = null;
  let scripts = null;
  for (let i = 0; i < RUNS; i++) {
    const dir = fs.mkdtempSync(path.join(work, "run-"));
    const home = homeFor(dir);
    const win = await openWindow(driver, dir, APP, { STRATA_HOME: home });
    try {
      // The header's model chip: app_info answered and rendered (the first IPC).
      const chip = await untilFrame(win.wd, () => !!document.querySelector(".model-chip .model-name"));
      const t = await pageTimes(win.wd);
      const paint = t.fcp ?? t.firstPaint;
      signal ??= t.fcp != null ? "first-contentful-paint" : t.firstPaint != null ? "first-paint" : null;
      scripts ??= t.scripts;
      if (paint == null) throw new Error("the page recorded no paint timing entry");
      fcp.push(t.timeOrigin + paint - win.spawned);
      up.push(win.sessionUp - win.spawned);
      profile.push(t.timeOrigin + chip.at - win.spawned);
    } finally {
      await closeWindow(win);
    }
  }
  return { label, fcp: summary(fcp), up: summary(up), profile: summary(profile), signal, scripts };
}

async function miniBrowserStarts(driver, work) {
  if (!MINIBROWSER) return null;
  const up = [];
  for (let i = 0; i < RUNS; i++) {
    const dir = fs.mkdtempSync(path.join(work, "mini-"));
    try {
      const win = await openWindow(driver, dir, MINIBROWSER, {}, { minibrowser: true });
      up.push(win.sessionUp - win.spawned);
      await closeWindow(win);
    } catch (error) {
      console.error(`bench-desktop: MiniBrowser baseline skipped: ${error.message}`);
      return null;
    }
  }
  return summary(up);
}

/** Opens `session` through its sidebar row's Resume; ms from the click to the frame after it is usable. */
async function openSession(wd, session) {
  const result = await wd.executeAsync(
    `const [index, title, last, done] = arguments;
     const norm = (s) => (s || "").replace(/\\s+/g, " ").trim();
     const row = document.querySelectorAll("nav[aria-label=Sessions] ul.session-list > li")[index];
     if (!row || norm(row.querySelector(".session-title")?.textContent) !== title) return done({ error: "no sidebar row " + index + " titled " + title });
     // The conversation open now, if any: the one that opens is a new element.
     document.querySelector("[role=log]")?.setAttribute("data-bench-old", "");
     row.querySelector("button[aria-haspopup=menu]").click();
     requestAnimationFrame(() => {
       const resume = Array.from(row.querySelectorAll("[role=menuitem]")).find((b) => norm(b.textContent) === "Resume");
       if (!resume) return done({ error: "no Resume item" });
       const t0 = performance.now();
       resume.click();
       const usable = () => {
         const h1 = document.querySelector(".conversation-title h1");
         const input = document.getElementById("composer-input");
         const list = document.querySelector("[role=log]");
         return h1 && norm(h1.textContent) === title && input && !input.disabled && list && !list.hasAttribute("data-bench-old") && list.querySelector('.message-row[data-index="' + last + '"]');
       };
       const loop = () => {
         if (usable()) requestAnimationFrame(() => done({ ms: performance.now() - t0 }));
         else if (performance.now() - t0 > 60000) done({ error: "not usable after 60 s" });
         else requestAnimationFrame(loop);
       };
       loop();
     });`,
    session.index,
    session.title,
    session.pageLength - 1,
  );
  if (result.error) throw new Error(result.error);
  return result.ms;
}

async function sessionFacts(wd, session) {
  return wd.executeAsync(
    `const [id, limit, done] = arguments;
     const invoke = window.__TAURI_INTERNALS__.invoke;
     Promise.all([invoke("list_sessions", {}), invoke("open_transcript", { session_id: id, limit })])
       .then(([list, page]) => {
         const index = list.sessions.findIndex((s) => s.id === id);
         if (index < 0) return done({ error: "session " + id + " is not listed" });
         const title = ((list.sessions[index].title || "").trim() || "Untitled session").replace(/\\s+/g, " ");
         done({ index, title, pageLength: page.entries.length, total: page.total });
       }, (e) => done({ error: String(e && e.message || e) }));`,
    session.id,
    TRANSCRIPT_PAGE,
  );
}

async function libraryRuns(driver, work, data) {
  const pss = [];
  const rss = [];
  const listed = [];
  const big = [];
  const small = [];
  const afterBig = [];
  let processes = null;
  let firstListing = null;
  for (let i = 0; i < Math.max(3, Math.ceil(RUNS / 2)); i++) {
    const dir = fs.mkdtempSync(path.join(work, "lib-"));
    const home = i === 0 ? libraryHome(data, dir) : (firstListing.home ?? libraryHome(data, dir));
    const win = await openWindow(driver, dir, APP, { STRATA_HOME: home });
    try {
      const shown = await untilFrame(win.wd, () => document.querySelectorAll("nav[aria-label=Sessions] .session-open").length > 10, 300_000);
      const t = await win.wd.execute("return performance.timeOrigin");
      const sinceSpawn = t + shown.at - win.spawned;
      if (i === 0) firstListing = { ms: sinceSpawn, home };
      else listed.push(sinceSpawn);
      await sleep(5_000);
      const samples = [];
      for (let s = 0; s < 3; s++) {
        samples.push(treeMemory(win.pid));
        await sleep(1_000);
      }
      const last = samples[samples.length - 1];
      pss.push(last.pss);
      rss.push(last.rss);
      processes ??= last.processes;

      const facts = {};
      for (const name of ["big", "small"]) {
        const f = await sessionFacts(win.wd, data[name]);
        if (f.error) throw new Error(f.error);
        facts[name] = { ...data[name], ...f };
      }
      for (let k = 0; k < 3; k++) {
        small.push(await openSession(win.wd, facts.small));
        big.push(await openSession(win.wd, facts.big));
      }
      await sleep(2_000);
      afterBig.push(treeMemory(win.pid).pss);
      data.facts = facts;
    } finally {
      await closeWindow(win);
    }
  }
  return { pss: summary(pss), rss: summary(rss), listed: summary(listed), firstListing, big: summary(big), small: summary(small), afterBig: summary(afterBig), processes };
}

async function streamingRun(driver, work) {
  const dir = fs.mkdtempSync(path.join(work, "stream-"));
  const home = path.join(dir, "home");
  const workspace = path.join(dir, "workspace");
  fs.mkdirSync(path.join(home, "config"), { recursive: true });
  fs.mkdirSync(workspace, { recursive: true });
  const key = "sk-bench-not-a-real-key";
  const mock = await new MockProvider({ apiKey: key }).start();
  fs.writeFileSync(path.join(home, "config", "bench-key.txt"), `${key}\n`, { mode: 0o600 });
  fs.writeFileSync(
    path.join(home, "config", "config.toml"),
    [
      'default_profile = "stream"',
      'key_store = "file"',
      "",
      "[profiles.stream]",
      'kind = "openai-responses"',
      'model = "bench-stream"',
      `base_url = "${mock.baseUrl}"`,
      'api_key = { file = "bench-key.txt" }',
      "context_window = 1000000",
      "compaction_threshold = 900000",
      "",
    ].join("\n"),
  );
  const win = await openWindow(driver, dir, APP, { STRATA_HOME: home });
  try {
    await untilFrame(win.wd, () => !!document.querySelector(".model-chip .model-name"));
    // A session in the workspace, made through the app's own command; the
    // library watcher brings its row into the sidebar.
    const created = await win.wd.executeAsync(
      `const [workspace, done] = arguments;
       window.__TAURI_INTERNALS__.invoke("create_session", { workspace, allow_broad_workspace: false }).then((s) => done(s), (e) => done({ error: String(e && e.message || e) }));`,
      workspace,
    );
    if (created.error) throw new Error(created.error);
    await untilFrame(win.wd, () => document.querySelectorAll("nav[aria-label=Sessions] .session-open").length > 0);
    await win.wd.executeAsync(
      `const done = arguments[0];
       const row = document.querySelector("nav[aria-label=Sessions] ul.session-list > li");
       row.querySelector("button[aria-haspopup=menu]").click();
       requestAnimationFrame(() => { Array.from(row.querySelectorAll("[role=menuitem]")).find((b) => b.textContent.trim() === "Resume").click(); done(); });`,
    );
    await untilFrame(win.wd, () => {
      const input = document.getElementById("composer-input");
      return input && !input.disabled;
    });
    const collect = `
      window.__benchFrames = [];
      window.__benchCollect = true;
      let last = performance.now();
      const tick = (now) => { window.__benchFrames.push(now - last); last = now; if (window.__benchCollect) requestAnimationFrame(tick); };
      requestAnimationFrame((now) => { last = now; requestAnimationFrame(tick); });`;
    const stop = `window.__benchCollect = false; return window.__benchFrames;`;
    // The same window, idle, for as long as the stream lasts.
    await win.wd.execute(collect);
    await sleep(STREAM_SECONDS * 1000);
    const idle = await win.wd.execute(stop);

    const [input] = await win.wd.findAll("#composer-input");
    await win.wd.sendKeys(input, "Stream a long answer");
    await win.wd.execute(collect);
    await win.wd.sendKeys(input, Keys.ENTER);
    const request = await mock.nextRequest({ timeout: 30_000, what: "the streamed turn" });
    const stream = request.openStream();
    const words = ["stream", "delta", "frame", "paint", "token", "render", "layout"];
    const total = DELTAS_PER_SECOND * STREAM_SECONDS;
    const batch = 10;
    const started = process.hrtime.bigint();
    for (let sent = 0; sent < total; sent += batch) {
      for (let k = 0; k < batch; k++) {
        const n = sent + k;
        stream.delta(n % 80 === 79 ? `${words[n % words.length]}.\n\n` : `${words[n % words.length]} `);
      }
      const due = Number(started) / 1e6 + ((sent + batch) * 1000) / DELTAS_PER_SECOND;
      const wait = due - Number(process.hrtime.bigint()) / 1e6;
      if (wait > 0) await sleep(wait);
    }
    const streamedMs = Number(process.hrtime.bigint() - started) / 1e6;
    stream.complete(usage({ input: 100, output: total }));
    // The window may fall behind the stream: frames are collected until it
    // shows the finished turn, or for a minute at most.
    const shown = Date.now();
    const settled = await untilFrame(win.wd, () => /Ready/.test(document.querySelector("footer [role=status]")?.textContent ?? ""), 60_000).then(
      () => true,
      () => false,
    );
    const settledMs = settled ? Date.now() - shown : null;
    // The page answers once it has caught up; give it a few tries.
    let streaming = null;
    for (let attempt = 0; attempt < 4 && streaming === null; attempt++) {
      streaming = await win.wd.execute(stop).catch((error) => {
        if (error.name !== "TimeoutError") throw error;
        return null;
      });
    }
    if (streaming === null) throw new Error("the page did not answer for 4 minutes after the stream");
    await mock.stop?.();
    return { idle, streaming, streamedMs, settledMs, deltas: total };
  } finally {
    await closeWindow(win);
  }
}

// ---- main ----------------------------------------------------------------------

async function main() {
  if (!process.env.DISPLAY) throw new Error("no DISPLAY (scripts/bench-desktop.sh starts an Xvfb)");
  const started = new Date();
  const loadBefore = loadAverage();
  const data = PHASES.has("library") ? await prepareData() : null;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "strata-bench-desktop-"));
  const driver = await Driver.start(work);
  const loads = [];
  try {
    const start = PHASES.has("start");
    const trueRuns = start ? await baselineTrue() : null;
    loads.push(loadAverage());
    const mini = start ? await miniBrowserStarts(driver, work) : null;
    const empty = start ? await coldStarts(driver, work, (dir) => path.join(dir, "home"), "empty data folder") : null;
    loads.push(loadAverage());
    const library = data ? await libraryRuns(driver, work, data) : null;
    loads.push(loadAverage());

    if (empty) {
      row("cold start → first paint (FCP), empty data folder", empty.fcp, ms, "< 2 s", empty.fcp.median < 2000 ? "yes" : "**no**", `signal: ${empty.signal}`);
      row("cold start → header shows the profile (first IPC answered)", empty.profile, ms, "–", "–", "polled each frame after the WebDriver session is up: an upper bound");
      row("cold start → WebDriver session up, the app", empty.up, ms);
      if (mini) row("baseline: cold start → WebDriver session up, MiniBrowser (bare WebKit window)", mini, ms);
      row("baseline: spawn /bin/true until it exits", trueRuns, ms);
    }
    if (library) {
      row("first launch on the unindexed library → sidebar listed", summary([library.firstListing.ms]), ms, "–", "–", "builds the index of 1,002 sessions");
      row("launch on the indexed library → sidebar listed", library.listed, ms);
      row("idle memory, PSS of the process tree, 1,002 sessions listed", library.pss, mb, "< 250 MB", library.pss.median < 250 * 1024 ? "yes" : "**no**");
      row("idle memory, RSS sum of the same tree (pages shared counted twice)", library.rss, mb);
      row("PSS after opening the 5,000-round session", library.afterBig, mb);
      row(`open a ${data.big.rounds}-round session → newest page rendered, composer enabled`, library.big, ms, "< 500 ms", library.big.median < 500 ? "yes" : "**no**", `${(data.big.bytes / 1e6).toFixed(1)} MB, ${data.big.records} records`);
      row(`baseline: open a ${data.small.rounds}-round session, same run`, library.small, ms, "–", "–", `${(data.small.bytes / 1e6).toFixed(1)} MB; ratio ${(library.big.median / library.small.median).toFixed(2)}×`);
    }

    console.log("");
    console.log(`Desktop figures (${process.env.STRATA_BENCH_PROFILE || `binary ${APP}`}), ${started.toISOString()}; ${os.cpus().length} CPUs, ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, Linux ${os.release()}`);
    console.log(`load average (1, 5, 15 min): before ${loadBefore}; after each phase: ${loads.join(" | ")}`);
    console.log("");
    console.log("| measure | median (min–max, n) | target | met | note |");
    console.log("|---|---|---|---|---|");
    for (const r of rows) console.log(`| ${r.measure} | ${r.value} | ${r.target} | ${r.met} | ${r.note} |`);
    console.log("");
    console.log("Processes of the app's tree (PSS, first idle sample):");
    for (const p of library?.processes ?? []) console.log(`  ${p.comm.padEnd(24)} ${mb(p.pss).padStart(10)}  (RSS ${mb(p.rss)})`);
    console.log("Scripts the page loaded:");
    for (const sc of empty?.scripts ?? []) console.log(`  ${sc.name} ${(sc.bytes / 1024).toFixed(0)} KB, ${ms(sc.ms)}`);
    console.log("");
    if (!PHASES.has("stream")) return;
    const stream = await streamingRun(driver, work);
    console.log(`load average after streaming: ${loadAverage()}`);
    const s = frameStats(stream.streaming);
    const i = frameStats(stream.idle);
    console.log(`Frame intervals (requestAnimationFrame), ${stream.deltas} deltas streamed in ${(stream.streamedMs / 1000).toFixed(2)} s (${Math.round(stream.deltas / (stream.streamedMs / 1000))}/s); ${stream.settledMs === null ? "the window had not shown the finished turn 60 s after the last delta (frames counted until then)" : `the footer said Ready ${(stream.settledMs / 1000).toFixed(1)} s after the last delta`}:`);
    console.log("");
    console.log("| window | frames | p50 | p95 | p99 | max | dropped (> 33 ms) |");
    console.log("|---|---|---|---|---|---|---|");
    console.log(`| streaming | ${s.frames} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.max)} | ${s.dropped} (${((100 * s.dropped) / s.frames).toFixed(1)}%) |`);
    console.log(`| idle (baseline) | ${i.frames} | ${ms(i.p50)} | ${ms(i.p95)} | ${ms(i.p99)} | ${ms(i.max)} | ${i.dropped} (${((100 * i.dropped) / i.frames).toFixed(1)}%) |`);
  } finally {
    driver.stop();
    if (!process.env.STRATA_BENCH_KEEP) await fsp.rm(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`bench-desktop: ${error.stack || error}`);
  process.exit(1);
});
