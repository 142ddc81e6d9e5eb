// The imported-sessions commands (docs/desktop-commands.md, `### imported`), typed by the
// generated `Commands` map like every other wrapper.
import { call } from "../api/commands";
import type { ImportSettings } from "../bindings/ImportSettings";
import type { ImportSource } from "../bindings/ImportSource";

export const listImported = () => call("list_imported", {});
export const openImported = (id: string) => call("open_imported", { id });
export const searchImported = (query: string, limit = 30) => call("search_imported", { query, limit });
export const hideImported = (id: string) => call("hide_imported", { id });
export const importSessions = (paths: string[]) => call("import_sessions", { paths });
export const importSettings = () => call("import_settings", {});
export const saveImportSettings = (settings: ImportSettings) => call("save_import_settings", { settings });
/** The native file picker ("Open file…"), opened by the shell: the chosen paths, none when cancelled. */
export const pickImportPaths = () => call("pick_import_paths", {});

/** Every tool, in the order the filter and Settings list them. */
export const SOURCES: ImportSource[] = ["codex", "claude_code", "copilot_cli"];

/** The name a person knows each tool by: the badge's text (never colour alone). */
export const SOURCE_LABEL: Record<ImportSource, string> = {
  codex: "Codex",
  claude_code: "Claude Code",
  copilot_cli: "Copilot",
};

/** The sidebar's source filter. */
export type SourceFilter = "all" | "strata" | ImportSource;

export const FILTERS: { value: SourceFilter; label: string }[] = [
  { value: "all", label: "All" },
  { value: "strata", label: "Strata" },
  ...SOURCES.map((source) => ({ value: source, label: SOURCE_LABEL[source] })),
];
