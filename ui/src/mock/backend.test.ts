import { describe, expect, it } from "vitest";
import { MockBackend } from "./backend";
import { previewLibrary } from "./library";

function compacted() {
  const session = previewLibrary().sessions.find((s) => s.compaction_views.length > 0);
  if (!session) throw new Error("the recorded library has a compacted session");
  return session;
}

function backend() {
  return new MockBackend(new URLSearchParams());
}

describe("the preview backend answers the context commands as Rust did", () => {
  it("undoes the latest compaction once with Rust's answer, then gives Rust's refusal", () => {
    const mock = backend();
    const sessionId = compacted().view.summary.id;
    const recorded = compacted().undo!;
    expect(mock.status(sessionId).undo_summary).not.toBeNull();
    expect(mock.undo(mock.find(sessionId))).toEqual(recorded.answer);
    expect(mock.find(sessionId).view.context).toEqual(recorded.after.view.context);
    expect(mock.status(sessionId).undo_summary).toBeNull();
    expect(() => mock.undo(mock.find(sessionId))).toThrow(expect.objectContaining({ message: recorded.refusal.message }));
  });

  it("lists the items Rust listed, the ones the model sees marked", () => {
    const session = compacted();
    const { items } = backend().find(session.view.summary.id).items;
    const visible = new Set(session.view.context.map((item) => item.id));
    expect(items.filter((item) => item.in_context).map((item) => item.id).sort()).toEqual([...visible].sort());
  });

  it("forks where the recording forked and lists the fork; refuses anywhere else", () => {
    const mock = backend();
    const parent = compacted();
    const recorded = parent.forks![0]!;
    const view = mock.fork(mock.find(parent.view.summary.id), recorded.point);
    expect(view).toEqual(recorded.answer);
    expect(mock.find(view.session_id).view.summary.forked_from?.parent_session_id).toBe(parent.view.summary.id);
    const last = parent.view.context[parent.view.context.length - 1]!;
    expect(() => mock.fork(mock.find(parent.view.summary.id), { kind: "at_item", item_id: last.id })).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/forks only where its recording did/) }),
    );
  });

  it("gives a tool card's whole output as Rust read it", () => {
    const session = previewLibrary().sessions.find((s) => Object.keys(s.tool_outputs).length > 0)!;
    const [callId, output] = Object.entries(session.tool_outputs)[0]!;
    const mock = backend();
    expect(mock.toolOutput(mock.find(session.view.summary.id), callId)).toEqual(output);
  });
});
