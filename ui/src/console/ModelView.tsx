import type { SessionView } from "../api/types";
import type { CompactionView } from "../bindings/CompactionView";
import { formatTokens } from "../lib/format";
import { ItemView } from "./ItemView";
import { modelViewGroups } from "./model";

interface ModelViewProps {
  view: SessionView;
  compactions: CompactionView[];
}

/** The history the model sees now, from the core's replay of the session file. */
export function ModelView({ view, compactions }: ModelViewProps) {
  const last = compactions[compactions.length - 1] ?? null;
  const groups = modelViewGroups(view.context, last);
  const lastSummaryText = last?.summary_model_text;
  return (
    <div className="model-view" data-testid="model-view">
      <p className="console-lead">
        What the next request sends as its input: <strong>{view.context.length} items</strong>
        {view.context_tokens != null && (
          <>
            {" "}
            · last round reported <strong>{formatTokens(view.context_tokens)}</strong> tokens
          </>
        )}
        {" "}
        · threshold {formatTokens(view.threshold)}
        {view.context_window != null && <> · window {formatTokens(view.context_window)}</>}.
        <span className="muted"> Rebuilt by the same replay the agent resumes from.</span>
      </p>
      {groups.length === 0 ? (
        <div className="console-hint">
          <strong>The history is empty.</strong> The system prompt and every message, tool call and output appear here as
          they join what the model sees.
        </div>
      ) : (
        groups.map((group) => (
          <section key={group.id} className="model-group" aria-label={group.title} data-testid={`model-group-${group.id}`}>
            <h4>
              {group.title} <span className="muted">· {group.items.length}</span>
            </h4>
            <p className="model-group-hint muted">{group.hint}</p>
            <ol className="history-list">
              {group.items.map((item) => (
                <li key={item.id} data-testid="model-item" data-kind={item.type}>
                  <ItemView
                    item={item}
                    text={item.type === "compaction_summary" && item.id === last?.summary.id ? lastSummaryText : undefined}
                  />
                </li>
              ))}
            </ol>
          </section>
        ))
      )}
    </div>
  );
}
