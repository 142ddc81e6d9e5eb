// A turn's live events applied to the transcript. Rust sends streamed text
// gathered into batches of about a frame (strata-app's `LiveBatcher`), so
// each batch is applied as it arrives, with no second queue here.
import type { EventEnvelope } from "../api/types";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { TranscriptUpdate } from "../bindings/TranscriptUpdate";
import { applyUpdates, contextTokensOf, type Transcript } from "./transcript";

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
