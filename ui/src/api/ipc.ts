import { invoke, type InvokeArgs } from "@tauri-apps/api/core";
import type { CommandError } from "../bindings/CommandError";
import type { CommandErrorKind } from "../bindings/CommandErrorKind";

const KINDS: readonly CommandErrorKind[] = [
  "not_found",
  "locked",
  "invalid_input",
  "provider",
  "io",
  "busy",
  "profile_unavailable",
  "broad_workspace",
  "internal",
];

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
  return typeof message === "string" && KINDS.includes(kind as CommandErrorKind);
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

/** `invoke` with the shell's structured errors. */
export async function call<T>(command: string, args?: InvokeArgs): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw toCommandFailure(error);
  }
}
