import { Channel, invoke } from "@tauri-apps/api/core";
import type { CommandError } from "../bindings/CommandError";
import type { CommandErrorKind } from "../bindings/CommandErrorKind";
import { COMMAND_ERROR_KINDS, type Commands } from "../bindings/Commands";

/** A failed command, as thrown by every wrapper in `api/commands`. */
export class CommandFailure extends Error {
  readonly kind: CommandErrorKind;

  constructor(error: CommandError) {
    super(error.message);
    this.name = "CommandFailure";
    this.kind = error.kind;
  }
}

function isCommandError(value: unknown): value is CommandError {
  if (typeof value !== "object" || value === null) return false;
  const { kind, message } = value as Record<string, unknown>;
  return typeof message === "string" && COMMAND_ERROR_KINDS.includes(kind as CommandErrorKind);
}

/** Turns whatever `invoke` rejected with into a `CommandFailure`. */
export function toCommandFailure(error: unknown): CommandFailure {
  if (error instanceof CommandFailure) return error;
  if (isCommandError(error)) return new CommandFailure(error);
  const message =
    typeof error === "string"
      ? error
      : error instanceof Error
        ? error.message
        : "Something went wrong talking to Strata.";
  return new CommandFailure({ kind: "internal", message });
}

/** The commands whose events arrive on an `on_event` channel. */
export type CommandWithEvents = {
  [K in keyof Commands]: Commands[K] extends { events: unknown } ? K : never;
}[keyof Commands];

/** The commands that take their request alone. */
export type PlainCommand = Exclude<keyof Commands, CommandWithEvents>;

export type RequestOf<K extends keyof Commands> = Commands[K]["request"];
export type ResultOf<K extends keyof Commands> = Commands[K]["result"];
export type EventsOf<K extends CommandWithEvents> = Commands[K]["events"];

/**
 * The command log the end-to-end harness reads (tests/e2e/lib/harness.js `startCommandLog`): when
 * it has put an array here, every command's name is appended to it. Names only, never arguments.
 */
declare global {
  interface Window {
    __strataCommandLog?: string[];
  }
}

async function invokeCommand<T>(command: string, args: Record<string, unknown>): Promise<T> {
  if (typeof window !== "undefined") window.__strataCommandLog?.push(command);
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw toCommandFailure(error);
  }
}

/** A command of the list (`Commands`, generated from Rust), its request as `request`, with the shell's structured errors. */
export function call<K extends PlainCommand>(command: K, request: RequestOf<K>): Promise<ResultOf<K>> {
  return invokeCommand(command, { request });
}

/** A command with events: its request, and the channel the events arrive on. */
export function callWithEvents<K extends CommandWithEvents>(
  command: K,
  request: RequestOf<K>,
  onEvent: Channel<EventsOf<K>>,
): Promise<ResultOf<K>> {
  return invokeCommand(command, { request, on_event: onEvent });
}
