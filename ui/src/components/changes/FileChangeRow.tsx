import { useId, useState } from "react";
import type { ChangeKind } from "../../bindings/ChangeKind";
import type { DiffTarget } from "../../bindings/DiffTarget";
import { KIND_LABEL, lineCounts } from "./changesData";
import { DiffLoader } from "./DiffView";

/** What a row shows of a change (a `ChangedFile` or a `SessionFileChange`). */
export interface FileChangeFacts {
  path: string;
  kind: ChangeKind;
  added: number | null;
  removed: number | null;
}

interface FileChangeRowProps {
  sessionId: string;
  file: FileChangeFacts;
  target: DiffTarget;
  /** Said beside the path (a file whose earlier content is no longer kept). */
  note?: string;
}

/** One changed file: its kind, path and line counts; its diff below once opened. */
export function FileChangeRow({ sessionId, file, target, note }: FileChangeRowProps) {
  const { path, kind, added, removed } = file;
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const counts = lineCounts(added, removed);
  return (
    <li className="change-file">
      <button type="button" className="change-file-head" aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen((v) => !v)}>
        <span className="chevron" aria-hidden="true">
          {open ? "▾" : "▸"}
        </span>
        <span className={`change-kind change-kind-${kind}`}>{KIND_LABEL[kind]}</span>
        <span className="change-path" title={path}>
          {path}
        </span>
        {note && <span className="change-note">{note}</span>}
        {counts ? (
          <span className="change-counts">
            <span className="change-added" aria-label={`${added} lines added`}>
              {counts.added}
            </span>
            <span className="change-removed" aria-label={`${removed} lines removed`}>
              {counts.removed}
            </span>
          </span>
        ) : (
          <span className="change-counts change-counts-unknown">not kept</span>
        )}
      </button>
      {open && (
        <div id={bodyId} className="change-file-diff">
          <DiffLoader sessionId={sessionId} target={target} />
        </div>
      )}
    </li>
  );
}
