import type { TextRange } from "../bindings/TextRange";

/** A run of snippet text, matched or not. */
export interface SnippetPart {
  text: string;
  matched: boolean;
}

/**
 * Splits a search snippet at its matches. The ranges count characters
 * (Unicode scalar values), as the Rust side does, so the snippet is indexed
 * by code point, not by UTF-16 unit. Ranges out of order, overlapping or out
 * of bounds are dropped: the text itself is always shown whole.
 */
export function snippetParts(snippet: string, matches: readonly TextRange[]): SnippetPart[] {
  const chars = Array.from(snippet);
  const parts: SnippetPart[] = [];
  let at = 0;
  for (const { start, end } of matches) {
    if (start < at || end <= start || end > chars.length) continue;
    if (start > at) parts.push({ text: chars.slice(at, start).join(""), matched: false });
    parts.push({ text: chars.slice(start, end).join(""), matched: true });
    at = end;
  }
  if (at < chars.length) parts.push({ text: chars.slice(at).join(""), matched: false });
  return parts;
}
