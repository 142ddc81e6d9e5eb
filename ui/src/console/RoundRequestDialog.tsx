import { useEffect, useState } from "react";
import * as api from "../api/commands";
import { toCommandFailure } from "../api/commands";
import type { RoundView } from "../bindings/RoundView";
import { Modal } from "../components/Modal";
import { formatTokens } from "../lib/format";
import { ItemView } from "./ItemView";
import { usageText } from "./model";
import { drift, formatDrift } from "./steps";

interface RoundRequestDialogProps {
  sessionId: string;
  /** 1-based round number. */
  round: number;
  onClose: () => void;
}

/** A round's exact request, rebuilt by the core's replay (`round_requests`). */
export function RoundRequestDialog({ sessionId, round, onClose }: RoundRequestDialogProps) {
  const [view, setView] = useState<RoundView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    api
      .roundRequests(sessionId, round - 1, 1)
      .then((page) => {
        if (!live) return;
        const found = page.rounds[0];
        if (found) setView(found);
        else setError(`Round ${round} is not in the session file.`);
      })
      .catch((failure: unknown) => live && setError(toCommandFailure(failure).message));
    return () => {
      live = false;
    };
  }, [sessionId, round]);
  return (
    <Modal title={`Round ${round}: the exact request`} onClose={onClose} wide className="modal-xwide">
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : !view ? (
        <p className="muted" role="status">
          Rebuilding the request from the session file…
        </p>
      ) : (
        <RoundRequest view={view} />
      )}
    </Modal>
  );
}

export function RoundRequest({ view }: { view: RoundView }) {
  const { request, round } = view;
  let lead = 0;
  while (lead < request.input.length) {
    const item = request.input[lead];
    if (!item || item.type !== "message" || (item.role !== "system" && item.role !== "developer")) break;
    lead += 1;
  }
  const instructions = request.input.slice(0, lead);
  const input = request.input.slice(lead);
  // The estimate the agent recorded when it sent the round, against the input the provider reported.
  const roundDrift = drift(view.estimated_input_tokens, view.usage?.input_tokens);
  return (
    <div className="round-request" data-testid="round-request">
      <dl className="card-stats request-stats">
        <div>
          <dt>Model</dt>
          <dd>{request.model}</dd>
        </div>
        <div>
          <dt>Input items</dt>
          <dd>{request.input.length}</dd>
        </div>
        <div>
          <dt>Tools</dt>
          <dd>{request.tools.length}</dd>
        </div>
        <div>
          <dt>Reported</dt>
          <dd>{view.context_tokens != null ? formatTokens(view.context_tokens) : "–"}</dd>
        </div>
        <div>
          <dt>Input estimate</dt>
          <dd data-testid="round-estimate">
            {view.estimated_input_tokens != null ? `≈ ${formatTokens(view.estimated_input_tokens)}` : <span className="muted">not recorded</span>}
            {roundDrift && <span className="muted"> · drift {formatDrift(roundDrift)}</span>}
          </dd>
        </div>
      </dl>
      <p className="muted request-meta">
        {round.provider_kind} · tool choice {request.tool_choice ? request.tool_choice.type : "none sent"}
        {request.max_output_tokens != null ? ` · max output ${request.max_output_tokens.toLocaleString("en-US")} tokens` : ""} · sent{" "}
        {new Date(view.ts).toLocaleString()}
        {view.usage ? ` · usage: ${usageText(view.usage)}` : " · no usage reported"}
      </p>
      {!view.input_consistent && (
        <p className="form-error" role="alert">
          The round record says {round.input_items} items were sent, but replay has {request.input.length} at this point.
        </p>
      )}
      <div className="request-columns">
        <section aria-label="Instructions and input" className="request-column">
          <h3>Instructions</h3>
          {instructions.length ? (
            <ol className="history-list">
              {instructions.map((item) => (
                <li key={item.id}>
                  <ItemView item={item} />
                </li>
              ))}
            </ol>
          ) : (
            <p className="muted">No leading system message.</p>
          )}
          <h3>
            Input <span className="muted">· {input.length} items</span>
          </h3>
          <ol className="history-list">
            {input.map((item) => (
              <li key={item.id}>
                <ItemView item={item} />
              </li>
            ))}
          </ol>
        </section>
        <section aria-label="Tools" className="request-column">
          <h3>
            Tools <span className="muted">· {request.tools.length}</span>
          </h3>
          {request.tools.length === 0 && <p className="muted">No tools were offered.</p>}
          {request.tools.map((tool) => (
            <details key={tool.name} className="tool-spec">
              <summary>
                <code>{tool.name}</code> <span className="muted">{tool.description}</span>
              </summary>
              <pre>{JSON.stringify(tool.parameters, null, 2)}</pre>
            </details>
          ))}
        </section>
      </div>
    </div>
  );
}
