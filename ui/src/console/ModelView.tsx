import type { ConsoleView } from "../bindings/ConsoleView";
import { formatTokens } from "../lib/format";
import { ItemView } from "./ItemView";
import { summarySteps } from "./model";

/** The history the model sees now, grouped by the console fold from the core's replay of the session file. */
export function ModelView({ view }: { view: ConsoleView }) {
  const last = summarySteps(view.steps).at(-1)?.view ?? null;
  const groups = view.model_view;
  const count = groups.reduce((sum, group) => sum + group.items.length, 0);
  const { gauge } = view;
  const lastSummaryText = last?.summary_model_text;
  return (
    <div className="model-view" data-testid="model-view">
      <p className="console-lead">
        What the next request sends as its input: <strong>{count} {count === 1 ? "message" : "messages"}</strong>
        {gauge.tokens != null && (
          <>
            {" "}
            · {gauge.estimated ? "≈ " : ""}
            <strong>{formatTokens(gauge.tokens)}</strong> tokens {gauge.estimated ? "(estimate)" : "reported by the last model call"}
          </>
        )}
        {" "}
        · compacts at {formatTokens(gauge.threshold)}
        {gauge.context_window != null && <> · window {formatTokens(gauge.context_window)}</>}.
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
                    text={item.id === last?.summary.id ? lastSummaryText : undefined}
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
