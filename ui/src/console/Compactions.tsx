import type { StepMoney } from "../bindings/StepMoney";
import { StepMoneyLine } from "./CostView";
import { useEffect, useRef, useState } from "react";
import { TipButton } from "../components/Tooltip";
import type { CompactionPolicy } from "../bindings/CompactionPolicy";
import type { CompactionView } from "../bindings/CompactionView";
import type { ConsoleStep } from "../bindings/ConsoleStep";
import type { LayeredCompaction } from "../bindings/LayeredCompaction";
import type { StepFigures } from "../bindings/StepFigures";
import type { UndoState } from "../bindings/UndoState";
import { FORK_BEFORE_HINT } from "../components/ItemActions";
import { formatDuration, formatRelativeTime, formatTokens } from "../lib/format";
import { BeforeAfterDialog } from "./BeforeAfterDialog";
import { EvictionCard } from "./EvictionCard";
import { FiguresLine } from "./Figures";
import { summarySteps, TRIGGER_LABEL } from "./model";
import { LossAuditView, StateSheetView } from "./StateSheetView";
import { exactTokens, POLICY_LABEL } from "./steps";
import { RefusedCard, UndoAction, UndoCard } from "./UndoSteps";

export { exactTokens };

function clockTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
}

/** How many compactions, what they freed (one estimator, marked ≈), and the last one's time and reason. */
export function CompactionsTile({ steps, onShowLast }: { steps: ConsoleStep[]; onShowLast: (summaryId: string) => void }) {
  const summaries = summarySteps(steps);
  const freed = steps.reduce((sum, step) => sum + (step.kind === "summary" || step.kind === "eviction" ? step.figures.freed.tokens : 0), 0);
  const last = summaries[summaries.length - 1];
  return (
    <div className="stat-tile" data-testid="compactions-tile" role="group" aria-label="Compactions summary">
      <div className="stat">
        <span className="stat-value" data-testid="compactions-count">
          {summaries.length}
        </span>
        <span className="stat-label">{summaries.length === 1 ? "compaction" : "compactions"}</span>
      </div>
      <div className="stat">
        <span className="stat-value" data-testid="compactions-reclaimed">
          {steps.some((step) => step.kind === "summary" || step.kind === "eviction") ? `≈ ${formatTokens(freed)}` : "–"}
        </span>
        <span className="stat-label" title="For each compaction and eviction: the estimate of the history before it minus the estimate after it, by the same estimator.">
          tokens freed
        </span>
        <span className="stat-note">estimated, history before minus after</span>
      </div>
      <div className="stat stat-last" data-testid="compactions-last">
        {last ? (
          <>
            <span className="stat-label">Last · {TRIGGER_LABEL[last.view.summary.metadata.trigger]}</span>
            <button type="button" className="stat-last-time link-button" onClick={() => onShowLast(last.view.summary.id)}>
              {formatRelativeTime(last.ts)} · {clockTime(last.ts)}
            </button>
            <span className="stat-note" title={last.view.summary.metadata.reason}>
              {last.view.summary.metadata.reason}
            </span>
          </>
        ) : (
          <>
            <span className="stat-label">Last</span>
            <span className="stat-note">None yet</span>
          </>
        )}
      </div>
    </div>
  );
}

interface CardProps {
  view: CompactionView;
  number: number;
  of: number;
  focused: boolean;
  onReveal: (summaryId: string) => void;
  /** The layered record (state sheet, loss audit), when it was a layered summary. */
  layered?: LayeredCompaction | null;
  policy?: CompactionPolicy;
  /** Offered on the latest compaction only (not yet undone). */
  onUndo?: () => Promise<void>;
  /** Why Undo would be refused now, when it would. */
  undoRefused?: string | null;
  figures: StepFigures;
  /** What it cost against what it saved, when priced. */
  money?: StepMoney | null;
  /** A later record undid this compaction. */
  undone?: boolean;
  running?: boolean;
  /** Forks a new session from just before this compaction. */
  onFork?: (number: number) => void;
}

/** One compaction: its numbers, its summary, and links to the transcript and the before/after view. */
export function CompactionCard({ view, number, of, focused, onReveal, layered = null, policy, onUndo, undoRefused = null, figures, money = null, undone = false, running = false, onFork }: CardProps) {
  const [expanded, setExpanded] = useState(false);
  const [sheetOpen, setSheetOpen] = useState(false);
  const [comparing, setComparing] = useState(false);
  const card = useRef<HTMLElement>(null);
  const { metadata } = view.summary;
  const usage = metadata.summarizer_usage;
  const headingId = `compaction-card-${view.summary.id}`;

  useEffect(() => {
    if (!focused || !card.current) return;
    // Scroll only the console (scrollIntoView would also move the app's own boxes).
    const el = card.current;
    const scroller = el.closest<HTMLElement>(".console-body");
    if (scroller) {
      const box = el.getBoundingClientRect();
      const view = scroller.getBoundingClientRect();
      scroller.scrollTo({ top: scroller.scrollTop + box.top - view.top - Math.max(16, (view.height - box.height) / 2), behavior: "smooth" });
    }
    el.focus({ preventScroll: true });
  }, [focused]);

  return (
    <article
      ref={card}
      className={`compaction-card${focused ? " focused" : ""}`}
      data-testid="compaction-card"
      data-summary-id={view.summary.id}
      aria-labelledby={headingId}
      tabIndex={-1}
      onClick={(event) => {
        // The card as a whole links to its divider; its own buttons do their own thing.
        if ((event.target as HTMLElement).closest("button, a, summary, [data-no-reveal]")) return;
        onReveal(view.summary.id);
      }}
    >
      <header className="compaction-card-head">
        <h4 id={headingId}>
          <span className="card-number">#{number}</span>
          <span className="pill step-badge step-summary">Summary</span>
          <span className={`pill trigger-badge trigger-${metadata.trigger}`} data-testid="compaction-trigger">
            {TRIGGER_LABEL[metadata.trigger]}
          </span>
          {policy && (
            <span className={`pill policy-badge policy-${policy}`} data-testid="compaction-policy">
              {POLICY_LABEL[policy]}
            </span>
          )}
          {undone && (
            <span className="pill step-badge step-undo" data-testid="compaction-undone">
              Undone
            </span>
          )}
          <span className="visually-hidden">
            Compaction {number} of {of}
          </span>
        </h4>
        <span className="compaction-card-when">
          <time dateTime={view.ts} className="muted" title={new Date(view.ts).toLocaleString()}>
            {clockTime(view.ts)} · {formatRelativeTime(view.ts)}
          </time>
          <TipButton
            className="link-button"
            aria-label={`Show compaction ${number} in the transcript`}
            tip="Scroll the transcript to this compaction"
            onClick={() => onReveal(view.summary.id)}
          >
            <span aria-hidden="true">↗</span> Transcript
          </TipButton>
        </span>
      </header>
      <dl className="card-stats">
        <div>
          <dt>Reported at</dt>
          <dd data-testid="compaction-context-tokens">
            {metadata.context_tokens != null ? exactTokens(metadata.context_tokens) : "–"}
          </dd>
        </div>
        <div>
          <dt>Threshold</dt>
          <dd data-testid="compaction-threshold">{metadata.threshold != null ? exactTokens(metadata.threshold) : "–"}</dd>
        </div>
        <div>
          <dt>Messages summarised</dt>
          <dd data-testid="compaction-removed">{metadata.removed}</dd>
        </div>
        <div>
          <dt>Messages kept</dt>
          <dd data-testid="compaction-kept">{metadata.kept}</dd>
        </div>
      </dl>
      <p className="card-reason">{metadata.reason}</p>
      <p className="card-meta">
        <span title="The model that wrote the summary">{metadata.summarizer_model}</span>
        {usage && (
          <span data-testid="compaction-summarizer-usage">
            {usage.input_tokens != null ? `${formatTokens(usage.input_tokens)} in` : ""}
            {usage.input_tokens != null && usage.output_tokens != null ? " · " : ""}
            {usage.output_tokens != null ? `${formatTokens(usage.output_tokens)} out` : ""}
          </span>
        )}
        <span data-testid="compaction-duration">{formatDuration(metadata.duration_ms)}</span>
      </p>
      <FiguresLine figures={figures} testId="compaction-estimate" />
      {money && <StepMoneyLine money={money} />}
      {layered && layered.folded_out > 0 && (
        <p className="card-meta" data-testid="compaction-folded-out">
          {layered.folded_out} oldest {layered.folded_out === 1 ? "original" : "originals"} left out of the summariser's input
        </p>
      )}
      {layered && <LossAuditView audit={layered.loss_audit} />}
      <div className="card-actions">
        <button
          type="button"
          className="button small ghost"
          aria-expanded={expanded}
          aria-controls={`${headingId}-summary`}
          onClick={() => setExpanded(!expanded)}
        >
          <span aria-hidden="true" className={`chevron${expanded ? " open" : ""}`}>
            ▸
          </span>
          Summary sent to the model
        </button>
        {layered && (
          <button
            type="button"
            className="button small ghost"
            aria-expanded={sheetOpen}
            aria-controls={`${headingId}-sheet`}
            onClick={() => setSheetOpen(!sheetOpen)}
          >
            <span aria-hidden="true" className={`chevron${sheetOpen ? " open" : ""}`}>
              ▸
            </span>
            State sheet
          </button>
        )}
        <button type="button" className="button small ghost" onClick={() => setComparing(true)}>
          Before / after
        </button>
        {onUndo && <UndoAction number={number} onUndo={onUndo} running={running} refusedBecause={undoRefused} />}
        {onFork && (
          <TipButton className="button small ghost" tip={FORK_BEFORE_HINT} onClick={() => onFork(number)}>
            Fork from before this
          </TipButton>
        )}
      </div>
      {layered && sheetOpen && (
        <div id={`${headingId}-sheet`} data-no-reveal>
          <StateSheetView sheet={layered.state_sheet} />
        </div>
      )}
      {expanded && (
        <div id={`${headingId}-summary`} className="card-summary" data-testid="compaction-summary" data-no-reveal>
          {view.summary_model_text}
        </div>
      )}
      {comparing && <BeforeAfterDialog view={view} number={number} onClose={() => setComparing(false)} />}
    </article>
  );
}

interface ListProps {
  /** Summaries, evictions, undos and refusals in file order, as the console fold made them. */
  steps: ConsoleStep[];
  /** Whether Undo would go through now, and on which summary. */
  undo: UndoState | null;
  focused: string | null;
  onReveal: (summaryId: string) => void;
  /** Undoes the latest compaction (its card offers it). */
  onUndo?: () => Promise<void>;
  running?: boolean;
  onFork?: (number: number) => void;
  /** Each step's cost against its savings (the gauge's), by record index. */
  money?: StepMoney[];
}

/** Every compaction step, newest first: summaries, evictions, undos and refusals. */
export function CompactionList({ steps, undo, focused, onReveal, onUndo, running = false, onFork, money = [] }: ListProps) {
  const moneyAt = (index: number) => money.find((m) => m.record_index === index) ?? null;
  if (steps.length === 0) {
    return (
      <div className="console-hint" data-testid="compactions-empty">
        <strong>No compactions yet.</strong> When the context reaches the threshold (or you type <code>/compact</code>), Strata compacts
        it: under the layered policy it first replaces old tool outputs by placeholders, then summarises with a state sheet; each step
        appears here with what it removed, kept and cost.
      </div>
    );
  }
  const summaries = summarySteps(steps);
  const latest = summaries[summaries.length - 1];
  const available = undo?.kind === "available" ? undo.summary_id : null;
  const refused = undo?.kind === "refused" ? undo.reason : null;
  return (
    <div className="compaction-list" data-testid="compaction-list">
      {[...steps].reverse().map((step) => {
        switch (step.kind) {
          case "summary": {
            const id = step.view.summary.id;
            // Undo sits on the latest summary: offered when it would go through, disabled with the
            // reason when it would be refused, absent once that summary was undone.
            const offered = onUndo && (available === id || (latest?.view.summary.id === id && !step.undone && refused !== null));
            return (
              <CompactionCard
                key={id}
                view={step.view}
                number={step.number}
                of={summaries.length}
                focused={focused === id}
                onReveal={onReveal}
                layered={step.layered ?? null}
                policy={step.policy}
                figures={step.figures}
                money={moneyAt(step.record_index)}
                onUndo={offered ? onUndo : undefined}
                undoRefused={available === id ? null : refused}
                undone={step.undone}
                running={running}
                onFork={onFork}
              />
            );
          }
          case "eviction":
            return <EvictionCard key={`eviction-${step.record_index}`} eviction={step.eviction} number={step.number} ts={step.ts} figures={step.figures} />;
          case "undo":
            return <UndoCard key={`undo-${step.record_index}`} undone={step.undone} undid={step.undid ?? null} ts={step.ts} />;
          case "refused":
            return <RefusedCard key={`refused-${step.seq}`} dropped={step.dropped} message={step.message} />;
        }
      })}
    </div>
  );
}
