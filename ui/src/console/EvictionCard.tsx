import { useId, useState } from "react";
import type { ToolOutputsEvicted } from "../bindings/ToolOutputsEvicted";
import { formatRelativeTime } from "../lib/format";
import { ItemIdChip } from "./ItemIdChip";
import { TRIGGER_LABEL } from "./model";
import type { StepFigures } from "../bindings/StepFigures";
import { FiguresLine } from "./Figures";
import { exactTokens } from "./steps";

interface EvictionCardProps {
  eviction: ToolOutputsEvicted;
  number: number;
  ts: string;
  figures: StepFigures;
}

/** One tool-output eviction: how many outputs, the tokens it freed (estimates), and each placeholder. */
export function EvictionCard({ eviction, number, ts, figures }: EvictionCardProps) {
  const [open, setOpen] = useState(false);
  const headingId = useId();
  const listId = useId();
  const count = eviction.evicted.length;
  return (
    <article className="compaction-card eviction-card" data-testid="eviction-card" aria-labelledby={headingId}>
      <header className="compaction-card-head">
        <h4 id={headingId}>
          <span className="card-number">E{number}</span>
          <span className="pill step-badge step-eviction">Old tool outputs replaced</span>
          <span className={`pill trigger-badge trigger-${eviction.trigger}`}>{TRIGGER_LABEL[eviction.trigger]}</span>
          <span className="visually-hidden">Tool-output eviction {number}</span>
        </h4>
        <time dateTime={ts} className="muted compaction-card-when" title={new Date(ts).toLocaleString()}>
          {formatRelativeTime(ts)}
        </time>
      </header>
      <dl className="card-stats">
        <div>
          <dt>Outputs replaced</dt>
          <dd data-testid="eviction-count">{count}</dd>
        </div>
        <div>
          <dt>Tokens freed</dt>
          <dd data-testid="eviction-freed">≈ {exactTokens(figures.freed.tokens)}</dd>
        </div>
        <div>
          <dt>Reported at</dt>
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
      <FiguresLine figures={figures} testId="eviction-estimate" />
      <div className="card-actions">
        <button type="button" className="button small ghost" aria-expanded={open} aria-controls={listId} onClick={() => setOpen(!open)}>
          <span aria-hidden="true" className={`chevron${open ? " open" : ""}`}>
            ▸
          </span>
          {count === 1 ? "The replaced output" : `The ${count} replaced outputs`}
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
