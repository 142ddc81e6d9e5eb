// The preview backend's issue-12 commands (undo_compaction, session_items,
// fork_session) over the recorded sessions: the same rules as Rust's, on the
// items the recording holds (its views, context and records), with the
// estimate the preview can make (a token per four characters).
import type { ResponseItem, SessionRecord } from "../api/types";
import type { CompactionUndoneView } from "../bindings/CompactionUndoneView";
import type { ForkPoint } from "../bindings/ForkPoint";
import type { RecordedItem } from "../bindings/RecordedItem";
import type { SessionForkView } from "../bindings/SessionForkView";
import type { SessionItems } from "../bindings/SessionItems";
import { describeItem } from "../console/model";
import type { PreviewSession } from "./library";

const refused = (message: string) => ({ kind: "invalid_input", message });

function estimate(items: ResponseItem[]): number {
  return Math.ceil(items.reduce((sum, item) => sum + describeItem(item).text.length, 0) / 4);
}

/** The latest compaction's view unless it was undone: what `undo_compaction` undoes (and `compaction_status` names). */
export function undoableCompaction(session: PreviewSession) {
  const latest = session.compaction_views[session.compaction_views.length - 1];
  const undone = new Set(session.view.records.flatMap((r) => (r.type === "compaction_undone" ? [r.payload.summary_item_id] : [])));
  return latest && !undone.has(latest.summary.id) ? latest : null;
}

/** `undo_compaction`: the history before the latest compaction plus what joined since, under the threshold. */
export function undoCompaction(session: PreviewSession): CompactionUndoneView {
  const { view } = session;
  const latest = undoableCompaction(session);
  if (!latest) {
    throw refused("there is no compaction to undo (none yet, or the latest was already undone)");
  }
  const restored = [...latest.before, ...view.context.slice(latest.after.length)];
  const estimated_tokens = estimate(restored);
  // The mock's requests carry no tool specs: the next request is the restored history.
  if (estimated_tokens >= view.threshold) {
    throw refused(
      `undoing would bring the next request to about ${estimated_tokens} tokens (an estimate: the restored history and the tool specs), at or over the compaction threshold of ${view.threshold}; nothing was changed`,
    );
  }
  const payload = { summary_item_id: latest.summary.id, restored: restored.map((item) => item.id), estimated_tokens, threshold: view.threshold };
  const ts = new Date().toISOString();
  view.records = [...view.records, { v: 2, ts, type: "compaction_undone", payload } as SessionRecord];
  view.record_count = view.records.length;
  view.context = restored;
  view.summary = { ...view.summary, updated_at: ts };
  session.transcript = [...session.transcript, { kind: "notice", id: `undo:${view.record_count}`, text: `Compaction undone: ${restored.length} items restored.` }];
  return { v: 1, kind: "compaction_undone", session_id: view.summary.id, undone: payload };
}

/** `session_items`: every item recorded, in write order. */
export function sessionItems(session: PreviewSession): SessionItems {
  const inContext = new Set(session.view.context.map((item) => item.id));
  const items: RecordedItem[] = [];
  const push = (item: ResponseItem, kind: string = item.type) =>
    items.push({
      id: item.id,
      kind,
      role: item.type === "message" ? item.role : null,
      call_id: item.type === "function_call" || item.type === "function_call_output" ? item.call_id : null,
      in_context: inContext.has(item.id),
      evicted: false,
      pinned: false,
      preview: describeItem(item).text.split("\n")[0]?.slice(0, 80) ?? "",
    });
  for (const record of session.view.records) {
    if (record.type === "response_item") push(record.payload);
    if (record.type === "layered_compaction") {
      push({ type: "compaction_summary", ...record.payload.summary });
      push({ type: "message", ...record.payload.sheet_message }, "state_sheet");
    }
  }
  return { v: 1, kind: "session_items", session_id: session.view.summary.id, items };
}

/** `fork_session`: a new session with the parent's history at `point`, nothing later. */
export function forkSession(parent: PreviewSession, point: ForkPoint, id: string): { fork: PreviewSession; view: SessionForkView } {
  const { view } = parent;
  let context: ResponseItem[];
  let lastId: string;
  if (point.kind === "at_item") {
    const at = view.context.findIndex((item) => item.id === point.item_id);
    if (at === -1) throw refused("the preview backend forks only at an item the model sees");
    context = view.context.slice(0, at + 1);
    lastId = point.item_id;
  } else {
    const compaction = parent.compaction_views[point.number - 1];
    if (!compaction) throw refused(`there is no compaction ${point.number}`);
    context = compaction.before;
    lastId = compaction.before[compaction.before.length - 1]?.id ?? "";
  }
  const cut = view.records.findIndex((r) => r.type === "response_item" && r.payload.id === lastId);
  const ts = new Date().toISOString();
  const records = [
    ...view.records.slice(0, cut + 1),
    { v: 2, ts, type: "session_forked", payload: { parent_session_id: view.summary.id, parent_records: cut + 1, point } } as SessionRecord,
  ];
  const entryAt = parent.transcript.findIndex((entry) => entry.id === lastId);
  const fork: PreviewSession = {
    view: {
      ...view,
      summary: { ...view.summary, id, created_at: ts, updated_at: ts, forked_from: { parent_session_id: view.summary.id, point } },
      records,
      record_count: records.length,
      context,
      live: false,
      held_elsewhere: false,
    },
    transcript: parent.transcript.slice(0, entryAt + 1),
    compaction_views: point.kind === "at_item" ? parent.compaction_views.filter((cv) => cv.record_index <= cut) : parent.compaction_views.slice(0, point.number - 1),
    rounds: { total: 0, offset: 0, rounds: [] },
    // The preview keeps the parent's log as the fork's: its records up to the cut are the parent's.
    console: { ...parent.console, session_id: id, rows: parent.console.rows.filter((row) => (row.record_index ?? 0) <= cut) },
  };
  return { fork, view: { v: 1, kind: "session_forked", session_id: id, parent_session_id: view.summary.id, point, history_items: context.length } };
}
