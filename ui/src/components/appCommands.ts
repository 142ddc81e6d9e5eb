import type { PaletteCommand } from "./SlashPalette";

/** The app's own actions the composer offers as slash commands, each only where it can run now. */
export interface AppCommandActions {
  /** Undo the latest compaction (`undo_compaction`), when there is one to undo. */
  undo?: () => void;
  /** Fork the session from its latest message (the fork dialog), when there is one. */
  fork?: () => void;
  /** A new session in the same folder. */
  clear?: () => void;
}

const DESCRIPTIONS: Record<keyof AppCommandActions, string> = {
  undo: "Undo the latest compaction: the model sees the items it summarised again",
  fork: "Fork this session from its latest message",
  clear: "Start a new session in this folder",
};

/**
 * The palette's commands: `/compact` (the app's listing puts it first), the app's actions that can
 * run now, then the prompt files; and what each action's name runs.
 */
export function withAppCommands(listed: readonly PaletteCommand[] | undefined, actions: AppCommandActions) {
  const run = new Map<string, () => void>();
  const own: PaletteCommand[] = [];
  for (const name of ["undo", "fork", "clear"] as const) {
    const action = actions[name];
    if (!action) continue;
    run.set(name, action);
    own.push({ name, description: DESCRIPTIONS[name], source: "built_in" });
  }
  if (listed === undefined) return { commands: undefined, run };
  const builtIn = listed.filter((c) => c.source === "built_in");
  const files = listed.filter((c) => c.source !== "built_in");
  return { commands: [...builtIn, ...own, ...files], run };
}
