import type { ImportedLossAudit } from "../bindings/ImportedLossAudit";

const GROUPS: { key: "paths" | "commands" | "errors" | "rules"; one: string; many: string; heading: string }[] = [
  { key: "paths", one: "path", many: "paths", heading: "Paths" },
  { key: "commands", one: "command", many: "commands", heading: "Commands" },
  { key: "errors", one: "error", many: "errors", heading: "Errors" },
  { key: "rules", one: "rule", many: "rules", heading: "Rules" },
];

/** "2 paths, 1 command": the non-empty groups of an audit, counted. */
export function lossCounts(loss: ImportedLossAudit): string {
  return GROUPS.filter((group) => loss[group.key].length > 0)
    .map((group) => `${loss[group.key].length} ${loss[group.key].length === 1 ? group.one : group.many}`)
    .join(", ");
}

/**
 * What the items before an imported compaction mentioned that the model no
 * longer saw after it. Every fact came from another tool's file: rendered
 * as text, never as markup.
 */
export function LossAudit({ loss }: { loss: ImportedLossAudit }) {
  const counts = lossCounts(loss);
  const basis = loss.against_summary ? null : <p className="muted">The summary is unreadable: audited against the kept messages only.</p>;
  if (!counts) {
    return (
      <section className="imported-loss" data-testid="imported-loss" aria-label="Loss audit">
        <p>Nothing lost at this compaction.</p>
        {basis}
      </section>
    );
  }
  return (
    <section className="imported-loss" data-testid="imported-loss" aria-label="Loss audit">
      <details>
        <summary>Lost at this compaction: {counts}</summary>
        {basis}
        {GROUPS.filter((group) => loss[group.key].length > 0).map((group) => (
          <div key={group.key} className="imported-loss-group">
            <h4>{group.heading}</h4>
            <ul>
              {loss[group.key].map((fact, index) => (
                <li key={index}>
                  <code>{fact}</code>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </details>
    </section>
  );
}
