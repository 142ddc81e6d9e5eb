import { useId, useState } from "react";
import type { ToolOutputsEvicted } from "../bindings/ToolOutputsEvicted";
import { formatRelativeTime } from "../lib/format";
import { ItemIdChip } from "./ItemIdChip";
import { TRIGGER_LABEL } from "./model";
import { drift, exactTokens, formatDrift } from "./steps";

interface EvictionCardProps {
  eviction: ToolOutputsEvicted;
  number: number;
  ts: string;
  nextContextTokens: number | null;
}

/** One tool-output eviction: how many outputs, the tokens it freed (estimates), and each placeholder. */
export function EvictionCard({ eviction, number, ts, nextContextTokens }: EvictionCardProps) {
  const [open, setOpen] = useState(false);
  const headingId = useId();
  const listId = useId();
  const freed = Math.max(0, eviction.estimated_before - eviction.estimated_after);
  const d = drift(eviction.estimated_after, nextContextTokens);
  const count = eviction.evicted.length;
  return (
    <article className="compaction-card eviction-card" data-testid="eviction-card" aria-labelledby={headingId}>
      <header className="compaction-card-head">
        <h4 id={headingId}>
          <span className="card-number">E{number}</span>
          <span className="pill step-badge step-eviction">Eviction</span>
          <span className={`pill trigger-badge trigger-${eviction.trigger}`}>{TRIGGER_LABEL[eviction.trigger]}</span>
          <span className="visually-hidden">Tool-output eviction {number}</span>
        </h4>
        <time dateTime={ts} className="muted compaction-card-when" title={new Date(ts).toLocaleString()}>
          {formatRelativeTime(ts)}
        </time>
      </header>
      <dl className="card-stats">
        <div>
          <dt>Outputs evicted</dt>
          <dd data-testid="eviction-count">{count}</dd>
        </div>
        <div>
          <dt>Tokens freed (est.)</dt>
          <dd data-testid="eviction-freed">{exactTokens(freed)}</dd>
        </div>
        <div>
          <dt>Triggered at</dt>
          <dd>{eviction.context_tokens != null ? exactTokens(eviction.context_tokens) : "–"}</dd>
        </div>
        <div>
          <dt>Threshold</dt>
          <dd>{exactTokens(eviction.threshold)}</dd>
        </div>
      </dl>
      <p className="card-reason">
        No model call: the oldest tool outputs became short placeholders, down to the low-water mark of {exactTokens(eviction.low_water)} tokens. The
        originals stay in the session file.
      </p>
      <p className="card-meta">
        <span data-testid="eviction-estimate">
          ≈ {exactTokens(eviction.estimated_before)} → {exactTokens(eviction.estimated_after)} tokens (estimates)
        </span>
        {d && (
          <span data-testid="eviction-drift" title="The estimate after eviction against the context tokens the next round reported">
            next round reported {exactTokens(nextContextTokens ?? 0)} · drift {formatDrift(d)}
          </span>
        )}
      </p>
      <div className="card-actions">
        <button type="button" className="button small ghost" aria-expanded={open} aria-controls={listId} onClick={() => setOpen(!open)}>
          <span aria-hidden="true" className={`chevron${open ? " open" : ""}`}>
            ▸
          </span>
          {count === 1 ? "The evicted output" : `The ${count} evicted outputs`}
        </button>
      </div>
      {open && (
        <ul id={listId} className="evicted-list" data-testid="evicted-list">
          {eviction.evicted.map((item) => (
            <li key={item.item_id}>
              <span className="evicted-head">
                <strong>{item.tool}</strong> <span className="muted">{exactTokens(item.chars)} characters</span>
                <ItemIdChip id={item.item_id} />
              </span>
              <code className="evicted-placeholder">{item.placeholder}</code>
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}
