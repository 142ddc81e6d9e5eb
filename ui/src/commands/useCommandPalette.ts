import { useCallback, useState } from "react";
import type { Shortcuts } from "../hooks/useShortcuts";
import { sessionProfile } from "../lib/profiles";
import { useActions, useAppState } from "../state/StoreProvider";
import { isRunning } from "../state/store";
import { appActions } from "./appActions";
import type { PaletteAction, PaletteMode } from "./palette";
import { useSessionCommands } from "./sessionCommands";

/** Scrolls the open Settings dialog to the section with `heading` (once it has rendered). */
function scrollToSection(heading: string, tries = 20) {
  const section = Array.from(document.querySelectorAll<HTMLElement>("[role=dialog] .settings-section")).find(
    (node) => node.querySelector("h3, legend")?.textContent?.trim() === heading,
  );
  if (!section) {
    if (tries > 0) window.setTimeout(() => scrollToSection(heading, tries - 1), 50);
    return;
  }
  section.scrollIntoView?.({ block: "start" });
  section.querySelector<HTMLElement>("button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled])")?.focus({ preventScroll: true });
}

interface Options {
  /** The handlers the keyboard shortcuts run; the palette's actions run the same. */
  shortcuts: Omit<Shortcuts, "commandPalette">;
  /** The compaction an undo would undo now (`compaction_status`). */
  undoable: string | null;
  theme: "light" | "dark";
  openSession: (id: string) => void;
}

/**
 * The command palette's state: whether it is open (and on which list), and the actions it lists
 * now. `open("model")` and `open("reasoning")` are what `/model` and `/reasoning` run without an
 * argument.
 */
export function useCommandPalette({ shortcuts, undoable, theme, openSession }: Options) {
  const actions = useActions();
  const [mode, setMode] = useState<PaletteMode | null>(null);
  const open = useCallback((next: PaletteMode) => setMode(next), []);
  const close = useCallback(() => setMode(null), []);
  const session = useSessionCommands(undoable, open);
  const view = useAppState((s) => s.view);
  const sessions = useAppState((s) => s.sessions);
  const settings = useAppState((s) => s.settings);
  const running = useAppState(isRunning);
  const summary = view ? (sessions.find((row) => row.id === view.summary.id) ?? view.summary) : null;
  const toggleTheme = () => {
    if (!settings) return;
    const next = theme === "dark" ? "light" : "dark";
    actions.saveSettings({ ...settings, theme: next }).catch((error: unknown) => actions.fail(error));
  };
  const list: PaletteAction[] = mode
    ? appActions(
        {
          shortcuts: { ...shortcuts, commandPalette: () => open("all") },
          session,
          sessions,
          openId: view?.summary.id ?? null,
          openSession,
          profiles: settings?.profiles ?? [],
          currentProfile: settings && summary ? sessionProfile(settings.profiles, summary, view?.profile ?? null)?.id : undefined,
          reasoning: view?.reasoning ?? null,
          running,
          theme,
          toggleTheme,
          openSettingsAt: (heading) => {
            actions.setSettingsOpen(true);
            window.setTimeout(() => scrollToSection(heading), 0);
          },
          // The open conversation's own Ctrl+F handler, as the key would reach it.
          find: () => window.dispatchEvent(new KeyboardEvent("keydown", { key: "f", ctrlKey: true })),
          showChoices: open,
        },
        mode,
      )
    : [];
  return { mode, open, close, actions: list };
}
