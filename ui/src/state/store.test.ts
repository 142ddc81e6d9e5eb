import { mockShell } from "../test/shell";
import { describe, expect, it } from "vitest";
import type { SessionView } from "../api/types";
import type { LiveEvent } from "../bindings/LiveEvent";
import { createActions, createStore, initialState, isRunning } from "./store";

const SESSION = "0193a1b2-c3d4-7e5f-8a9b-000000000a01";
const view = { summary: { id: SESSION }, records: [], context: [], threshold: 8000, live: true, record_count: 0 } as unknown as SessionView;

function live(seq: number, event: LiveEvent["envelope"]["event"], updates: LiveEvent["updates"] = []): LiveEvent {
  return { envelope: { v: 1, seq, session_id: SESSION, event }, updates };
}

describe("the store's one event path", () => {
  it("applies the updates of the open session's events once, in order, and keeps debug events and usage", () => {
    const store = createStore({ ...initialState, view });
    const actions = createActions(store);
    const started = live(0, { family: "mainline", event: { kind: "turn_started", turn_id: "t1", user_message: { type: "message", id: "u1", role: "user", content: "Hi" } } }, [
      { op: "append", entry: { kind: "user", id: "u1", text: "Hi" } },
    ]);
    actions.receive(SESSION, [started]);
    actions.receive(SESSION, [started]);
    expect(store.get().transcript.entries).toHaveLength(1);
    expect(isRunning(store.get())).toBe(true);

    actions.receive(SESSION, [live(1, { family: "debug", event: { kind: "usage_reported", turn_id: "t1", round_id: "r1", usage: { input_tokens: 5000, output_tokens: 120 }, threshold: 9000 } })]);
    const { transcript } = store.get();
    expect([transcript.context_tokens, transcript.threshold, transcript.debugEvents.length, transcript.lastSeq]).toEqual([5120, 9000, 1, 1]);

    // Another session's events (a window that moved on) change nothing.
    actions.receive("0193a1b2-c3d4-7e5f-8a9b-00000000ffff", [live(2, { family: "mainline", event: { kind: "turn_finished", turn_id: "t9", outcome: "completed", rounds: 1 } })]);
    expect(store.get().transcript).toBe(transcript);

    actions.receive(SESSION, [live(2, { family: "mainline", event: { kind: "turn_finished", turn_id: "t1", outcome: "completed", rounds: 1 } })]);
    expect(isRunning(store.get())).toBe(false);
  });

  it("applies a later turn's events although its agent, resumed after a settings change, numbers them from 0 again", async () => {
    // Each send_message call stands for a freshly resumed agent: its events start at seq 0.
    let turn = 0;
    mockShell(async (cmd, rawArgs) => {
      const args = (rawArgs ?? {}) as Record<string, unknown>;
      if (cmd === "list_sessions") return { v: 1, sessions: [], total: 0 };
      if (cmd !== "send_message") throw { kind: "internal", message: `unexpected ${cmd}` };
      turn += 1;
      const channel = args.on_event as { onmessage: (batch: { events: LiveEvent[] }) => void };
      const id = `u${turn}`;
      const events = [
        live(0, { family: "mainline", event: { kind: "turn_started", turn_id: `t${turn}`, user_message: { type: "message", id, role: "user", content: String(args.text) } } }, [
          { op: "append", entry: { kind: "user", id, text: String(args.text) } },
        ]),
        live(1, { family: "mainline", event: { kind: "turn_finished", turn_id: `t${turn}`, outcome: "completed", rounds: 1 } }),
      ];
      channel.onmessage({ events });
      return { kind: "turn", turn_id: `t${turn}`, outcome: "completed", rounds: 1, compactions: 0 };
    });
    const store = createStore({ ...initialState, view });
    const actions = createActions(store);
    await actions.send("first");
    await actions.send("second");
    expect(store.get().transcript.entries.map((entry) => entry.id)).toEqual(["u1", "u2"]);
  });
});
