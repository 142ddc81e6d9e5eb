import { createContext, useContext } from "react";
import { SHORTCUT_LIST, type ShortcutName } from "../hooks/useShortcuts";

/** One thing the command palette (Ctrl+K) can do. */
export interface PaletteAction {
  /** Unique in the list (also the option's key). */
  id: string;
  /** What it does, as the option reads. */
  title: string;
  /** The heading it is listed under ("Session", "View", "Switch to session"…). */
  group: string;
  /** More words it is found by (a profile's model, a section's other name). */
  keywords?: string;
  /** A second line: where a choice leads (a profile's endpoint, a level's meaning). */
  hint?: string;
  /** The keyboard shortcut that does the same, by its name in `SHORTCUT_LIST`. */
  shortcut?: ShortcutName;
  /** Why it cannot run now; listed, marked unavailable, not run. */
  disabled?: string;
  /** It moves the palette to other choices instead of closing it. */
  keepsOpen?: boolean;
  run: () => void;
}

/** What the palette lists: every action, or only the choices `/model` or `/reasoning` offer. */
export type PaletteMode = "all" | "model" | "reasoning";

/** The keys of a shortcut, as the "?" dialog shows them. */
export function shortcutKeys(name: ShortcutName | undefined): string[] | undefined {
  if (!name) return undefined;
  return SHORTCUT_LIST.find((entry) => entry.name === name)?.keys;
}

/**
 * How well `text` matches `query`: every query word (any case) must match a word of the text,
 * as its start (best), a part of it, or its letters in order from its first ("cmpct" for
 * "compact", a typo's match); `null` when one does not. Higher is better.
 */
export function matchScore(text: string, query: string): number | null {
  const wanted = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (wanted.length === 0) return 0;
  const words = text.toLowerCase().split(/[\s\-_/·.,:…]+/).filter(Boolean);
  let score = 0;
  for (const part of wanted) {
    const best = Math.max(0, ...words.map((word) => wordScore(word, part)));
    if (best === 0) return null;
    score += best;
  }
  return score;
}

function wordScore(word: string, part: string): number {
  if (word.startsWith(part)) return 3;
  if (word.includes(part)) return 2;
  return part.length >= 3 && word[0] === part[0] && inOrder(word, part) ? 1 : 0;
}

function inOrder(word: string, letters: string): boolean {
  let from = 0;
  for (const letter of letters) {
    const at = word.indexOf(letter, from);
    if (at === -1) return false;
    from = at + 1;
  }
  return true;
}

/** The actions matching `query`, best first; ties keep the declared order. */
export function filterActions(actions: readonly PaletteAction[], query: string): PaletteAction[] {
  if (!query.trim()) return [...actions];
  return actions
    .map((action, index) => ({ action, index, score: matchScore(`${action.title} ${action.keywords ?? ""}`, query) }))
    .filter((scored): scored is { action: PaletteAction; index: number; score: number } => scored.score !== null)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((scored) => scored.action);
}

/** Opens the command palette (the desktop's shell provides it; the composer's `/model` uses it). */
export const PaletteContext = createContext<(mode: PaletteMode) => void>(() => {});

export const useOpenPalette = () => useContext(PaletteContext);
