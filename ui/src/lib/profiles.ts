// Which saved profile a session talks to, and what to call it: its name, never its id
// (`profile-2`) or the provider's slug (`openai-chat`).
import type { ProfileView, ProviderKind, SessionListItem } from "../api/types";
import type { ProfileSet } from "../bindings/ProfileSet";

/** A provider kind in words, for a session whose profile is not among the saved ones. */
export const KIND_LABEL: Record<ProviderKind, string> = {
  "openai-responses": "OpenAI",
  "openai-chat": "OpenAI-compatible",
  anthropic: "Anthropic",
  demo: "Offline demo",
};

/** Whether the session talks to this profile now: the same kind, model and (when recorded) endpoint. */
export function isSessionProfile(profile: ProfileView, session: SessionListItem, current?: ProfileSet | null): boolean {
  if (current) {
    return profile.kind === current.provider_kind && profile.model === current.model && (profile.base_url ?? null) === (current.base_url ?? null);
  }
  return profile.kind === session.provider_kind && profile.model === session.model;
}

/** The saved profile the session runs on: the one its record names, else the one that matches it. */
export function sessionProfile(profiles: readonly ProfileView[], session: SessionListItem, current?: ProfileSet | null): ProfileView | undefined {
  const named = current?.profile ? profiles.find((p) => p.id === current.profile) : undefined;
  return named ?? profiles.find((p) => isSessionProfile(p, session, current));
}

/** What the header calls the session's provider. */
export function sessionProviderName(profiles: readonly ProfileView[], session: SessionListItem, current?: ProfileSet | null): string {
  const profile = sessionProfile(profiles, session, current);
  if (profile) return profile.label;
  const kind = session.provider_kind as ProviderKind;
  return KIND_LABEL[kind] ?? "Provider";
}
