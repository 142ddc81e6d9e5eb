import { useState } from "react";
import type { ChangeDiff } from "../../bindings/ChangeDiff";
import type { DiffTarget } from "../../bindings/DiffTarget";
import type { DiffTag } from "../../bindings/DiffTag";
import type { FileState } from "../../bindings/FileState";
import { formatBytes, useDiff, WITHHELD_TEXT } from "./changesData";

/** Lines drawn before "Show all": a long diff stays quick to open. */
export const DIFF_LINES_SHOWN = 400;

const SIGN: Record<DiffTag, string> = { context: " ", added: "+", removed: "−" };
const SPOKEN: Record<DiffTag, string> = { context: "", added: "Added: ", removed: "Removed: " };

function StateLine({ label, state }: { label: string; state: FileState | null | undefined }) {
  return (
    <li>
      <span className="diff-state-label">{label}</span>{" "}
      {state ? (
        <>
          {formatBytes(state.size)}
          {state.sha256 && <code className="diff-hash"> sha256 {state.sha256.slice(0, 12)}…</code>}
        </>
      ) : (
        "no file"
      )}
    </li>
  );
}

/** A unified diff: hunks with old and new line numbers, additions and removals coloured. */
export function DiffView({ diff }: { diff: ChangeDiff }) {
  const [all, setAll] = useState(false);
  const { body } = diff;
  if (body.kind === "withheld") {
    return (
      <div className="diff-withheld" role="note">
        <p>{WITHHELD_TEXT[body.reason]}</p>
        <ul className="diff-states">
          <StateLine label="Before:" state={diff.before} />
          <StateLine label="After:" state={diff.after} />
        </ul>
      </div>
    );
  }
  const total = body.hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0);
  if (total === 0) return <p className="diff-empty">No line changed (only the file's existence or mode).</p>;
  let budget = all ? Infinity : DIFF_LINES_SHOWN;
  const hidden = Math.max(0, total - DIFF_LINES_SHOWN);
  return (
    <div className="diff-view">
      <table className="diff-table" aria-label={`Changes to ${diff.path}`}>
        <colgroup>
          <col className="diff-col-num" />
          <col className="diff-col-num" />
          <col />
        </colgroup>
        {body.hunks.map((hunk, index) => {
          if (budget <= 0) return null;
          const lines = hunk.lines.slice(0, budget);
          budget -= lines.length;
          return (
            <tbody key={index}>
              <tr className="diff-hunk">
                <td colSpan={3}>{hunk.header}</td>
              </tr>
              {lines.map((line, n) => (
                <tr key={n} className={`diff-line diff-${line.tag}`}>
                  <td className="diff-num" aria-label={line.old === null ? undefined : `old line ${line.old}`}>
                    {line.old ?? ""}
                  </td>
                  <td className="diff-num" aria-label={line.new === null ? undefined : `new line ${line.new}`}>
                    {line.new ?? ""}
                  </td>
                  <td className="diff-text">
                    <span className="diff-sign" aria-hidden="true">
                      {SIGN[line.tag]}
                    </span>
                    {SPOKEN[line.tag] && <span className="visually-hidden">{SPOKEN[line.tag]}</span>}
                    {line.text}
                  </td>
                </tr>
              ))}
            </tbody>
          );
        })}
      </table>
      {!all && hidden > 0 && (
        <button type="button" className="button small diff-more" onClick={() => setAll(true)}>
          Show {hidden.toLocaleString("en-US")} more lines
        </button>
      )}
      {body.omitted_lines > 0 && (all || hidden === 0) && (
        <p className="diff-note">{body.omitted_lines.toLocaleString("en-US")} more lines are not shown (the diff is too long).</p>
      )}
    </div>
  );
}

/** The diff of `target`, fetched when it is first shown. */
export function DiffLoader({ sessionId, target }: { sessionId: string; target: DiffTarget }) {
  const diff = useDiff(sessionId, target);
  if (diff.state === "loading")
    return (
      <p className="diff-note" role="status">
        Loading the diff…
      </p>
    );
  if (diff.state === "failed")
    return (
      <p className="diff-note diff-failed" role="alert">
        The diff could not be loaded: {diff.message}
      </p>
    );
  return <DiffView diff={diff.diff} />;
}
