// The header's status dot: how the session's provider fared on its latest request, read from
// the transcript Rust folded (a waiting retry, or an error with its classified failure).
import type { Entry } from "../state/transcript";

export type ProviderHealth = "ok" | "retrying" | "failed";

/** Amber while a retry waits, red when the latest request ended in a provider failure, else green. */
export function providerHealth(entries: readonly Entry[]): ProviderHealth {
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const entry = entries[i];
    if (!entry) continue;
    switch (entry.kind) {
      case "retry":
        if (!entry.settled) return "retrying";
        continue;
      case "error":
        if (entry.failure) return "failed";
        continue;
      // An answer came, or a newer turn has started since the failure.
      case "assistant":
      case "tool":
      case "compaction":
      case "user":
        return "ok";
      case "turn_end":
      case "notice":
      case "fork":
      case "eviction":
      case "compaction_problem":
        continue;
    }
  }
  return "ok";
}

export const HEALTH_TEXT: Record<ProviderHealth, string> = {
  ok: "Connected",
  retrying: "Retrying the provider",
  failed: "The last request to the provider failed",
};
