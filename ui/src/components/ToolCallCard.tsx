import { useEffect, useId, useState } from "react";
import type { ApprovalDecision } from "../api/types";
import type { SandboxMode } from "../bindings/SandboxMode";
import { formatDuration, prettyJson } from "../lib/format";
import type { ToolState } from "../bindings/ToolState";
import { outputTruncated, type FullOutput, type ToolEntry } from "../state/transcript";
import { ApprovalPrompt } from "./ApprovalPrompt";
import { CopyButton } from "./CopyButton";
import { ItemActions, PinnedBadge, type ItemHistory } from "./ItemActions";
import { PlanSteps, planProgress } from "./PlanPanel";
import { ToolChanges } from "./changes/ToolChanges";

const STATUS_LABEL: Record<ToolState, string> = {
  running: "Running",
  awaiting_approval: "Needs approval",
  success: "Done",
  finished: "Done",
  error: "Failed",
  denied: "Denied",
  cancelled: "Cancelled",
  timed_out: "Timed out",
  interrupted: "Interrupted",
};

/** What the card says of an answered approval. */
const DECISION_TEXT: Record<ApprovalDecision, string> = {
  allow_once: "Allowed once.",
  allow_for_session: "Allowed for this session.",
  always_allow: "Always allowed: the rule was saved to this workspace's rules.",
  deny: "You denied this call.",
};

const STATUS_TONE: Record<ToolState, "busy" | "ok" | "warn" | "bad" | "muted"> = {
  running: "busy",
  awaiting_approval: "warn",
  success: "ok",
  finished: "ok",
  error: "bad",
  denied: "bad",
  cancelled: "muted",
  timed_out: "bad",
  interrupted: "muted",
};

/** A one-line hint of what the call does, from its arguments. */
function argumentHint(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed && typeof parsed === "object") {
      const values = parsed as Record<string, unknown>;
      const first = values.command ?? values.path ?? values.pattern ?? Object.values(values)[0];
      return typeof first === "string" ? first : "";
    }
  } catch {
    return "";
  }
  return "";
}

interface ToolCallCardProps {
  tool: ToolEntry;
  /** Answers this call's approval; absent when the session is read-only. */
  onDecide?: (callId: string, decision: ApprovalDecision) => void;
  /** The whole output, once fetched. */
  full?: FullOutput;
  /** Asks for the whole output; called when a card whose output was cut is expanded. */
  onExpand?: (callId: string) => void;
  /** Pin and Fork from here (issue 12), once the output is recorded. */
  history?: ItemHistory;
  /** The session's sandbox, which its approval prompt states. */
  sandbox?: SandboxMode | null;
  /** What its sandboxed commands reach, which the approval prompt states too. */
  network?: string | null;
}

/** The output section: the preview the entry carries, the whole text once it has come. */
function OutputSection({ tool, full }: { tool: ToolEntry; full?: FullOutput }) {
  if (!tool.output) return null;
  const cut = outputTruncated(tool);
  const text = cut && full?.state === "loaded" ? full.text : tool.output.preview;
  return (
    <div className="tool-section">
      <div className="tool-section-title">
        Output <CopyButton text={text} label="Copy output" />
      </div>
      <pre className="tool-pre">{text || "(no output)"}</pre>
      {cut && full?.state !== "loaded" && (
        <p className="tool-output-note" role="status">
          {full?.state === "failed"
            ? `The whole output could not be loaded: ${full.message}`
            : `Loading the whole output (${tool.output.chars.toLocaleString("en-US")} characters)…`}
        </p>
      )}
    </div>
  );
}

/** Durations shorter than this are not shown on a card. */
export const MIN_SHOWN_DURATION_MS = 10;

/** A tool call: name, arguments, output, duration and status, collapsible. */
export function ToolCallCard({ tool, onDecide, full, onExpand, history, sandbox = null, network = null }: ToolCallCardProps) {
  const waiting = tool.status === "awaiting_approval";
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const expanded = open || waiting;
  const cut = outputTruncated(tool);
  useEffect(() => {
    if (expanded && cut) onExpand?.(tool.call_id);
  }, [expanded, cut, onExpand, tool.call_id]);
  const plan = tool.plan;
  const hint = plan ? planProgress(plan) : argumentHint(tool.arguments);
  return (
    <section
      className={`tool-card tone-${STATUS_TONE[tool.status]}${tool.pinned ? " tool-card-pinned" : ""}`}
      aria-label={`Tool call ${tool.name}`}
      data-item-id={tool.item_id}
    >
      <div className="tool-card-head">
        <button
          type="button"
          className="tool-card-header"
          aria-expanded={expanded}
          aria-controls={bodyId}
          onClick={() => setOpen((value) => !value)}
        >
          <span className="chevron" aria-hidden="true">
            {expanded ? "▾" : "▸"}
          </span>
          <span className="tool-name">{tool.name}</span>
          {/* While it waits, the approval below says the action; once is enough. */}
          {hint && !waiting && <span className="tool-hint">{hint}</span>}
          <span className="tool-meta">
            {/* Under 10 ms says nothing a person needs: not shown. */}
            {tool.duration_ms != null && tool.duration_ms >= MIN_SHOWN_DURATION_MS && <span className="tool-duration">{formatDuration(tool.duration_ms)}</span>}
            <span className={`pill status-pill tone-${STATUS_TONE[tool.status]}`}>
              {tool.status === "running" && <span className="spinner" aria-hidden="true" />}
              {STATUS_LABEL[tool.status]}
            </span>
          </span>
        </button>
        {(tool.pinned || history) && (
          <span className="tool-card-actions">
            {tool.pinned && <PinnedBadge />}
            <ItemActions history={history} subject={`the ${tool.name} output`} />
          </span>
        )}
      </div>
      {expanded && (
        <div className="tool-card-body" id={bodyId}>
          {plan && (
            <div className="tool-section">
              <div className="tool-section-title">Plan</div>
              <PlanSteps plan={plan} />
              {plan.explanation && <p className="plan-explanation">{plan.explanation}</p>}
            </div>
          )}
          {tool.arguments &&
            !plan &&
            (waiting ? (
              // The approval says what the call does; its raw arguments are there, folded.
              <details className="tool-section tool-args-folded">
                <summary className="tool-section-title">Arguments (JSON)</summary>
                <pre className="tool-pre">{prettyJson(tool.arguments)}</pre>
              </details>
            ) : (
              <div className="tool-section">
                <div className="tool-section-title">
                  Arguments <CopyButton text={tool.arguments} label="Copy arguments" />
                </div>
                <pre className="tool-pre">{prettyJson(tool.arguments)}</pre>
              </div>
            ))}
          <OutputSection tool={tool} full={full} />
          <ToolChanges name={tool.name} callId={tool.call_id} />
          {tool.approval?.decision && (
            <p className="tool-decision">
              {DECISION_TEXT[tool.approval.decision]}
            </p>
          )}
        </div>
      )}
      {waiting && tool.approval && (
        <ApprovalPrompt
          tool={tool.name}
          summary={tool.approval.summary}
          detail={tool.approval.detail}
          onDecide={onDecide ? (decision) => onDecide(tool.call_id, decision) : undefined}
          sandbox={sandbox}
          network={network}
          proposedRules={tool.approval.proposed_rules ?? undefined}
        />
      )}
    </section>
  );
}
