// The open session's transcript as the UI holds it: the entries Rust made
// (`open_transcript` pages and the updates of a turn's live events), never
// folded here. Everything in this file is pure.
import type { EventEnvelope, TokenUsage } from "../api/types";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { Plan } from "../bindings/Plan";
import type { ToolEntry } from "../bindings/ToolEntry";
import type { TranscriptEntry } from "../bindings/TranscriptEntry";
import type { TranscriptUpdate } from "../bindings/TranscriptUpdate";

export type Entry = TranscriptEntry;
export type ToolCard = Extract<Entry, { kind: "tool" }>;
export type { ToolEntry };

/** A tool output fetched whole when its card was expanded. */
export type FullOutput = { state: "loading" } | { state: "loaded"; text: string } | { state: "failed"; message: string };

export interface Transcript {
  entries: Entry[];
  /** The cursor of the next older page, when there is one. */
  older: string | null;
  /** The entry a search hit opened the session at: scrolled to and marked. */
  target: string | null;
  loadingOlder: boolean;
  /** Whole tool outputs by call id, fetched when their card was expanded. */
  outputs: Record<string, FullOutput>;
  /** The turn running now, if any. */
  runningTurn: string | null;
  /** The last reported usage and its context tokens (input + output). */
  last_usage: TokenUsage | null;
  context_tokens: number | null;
  threshold: number | null;
  /** The last sequence number received, to drop duplicates. */
  lastSeq: number;
  /** Debug events of the live stream, for the debug console. */
  debugEvents: EventEnvelope[];
  /** The plan of the whole transcript when its newest page was read (`TranscriptPage.plan`). */
  pagePlan: Plan | null;
}

export const emptyTranscript: Transcript = {
  entries: [],
  older: null,
  target: null,
  loadingOlder: false,
  outputs: {},
  runningTurn: null,
  last_usage: null,
  context_tokens: null,
  threshold: null,
  lastSeq: -1,
  debugEvents: [],
  pagePlan: null,
};

/**
 * The plan the panel shows: the newest card that carries one (Rust gives a plan only to an
 * `update_plan` call that set it), else the page's, which was the newest when it was read.
 */
export function currentPlan(t: Pick<Transcript, "entries" | "pagePlan">): Plan | null {
  for (let i = t.entries.length - 1; i >= 0; i--) {
    const entry = t.entries[i];
    if (entry?.kind === "tool" && entry.plan) return entry.plan;
  }
  return t.pagePlan;
}

/** `TokenUsage.context_tokens()` of the Rust side: input plus output. */
export function contextTokensOf(usage: TokenUsage): number | null {
  const input = usage.input_tokens ?? null;
  const output = usage.output_tokens ?? null;
  if (input === null && output === null) return null;
  return (input ?? 0) + (output ?? 0);
}

/** The DOM id of a compaction's divider, for links from the debug console. */
export function compactionAnchor(summaryId: string): string {
  return `compaction-${summaryId}`;
}

function indexOf(entries: Entry[], id: string): number {
  for (let i = entries.length - 1; i >= 0; i -= 1) if (entries[i]?.id === id) return i;
  return -1;
}

/** Applies the updates Rust made of one live event; the entries are not changed in place. */
export function applyUpdates(entries: Entry[], updates: TranscriptUpdate[]): Entry[] {
  if (updates.length === 0) return entries;
  const next = entries.slice();
  for (const update of updates) {
    switch (update.op) {
      case "append": {
        const at = indexOf(next, update.entry.id);
        if (at === -1) next.push(update.entry);
        else next[at] = update.entry;
        break;
      }
      case "replace": {
        const at = indexOf(next, update.id);
        if (at === -1) next.push(update.entry);
        else next[at] = update.entry;
        break;
      }
      case "insert": {
        const at = indexOf(next, update.entry.id);
        if (at !== -1) next.splice(at, 1);
        const before = indexOf(next, update.before);
        if (before === -1) next.push(update.entry);
        else next.splice(before, 0, update.entry);
        break;
      }
      case "remove": {
        const at = indexOf(next, update.id);
        if (at !== -1) next.splice(at, 1);
        break;
      }
      case "append_text": {
        const at = indexOf(next, update.id);
        const entry = next[at];
        if (entry?.kind === "assistant" || entry?.kind === "thinking") next[at] = { ...entry, text: entry.text + update.delta };
        break;
      }
    }
  }
  return next;
}

/** An older page joined in front; entries already shown are kept as they are. */
export function prependPage(entries: Entry[], older: Entry[]): Entry[] {
  const shown = new Set(entries.map((e) => e.id));
  return [...older.filter((e) => !shown.has(e.id)), ...entries];
}

/** The last user message, for "edit and resend" and "retry". */
export function lastUserMessage(transcript: Transcript): string | null {
  for (let i = transcript.entries.length - 1; i >= 0; i -= 1) {
    const entry = transcript.entries[i];
    if (entry?.kind === "user") return entry.text;
  }
  return null;
}

/** Tool calls waiting for the person. */
export function pendingApprovals(transcript: Transcript): ToolCard[] {
  return transcript.entries.filter((e): e is ToolCard => e.kind === "tool" && e.status === "awaiting_approval");
}

/** Whether a card's output is longer than the preview it carries. */
export function outputTruncated(tool: ToolEntry): boolean {
  return tool.output !== undefined && [...tool.output.preview].length < tool.output.chars;
}

/** The item a pin names for an entry: a message's own id, a tool card's output (none before it is recorded). */
export function pinTarget(entry: Entry): string | null {
  switch (entry.kind) {
    case "user":
      return entry.id;
    case "assistant":
      return entry.streaming || entry.unsaved ? null : entry.id;
    case "tool":
      return entry.item_id ?? null;
    default:
      return null;
  }
}

/** The entries with the one showing `itemId` marked pinned or not. */
export function setPinned(entries: Entry[], itemId: string, pinned: boolean): Entry[] {
  return entries.map((entry) => (pinTarget(entry) === itemId ? { ...entry, pinned } : entry));
}

/**
 * The entries the model no longer sees: every message and tool card above the latest compaction's
 * divider, but pinned ones (kept verbatim), each mapped to that compaction's summary id. The newest
 * page is always loaded, so the latest divider, when loaded, is the session's latest.
 */
export function outOfContext(entries: Entry[]): Map<string, string> {
  const cut = new Map<string, string>();
  let at = entries.length - 1;
  // An undone compaction put the history before it back in the model's context.
  const inForce = (entry: Entry | undefined) => entry?.kind === "compaction" && !entry.undone;
  while (at >= 0 && !inForce(entries[at])) at -= 1;
  const divider = entries[at];
  if (divider?.kind !== "compaction") return cut;
  for (const entry of entries.slice(0, at)) {
    if ((entry.kind === "user" || entry.kind === "assistant" || entry.kind === "tool") && !entry.pinned) cut.set(entry.id, divider.summary.id);
  }
  return cut;
}

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const NAMED_ID = new RegExp(`\\b(item|session|summary|compaction)\\s+${UUID}\\b`, "gi");
const BARE_ID = new RegExp(`\\b(?:item_[A-Za-z0-9]{6,}|${UUID})\\b`, "gi");

/**
 * A message for a person, with raw ids (UUIDs, `item_…`) said in words: "item <id>" as "this
 * item", "session <id>" as "this session", any other as "this item". Every toast goes through it
 * (a command's error is Rust's wording, which names ids for the command line).
 */
export function withoutIds(text: string): string {
  return text.replace(NAMED_ID, (_match, noun: string) => `this ${noun.toLowerCase()}`).replace(BARE_ID, "this item");
}

// A turn's live events applied to the transcript. Rust sends streamed text gathered into batches of
// about a frame (strata-app's `LiveBatcher`), so each batch is applied as it arrives, with no
// second queue here.
/**
 * Applies live events in order, each at most once (by sequence number): the
 * same transcript as applying them one by one, made with one copy of the entries.
 */
export function applyLiveEvents(t: Transcript, events: readonly LiveEvent[]): Transcript {
  let lastSeq = t.lastSeq;
  const updates: TranscriptUpdate[] = [];
  const debug: EventEnvelope[] = [];
  const next: Partial<Transcript> = {};
  for (const { envelope, updates: made } of events) {
    if (envelope.seq <= lastSeq) continue;
    lastSeq = envelope.seq;
    updates.push(...made);
    const { event } = envelope;
    if (event.family === "mainline") {
      if (event.event.kind === "turn_started") next.runningTurn = event.event.turn_id;
      if (event.event.kind === "turn_finished") next.runningTurn = null;
    } else {
      debug.push(envelope);
      if (event.event.kind === "usage_reported") {
        next.last_usage = event.event.usage;
        next.context_tokens = event.event.context_tokens ?? contextTokensOf(event.event.usage);
        next.threshold = event.event.threshold;
      }
    }
  }
  if (lastSeq === t.lastSeq) return t;
  return {
    ...t,
    ...next,
    lastSeq,
    entries: applyUpdates(t.entries, updates),
    debugEvents: debug.length > 0 ? [...t.debugEvents, ...debug] : t.debugEvents,
  };
}
