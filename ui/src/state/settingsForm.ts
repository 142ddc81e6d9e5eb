// The settings form's draft and its validation: pure, so the rules are tested
// without rendering. Numbers stay text until they validate.
import type { ApprovalPolicy, ProfileView, ProviderKind, Settings, Theme } from "../api/types";

export interface ProfileDraft {
  id: string;
  kind: ProviderKind;
  label: string;
  baseUrl: string;
  model: string;
  hasKey: boolean;
  contextWindow: string;
  compactThreshold: string;
  /** Not saved yet: keys can be stored once it is. */
  isNew: boolean;
}

export interface SettingsDraft {
  profiles: ProfileDraft[];
  activeProfile: string;
  approvalPolicy: ApprovalPolicy;
  theme: Theme;
}

export type ProfileField = "label" | "model" | "baseUrl" | "contextWindow" | "compactThreshold";
export type ProfileErrors = Partial<Record<ProfileField, string>>;

export interface SettingsErrors {
  form?: string;
  profiles: Record<string, ProfileErrors>;
}

export const PROVIDER_KINDS: { kind: ProviderKind; label: string; defaultModel: string }[] = [
  { kind: "openai-responses", label: "OpenAI Responses", defaultModel: "gpt-5.4" },
  { kind: "openai-chat", label: "OpenAI-compatible Chat Completions", defaultModel: "gpt-4.1-mini" },
  { kind: "anthropic", label: "Anthropic Messages", defaultModel: "claude-sonnet-4-5" },
  { kind: "demo", label: "Offline demo model", defaultModel: "strata-demo" },
];

export function toDraft(settings: Settings): SettingsDraft {
  return {
    activeProfile: settings.activeProfile,
    approvalPolicy: settings.approvalPolicy,
    theme: settings.theme,
    profiles: settings.profiles.map((p) => ({
      id: p.id,
      kind: p.kind,
      label: p.label,
      baseUrl: p.baseUrl ?? "",
      model: p.model,
      hasKey: p.hasKey,
      contextWindow: p.contextWindow == null ? "" : String(p.contextWindow),
      compactThreshold: String(p.compactThreshold),
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
    baseUrl: "",
    model: "gpt-5.4",
    hasKey: false,
    contextWindow: "",
    compactThreshold: "8000",
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
  if (profile.baseUrl.trim()) {
    let url: URL | null = null;
    try {
      url = new URL(profile.baseUrl.trim());
    } catch {
      url = null;
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      errors.baseUrl = "Enter a full http:// or https:// URL, or leave it empty for the default.";
    }
  }
  const window = profile.contextWindow.trim() ? parseCount(profile.contextWindow) : undefined;
  if (window === null) errors.contextWindow = "Enter a whole number of tokens, or leave it empty.";
  const threshold = parseCount(profile.compactThreshold);
  if (threshold === null) errors.compactThreshold = "Enter a whole number of tokens (at least 1).";
  else if (window && threshold >= window) {
    errors.compactThreshold = "The threshold must be below the context window, or the model overflows before compacting.";
  }
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
  else if (!draft.profiles.some((p) => p.id === draft.activeProfile)) form = "Choose which profile is active.";
  return form ? { form, profiles } : { profiles };
}

export function hasErrors(errors: SettingsErrors): boolean {
  return Boolean(errors.form) || Object.keys(errors.profiles).length > 0;
}

/** The `Settings` to save; call only on a draft without errors. */
export function fromDraft(draft: SettingsDraft): Settings {
  return {
    activeProfile: draft.activeProfile,
    approvalPolicy: draft.approvalPolicy,
    theme: draft.theme,
    profiles: draft.profiles.map(
      (p): ProfileView => ({
        id: p.id,
        kind: p.kind,
        label: p.label.trim(),
        model: p.model.trim(),
        hasKey: p.hasKey,
        compactThreshold: parseCount(p.compactThreshold) ?? 0,
        ...(p.baseUrl.trim() ? { baseUrl: p.baseUrl.trim() } : {}),
        ...(p.contextWindow.trim() ? { contextWindow: parseCount(p.contextWindow) ?? 0 } : {}),
      }),
    ),
  };
}
