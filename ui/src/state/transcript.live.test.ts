import { describe, expect, it } from "vitest";
import type { SessionView } from "../api/types";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { ConsoleView } from "../bindings/ConsoleView";
import { createActions, createStore, initialState, type AppState } from "./store";
import { applyLiveEvents, type Transcript } from "./transcript";

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

/** A store counting its updates. */
function harness(console: AppState["console"] = initialState.console) {
  const store = createStore({ ...initialState, view, console });
  const actions = createActions(store);
  let updates = 0;
  store.subscribe(() => (updates += 1));
  return { store, actions, updates: () => updates };
}

const oneByOne = (events: LiveEvent[], from: Transcript = initialState.transcript): Transcript =>
  events.reduce((t, event) => applyLiveEvents(t, [event]), from);

describe("live events, applied as Rust batched them", () => {
  it("applies each batch in one store update, to the same transcript as one event at a time", () => {
    const h = harness();
    h.actions.receive(SESSION, [started]);
    expect(h.updates()).toBe(1);
    const deltas = Array.from({ length: 50 }, (_, i) => delta(i + 1));
    for (let i = 0; i < deltas.length; i += 5) h.actions.receive(SESSION, deltas.slice(i, i + 5));
    // One update per batch Rust sent: no second queue holds text back.
    expect(h.updates()).toBe(11);
    h.actions.receive(SESSION, [usage(51), finished(52)]);
    const expected = oneByOne([started, ...deltas, usage(51), finished(52)], { ...initialState.transcript });
    expect(h.store.get().transcript).toEqual(expected);
    expect([h.store.get().transcript.runningTurn, h.store.get().transcript.context_tokens]).toEqual([null, 940]);
  });

  it("drops a repeated event and the events of a session no longer open", () => {
    const h = harness();
    h.actions.receive(SESSION, [started, started, delta(1)]);
    h.actions.receive(SESSION, [delta(1)]);
    expect(h.store.get().transcript.entries.map((e) => e.id)).toEqual(["u1", "stream:r1"]);
    h.actions.close();
    const closed: AppState = h.store.get();
    h.actions.receive(SESSION, [delta(2)]);
    expect(h.store.get()).toBe(closed);
  });

  it("applies the console updates the events carry to the console the store holds", () => {
    const held: ConsoleView = {
      v: 1,
      session_id: SESSION,
      records: 4,
      rows: [],
      rows_total: 4,
      chart: [],
      markers: [],
      steps: [],
      model_view: [],
      gauge: { tokens: 100, estimated: false, threshold: 8000, policy: "layered", cost: { unpriced_rounds: 0, turns: [], steps: [] } },
      undo: { kind: "refused", reason: "Nothing to undo: the session has no compaction." },
    };
    const h = harness({ sessionId: SESSION, view: held, loading: false, loadingOlder: false, error: null });
    const row = { index: 4, record_index: 4, family: "debug" as const, kind: "usage" as const, tone: "neutral" as const, title: "Usage: 940 context tokens", detail: "900 in · 40 out" };
    const gauge = { tokens: 940, estimated: false, threshold: 8000, policy: "layered" as const, cost: { unpriced_rounds: 0, turns: [], steps: [] } };
    const withConsole: LiveEvent = { ...usage(1), console: { records: 5, rows: [row], chart: [], markers: [], gauge, undo: held.undo } };
    h.actions.receive(SESSION, [withConsole]);
    const console = h.store.get().console.view;
    expect(console?.rows).toEqual([row]);
    expect([console?.rows_total, console?.records, console?.gauge.tokens]).toEqual([5, 5, 940]);
    // The same update again (a snapshot that already folded it) changes nothing.
    h.actions.receive(SESSION, [{ ...withConsole, envelope: { ...withConsole.envelope, seq: 2 } }]);
    expect(h.store.get().console.view?.rows).toHaveLength(1);
  });
});
