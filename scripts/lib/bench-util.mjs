// Helpers of scripts/bench-desktop.mjs: waiting, statistics, the table's
// rows, and the memory of a process tree (PSS from /proc).

import fs from "node:fs";
import net from "node:net";
import os from "node:os";

export function firstExisting(paths) {
  return paths.find((p) => fs.existsSync(p)) ?? null;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function eventually(what, check, timeout = 60_000, interval = 50) {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(interval);
  }
}

// ---- statistics and the table ------------------------------------------

export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

export function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, median: quantile(sorted, 0.5), min: sorted[0], max: sorted[sorted.length - 1], sorted };
}

export const ms = (v) => (v >= 100 ? `${Math.round(v)} ms` : `${v.toFixed(1)} ms`);
export const mb = (kb) => `${(kb / 1024).toFixed(1)} MB`;
export const rows = [];
export function row(measure, stats, format, target = "–", met = "–", note = "") {
  rows.push({ measure, value: `${format(stats.median)} (${format(stats.min)}–${format(stats.max)}, n=${stats.n})`, target, met, note });
}

// ---- processes -----------------------------------------------------------

export function children() {
  const byParent = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!byParent.has(ppid)) byParent.set(ppid, []);
      byParent.get(ppid).push(Number(entry));
    } catch {
      // gone
    }
  }
  return byParent;
}

/** `pid` and every process under it. */
export function tree(pid) {
  const byParent = children();
  const found = [];
  const walk = (p) => {
    found.push(p);
    for (const child of byParent.get(p) ?? []) walk(child);
  };
  walk(pid);
  return found;
}

export function rollup(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
    const comm = fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    return { pid, comm, pss: field("Pss"), rss: field("Rss") };
  } catch {
    return null;
  }
}

/** PSS and RSS (kB) of the process tree under `pid`, and each process. */
export function treeMemory(pid) {
  const processes = tree(pid).map(rollup).filter(Boolean);
  return {
    pss: processes.reduce((sum, p) => sum + p.pss, 0),
    rss: processes.reduce((sum, p) => sum + p.rss, 0),
    processes,
  };
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

export function loadAverage() {
  return os.loadavg().map((v) => v.toFixed(2)).join(", ");
}

// ---- data ------------------------------------------------------------------

/** Records of `type` in a session file (counted on the raw lines). */
export function countType(file, type) {
  const needle = `"type":"${type}"`;
  let n = 0;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) if (line.includes(needle)) n++;
  return n;
}

/**
 * One generated session of at least `rounds` rounds (strata-gen writes
 * records; the record count is scaled until the rounds are there), its
 * timestamps moved a year on so it is the newest in the library's sidebar.
 */

export function frameStats(intervals) {
  const s = summary(intervals);
  return {
    frames: intervals.length,
    p50: quantile(s.sorted, 0.5),
    p95: quantile(s.sorted, 0.95),
    p99: quantile(s.sorted, 0.99),
    max: s.max,
    dropped: intervals.filter((v) => v > 33.4).length,
  };
}
