import { useMemo } from "react";
import type { ProfileView } from "../api/types";
import type { ReasoningEffort } from "../bindings/ReasoningEffort";
import { HELD_SHORT } from "../components/ConversationHeader";
import { CANNOT_REASON, REASONING_OPTIONS } from "../components/ReasoningControl";
import { isRunning, type Actions } from "../state/store";
import { useActions, useAppState } from "../state/StoreProvider";
import { pinTarget, type Entry } from "../state/transcript";
import type { PaletteMode } from "./palette";

/** The open session's commands, each the composer's `/name` and one of the palette's actions. */
export type SessionCommandName = "compact" | "undo" | "fork" | "pin" | "model" | "reasoning" | "clear";

export interface SessionCommand {
  /** Runs it with the text typed after `/name` ("" from the palette). */
  run: (args: string) => void;
  /** Why it cannot run now. */
  disabled?: string;
}

export type SessionCommands = Record<SessionCommandName, SessionCommand>;

export const NO_SESSION = "Open a session first.";
export const WHILE_RUNNING = "Wait until the turn has finished.";
export const NOTHING_TO_UNDO = "No compaction to undo.";
export const NO_MESSAGE = "The session has no message yet.";

/** The newest message the person could pin or fork from (a saved user or assistant message). */
export function latestMessageId(entries: readonly Entry[]): string | undefined {
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index];
    if (entry && (entry.kind === "user" || entry.kind === "assistant")) {
      const target = pinTarget(entry);
      if (target) return target;
    }
  }
  return undefined;
}

/** The profile `/model name` names: by id, else by its name (any case). */
export function profileNamed(profiles: readonly ProfileView[], name: string): ProfileView | undefined {
  const wanted = name.trim().toLowerCase();
  return profiles.find((p) => p.id.toLowerCase() === wanted) ?? profiles.find((p) => p.label.toLowerCase() === wanted);
}

/** The level `/reasoning level` names (any case), if it is one. */
export function reasoningNamed(name: string): ReasoningEffort | undefined {
  const wanted = name.trim().toLowerCase();
  return REASONING_OPTIONS.find((option) => option.value === wanted)?.value;
}

interface Inputs {
  actions: Actions;
  open: boolean;
  live: boolean;
  running: boolean;
  workspace: string | null;
  entries: readonly Entry[];
  profiles: readonly ProfileView[];
  canReason: boolean;
  undoable: string | null;
  openChoices: (mode: PaletteMode) => void;
}

/**
 * The session commands for a state (pure, for tests): each runs the store action the app's own
 * buttons run (the pin button, the fork dialog, the reasoning list box, the profile switch), or
 * says why it cannot now. `/model` and `/reasoning` without an argument open their choices.
 */
export function sessionCommands(inputs: Inputs): SessionCommands {
  const { actions, open, live, running, workspace, entries, profiles, canReason, undoable, openChoices } = inputs;
  const error = (text: string) => actions.toast({ tone: "error", text });
  // Writing to the session: open, held by this app and idle.
  const writeOff = !open ? NO_SESSION : !live ? HELD_SHORT : running ? WHILE_RUNNING : undefined;
  const latest = latestMessageId(entries);
  return {
    compact: { disabled: writeOff, run: (args) => void actions.send(args ? `/compact ${args}` : "/compact") },
    undo: {
      disabled: writeOff ?? (undoable ? undefined : NOTHING_TO_UNDO),
      run: () => void actions.undoCompaction().catch((e: unknown) => error(`Not undone: ${e instanceof Error ? e.message : String(e)}`)),
    },
    // A fork only reads the session: one another process holds can be forked too.
    fork: {
      disabled: !open ? NO_SESSION : running ? WHILE_RUNNING : latest ? undefined : NO_MESSAGE,
      run: () => latest && actions.askFork({ kind: "at_item", item_id: latest }, "up to and including its latest message"),
    },
    pin: {
      disabled: writeOff ?? (latest ? undefined : NO_MESSAGE),
      run: (args) => {
        const item = args.trim() || latest;
        if (item) void actions.pin(item, true);
      },
    },
    model: {
      disabled: writeOff ?? (profiles.length === 0 ? "No saved profile: add one in Settings." : undefined),
      run: (args) => {
        if (!args.trim()) return openChoices("model");
        const profile = profileNamed(profiles, args);
        if (profile) void actions.switchProfile(profile.id);
        else error(`There is no profile "${args.trim()}": type /model to choose one (${profiles.map((p) => p.id).join(", ")}).`);
      },
    },
    reasoning: {
      disabled: writeOff ?? (canReason ? undefined : CANNOT_REASON),
      run: (args) => {
        if (!args.trim()) return openChoices("reasoning");
        const effort = reasoningNamed(args);
        if (effort) void actions.setReasoning(effort);
        else error(`"${args.trim()}" is not a reasoning level: use ${REASONING_OPTIONS.map((o) => o.value).join(", ")}.`);
      },
    },
    clear: {
      disabled: workspace ? undefined : NO_SESSION,
      run: () => workspace && void actions.createIn(workspace, false),
    },
  };
}

/** [`sessionCommands`] for the open session, from the store. */
export function useSessionCommands(undoable: string | null, openChoices: (mode: PaletteMode) => void): SessionCommands {
  const actions = useActions();
  const view = useAppState((s) => s.view);
  const live = useAppState((s) => s.mode === "live");
  const running = useAppState(isRunning);
  const entries = useAppState((s) => s.transcript.entries);
  const profiles = useAppState((s) => s.settings?.profiles);
  return useMemo(
    () =>
      sessionCommands({
        actions,
        open: view !== null,
        live,
        running,
        workspace: view?.summary.workspace ?? null,
        entries,
        profiles: profiles ?? [],
        canReason: view?.can_reason ?? false,
        undoable,
        openChoices,
      }),
    [actions, view, live, running, entries, profiles, undoable, openChoices],
  );
}
