import { describe, expect, it } from "vitest";
import type { SessionView } from "../api/types";
import type { LiveEvent } from "../bindings/LiveEvent";
import { applyLiveEvents, createLiveQueue } from "./live";
import { createActions, createStore, initialState, type AppState } from "./store";
import type { Transcript } from "./transcript";

const SESSION = "0193a1b2-c3d4-7e5f-8a9b-000000000a01";
const view = { summary: { id: SESSION }, records: [], context: [], threshold: 8000, live: true, record_count: 0 } as unknown as SessionView;

// The events and updates Rust's conversion sends for a streamed answer
// (crates/strata-app/src/transcript/fold.rs).
function live(seq: number, event: LiveEvent["envelope"]["event"], updates: LiveEvent["updates"] = []): LiveEvent {
  return { envelope: { v: 1, seq, session_id: SESSION, event }, updates };
}
const started = live(0, { family: "mainline", event: { kind: "turn_started", turn_id: "t1", user_message: { type: "message", id: "u1", role: "user", content: "Hi" } } }, [
  { op: "append", entry: { kind: "user", id: "u1", text: "Hi" } },
]);
const delta = (seq: number) =>
  live(seq, { family: "mainline", event: { kind: "text_delta", turn_id: "t1", round_id: "r1", delta: `w${seq} ` } }, [
    seq === 1
      ? { op: "append", entry: { kind: "assistant", id: "stream:r1", text: `w${seq} `, streaming: true, turn_id: "t1" } }
      : { op: "append_text", id: "stream:r1", delta: `w${seq} ` },
  ]);
const usage = (seq: number) =>
  live(seq, { family: "debug", event: { kind: "usage_reported", turn_id: "t1", round_id: "r1", usage: { input_tokens: 900, output_tokens: 40 }, threshold: 8000 } });
const finished = (seq: number) => live(seq, { family: "mainline", event: { kind: "turn_finished", turn_id: "t1", outcome: "completed", rounds: 1 } });

/** A store whose frames run only when the test says, counting its updates. */
function harness() {
  const store = createStore({ ...initialState, view });
  const frames: (() => void)[] = [];
  const actions = createActions(store, (apply) => frames.push(apply));
  let updates = 0;
  store.subscribe(() => (updates += 1));
  return {
    store,
    actions,
    frames,
    updates: () => updates,
    runFrames: () => frames.splice(0).forEach((apply) => apply()),
  };
}

const oneByOne = (events: LiveEvent[], from: Transcript = initialState.transcript): Transcript =>
  events.reduce((t, event) => applyLiveEvents(t, [event]), from);

describe("live events, applied once per frame", () => {
  it("applies the deltas of one frame in one store update, to the same transcript as one by one", () => {
    const h = harness();
    h.actions.receive(SESSION, [started]);
    expect(h.updates()).toBe(1);
    const deltas = Array.from({ length: 50 }, (_, i) => delta(i + 1));
    for (let i = 0; i < deltas.length; i += 5) h.actions.receive(SESSION, deltas.slice(i, i + 5));
    expect(h.updates()).toBe(1);
    expect(h.frames).toHaveLength(1);
    h.runFrames();
    expect(h.updates()).toBe(2);
    const expected = oneByOne([started, ...deltas], { ...initialState.transcript });
    expect(h.store.get().transcript).toEqual(expected);
    expect(h.store.get().transcript.entries[1]).toMatchObject({ kind: "assistant", text: deltas.map((_, i) => `w${i + 1} `).join("") });
  });

  it("applies an event that may not wait at once, with the deltas queued before it", () => {
    const h = harness();
    h.actions.receive(SESSION, [started, delta(1), delta(2)]);
    expect(h.updates()).toBe(1);
    h.actions.receive(SESSION, [delta(3)]);
    expect(h.updates()).toBe(1);
    h.actions.receive(SESSION, [usage(4), delta(5)]);
    h.actions.receive(SESSION, [finished(6)]);
    expect(h.updates()).toBe(3);
    const { transcript } = h.store.get();
    expect(transcript).toEqual(oneByOne([started, delta(1), delta(2), delta(3), usage(4), delta(5), finished(6)]));
    expect([transcript.runningTurn, transcript.lastSeq, transcript.context_tokens]).toEqual([null, 6, 940]);
    // The frame asked for meanwhile finds nothing left.
    h.runFrames();
    expect(h.updates()).toBe(3);
  });

  it("drops a repeated event and a queued event of a session no longer open", () => {
    const h = harness();
    h.actions.receive(SESSION, [started, started, delta(1)]);
    h.actions.receive(SESSION, [delta(1)]);
    h.runFrames();
    expect(h.store.get().transcript.entries.map((e) => e.id)).toEqual(["u1", "stream:r1"]);
    h.actions.receive(SESSION, [delta(2)]);
    h.actions.close();
    const closed: AppState = h.store.get();
    h.runFrames();
    expect(h.store.get()).toBe(closed);
  });

  it("hands each session's events on in arrival order", () => {
    const applied: [string, number[]][] = [];
    const frames: (() => void)[] = [];
    const queue = createLiveQueue(
      (sessionId, events) => applied.push([sessionId, events.map((e) => e.envelope.seq)]),
      (apply) => frames.push(apply),
    );
    queue.push("a", [delta(1), delta(2)]);
    queue.push("a", [delta(3)]);
    queue.push("b", [delta(1)]);
    expect(applied).toEqual([]);
    expect(frames).toHaveLength(1);
    frames[0]!();
    expect(applied).toEqual([
      ["a", [1, 2, 3]],
      ["b", [1]],
    ]);
  });
});
