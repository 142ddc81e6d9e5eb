import { mockIPC } from "@tauri-apps/api/mocks";
import { describe, expect, it } from "vitest";
import * as api from "./commands";
import { CommandFailure, toCommandFailure } from "./commands";

describe("command wrappers", () => {
  it("invoke snake_case commands with their request, snake_case keys, as `request`", async () => {
    const calls: [string, Record<string, unknown>][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, { ...(args as Record<string, unknown>) }]);
      return cmd === "list_sessions" ? { v: 1, sessions: [], total: 0 } : null;
    });
    await api.listSessions("parser");
    await api.listSessions();
    await api.openSession("s1");
    await api.openSession("s1", 7);
    await api.openSessionState("s1");
    await api.searchSessions("HttpClient::send");
    await api.createSession("/w");
    await api.stopTurn("s1");
    await api.answerApproval("s1", "call_1", "allow_for_session");
    await api.renameSession("s1", "New title");
    await api.deleteSession("s1");
    await api.exportSession("s1", "md");
    await api.getSettings();
    await api.setApiKey("openai", "sk-1");
    await api.switchProfile("s1", "local");
    await api.providerKinds();
    await api.compactionViews("s1");
    await api.roundRequests("s1");
    await api.roundRequests("s1", 100, 50);
    await api.openTranscript("s1");
    await api.openTranscript("s1", "record:12", 200);
    await api.toolOutput("s1", "call_1");
    await api.sessionItems("s1");
    await api.pinItem("s1", "item-1", true);
    await api.forkSession("s1", { kind: "before_compaction", number: 2 });
    expect(calls).toEqual([
      ["list_sessions", { request: { query: "parser" } }],
      ["list_sessions", { request: {} }],
      ["open_session", { request: { session_id: "s1" } }],
      ["open_session", { request: { session_id: "s1", from_record: 7 } }],
      ["open_session", { request: { session_id: "s1", without_records: true } }],
      ["search_sessions", { request: { query: "HttpClient::send", limit: 30 } }],
      ["create_session", { request: { workspace: "/w", allow_broad_workspace: false } }],
      ["stop_turn", { request: { session_id: "s1" } }],
      ["answer_approval", { request: { session_id: "s1", call_id: "call_1", decision: "allow_for_session" } }],
      ["rename_session", { request: { session_id: "s1", title: "New title" } }],
      ["delete_session", { request: { session_id: "s1" } }],
      ["export_session", { request: { session_id: "s1", format: "md" } }],
      ["get_settings", { request: {} }],
      ["set_api_key", { request: { profile_id: "openai", key: "sk-1" } }],
      ["switch_profile", { request: { session_id: "s1", profile_id: "local" } }],
      ["provider_kinds", { request: {} }],
      ["compaction_views", { request: { session_id: "s1" } }],
      ["round_requests", { request: { session_id: "s1" } }],
      ["round_requests", { request: { session_id: "s1", offset: 100, limit: 50 } }],
      ["open_transcript", { request: { session_id: "s1" } }],
      ["open_transcript", { request: { session_id: "s1", before: "record:12", limit: 200 } }],
      ["tool_output", { request: { session_id: "s1", call_id: "call_1" } }],
      ["session_items", { request: { session_id: "s1" } }],
      ["pin_item", { request: { session_id: "s1", item: "item-1", pinned: true } }],
      ["fork_session", { request: { session_id: "s1", point: { kind: "before_compaction", number: 2 } } }],
    ]);
  });

  it("passes a channel for the turn's events", async () => {
    const received: number[][] = [];
    mockIPC((cmd, args) => {
      const { on_event, request } = args as { on_event: { onmessage: (m: unknown) => void }; request: unknown };
      expect(cmd).toBe("send_message");
      expect(request).toEqual({ session_id: "s1", text: "hello" });
      on_event.onmessage({ events: [{ envelope: { v: 1, seq: 0 }, updates: [] }, { envelope: { v: 1, seq: 1 }, updates: [] }] });
      on_event.onmessage({ events: [{ envelope: { v: 1, seq: 2 }, updates: [] }] });
      return { kind: "turn", turn_id: "t", outcome: "completed", rounds: 1 };
    });
    const report = await api.sendMessage("s1", "hello", (events) => received.push(events.map((event) => event.envelope.seq)));
    expect(report).toMatchObject({ kind: "turn", outcome: "completed" });
    expect(received).toEqual([[0, 1], [2]]);
  });

  it("passes a channel for the library's changes", async () => {
    const received: string[][] = [];
    mockIPC((cmd, args) => {
      expect(cmd).toBe("watch_library");
      const { on_event, request } = args as { on_event: { onmessage: (m: unknown) => void }; request: unknown };
      expect(request).toEqual({});
      on_event.onmessage({ v: 1, updated: [], removed: ["s1"] });
      return null;
    });
    await api.watchLibrary((change) => received.push(change.removed));
    expect(received).toEqual([["s1"]]);
  });

  it("turns the shell's structured errors into CommandFailure", async () => {
    mockIPC(() => {
      throw { kind: "locked", message: "Another Strata window has this session open." };
    });
    const error = await api.openSession("s1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandFailure);
    expect(error).toMatchObject({ kind: "locked", message: "Another Strata window has this session open." });
  });

  it("keeps a readable message for unstructured errors", () => {
    expect(toCommandFailure("boom")).toMatchObject({ kind: "internal", message: "boom" });
    expect(toCommandFailure({ kind: "weird", message: "x" })).toMatchObject({ kind: "internal" });
  });
});
