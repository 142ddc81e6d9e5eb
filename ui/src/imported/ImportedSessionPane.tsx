import { Fragment, useEffect, useRef } from "react";
import type { ImportedCompactionCard } from "../bindings/ImportedCompactionCard";
import { LossAudit } from "./LossAudit";
import type { ImportedSessionView } from "../bindings/ImportedSessionView";
import type { ImportSource } from "../bindings/ImportSource";
import type { TranscriptEntry } from "../bindings/TranscriptEntry";
import { AssistantMessage, ThinkingBlock, UserMessage, type Author } from "../components/Messages";
import { ToolCallCard } from "../components/ToolCallCard";
import { ContextChart } from "../console/ContextChart";
import { TRIGGER_LABEL, chartFrom } from "../console/model";
import { exactTokens } from "../console/steps";
import { folderName, formatRelativeTime } from "../lib/format";
import { SOURCE_LABEL } from "./api";
import { SourceBadge, importedTitle } from "./ImportedList";

function entryId(entry: TranscriptEntry): string {
  return entry.kind === "tool" ? entry.id : "id" in entry ? entry.id : "";
}

/** An imported entry as Strata's transcript draws it, with nothing that writes. */
function EntryView({ entry, author }: { entry: TranscriptEntry; author: Author }) {
  switch (entry.kind) {
    case "user":
      return <UserMessage entry={entry} />;
    case "assistant":
      return <AssistantMessage entry={entry} author={author} />;
    case "thinking":
      return <ThinkingBlock entry={entry} />;
    case "tool":
      return <ToolCallCard tool={entry} />;
    default:
      // An imported session holds no other kind (strata-app's imported_view makes none).
      return null;
  }
}

/** The avatar of another agent's answers. */
const INITIALS: Record<ImportSource, string> = { codex: "Cx", claude_code: "CC", copilot_cli: "Co" };

function tokens(count: number | null | undefined): string {
  return count != null ? exactTokens(count) : "not recorded";
}

/** What a card's heading names it. */
function cardKind(card: ImportedCompactionCard): string {
  return card.kind.kind === "summary" ? "Summary" : "Eviction";
}

/** The divider where the other tool compacted, linking to its card. */
function Divider({ card }: { card: ImportedCompactionCard }) {
  return (
    <div className="compaction-divider imported-divider" data-testid="imported-divider" role="separator" aria-label={`Compaction ${card.number}`}>
      <a href={`#${card.id}`} className="imported-divider-link">
        {card.kind.kind === "summary" ? "Compacted" : "Old tool results cleared"} · {tokens(card.tokens_before)}
        {card.tokens_after != null && ` → ${exactTokens(card.tokens_after)}`}
      </a>
    </div>
  );
}

/** One compaction as the console shows Strata's: trigger, tokens before and after, the summary. */
export function ImportedCard({ card }: { card: ImportedCompactionCard }) {
  const headingId = `${card.id}-heading`;
  return (
    <article id={card.id} className="compaction-card" data-testid="imported-compaction-card" aria-labelledby={headingId}>
      <header className="compaction-card-head">
        <h4 id={headingId}>
          <span className="card-number">#{card.number}</span>
          <span className={`pill step-badge ${card.kind.kind === "summary" ? "step-summary" : "step-eviction"}`}>{cardKind(card)}</span>
          {card.trigger && (
            <span className={`pill trigger-badge trigger-${card.trigger}`} data-testid="compaction-trigger">
              {TRIGGER_LABEL[card.trigger]}
            </span>
          )}
        </h4>
        {card.at && (
          <time dateTime={card.at} className="muted compaction-card-when">
            {formatRelativeTime(card.at)}
          </time>
        )}
      </header>
      <dl className="card-stats">
        <div>
          <dt>Before</dt>
          <dd data-testid="imported-tokens-before">{tokens(card.tokens_before)}</dd>
        </div>
        <div>
          <dt>After</dt>
          <dd data-testid="imported-tokens-after">{tokens(card.tokens_after)}</dd>
        </div>
        {card.kind.kind === "eviction" ? (
          <div>
            <dt>Tool results cleared</dt>
            <dd>
              {card.kind.cleared_tools}
              {card.kind.tokens_saved != null && ` · ${exactTokens(card.kind.tokens_saved)} saved`}
            </dd>
          </div>
        ) : (
          card.items_before != null && (
            <div>
              <dt>Items</dt>
              <dd>
                {card.items_before} → {card.items_after ?? "?"}
              </dd>
            </div>
          )
        )}
      </dl>
      {card.kind.kind === "summary" && (
        <div className="imported-summary" data-testid="imported-summary">
          {card.summary.kind === "text" ? (
            <details>
              <summary>Summary</summary>
              <p className="imported-summary-text">{card.summary.text}</p>
            </details>
          ) : (
            <p className="muted">{card.summary.kind === "encrypted" ? "Summary encrypted by the provider: nothing readable." : "Summary not recorded in the file."}</p>
          )}
        </div>
      )}
      {card.loss && <LossAudit loss={card.loss} />}
    </article>
  );
}

interface ImportedSessionPaneProps {
  view: ImportedSessionView;
  /** The entry a search hit opened at. */
  target: string | null;
}

/**
 * Another agent's session, read-only: its transcript drawn with Strata's own message and tool
 * cards, dividers where the tool compacted, the compaction cards beside it, and a note where the
 * composer would be. Every string is the other tool's and is rendered as text.
 */
export function ImportedSessionPane({ view, target }: ImportedSessionPaneProps) {
  const { summary } = view;
  const list = useRef<HTMLDivElement>(null);
  const dividers = new Map<string, ImportedCompactionCard[]>();
  const trailing: ImportedCompactionCard[] = [];
  for (const card of view.compactions) {
    if (card.before_entry) dividers.set(card.before_entry, [...(dividers.get(card.before_entry) ?? []), card]);
    else trailing.push(card);
  }
  useEffect(() => {
    if (!target) return;
    const node = Array.from(list.current?.querySelectorAll<HTMLElement>("[data-entry-id]") ?? []).find((el) => el.dataset.entryId === target);
    node?.scrollIntoView({ block: "center" });
  }, [target, view]);
  const source = SOURCE_LABEL[summary.source];
  const author: Author = { name: source, initials: INITIALS[summary.source] };
  return (
    <main className="conversation imported-session" aria-label="Imported session">
      <header className="conversation-header imported-header">
        <div className="imported-title-line">
          <h2 className="conversation-title">{importedTitle(summary)}</h2>
          <SourceBadge source={summary.source} />
        </div>
        <p className="muted imported-meta">
          {[
            summary.workspace ? folderName(summary.workspace) : null,
            summary.models.join(", ") || null,
            summary.tool_version ? `${source} ${summary.tool_version}` : null,
            summary.updated_at ? formatRelativeTime(summary.updated_at) : null,
          ]
            .filter(Boolean)
            .join(" · ")}
        </p>
      </header>
      <div className="conversation-body">
        <div className="conversation-columns">
          <div className="imported-transcript" ref={list} aria-label="Transcript">
            {view.entries.map((entry) => {
              const id = entryId(entry);
              return (
                <Fragment key={id}>
                  {dividers.get(id)?.map((card) => <Divider key={card.id} card={card} />)}
                  <div className={id === target ? "message-row search-target" : "message-row"} data-entry-id={id}>
                    <EntryView entry={entry} author={author} />
                  </div>
                </Fragment>
              );
            })}
            {trailing.map((card) => (
              <Divider key={card.id} card={card} />
            ))}
            {view.warnings.skipped_lines > 0 && (
              <p className="muted imported-warning">
                {view.warnings.skipped_lines} {view.warnings.skipped_lines === 1 ? "line" : "lines"} of the file could not be read and are not shown.
              </p>
            )}
          </div>
          <aside className="imported-console" aria-label="Compactions">
            {view.chart.length > 1 && (
              <section className="imported-chart" aria-label="Context per request">
                <h3>Context</h3>
                <ContextChart
                  data={chartFrom(
                    view.chart,
                    view.compactions.map((card) => ({ round: card.after_round, summaryId: card.id, number: card.number, context_tokens: card.tokens_before ?? null })),
                    null,
                    null,
                  )}
                  onMarker={(id) => document.getElementById(id)?.scrollIntoView({ block: "nearest" })}
                />
              </section>
            )}
            <h3>Compactions</h3>
            {view.compactions.length === 0 ? (
              <p className="muted">{source} did not compact this session.</p>
            ) : (
              view.compactions.map((card) => <ImportedCard key={card.id} card={card} />)
            )}
          </aside>
        </div>
      </div>
      <p className="imported-readonly" role="note" data-testid="imported-readonly">
        Read-only: this is {source}'s session file. Strata shows it and never changes, moves or deletes it.
      </p>
    </main>
  );
}
