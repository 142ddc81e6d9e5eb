import { describe, expect, it } from "vitest";
import { sampleSessions } from "../mock/fixtures";
import { assistantItem, eventStream, ROUND, TURN, userItem } from "../test/fixtures";
import {
  contextTokensOf,
  emptyTranscript,
  foldEvent,
  fromRecords,
  lastUserMessage,
  pendingApprovals,
  transcriptReducer,
  type Entry,
  type Transcript,
} from "./transcript";

function fold(events: ReturnType<ReturnType<typeof eventStream>["mainline"]>[]): Transcript {
  return events.reduce(foldEvent, emptyTranscript);
}

const kinds = (t: Transcript) => t.entries.map((e) => e.kind);

describe("foldEvent", () => {
  it("streams text deltas into one assistant entry, then commits it", () => {
    const s = eventStream();
    const streaming = fold([
      s.mainline({ kind: "turn_started", turn_id: TURN, user_message: userItem("Hi") }),
      s.mainline({ kind: "text_delta", turn_id: TURN, round_id: ROUND, delta: "Hel" }),
      s.mainline({ kind: "text_delta", turn_id: TURN, round_id: ROUND, delta: "lo" }),
    ]);
    expect(streaming.runningTurn).toBe(TURN);
    expect(kinds(streaming)).toEqual(["user", "assistant"]);
    expect(streaming.entries[1]).toMatchObject({ text: "Hello", streaming: true });

    const committed = foldEvent(
      streaming,
      s.mainline({ kind: "message_committed", turn_id: TURN, item: assistantItem("Hello!") }),
    );
    expect(kinds(committed)).toEqual(["user", "assistant"]);
    expect(committed.entries[1]).toMatchObject({ key: "item-assistant", text: "Hello!", streaming: false });

    const done = foldEvent(committed, s.mainline({ kind: "turn_finished", turn_id: TURN, outcome: "completed", rounds: 1 }));
    expect(done.runningTurn).toBeNull();
    expect(kinds(done)).toEqual(["user", "assistant"]);
  });

  it("drops events it has already folded", () => {
    const s = eventStream();
    const first = s.mainline({ kind: "turn_started", turn_id: TURN, user_message: userItem("Hi") });
    const delta = s.mainline({ kind: "text_delta", turn_id: TURN, round_id: ROUND, delta: "A" });
    const state = [first, delta, delta, first].reduce(foldEvent, emptyTranscript);
    expect(kinds(state)).toEqual(["user", "assistant"]);
    expect(state.entries[1]).toMatchObject({ text: "A" });
  });

  it("follows a tool call through approval to its result", () => {
    const s = eventStream();
    let state = fold([
      s.mainline({ kind: "tool_call_started", turn_id: TURN, call_id: "c1", name: "write_file", arguments: '{"path":"a.rs"}' }),
      s.mainline({ kind: "approval_requested", turn_id: TURN, call_id: "c1", tool: "write_file", summary: "write_file a.rs", detail: "+fn main() {}" }),
    ]);
    expect(pendingApprovals(state)).toHaveLength(1);
    expect(state.entries[0]).toMatchObject({ status: "awaiting_approval", approval: { summary: "write_file a.rs" } });

    state = foldEvent(state, s.mainline({ kind: "approval_resolved", turn_id: TURN, call_id: "c1", decision: "allow_once" }));
    expect(state.entries[0]).toMatchObject({ status: "running", approval: { decision: "allow_once" } });
    expect(pendingApprovals(state)).toHaveLength(0);

    state = foldEvent(
      state,
      s.mainline({ kind: "tool_call_finished", turn_id: TURN, call_id: "c1", name: "write_file", status: "success", output: "Wrote a.rs", duration_ms: 12 }),
    );
    expect(state.entries).toHaveLength(1);
    expect(state.entries[0]).toMatchObject({ status: "success", output: "Wrote a.rs", durationMs: 12, arguments: '{"path":"a.rs"}' });
  });

  it("marks a denied call as denied", () => {
    const s = eventStream();
    const state = fold([
      s.mainline({ kind: "approval_requested", turn_id: TURN, call_id: "c1", tool: "run_shell", summary: "run `rm -rf target`", detail: "rm -rf target" }),
      s.mainline({ kind: "approval_resolved", turn_id: TURN, call_id: "c1", decision: "deny" }),
    ]);
    expect(state.entries[0]).toMatchObject({ status: "denied" });
  });

  it("shows a retry in place and settles it when the stream resumes", () => {
    const s = eventStream();
    let state = fold([s.debug({ kind: "retrying", attempt: 1, of: 3, delay_ms: 2000, cause: "429 Too Many Requests" })]);
    expect(state.entries[0]).toMatchObject({ kind: "retry", delayMs: 2000, settled: false });
    state = foldEvent(state, s.mainline({ kind: "text_delta", turn_id: TURN, round_id: ROUND, delta: "ok" }));
    expect(state.entries[0]).toMatchObject({ kind: "retry", settled: true });
    expect(state.debugEvents).toHaveLength(1);
  });

  it("adds one divider per compaction and records usage for the gauge", () => {
    const s = eventStream();
    const summary = {
      id: "summary-1",
      summary: "Parser done.",
      metadata: { trigger: "auto" as const, reason: "r", context_tokens: 9000, threshold: 8000, removed: 5, kept: 2, summarizer_model: "m", duration_ms: 1200 },
    };
    const state = fold([
      s.debug({ kind: "usage_reported", turn_id: TURN, round_id: ROUND, usage: { input_tokens: 8800, output_tokens: 200 }, context_tokens: 9000, threshold: 8000 }),
      s.debug({ kind: "history_compacted", turn_id: TURN, summary, history_items: 4 }),
      s.mainline({ kind: "message_committed", turn_id: TURN, item: { type: "compaction_summary", ...summary } }),
    ]);
    expect(kinds(state)).toEqual(["compaction"]);
    expect(state.entries[0]).toMatchObject({ summaryId: "summary-1", summary: "Parser done." });
    expect(state.context_tokens).toBe(9000);
    expect(state.threshold).toBe(8000);
  });

  it("ends a cancelled turn: streaming stops, running tools are cancelled, a notice is added", () => {
    const s = eventStream();
    const state = fold([
      s.mainline({ kind: "text_delta", turn_id: TURN, round_id: ROUND, delta: "Work" }),
      s.mainline({ kind: "tool_call_started", turn_id: TURN, call_id: "c1", name: "run_shell", arguments: "{}" }),
      s.mainline({ kind: "turn_finished", turn_id: TURN, outcome: "cancelled", rounds: 1 }),
    ]);
    expect(state.entries[0]).toMatchObject({ kind: "assistant", streaming: false });
    expect(state.entries[1]).toMatchObject({ kind: "tool", status: "cancelled" });
    expect(state.entries[2]).toMatchObject({ kind: "turn_end", outcome: "cancelled" });
  });

  it("marks a partial answer cut off by a stop as not saved, and a committed one as saved", () => {
    const s = eventStream();
    const stopped = fold([
      s.mainline({ kind: "text_delta", turn_id: TURN, round_id: ROUND, delta: "Once upon a time, " }),
      s.mainline({ kind: "turn_finished", turn_id: TURN, outcome: "cancelled", rounds: 1 }),
    ]);
    expect(stopped.entries[0]).toMatchObject({ kind: "assistant", streaming: false, unsaved: "stopped" });
    expect(stopped.entries[1]).toMatchObject({ kind: "turn_end", outcome: "cancelled" });

    const failed = fold([
      s.mainline({ kind: "text_delta", turn_id: TURN, round_id: ROUND, delta: "Half" }),
      s.mainline({ kind: "turn_finished", turn_id: TURN, outcome: "failed", rounds: 1 }),
    ]);
    expect(failed.entries[0]).toMatchObject({ kind: "assistant", unsaved: "interrupted" });

    const local = transcriptReducer(fold([s.mainline({ kind: "text_delta", turn_id: TURN, round_id: ROUND, delta: "Half" })]), {
      type: "error",
      message: "Session is locked",
    });
    expect(local.entries[0]).toMatchObject({ kind: "assistant", streaming: false, unsaved: "interrupted" });

    const completed = fold([
      s.mainline({ kind: "text_delta", turn_id: TURN, round_id: ROUND, delta: "Done" }),
      s.mainline({ kind: "message_committed", turn_id: TURN, item: { type: "message", id: "a1", role: "assistant", content: "Done." } }),
      s.mainline({ kind: "turn_finished", turn_id: TURN, outcome: "cancelled", rounds: 1 }),
    ]);
    expect(completed.entries[0]).toMatchObject({ kind: "assistant", key: "a1", streaming: false });
    expect(completed.entries[0]).not.toHaveProperty("unsaved");
  });

  it("reports errors in place", () => {
    const s = eventStream();
    const state = fold([
      s.mainline({ kind: "error", turn_id: TURN, message: "The provider rejected the key", model_error: { kind: "auth", message: "401" } }),
    ]);
    expect(state.entries[0]).toMatchObject({ kind: "error", message: "The provider rejected the key", modelError: { kind: "auth" } });
    const local = transcriptReducer(state, { type: "error", message: "Session is locked" });
    expect(local.entries[1]).toMatchObject({ kind: "error", message: "Session is locked" });
  });
});

describe("fromRecords", () => {
  it("rebuilds a reopened session with the same entries a live turn produces", () => {
    const [session] = sampleSessions(new Date("2026-11-29T12:00:00Z"));
    const state = fromRecords(session!.records, 8000);
    const summary = state.entries.map((e: Entry) => e.kind);
    expect(summary.filter((k) => k === "user")).toHaveLength(2);
    expect(summary.filter((k) => k === "compaction")).toHaveLength(1);
    expect(summary).not.toContain("turn_end");
    const tools = state.entries.filter((e) => e.kind === "tool");
    expect(tools.map((t) => t.kind === "tool" && t.name)).toEqual(["list_directory", "read_file", "write_file", "run_shell"]);
    expect(tools[2]).toMatchObject({ approval: { decision: "allow_once" }, output: "Wrote crates/ingest/src/stream.rs (142 lines)" });
    expect(state.entries.find((e) => e.kind === "retry")).toMatchObject({ attempt: 1, of: 4, settled: true });
    // The system prompt is not part of the person's transcript.
    expect(state.entries.some((e) => e.kind === "user" && e.text.includes("careful coding agent"))).toBe(false);
    expect(state.context_tokens).toBe(2930);
    expect(state.threshold).toBe(8000);
    expect(lastUserMessage(state)).toBe("Sounds good, go ahead. Keep the public API small.");
  });

  it("treats a failed turn as ended with a notice", () => {
    const state = fromRecords([
      { v: 1, ts: "2026-11-29T10:00:00Z", type: "turn_started", payload: { turn_id: TURN } },
      { v: 1, ts: "2026-11-29T10:00:00Z", type: "response_item", payload: userItem("Go") },
      { v: 1, ts: "2026-11-29T10:00:01Z", type: "error", payload: { turn_id: TURN, message: "Quota exhausted" } },
      { v: 1, ts: "2026-11-29T10:00:02Z", type: "turn_finished", payload: { turn_id: TURN, outcome: "failed", rounds: 1 } },
    ]);
    expect(kinds(state)).toEqual(["user", "error", "turn_end"]);
  });
});

describe("contextTokensOf", () => {
  it("is input plus output, like TokenUsage::context_tokens", () => {
    expect(contextTokensOf({ input_tokens: 1200, cached_input_tokens: 1000, output_tokens: 34, total_tokens: 9999 })).toBe(1234);
    expect(contextTokensOf({ input_tokens: 7 })).toBe(7);
    expect(contextTokensOf({ total_tokens: 5 })).toBeNull();
  });
});
