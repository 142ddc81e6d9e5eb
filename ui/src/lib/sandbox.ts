import type { SandboxMode } from "../bindings/SandboxMode";

/** The sandbox modes a person chooses from, most confined first, with what each lets a command do. */
export const SANDBOX_MODES: { value: SandboxMode; label: string; hint: string }[] = [
  { value: "read-only", label: "No writes", hint: "Commands write only in their temp folder, without network." },
  { value: "workspace-write", label: "Workspace (default)", hint: "Commands write only inside the workspace and their temp folder, without network." },
  { value: "off", label: "No sandbox", hint: "Commands run as you, with your rights, outside any sandbox." },
];

/** The mode a new session gets when neither Settings nor the config file names one. */
export const DEFAULT_SANDBOX: SandboxMode = "workspace-write";

/** What a command under `mode` may do, as one sentence. */
export function sandboxHint(mode: SandboxMode): string {
  return SANDBOX_MODES.find((entry) => entry.value === mode)?.hint ?? "";
}

/** Whether shell commands under `mode` are confined by the kernel's sandbox. */
export function isSandboxed(mode: SandboxMode | null | undefined): mode is "workspace-write" | "read-only" {
  return mode === "workspace-write" || mode === "read-only";
}
