// A turn's live events, applied to the transcript at most once per animation
// frame. A model streams thousands of text deltas a second; applying each
// on its own would update the store, and render, thousands of times a
// second. Deltas wait in a queue for the next frame; any other event (a
// tool call, an approval request, the turn's end, an error) is applied at
// once with everything queued before it, so nothing the person must act on
// waits.
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

/** Whether an event may wait for the next frame: streamed text only. */
export function mayWait({ envelope: { event } }: LiveEvent): boolean {
  return event.family === "mainline" && event.event.kind === "text_delta";
}

/** Runs `apply` at the next frame; see `nextFrame`. */
export type FrameScheduler = (apply: () => void) => void;

/**
 * The next animation frame; or, in a window that gets none (hidden, minimised), a timer, so the
 * text still arrives.
 */
export const nextFrame: FrameScheduler = (apply) => {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    apply();
  };
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(once);
  setTimeout(once, 100);
};

/** Live events waiting for the next frame, per session. */
export interface LiveQueue {
  /** Queues a batch of `sessionId`'s events; applies the queue now when one of them may not wait. */
  push(sessionId: string, events: readonly LiveEvent[]): void;
  /** Applies everything queued now. */
  flush(): void;
}

/**
 * A queue handing its events to `apply` (one call per session in it, in arrival order) at the
 * next frame, or at once for an event that may not wait.
 */
export function createLiveQueue(apply: (sessionId: string, events: LiveEvent[]) => void, schedule: FrameScheduler = nextFrame): LiveQueue {
  let queued: { sessionId: string; events: LiveEvent[] }[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const ready = queued;
    queued = [];
    for (const { sessionId, events } of ready) apply(sessionId, events);
  };
  return {
    push(sessionId, events) {
      if (events.length === 0) return;
      const last = queued[queued.length - 1];
      if (last?.sessionId === sessionId) last.events.push(...events);
      else queued.push({ sessionId, events: [...events] });
      if (!events.every(mayWait)) flush();
      else if (!scheduled) {
        scheduled = true;
        schedule(() => {
          if (scheduled) flush();
        });
      }
    },
    flush,
  };
}
