import type { ConsoleSection } from "../components/DebugConsolePanel";

/**
 * The debug console's sections, in display order. The console (issue 6) adds
 * its compactions tile, compaction cards, before/after view, model view,
 * context chart and rounds log here; each renders from the read-only
 * `ConsoleContext`. With no section the panel explains what will appear.
 */
export const consoleSections: ConsoleSection[] = [];
