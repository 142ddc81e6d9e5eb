// Money as the console's fold sends it: exact integer pico-dollars (10⁻¹² $),
// formatted the way Rust's `Usd` Display does, so the CLI and the app agree.
import type { CacheBreakCause } from "../bindings/CacheBreakCause";
import type { Cost } from "../bindings/Cost";
import type { SessionCost } from "../bindings/SessionCost";

/** A session with nothing priced yet. */
export const NO_COST: SessionCost = { unpriced_rounds: 0, turns: [], steps: [] };

const PICO_PER_CENT = 10_000_000_000;
const PICO_PER_MICRO = 1_000_000;

/** `$12.34` from a cent up, `$0.0123` below a cent, `$0` for nothing, `<$0.000001` for less than a micro-dollar. */
export function formatUsd(pico: number): string {
  if (pico <= 0) return "$0";
  if (pico < PICO_PER_MICRO) return "<$0.000001";
  if (pico >= PICO_PER_CENT) {
    const cents = Math.floor((pico + PICO_PER_CENT / 2) / PICO_PER_CENT);
    return `$${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
  }
  const micros = Math.floor((pico + PICO_PER_MICRO / 2) / PICO_PER_MICRO);
  return `$0.${String(micros).padStart(6, "0").replace(/0+$/, "")}`;
}

/** A cost with the date of the prices it used, or "no price". */
export function formatCost(cost: Cost | null | undefined): string {
  return cost ? formatUsd(cost.usd) : "no price";
}

/** What the price date says: a table date, or the profile's own price. */
export function priceDate(asOf: string): string {
  return asOf === "config" ? "the profile's own price" : `prices of ${asOf}`;
}

const CAUSES: Record<CacheBreakCause, string> = {
  compaction: "a compaction",
  eviction: "an eviction of tool outputs",
  pin: "a pin",
  undo: "an undo",
  tool_list: "a change of the tool list",
  system_prompt: "a change of the system prompt",
  model_switch: "a model switch",
  other: "a change no record explains",
};

export function causeText(cause: CacheBreakCause): string {
  return CAUSES[cause];
}
