import { useEffect, useRef } from "react";
import type { ApprovalDecision } from "../api/types";

interface ApprovalPromptProps {
  tool: string;
  summary: string;
  detail: string;
  /** Absent in a read-only session: the prompt is shown without buttons. */
  onDecide?: (decision: ApprovalDecision) => void;
}

function DetailView({ detail }: { detail: string }) {
  const lines = detail.replace(/\n$/, "").split("\n");
  const isDiff = lines.some((line) => line.startsWith("@@") || line.startsWith("+++"));
  return (
    <pre className="approval-detail" aria-label="What will happen">
      {isDiff
        ? lines.map((line, index) => (
            <span
              key={index}
              className={
                line.startsWith("+") && !line.startsWith("+++")
                  ? "diff-add"
                  : line.startsWith("-") && !line.startsWith("---")
                    ? "diff-del"
                    : line.startsWith("@@")
                      ? "diff-hunk"
                      : undefined
              }
            >
              {line}
              {"\n"}
            </span>
          ))
        : detail}
    </pre>
  );
}

/** What an approved shell command can do (the settings say it in short). */
export const SHELL_RIGHTS_SHORT = "runs as you, with your rights, outside any sandbox.";
const SHELL_RIGHTS_WARNING = `${SHELL_RIGHTS_SHORT.slice(0, -1)}: it can read, change or delete anything your account can, and reach the network.`;

/** The tools whose approval gives the model a command line. */
const SHELL_TOOLS = new Set(["run_shell"]);

/** An inline request to run a tool call: allow once, for the session, or deny. */
export function ApprovalPrompt({ tool, summary, detail, onDecide }: ApprovalPromptProps) {
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    // Take the keyboard unless the person is typing somewhere.
    const active = document.activeElement;
    if (!(active instanceof HTMLTextAreaElement || active instanceof HTMLInputElement)) {
      first.current?.focus({ preventScroll: true });
    }
  }, []);
  return (
    <div
      className="approval"
      role="group"
      aria-label={`Approval needed for ${tool}`}
      onKeyDown={(event) => {
        if (!onDecide || event.target instanceof HTMLTextAreaElement) return;
        if (event.key === "y") onDecide("allow_once");
        else if (event.key === "a") onDecide("allow_for_session");
        else if (event.key === "n") onDecide("deny");
      }}
    >
      <p className="approval-title">
        <strong>Strata wants to {summary || tool}</strong>
      </p>
      {detail && detail !== summary && <DetailView detail={detail} />}
      {SHELL_TOOLS.has(tool) && (
        <p className="approval-warning" data-testid="shell-warning">
          <span className="approval-warning-icon" aria-hidden="true">
            !
          </span>
          <span>
            <strong>Not sandboxed.</strong> If you allow it, this command {SHELL_RIGHTS_WARNING}
          </span>
        </p>
      )}
      {onDecide ? (
        <div className="approval-actions">
          <button ref={first} type="button" className="button primary" data-approval-first onClick={() => onDecide("allow_once")}>
            Allow once <kbd>Y</kbd>
          </button>
          <button type="button" className="button" onClick={() => onDecide("allow_for_session")}>
            Allow for session <kbd>A</kbd>
          </button>
          <button type="button" className="button danger" onClick={() => onDecide("deny")}>
            Deny <kbd>N</kbd>
          </button>
        </div>
      ) : (
        <p className="muted">Resume the session to answer.</p>
      )}
    </div>
  );
}
