import type { SandboxMode } from "../bindings/SandboxMode";
import type { SandboxNetwork } from "../bindings/SandboxNetwork";

/** The sandbox modes a person chooses from, most confined first, with what each lets a command do. */
export const SANDBOX_MODES: { value: SandboxMode; label: string; hint: string }[] = [
  { value: "read-only", label: "No writes", hint: "Commands write only in their temp folder." },
  { value: "workspace-write", label: "Workspace (default)", hint: "Commands write only inside the workspace and their temp folder." },
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

/** What sandboxed commands may reach on the network, most confined first. */
export const SANDBOX_NETWORKS: { value: SandboxNetwork; label: string; hint: string }[] = [
  { value: "off", label: "Off", hint: "Commands reach no network, not even this computer's." },
  {
    value: "allow-list",
    label: "Allowed domains…",
    hint: "Commands reach only the allowed domains, over HTTP and HTTPS through Strata's proxy; every other name is refused and said so.",
  },
  { value: "on", label: "On", hint: "Commands reach every network this computer does." },
];

/** What a sandboxed command under `network` may reach, as one sentence. */
export function networkHint(network: SandboxNetwork): string {
  return SANDBOX_NETWORKS.find((entry) => entry.value === network)?.hint ?? "";
}

/** The network part of a sandbox summary: `network allow-list (crates.io, *.npmjs.org)`. */
export function networkSummary(network: SandboxNetwork, domains: readonly string[]): string {
  return network === "allow-list" ? `network allow-list (${domains.length ? domains.join(", ") : "no domain"})` : `network ${network}`;
}

/** Domains typed one a line (or separated by commas or spaces), blanks and repeats left out. */
export function parseDomains(text: string): string[] {
  const domains = text
    .split(/[\s,]+/)
    .map((domain) => domain.trim())
    .filter(Boolean);
  return [...new Set(domains)];
}
