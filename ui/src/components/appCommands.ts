import type { SessionCommands } from "../commands/sessionCommands";
import type { PaletteCommand } from "./SlashPalette";

/** The app's own commands the composer offers after a `/`, besides the app's listed `/compact`. */
const OWN = ["undo", "pin", "fork", "model", "reasoning", "clear"] as const;

const DESCRIPTIONS: Record<(typeof OWN)[number], { description: string; argumentHint?: string }> = {
  undo: { description: "Undo the latest compaction: the model sees the items it summarised again" },
  pin: { description: "Pin the latest message: every compaction keeps it word for word", argumentHint: "[item]" },
  fork: { description: "Fork this session from its latest message" },
  model: { description: "Switch the session to another saved profile (no name: choose one)", argumentHint: "[profile]" },
  reasoning: { description: "How hard the model thinks from the next turn (no level: choose one)", argumentHint: "[off|low|medium|high|max]" },
  clear: { description: "Start a new session in this folder" },
};

/**
 * The palette's commands: `/compact` (the app's listing puts it first), the session's commands
 * that can run now, then the prompt files; what each command's name runs (with the text typed
 * after it), and why the others cannot run now.
 */
export function withAppCommands(listed: readonly PaletteCommand[] | undefined, commands: SessionCommands) {
  const run = new Map<string, (args: string) => void>();
  const unavailable = new Map<string, string>();
  const own: PaletteCommand[] = [];
  for (const name of OWN) {
    const command = commands[name];
    if (command.disabled) {
      unavailable.set(name, command.disabled);
      continue;
    }
    run.set(name, command.run);
    own.push({ name, ...DESCRIPTIONS[name], source: "built_in" });
  }
  if (listed === undefined) return { commands: undefined, run, unavailable };
  const builtIn = listed.filter((c) => c.source === "built_in");
  const files = listed.filter((c) => c.source !== "built_in");
  return { commands: [...builtIn, ...own, ...files], run, unavailable };
}
