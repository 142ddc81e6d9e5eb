import { describe, expect, it } from "vitest";
import { forkSession, sessionItems, undoCompaction } from "./contextOps";
import { previewLibrary } from "./library";

function compacted() {
  const session = previewLibrary().sessions.find((s) => s.compaction_views.length > 0);
  if (!session) throw new Error("the recorded library has a compacted session");
  return session;
}

describe("the preview backend's issue-12 commands", () => {
  it("undoes the latest compaction once: the items before it, then what joined since", () => {
    const session = compacted();
    const latest = session.compaction_views[session.compaction_views.length - 1]!;
    const since = session.view.context.slice(latest.after.length).map((item) => item.id);
    const result = undoCompaction(session);
    expect(result.undone.restored).toEqual([...latest.before.map((item) => item.id), ...since]);
    expect(session.view.context.map((item) => item.id)).toEqual(result.undone.restored);
    expect(session.view.records[session.view.records.length - 1]?.type).toBe("compaction_undone");
    expect(() => undoCompaction(session)).toThrow();
  });

  it("refuses an undo over the threshold and changes nothing", () => {
    const session = compacted();
    session.view.threshold = 1;
    const records = session.view.records.length;
    expect(() => undoCompaction(session)).toThrowError();
    try {
      undoCompaction(session);
    } catch (error) {
      expect((error as { message: string }).message).toMatch(/at or over the compaction threshold of 1; nothing was changed/);
    }
    expect(session.view.records).toHaveLength(records);
  });

  it("lists every recorded item with its id and whether the model sees it", () => {
    const session = compacted();
    const items = sessionItems(session).items;
    const visible = new Set(session.view.context.map((item) => item.id));
    expect(items.filter((item) => item.in_context).map((item) => item.id).sort()).toEqual([...visible].sort());
  });

  it("forks at an item with the history up to it and records where it came from", () => {
    const parent = compacted();
    const at = parent.view.context[2]!;
    const { fork, view } = forkSession(parent, { kind: "at_item", item_id: at.id }, "fork-1");
    expect(fork.view.context.map((item) => item.id)).toEqual(parent.view.context.slice(0, 3).map((item) => item.id));
    expect(fork.view.summary.forked_from).toEqual({ parent_session_id: parent.view.summary.id, point: { kind: "at_item", item_id: at.id } });
    expect(view.history_items).toBe(3);
    expect(fork.view.records[fork.view.records.length - 1]?.type).toBe("session_forked");
  });
});
