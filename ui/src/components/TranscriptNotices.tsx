import type { Entry } from "../state/transcript";
import { TipButton } from "./Tooltip";
import { compactionAnchor } from "../state/transcript";
import { formatDuration, formatTokens } from "../lib/format";
import type { TurnOutcome } from "../api/types";
import type { Recovery } from "../bindings/Recovery";
import type { ToolOutputsEvicted } from "../bindings/ToolOutputsEvicted";
import { UndoAction } from "../console/UndoSteps";
import { FORK_BEFORE_HINT } from "./ItemActions";

type Of<K extends Entry["kind"]> = Extract<Entry, { kind: K }>;

interface CompactionDividerProps {
  entry: Of<"compaction">;
  onInspect?: (summaryId: string) => void;
  /** Asks to fork a new session from just before this compaction, with the original items. */
  onFork?: (summaryId: string) => void;
  /** Undoes this compaction (the console's Undo: it asks first, a refusal shows in place); given for the latest undoable one only. */
  onUndo?: () => Promise<void>;
}

/** The part of a boundary that came first: older tool outputs replaced by placeholders, which did not free enough. */
function evictedFirst(eviction: ToolOutputsEvicted): string {
  const count = eviction.evicted.length;
  const saved = Math.max(0, eviction.estimated_before - eviction.estimated_after);
  return `First ${count} older tool ${count === 1 ? "output was" : "outputs were"} replaced by placeholders (saved ≈ ${formatTokens(saved)} tokens); that was not enough, so the history was summarised`;
}

/**
 * Where the history was compacted; the debug console links here and back. When an eviction came
 * first at the same boundary, the one divider says both (Rust folded the eviction's line into it).
 */
export function CompactionDivider({ entry, onInspect, onFork, onUndo }: CompactionDividerProps) {
  const { metadata, id: summaryId } = entry.summary;
  const trigger =
    metadata.trigger === "manual" ? "Compacted on request" : metadata.trigger === "context_overflow" ? "Compacted after a context overflow" : "Context compacted";
  const tokens =
    metadata.context_tokens != null && metadata.threshold != null
      ? ` at ${formatTokens(metadata.context_tokens)} tokens (threshold ${formatTokens(metadata.threshold)})`
      : "";
  return (
    <div className="compaction-divider" id={compactionAnchor(summaryId)} role="separator" aria-label={trigger}>
      <span className="divider-line" aria-hidden="true" />
      <span className="divider-label">
        <span className="divider-title">
          {trigger}
          {tokens}
        </span>
        {entry.eviction && (
          <span className="divider-detail" data-testid="divider-eviction">
            {evictedFirst(entry.eviction)}
          </span>
        )}
        <span className="divider-detail">
          {metadata.removed} {metadata.removed === 1 ? "item" : "items"} summarised, {metadata.kept} kept · {formatDuration(metadata.duration_ms)}
          {entry.undone && <span data-testid="divider-undone"> · undone: the model sees the history from before it again</span>}
        </span>
        {(onInspect || onFork || onUndo) && (
          <span className="divider-actions">
            {onInspect && (
              <button type="button" className="link-button" onClick={() => onInspect(summaryId)}>
                Inspect in console
              </button>
            )}
            {onFork && (
              <TipButton className="link-button" tip={FORK_BEFORE_HINT} onClick={() => onFork(summaryId)}>
                Fork from before this
              </TipButton>
            )}
            {onUndo && <UndoAction onUndo={onUndo} running={false} />}
          </span>
        )}
      </span>
      <span className="divider-line" aria-hidden="true" />
    </div>
  );
}

const RECOVERY_LABEL: Record<Recovery, string> = {
  retry: "Retry",
  compact_and_retry: "Compact and retry",
  open_profile_settings: "Open profile settings",
  switch_profile: "Switch profile",
};

/**
 * An error in place. A provider failure reads as Rust classified it: one sentence, the ways out
 * (offered on the latest error of a live, idle session only), and the raw text under Details.
 */
export function ErrorNotice({ entry, onRecover }: { entry: Of<"error">; onRecover?: (recovery: Recovery) => void }) {
  const failure = entry.failure;
  if (!failure) {
    return (
      <div className="notice notice-error" role="alert">
        <span className="notice-icon" aria-hidden="true">
          !
        </span>
        <div>
          <strong>Something went wrong</strong>
          <p>{entry.message}</p>
        </div>
      </div>
    );
  }
  return (
    <div className="notice notice-error" role="alert" data-testid="provider-failure" data-failure={failure.kind}>
      <span className="notice-icon" aria-hidden="true">
        !
      </span>
      <div className="failure-body">
        <strong className="failure-sentence">{failure.sentence}</strong>
        {onRecover && failure.recoveries.length > 0 && (
          <div className="failure-actions" role="group" aria-label="What to do">
            {failure.recoveries.map((recovery, index) => (
              <button
                key={recovery}
                type="button"
                className={`button small${index === 0 ? " primary" : ""}`}
                data-recovery={recovery}
                onClick={() => onRecover(recovery)}
              >
                {RECOVERY_LABEL[recovery]}
              </button>
            ))}
          </div>
        )}
        <details className="failure-details">
          <summary>Details</summary>
          <pre>{failure.details}</pre>
        </details>
      </div>
    </div>
  );
}

const COMPACTION_PROBLEM_TITLE: Record<Of<"compaction_problem">["problem"], string> = {
  summary_failed: "Compaction did not happen — its summary failed",
  refused: "Compaction refused — it would have dropped what must stay",
};

/** A compaction that did not happen. The conversation goes on, so this is a
 * warning, not an error. */
export function CompactionProblemNotice({ entry }: { entry: Of<"compaction_problem"> }) {
  return <WarningNotice title={COMPACTION_PROBLEM_TITLE[entry.problem]} text={entry.message} icon="!" testId="compaction-problem" />;
}

/** A warning in the transcript: the conversation goes on (a status, not an alert). */
function WarningNotice({ title, text, icon, testId, className = "" }: { title: string; text: string; icon: string; testId: string; className?: string }) {
  return (
    <div className={`notice notice-warning ${className}`.trim()} role="status" data-testid={testId}>
      <span className="notice-icon" aria-hidden="true">
        {icon}
      </span>
      <div>
        <strong>{title}</strong>
        <p>{text}</p>
      </div>
    </div>
  );
}

export function RetryNotice({ entry }: { entry: Of<"retry"> }) {
  // One line for a run of retries (Rust replaces it as each comes); the cause is the error's.
  const delay = formatDuration(entry.delay_ms);
  const retries = Math.max(1, entry.attempt - 1);
  return (
    <div className={`notice notice-retry${entry.settled ? " settled" : ""}`} role="status" data-testid="retry-line">
      {!entry.settled && <span className="spinner" aria-hidden="true" />}
      <span>{entry.settled ? `Retried ${retries} ${retries === 1 ? "time" : "times"}` : `Retrying in ${delay} (attempt ${entry.attempt} of ${entry.of})…`}</span>
    </div>
  );
}

const OUTCOME_TEXT: Record<TurnOutcome, string> = {
  completed: "Turn completed",
  cancelled: "Stopped. The turn was cancelled.",
  failed: "The turn failed.",
  round_limit: "Stopped at the round limit with tool calls still coming. Send a message to continue.",
};

/** How a turn ended, when it did not complete; a completed turn's end draws nothing here
 * (the printed transcript says how many rounds it took). */
export function TurnEndNotice({ entry }: { entry: Of<"turn_end"> }) {
  if (entry.outcome === "completed") return null;
  return (
    <div className={`notice notice-turn outcome-${entry.outcome}`} role="status">
      {OUTCOME_TEXT[entry.outcome]}
    </div>
  );
}

const RECOVERY_TITLE: Record<Of<"recovery">["notice"]["kind"], string> = {
  torn_tail_moved_aside: "Repaired when the session was reopened",
  aborted_calls: "Repaired when the session was reopened",
  torn_tail_ignored: "Part of the session file could not be read",
  skipped_record: "Part of the session file could not be read",
};

/** What reading or reopening the session file found damaged and did about it (a torn last
 * line moved aside, tool calls of an earlier run recorded as aborted). The sentence is Rust's. */
export function RecoveryNotice({ entry }: { entry: Of<"recovery"> }) {
  return <WarningNotice title={RECOVERY_TITLE[entry.notice.kind]} text={entry.text} icon="↺" testId="recovery-notice" className="notice-recovery" />;
}

/** Something the app tells the person in place, e.g. why `/compact` did nothing. */
export function InfoNotice({ entry }: { entry: Of<"notice"> }) {
  return (
    <div className="notice notice-turn" role="status">
      {entry.text}
    </div>
  );
}

/**
 * Older tool outputs the layered policy replaced by placeholders (no model
 * call). Every figure is the eviction's own, made in Rust by the estimator
 * the gauge uses (not a character count here), and marked as an estimate.
 */
export function EvictionNotice({ entry }: { entry: Of<"eviction"> }) {
  const { evicted, estimated_before, estimated_after } = entry.eviction;
  const saved = Math.max(0, estimated_before - estimated_after);
  // A before and after that read the same ("1.6k → 1.6k") say nothing: then only what was saved.
  const before = formatTokens(estimated_before);
  const after = formatTokens(estimated_after);
  return (
    <div className="notice notice-turn notice-eviction" role="status">
      {evicted.length} older tool {evicted.length === 1 ? "output" : "outputs"} (≈ {formatTokens(saved)} tokens) replaced by
      placeholders{before === after ? ` · saved ≈ ${formatTokens(saved)} tokens (estimate)` : ` · ≈ ${before} → ≈ ${after} tokens (estimates)`}
    </div>
  );
}

/**
 * Where a fork's copied records end: Rust's sentence (no ids in it) and a link that opens the
 * parent, named by its title when the library lists it.
 */
export function ForkNotice({ entry, parentTitle, onOpenParent }: { entry: Of<"fork">; parentTitle?: string; onOpenParent?: (sessionId: string) => void }) {
  const parent = entry.origin.parent_session_id;
  return (
    <div className="notice notice-turn notice-fork" role="status" data-testid="fork-notice">
      <span>{entry.text}.</span>{" "}
      {onOpenParent && parentTitle !== undefined ? (
        <button type="button" className="link-button" data-testid="fork-parent-link" onClick={() => onOpenParent(parent)}>
          Open the parent session, “{parentTitle}”
        </button>
      ) : (
        <span className="muted">The parent session is no longer in the library.</span>
      )}
    </div>
  );
}
