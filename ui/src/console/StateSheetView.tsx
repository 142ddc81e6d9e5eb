// The state sheet a layered summary attached, and the loss audit of its
// removed span, both as Rust computed and recorded them.
import type { LossAudit } from "../bindings/LossAudit";
import type { StateSheet } from "../bindings/StateSheet";

function List({ title, items, testId }: { title: string; items: string[]; testId: string }) {
  if (items.length === 0) return null;
  return (
    <div className="sheet-block" data-testid={testId}>
      <h5>{title}</h5>
      <ul>
        {items.map((item, i) => (
          <li key={`${i}:${item}`}>
            <code>{item}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The sheet's facts by kind; the exact text the model saw is one click further. */
export function StateSheetView({ sheet }: { sheet: StateSheet }) {
  const files = sheet.files.map((file) => `${file.path} · ${file.last_action}`);
  const commands = sheet.commands.map((c) => (c.exit_code == null ? c.command : `${c.command} · exit ${c.exit_code}`));
  const errors = sheet.errors.map((e) => `${e.subject}: ${e.message}${e.fixed ? " (fixed later)" : ""}`);
  const requests = [sheet.first_request, sheet.latest_request].filter((r): r is string => Boolean(r));
  return (
    <div className="state-sheet" data-testid="state-sheet">
      <List title="Requests (first and latest, verbatim)" items={[...new Set(requests)]} testId="sheet-requests" />
      <List title="Rules in force" items={sheet.rules} testId="sheet-rules" />
      <List title={`Files (${sheet.files.length}) · last action`} items={files} testId="sheet-files" />
      <List title={`Commands (${sheet.commands.length})`} items={commands} testId="sheet-commands" />
      <List title="Errors seen" items={errors} testId="sheet-errors" />
      {sheet.next_step && (
        <div className="sheet-block" data-testid="sheet-next-step">
          <h5>Next step (verbatim)</h5>
          <p>{sheet.next_step}</p>
        </div>
      )}
      {(sheet.grouped ?? []).length > 0 && (
        <p className="muted" data-testid="sheet-grouped">
          Past the sheet's budget the model sees {(sheet.grouped ?? []).map((g) => `${g.folder} (${g.paths.length})`).join(", ")} as folders and counts; every path is listed above.
        </p>
      )}
      <details className="sheet-text">
        <summary>Text the model sees</summary>
        <pre>{sheet.text}</pre>
      </details>
    </div>
  );
}

/** What the removed span mentioned that neither the summary nor the sheet carries. */
export function LossAuditView({ audit }: { audit: LossAudit }) {
  const total = audit.paths.length + audit.commands.length + audit.errors.length;
  if (total === 0) {
    return (
      <p className="loss-audit ok" data-testid="loss-audit">
        <span aria-hidden="true">✓</span> Loss audit: every path, command and error of the removed span is in the summary or the state sheet.
      </p>
    );
  }
  const rows: [string, string[]][] = [
    ["Paths", audit.paths],
    ["Commands", audit.commands],
    ["Errors", audit.errors],
  ];
  return (
    <div className="loss-audit lost" data-testid="loss-audit" role="group" aria-label="Loss audit">
      <p>
        <span aria-hidden="true">!</span> Loss audit: {total} {total === 1 ? "fact" : "facts"} of the removed span appear in neither the summary nor the
        state sheet.
      </p>
      {rows
        .filter(([, items]) => items.length > 0)
        .map(([title, items]) => (
          <List key={title} title={`${title} lost`} items={items} testId={`loss-${title.toLowerCase()}`} />
        ))}
    </div>
  );
}
