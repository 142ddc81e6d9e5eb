import { useId, useState } from "react";
import { createPortal } from "react-dom";
import type { ChangeCause } from "../../bindings/ChangeCause";
import type { ChangeGroup } from "../../bindings/ChangeGroup";
import type { RestoreReport } from "../../bindings/RestoreReport";
import type { RestoreTarget } from "../../bindings/RestoreTarget";
import { TipButton } from "../Tooltip";
import "./changes.css";
import { lineCounts, type ChangesData } from "./changesData";
import { FileChangeRow } from "./FileChangeRow";
import { RestoreDialog } from "./RestoreDialog";

const CAUSE_LABEL: Record<ChangeCause, string> = {
  write_file: "write_file",
  apply_edit: "apply_edit",
  run_shell: "run_shell",
  restore: "restore",
};

type Scope = "turns" | "session";

interface ChangesPanelProps {
  data: ChangesData;
  /** Restores write to the session: only while it is live and idle. */
  canRestore: boolean;
  /** Why restores are off, when they are. */
  restoreOffReason?: string;
  onClose: () => void;
  onRestored: (report: RestoreReport) => void;
}

function groupTotals(group: ChangeGroup) {
  const files = group.calls.flatMap((call) => call.files);
  const known = files.every((f) => f.added !== null && f.removed !== null);
  return {
    files: new Set(files.map((f) => f.path)).size,
    added: known ? files.reduce((n, f) => n + (f.added ?? 0), 0) : null,
    removed: known ? files.reduce((n, f) => n + (f.removed ?? 0), 0) : null,
  };
}

function GroupHead({
  group,
  onRestore,
  canRestore,
  offReason,
}: {
  group: ChangeGroup;
  onRestore: () => void;
  canRestore: boolean;
  offReason?: string;
}) {
  const totals = groupTotals(group);
  const counts = lineCounts(totals.added, totals.removed);
  const restore = group.turn === null;
  return (
    <div className="changes-group-head">
      <h3 className="changes-group-title">{restore ? "Restore" : `Turn ${group.turn}`}</h3>
      <span className="changes-group-meta">
        {totals.files} {totals.files === 1 ? "file" : "files"}
        {counts && (
          <>
            {" · "}
            <span className="change-added">{counts.added}</span> <span className="change-removed">{counts.removed}</span>
          </>
        )}
      </span>
      <TipButton
        className="button small changes-restore"
        disabled={!canRestore}
        onClick={onRestore}
        tip={canRestore ? (restore ? "Put back what this restore changed" : "Preview, then put every file back as it was before this turn") : (offReason ?? "")}
      >
        {restore ? "Undo this restore" : "Restore to before this turn"}
      </TipButton>
    </div>
  );
}

/** The Changes view: the files the session changed, per turn or over the whole session, each with its diff. */
export function ChangesPanel({ data, canRestore, restoreOffReason, onClose, onRestored }: ChangesPanelProps) {
  const [scope, setScope] = useState<Scope>("turns");
  const scopeName = useId();
  const [restoring, setRestoring] = useState<{ target: RestoreTarget; label: string } | null>(null);
  const { changes, error, sessionId } = data;
  const groups = changes?.groups ?? [];
  return (
    <aside className="changes-panel" aria-label="Changes">
      <div className="changes-head">
        <h2 className="changes-title">Changes</h2>
        <div className="segmented" role="radiogroup" aria-label="Show changes">
          {(["turns", "session"] as const).map((value) => (
            <label key={value} className={scope === value ? "selected" : undefined}>
              <input type="radio" name={`${scopeName}-scope`} value={value} checked={scope === value} onChange={() => setScope(value)} />
              {value === "turns" ? "By turn" : "Whole session"}
            </label>
          ))}
        </div>
        <TipButton className="icon-button changes-close" aria-label="Close changes" tip="Close (Ctrl+Shift+G)" onClick={onClose}>
          <span aria-hidden="true">×</span>
        </TipButton>
      </div>
      <div className="changes-body">
        {error && (
          <p className="changes-empty" role="alert">
            The changes could not be loaded: {error}
          </p>
        )}
        {!error && changes === null && (
          <p className="changes-empty" role="status">
            Loading the changes…
          </p>
        )}
        {changes !== null && groups.length === 0 && (
          <p className="changes-empty">No file changed in this session yet. Files the agent writes, edits or a command changes show here, each with its diff.</p>
        )}
        {scope === "turns" &&
          groups.map((group) => {
            const key = group.turn === null ? group.calls[0]?.call_id : `turn-${group.turn}`;
            const target: RestoreTarget =
              group.turn === null ? { kind: "before_item", item: group.calls[0]?.call_id ?? "" } : { kind: "before_turn", turn: group.turn };
            const label = group.turn === null ? "before this restore" : `before turn ${group.turn}`;
            return (
              <section key={key} className={`changes-group${group.turn === null ? " changes-group-restore" : ""}`} aria-label={group.turn === null ? "Restore" : `Turn ${group.turn}`}>
                <GroupHead group={group} canRestore={canRestore} offReason={restoreOffReason} onRestore={() => setRestoring({ target, label })} />
                {group.calls.map((call) => (
                  <div key={call.call_id} className="changes-call">
                    {group.turn !== null && <div className="changes-call-name">{CAUSE_LABEL[call.cause]}</div>}
                    <ul className="change-files">
                      {call.files.map((file) => (
                        <FileChangeRow
                          key={file.record}
                          sessionId={sessionId}
                          file={file}
                          note={file.restorable ? undefined : "not restorable"}
                          target={{ kind: "change", record: file.record }}
                        />
                      ))}
                    </ul>
                  </div>
                ))}
              </section>
            );
          })}
        {scope === "session" && changes !== null && groups.length > 0 && (
          <section className="changes-group" aria-label="Whole session">
            {changes.files.length === 0 ? (
              <p className="changes-empty">Every change of this session was undone: the files are as they were.</p>
            ) : (
              <ul className="change-files">
                {changes.files.map((file) => (
                  <FileChangeRow
                    key={file.path}
                    sessionId={sessionId}
                    file={file}
                    note={file.changes > 1 ? `${file.changes} changes` : undefined}
                    target={{ kind: "session_file", path: file.path }}
                  />
                ))}
              </ul>
            )}
          </section>
        )}
      </div>
      {/* Above the whole window, as the app's other dialogs are: the panel sits in the conversation's columns. */}
      {restoring &&
        createPortal(
          <RestoreDialog
            sessionId={sessionId}
            target={restoring.target}
            label={restoring.label}
            onClose={() => setRestoring(null)}
            onRestored={(report) => {
              setRestoring(null);
              onRestored(report);
            }}
          />,
          document.body,
        )}
    </aside>
  );
}
