import type { SearchHit } from "../bindings/SearchHit";
import type { SearchHitKind } from "../bindings/SearchHitKind";
import type { TextRange } from "../bindings/TextRange";
import { formatRelativeTime } from "../lib/format";
import { snippetParts } from "../lib/highlight";

const KIND_LABELS: Record<SearchHitKind, string> = {
  user: "You",
  assistant: "Assistant",
  tool_call: "Tool call",
  tool_output: "Tool output",
  summary: "Summary",
};

/** A hit's text as text, its matches marked at the ranges the backend gives. */
export function HitSnippet({ snippet, matches }: { snippet: string; matches: TextRange[] }) {
  return (
    <span className="search-hit-snippet">
      {snippetParts(snippet, matches).map((part, at) => (part.matched ? <mark key={at}>{part.text}</mark> : <span key={at}>{part.text}</span>))}
    </span>
  );
}

interface SearchHitsProps {
  hits: SearchHit[];
  total: number;
  /** More hits match than `total` counts: shown as "1000+". */
  totalCapped?: boolean;
  onPick: (hit: SearchHit) => void;
}

/**
 * Full-text hits in the sessions' text, from the library's index. Snippets
 * are session text: rendered as text (React escapes it), the matches marked
 * with spans cut at the ranges the backend gives, never as HTML.
 */
export function SearchHits({ hits, total, totalCapped = false, onPick }: SearchHitsProps) {
  if (hits.length === 0) return null;
  const counted = totalCapped ? `${total}+` : `${total}`;
  return (
    <section className="search-hits" aria-label="Matches in session text">
      <h2 className="search-hits-heading">
        In session text <span className="muted">{totalCapped || total > hits.length ? `${hits.length} of ${counted}` : counted}</span>
      </h2>
      <ul>
        {hits.map((hit, index) => (
          <li key={`${hit.session_id}:${hit.item_id ?? "none"}:${index}`}>
            <button type="button" className="search-hit" onClick={() => onPick(hit)}>
              {/* Cut with an ellipsis in a narrow sidebar: the whole title on hover. */}
              <span className="search-hit-title" title={hit.session_title?.trim() || "Untitled session"}>
                {hit.session_title?.trim() || "Untitled session"}
              </span>
              <span className="search-hit-meta">
                {KIND_LABELS[hit.kind]}
                <span aria-hidden="true"> · </span>
                <time dateTime={hit.updated_at}>{formatRelativeTime(hit.updated_at)}</time>
              </span>
              <HitSnippet snippet={hit.snippet} matches={hit.matches} />
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
