// Find in the transcript (Ctrl+F): the matches over the loaded entries' text, and their places
// in the rows the virtualised list has rendered, for the CSS Custom Highlight API.
import type { Entry } from "../state/transcript";

/** One match: the entry (its index in the list) and which occurrence in its text. */
export interface FindMatch {
  entry: number;
  occurrence: number;
}

/** The text find looks in: the person's and the model's messages, as they read them. */
export function searchableText(entry: Entry): string | null {
  return entry.kind === "user" || entry.kind === "assistant" ? entry.text : null;
}

const fold = (text: string) => text.toLocaleLowerCase();

/** How many times `needle` (already folded, not empty) occurs in `text`, without overlaps. */
function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = fold(text).indexOf(needle); at !== -1; at = fold(text).indexOf(needle, at + needle.length)) count++;
  return count;
}

/** Every match of `query` (case-insensitive; blank finds nothing), in transcript order. */
export function findMatches(entries: readonly Entry[], query: string): FindMatch[] {
  const needle = fold(query.trim());
  if (!needle) return [];
  const matches: FindMatch[] = [];
  entries.forEach((entry, index) => {
    const text = searchableText(entry);
    if (text === null) return;
    const count = occurrences(text, needle);
    for (let occurrence = 0; occurrence < count; occurrence++) matches.push({ entry: index, occurrence });
  });
  return matches;
}

/** "2 of 5", or what to say when there is nothing to count. */
export function matchCount(query: string, matches: number, current: number): string {
  if (!query.trim()) return "";
  if (matches === 0) return "No matches";
  return `${current + 1} of ${matches}`;
}

/** Where a row's message text is rendered (not its buttons or notes). */
const TEXT_SELECTOR = ".user-text, .assistant-body > .markdown";

/**
 * The ranges of `query` in the rendered row `row` (a `.message-row`), in order. Text split over
 * elements (a word half in bold) is not found there, though the count above includes it.
 */
export function rangesIn(row: Element, query: string): Range[] {
  const needle = fold(query.trim());
  if (!needle) return [];
  const ranges: Range[] = [];
  for (const root of Array.from(row.querySelectorAll(TEXT_SELECTOR))) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (node.parentElement?.closest("button") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? "";
      const folded = fold(text);
      // A folding that changes lengths would misplace the ranges: such a node is skipped.
      if (folded.length !== text.length) continue;
      for (let at = folded.indexOf(needle); at !== -1; at = folded.indexOf(needle, at + needle.length)) {
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + needle.length);
        ranges.push(range);
      }
    }
  }
  return ranges;
}

/** The highlight names app.css styles (`::highlight(...)`). */
const ALL = "transcript-find";
const CURRENT = "transcript-find-current";

type Highlights = { set(name: string, value: unknown): void; delete(name: string): void };
function registry(): { highlights: Highlights; Highlight: new (...ranges: Range[]) => unknown } | null {
  const css = (globalThis as { CSS?: { highlights?: Highlights } }).CSS;
  const Highlight = (globalThis as { Highlight?: new (...ranges: Range[]) => unknown }).Highlight;
  return css?.highlights && Highlight ? { highlights: css.highlights, Highlight } : null;
}

/**
 * Marks every match rendered in `list` and, brighter, the current one (`current`'s entry and
 * occurrence); returns the current match's range when it is rendered. Without the Highlight API
 * (not in jsdom) nothing is painted, the range is still returned.
 */
export function paintMatches(list: Element, query: string, current: FindMatch | null): Range | null {
  const all: Range[] = [];
  let currentRange: Range | null = null;
  for (const row of Array.from(list.querySelectorAll<HTMLElement>(".message-row[data-index]"))) {
    const ranges = rangesIn(row, query);
    all.push(...ranges);
    if (current && Number(row.dataset.index) === current.entry) currentRange = ranges[Math.min(current.occurrence, ranges.length - 1)] ?? null;
  }
  const api = registry();
  if (api) {
    api.highlights.set(ALL, new api.Highlight(...all.filter((range) => range !== currentRange)));
    if (currentRange) api.highlights.set(CURRENT, new api.Highlight(currentRange));
    else api.highlights.delete(CURRENT);
  }
  return currentRange;
}

/** Takes the marks away (the find bar closed). */
export function clearMatches() {
  const api = registry();
  api?.highlights.delete(ALL);
  api?.highlights.delete(CURRENT);
}
