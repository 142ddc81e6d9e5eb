import type { ImportCounts } from "../bindings/ImportCounts";
import type { ImportSettingsView } from "../bindings/ImportSettingsView";
import type { ImportSource } from "../bindings/ImportSource";
import { SOURCE_LABEL } from "./api";

/** Each tool found, with its count, in the order the question names them. */
function found(counts: ImportCounts): { source: ImportSource; count: number }[] {
  const all: { source: ImportSource; count: number }[] = [
    { source: "claude_code", count: counts.claude_code },
    { source: "codex", count: counts.codex },
    { source: "copilot_cli", count: counts.copilot_cli },
  ];
  return all.filter((tool) => tool.count > 0);
}

/** "132 Claude Code and 48 Codex sessions". */
export function foundSentence(counts: ImportCounts): string {
  const parts = found(counts).map(({ source, count }) => `${count} ${SOURCE_LABEL[source]}`);
  const joined = parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}` : (parts[0] ?? "");
  const total = found(counts).reduce((sum, tool) => sum + tool.count, 0);
  return `${joined} ${total === 1 ? "session" : "sessions"}`;
}

/** Whether to ask: never asked, and something was found. */
export function shouldAsk(view: ImportSettingsView | null): view is ImportSettingsView {
  return view !== null && !view.settings.asked && found(view.found).length > 0;
}

interface ImportConsentProps {
  view: ImportSettingsView;
  /** Show: the tools found go on the list of those shown. */
  onShow: (tools: ImportSource[]) => void;
  onNotNow: () => void;
}

/**
 * The discovery question, asked once: the other agents' sessions found in their standard folders,
 * shown in the library only if the person says so. The answer is kept; Settings changes it.
 */
export function ImportConsent({ view, onShow, onNotNow }: ImportConsentProps) {
  return (
    <div className="demo-banner import-consent" role="region" aria-label="Other agents' sessions">
      <span>
        Strata found {foundSentence(view.found)} on this computer: show them in your library? Strata only reads them.
      </span>
      <button type="button" className="button small primary" onClick={() => onShow(found(view.found).map((tool) => tool.source))}>
        Show
      </button>
      <button type="button" className="button small" onClick={onNotNow}>
        Not now
      </button>
    </div>
  );
}
