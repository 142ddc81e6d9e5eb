import { useState } from "react";
import { createPortal } from "react-dom";
import { TipButton } from "../Tooltip";
import { useChanges } from "./changesData";
import { FileChangeRow } from "./FileChangeRow";
import { RestoreDialog } from "./RestoreDialog";
import "./changes.css";

/** The tools whose cards show the files they changed. */
export const CHANGING_TOOLS = new Set(["write_file", "apply_edit", "run_shell"]);

/** A tool card's section: the files this call changed, each with its diff folded, and a restore to before the call. */
export function ToolChanges({ name, callId }: { name: string; callId: string }) {
  const data = useChanges();
  const [restoring, setRestoring] = useState(false);
  const files = data?.byCall.get(callId);
  if (!data || !files?.length || !CHANGING_TOOLS.has(name)) return null;
  const { restore } = data;
  return (
    <div className="tool-section tool-changes">
      <div className="tool-section-title">
        Changed files
        {restore && (
          <TipButton
            className="button small"
            disabled={!restore.allowed}
            onClick={() => setRestoring(true)}
            tip={restore.allowed ? "Preview, then put every file back as it was before this call" : (restore.offReason ?? "")}
          >
            Restore to before this call
          </TipButton>
        )}
      </div>
      <ul className="change-files" aria-label="Files this call changed">
        {files.map((file) => (
          <FileChangeRow
            key={file.record}
            sessionId={data.sessionId}
            file={file}
            target={{ kind: "change", record: file.record }}
          />
        ))}
      </ul>
      {restoring &&
        restore &&
        createPortal(
          <RestoreDialog
            sessionId={data.sessionId}
            target={{ kind: "before_item", item: callId }}
            label="before this call"
            onClose={() => setRestoring(false)}
            onRestored={(report) => {
              setRestoring(false);
              restore.onRestored(report);
            }}
          />,
          document.body,
        )}
    </div>
  );
}
