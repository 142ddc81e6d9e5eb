// The settings form's draft and its validation: pure, so the rules are tested
// without rendering. Numbers stay text until they validate.
import type { ApprovalPolicy, ProfileView, ProviderKind, Settings, Theme } from "../api/types";
import type { CompactionPolicy } from "../bindings/CompactionPolicy";
import type { SandboxMode } from "../bindings/SandboxMode";
import type { SandboxNetwork } from "../bindings/SandboxNetwork";
import { parseDomains } from "../lib/sandbox";

export interface ProfileDraft {
  id: string;
  kind: ProviderKind;
  label: string;
  base_url: string;
  model: string;
  has_key: boolean;
  context_window: string;
  /** Kept as the config file has it; not edited here (one threshold, under Context management). */
  compact_threshold: string;
  /** Not saved yet: its typed key is stored with the save. */
  isNew: boolean;
}

export interface SettingsDraft {
  profiles: ProfileDraft[];
  active_profile: string;
  approval_policy: ApprovalPolicy;
  theme: Theme;
  /** The policy new sessions start with. */
  compaction_policy: CompactionPolicy;
  /** The threshold override for new sessions as typed (`80%`, `12000`, `left:20000`; empty: each profile's own). Rust validates it. */
  compact_threshold: string;
  /** The shell sandbox new sessions start with. */
  sandbox: SandboxMode;
  /** What new sessions' sandboxed commands reach. */
  sandbox_network: SandboxNetwork;
  /** The allowed domains as typed, one a line. */
  sandbox_allow_domains: string;
}

export type ProfileField = "label" | "model" | "base_url" | "context_window";
export type ProfileErrors = Partial<Record<ProfileField, string>>;

export interface SettingsErrors {
  form?: string;
  profiles: Record<string, ProfileErrors>;
}


export function toDraft(settings: Settings): SettingsDraft {
  return {
    active_profile: settings.active_profile,
    approval_policy: settings.approval_policy,
    theme: settings.theme,
    compaction_policy: settings.compaction_policy,
    compact_threshold: settings.compact_threshold ?? "",
    sandbox: settings.sandbox ?? "off",
    sandbox_network: settings.sandbox_network ?? "off",
    sandbox_allow_domains: (settings.sandbox_allow_domains ?? []).join("\n"),
    profiles: settings.profiles.map((p) => ({
      id: p.id,
      kind: p.kind,
      label: p.label,
      base_url: p.base_url ?? "",
      model: p.model,
      has_key: p.has_key,
      context_window: p.context_window == null ? "" : String(p.context_window),
      compact_threshold: String(p.compact_threshold),
      isNew: false,
    })),
  };
}

export function newProfile(existing: ProfileDraft[]): ProfileDraft {
  let n = existing.length + 1;
  while (existing.some((p) => p.id === `profile-${n}`)) n += 1;
  return {
    id: `profile-${n}`,
    kind: "openai-responses",
    label: `Profile ${n}`,
    base_url: "",
    model: "gpt-5.4",
    has_key: false,
    context_window: "",
    compact_threshold: "8000",
    isNew: true,
  };
}

/** A whole number ≥ 1 written with digits (and optional `_`, `,` or spaces). */
function parseCount(text: string): number | null {
  const cleaned = text.trim().replace(/[_,\s]/g, "");
  if (!/^\d+$/.test(cleaned)) return null;
  const value = Number(cleaned);
  return Number.isSafeInteger(value) && value >= 1 ? value : null;
}

function validateProfile(profile: ProfileDraft, all: ProfileDraft[]): ProfileErrors {
  const errors: ProfileErrors = {};
  if (!profile.label.trim()) errors.label = "Give the profile a name.";
  else if (all.some((other) => other !== profile && other.label.trim() === profile.label.trim())) {
    errors.label = "Another profile has this name.";
  }
  if (!profile.model.trim()) errors.model = "Enter the model name, e.g. gpt-5.4.";
  if (profile.base_url.trim()) {
    let url: URL | null = null;
    try {
      url = new URL(profile.base_url.trim());
    } catch {
      url = null;
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      errors.base_url = "Enter a full http:// or https:// URL, or leave it empty for the default.";
    }
  }
  const window = profile.context_window.trim() ? parseCount(profile.context_window) : undefined;
  if (window === null) errors.context_window = "Enter a whole number of tokens, or leave it empty.";
  // The threshold is set once, for every profile, under Context management (Rust checks it
  // against the window); the profile's own figure is kept as the config file has it.
  return errors;
}

/** Checks the whole draft; the form saves only when this returns no error. */
export function validateSettings(draft: SettingsDraft): SettingsErrors {
  const profiles: Record<string, ProfileErrors> = {};
  for (const profile of draft.profiles) {
    const errors = validateProfile(profile, draft.profiles);
    if (Object.keys(errors).length) profiles[profile.id] = errors;
  }
  let form: string | undefined;
  if (draft.profiles.length === 0) form = "Keep at least one provider profile.";
  else if (!draft.profiles.some((p) => p.id === draft.active_profile)) form = "Choose which profile is active.";
  return form ? { form, profiles } : { profiles };
}

export function hasErrors(errors: SettingsErrors): boolean {
  return Boolean(errors.form) || Object.keys(errors.profiles).length > 0;
}

/** The `Settings` to save; call only on a draft without errors (the threshold checked by `check_threshold`). */
export function fromDraft(draft: SettingsDraft): Settings {
  const threshold = draft.compact_threshold.trim();
  return {
    active_profile: draft.active_profile,
    approval_policy: draft.approval_policy,
    theme: draft.theme,
    compaction_policy: draft.compaction_policy,
    sandbox: draft.sandbox,
    sandbox_network: draft.sandbox_network,
    sandbox_allow_domains: parseDomains(draft.sandbox_allow_domains),
    ...(threshold ? { compact_threshold: threshold } : {}),
    profiles: draft.profiles.map(
      (p): ProfileView => ({
        id: p.id,
        kind: p.kind,
        label: p.label.trim(),
        model: p.model.trim(),
        has_key: p.has_key,
        compact_threshold: parseCount(p.compact_threshold) ?? 0,
        ...(p.base_url.trim() ? { base_url: p.base_url.trim() } : {}),
        ...(p.context_window.trim() ? { context_window: parseCount(p.context_window) ?? 0 } : {}),
      }),
    ),
  };
}
