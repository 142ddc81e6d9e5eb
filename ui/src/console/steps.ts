// Formatting shared by the console's compaction cards. The steps and their
// figures come folded from Rust (`ConsoleStep`, `StepFigures`).
import type { CompactionPolicy } from "../bindings/CompactionPolicy";

/** Exact counts on the cards, where 8,015 and 8,000 must not both read "8k". */
export function exactTokens(count: number): string {
  return count.toLocaleString("en-US");
}

/** How far an estimate was from what the provider then reported, as a signed share of the report (none without both). */
export function drift(estimate: number | null | undefined, reported: number | null | undefined): { tokens: number; percent: number } | null {
  if (estimate == null || reported == null || reported <= 0) return null;
  return { tokens: reported - estimate, percent: Math.round(((reported - estimate) / reported) * 100) };
}

export function formatDrift(d: { tokens: number; percent: number }): string {
  const sign = d.tokens > 0 ? "+" : d.tokens < 0 ? "−" : "±";
  return `${sign}${Math.abs(d.percent)}%`;
}

export const POLICY_LABEL: Record<CompactionPolicy, string> = {
  off: "Off",
  base: "Base",
  layered: "Layered",
};

export const POLICY_HINT: Record<CompactionPolicy, string> = {
  off: "Never compacts by itself; an overflow stops the turn and suggests /compact.",
  base: "One summary by the model at the threshold (the original design).",
  layered: "At its threshold (a fifth of the window by default, a third of a small one) evicts old tool outputs (no model call); only if what it would leave is still over three quarters of the threshold, summarises instead (in the session's own context, so the provider's cache serves it) with a state sheet that keeps every path, command and rule.",
};
