import { useEffect, useRef, useState, type ReactNode } from "react";
import { providerKinds, setApiKey } from "../api/commands";
import type { ProviderKindInfo } from "../bindings/ProviderKindInfo";
import { toCommandFailure } from "../api/ipc";
import type { ApprovalPolicy, Settings, Theme } from "../api/types";
import {
  fromDraft,
  hasErrors,
  newProfile,
  toDraft,
  validateSettings,
  type ProfileDraft,
  type ProfileErrors,
  type SettingsErrors,
} from "../state/settingsForm";
import { SHELL_RIGHTS_SHORT } from "./ApprovalPrompt";
import { CompactionSettings, useThresholdCheck } from "./CompactionSettings";
import { Modal } from "./Modal";

interface SettingsDialogProps {
  settings: Settings;
  onSave: (settings: Settings) => Promise<void>;
  onClose: () => void;
}

export const POLICIES: { value: ApprovalPolicy; label: string; hint: string }[] = [
  { value: "ask", label: "Ask", hint: "Reads run; writes and shell commands wait for you." },
  { value: "auto", label: "Auto", hint: "Every tool call runs without asking, shell commands included." },
  { value: "read-only", label: "Read-only", hint: "Reads run; writes and shell commands are refused." },
];

const THEMES: { value: Theme; label: string }[] = [
  { value: "system", label: "System" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
];

/** Provider profiles, approval policy and theme. Nothing is saved while any field is invalid. */
export function SettingsDialog({ settings, onSave, onClose }: SettingsDialogProps) {
  const [draft, setDraft] = useState(() => toDraft(settings));
  const [selected, setSelected] = useState(settings.active_profile);
  const [errors, setErrors] = useState<SettingsErrors>({ profiles: {} });
  const [saving, setSaving] = useState(false);
  const profile = draft.profiles.find((p) => p.id === selected) ?? draft.profiles[0];
  const thresholdState = useThresholdCheck(draft.compact_threshold, draft.active_profile);

  const updateProfile = (id: string, patch: Partial<ProfileDraft>) =>
    setDraft((d) => ({ ...d, profiles: d.profiles.map((p) => (p.id === id ? { ...p, ...patch } : p)) }));

  const save = async () => {
    const found = validateSettings(draft);
    if (thresholdState.kind === "invalid" || thresholdState.kind === "checking") {
      found.form = thresholdState.kind === "invalid" ? `Compaction threshold: ${thresholdState.message}` : "The compaction threshold is still being checked.";
    }
    setErrors(found);
    if (hasErrors(found)) {
      const firstBad = Object.keys(found.profiles)[0];
      if (firstBad) setSelected(firstBad);
      return;
    }
    setSaving(true);
    try {
      await onSave(fromDraft(draft));
      onClose();
    } catch (error) {
      setErrors({ form: toCommandFailure(error).message, profiles: {} });
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      title="Settings"
      wide
      onClose={onClose}
      footer={
        <>
          {hasErrors(errors) && (
            <p className="form-error" role="alert">
              {errors.form ?? "Fix the highlighted fields; nothing was saved."}
            </p>
          )}
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="button primary" onClick={() => void save()} disabled={saving}>
            {saving ? "Saving…" : "Save settings"}
          </button>
        </>
      }
    >
      <div className="settings">
        <section className="settings-section" aria-labelledby="profiles-heading">
          <h3 id="profiles-heading">Provider profiles</h3>
          <div className="profiles">
            <ul className="profile-tabs" role="list">
              {draft.profiles.map((p) => (
                <li key={p.id}>
                  <button
                    type="button"
                    className={`profile-tab${p.id === profile?.id ? " selected" : ""}${errors.profiles[p.id] ? " invalid" : ""}`}
                    aria-pressed={p.id === profile?.id}
                    onClick={() => setSelected(p.id)}
                  >
                    <span>{p.label || "Unnamed profile"}</span>
                    {p.id === draft.active_profile && <span className="badge">Active</span>}
                  </button>
                </li>
              ))}
              <li>
                <button
                  type="button"
                  className="link-button"
                  onClick={() => {
                    const created = newProfile(draft.profiles);
                    setDraft((d) => ({ ...d, profiles: [...d.profiles, created] }));
                    setSelected(created.id);
                  }}
                >
                  + Add profile
                </button>
              </li>
            </ul>
            {profile && (
              <ProfileEditor
                key={profile.id}
                profile={profile}
                errors={errors.profiles[profile.id] ?? {}}
                active={profile.id === draft.active_profile}
                canRemove={draft.profiles.length > 1}
                onChange={(patch) => updateProfile(profile.id, patch)}
                onMakeActive={() => setDraft((d) => ({ ...d, active_profile: profile.id }))}
                onRemove={() => {
                  const rest = draft.profiles.filter((p) => p.id !== profile.id);
                  setDraft((d) => ({
                    ...d,
                    profiles: rest,
                    active_profile: d.active_profile === profile.id ? (rest[0]?.id ?? "") : d.active_profile,
                  }));
                  setSelected(rest[0]?.id ?? "");
                }}
                onKeyStored={() => updateProfile(profile.id, { has_key: true })}
              />
            )}
          </div>
        </section>

        <fieldset className="settings-section">
          <legend>Approval policy</legend>
          {POLICIES.map((policy) => (
            <label key={policy.value} className="radio-row">
              <input
                type="radio"
                name="approval-policy"
                value={policy.value}
                checked={draft.approval_policy === policy.value}
                onChange={() => setDraft((d) => ({ ...d, approval_policy: policy.value }))}
              />
              <span>
                <strong>{policy.label}</strong> <span className="muted">{policy.hint}</span>
              </span>
            </label>
          ))}
          <p className="settings-shell-warning" data-testid="settings-shell-warning">
            <span className="approval-warning-icon" aria-hidden="true">
              !
            </span>
            <span>
              <strong>Not sandboxed:</strong> a shell command you approve, or that runs under Auto, {SHELL_RIGHTS_SHORT}
            </span>
          </p>
        </fieldset>

        <CompactionSettings
          policy={draft.compaction_policy}
          threshold={draft.compact_threshold}
          thresholdState={thresholdState}
          onPolicy={(compaction_policy) => setDraft((d) => ({ ...d, compaction_policy }))}
          onThreshold={(compact_threshold) => setDraft((d) => ({ ...d, compact_threshold }))}
        />

        <fieldset className="settings-section">
          <legend>Theme</legend>
          <div className="segmented">
            {THEMES.map((theme) => (
              <label key={theme.value} className={draft.theme === theme.value ? "selected" : undefined}>
                <input
                  type="radio"
                  name="theme"
                  value={theme.value}
                  checked={draft.theme === theme.value}
                  onChange={() => setDraft((d) => ({ ...d, theme: theme.value }))}
                />
                {theme.label}
              </label>
            ))}
          </div>
        </fieldset>
      </div>
    </Modal>
  );
}

interface ProfileEditorProps {
  profile: ProfileDraft;
  errors: ProfileErrors;
  active: boolean;
  canRemove: boolean;
  onChange: (patch: Partial<ProfileDraft>) => void;
  onMakeActive: () => void;
  onRemove: () => void;
  onKeyStored: () => void;
}

function Field({
  id,
  label,
  error,
  hint,
  children,
}: {
  id: string;
  label: string;
  error?: string;
  hint?: string;
  children: ReactNode;
}) {
  return (
    <div className={`field${error ? " has-error" : ""}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {error ? (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : hint ? (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}

function describedBy(id: string, error?: string, hint?: string) {
  return error ? `${id}-error` : hint ? `${id}-hint` : undefined;
}

/** The provider kinds with their default models, from the Rust catalog (`provider_kinds`). */
function useProviderKinds(): ProviderKindInfo[] {
  const [kinds, setKinds] = useState<ProviderKindInfo[]>([]);
  useEffect(() => {
    let current = true;
    providerKinds()
      .then((loaded) => current && Array.isArray(loaded) && setKinds(loaded))
      // Without the list the select still shows the profile's own kind.
      .catch(() => {});
    return () => {
      current = false;
    };
  }, []);
  return kinds;
}

function ProfileEditor({ profile, errors, active, canRemove, onChange, onMakeActive, onRemove, onKeyStored }: ProfileEditorProps) {
  const is_demo = profile.kind === "demo";
  const kinds = useProviderKinds();
  const text = (field: "label" | "model" | "base_url" | "context_window" | "compact_threshold", label: string, hint?: string, extra?: { inputMode?: "numeric"; placeholder?: string }) => {
    const id = `profile-${field}`;
    return (
      <Field id={id} label={label} error={errors[field]} hint={hint}>
        <input
          id={id}
          value={profile[field]}
          aria-invalid={Boolean(errors[field])}
          aria-describedby={describedBy(id, errors[field], hint)}
          onChange={(event) => onChange({ [field]: event.target.value })}
          {...extra}
        />
      </Field>
    );
  };
  return (
    <div className="profile-editor">
      <div className="profile-grid">
        {text("label", "Name")}
        <Field id="profile-kind" label="Provider">
          <select
            id="profile-kind"
            value={profile.kind}
            onChange={(event) => {
              const kind = kinds.find((k) => k.kind === event.target.value);
              if (kind) onChange({ kind: kind.kind, model: kind.default_model });
            }}
          >
            {kinds.some((k) => k.kind === profile.kind) || <option value={profile.kind}>{profile.kind}</option>}
            {kinds.map((kind) => (
              <option key={kind.kind} value={kind.kind}>
                {kind.label}
              </option>
            ))}
          </select>
        </Field>
        {text("model", "Model")}
        {!is_demo && text("base_url", "Base URL", "Leave empty for the provider's default endpoint.", { placeholder: "https://api.openai.com/v1" })}
        {text("context_window", "Context window (tokens)", "Leave empty to use the model catalog.", { inputMode: "numeric", placeholder: "e.g. 400000" })}
        {text("compact_threshold", "Compaction threshold (tokens)", "Base compacts when a round reports this many context tokens; layered's default is a third of the window, never above this.", { inputMode: "numeric" })}
      </div>
      {!is_demo && <ApiKeyField profileId={profile.id} has_key={profile.has_key} unsaved={profile.isNew} onStored={onKeyStored} />}
      <div className="profile-actions">
        {active ? (
          <span className="muted">New turns use this profile.</span>
        ) : (
          <button type="button" className="button" onClick={onMakeActive}>
            Use this profile
          </button>
        )}
        {canRemove && (
          <button type="button" className="button danger" onClick={onRemove}>
            Remove profile
          </button>
        )}
      </div>
    </div>
  );
}

function ApiKeyField({ profileId, has_key, unsaved, onStored }: { profileId: string; has_key: boolean; unsaved: boolean; onStored: () => void }) {
  // Uncontrolled: React mirrors a controlled input's value into its `value`
  // attribute, which would put the typed key into the DOM.
  const input = useRef<HTMLInputElement>(null);
  const [status, setStatus] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const store = async () => {
    const key = input.current?.value.trim() ?? "";
    if (!key) {
      setStatus({ tone: "error", text: "Paste a key first." });
      return;
    }
    setBusy(true);
    try {
      await setApiKey(profileId, key);
      if (input.current) input.current.value = "";
      setStatus({ tone: "ok", text: "Key stored. It is never shown again." });
      onStored();
    } catch (error) {
      setStatus({ tone: "error", text: toCommandFailure(error).message });
    } finally {
      setBusy(false);
    }
  };
  const hint = unsaved
    ? "Save settings first; then store this profile's key."
    : has_key
      ? // `has_key` does not say where the key comes from (keychain, key file or environment variable).
        "A key is configured for this profile. Paste a new one to replace it."
      : "Stored in the system keychain (or, where there is none, in Strata's private key file), never shown again.";
  return (
    <div className={`field api-key${status?.tone === "error" ? " has-error" : ""}`}>
      <label htmlFor="profile-api-key">
        API key {has_key && <span className="badge badge-ok">Configured</span>}
      </label>
      <div className="inline-input">
        <input
          id="profile-api-key"
          type="password"
          autoComplete="off"
          ref={input}
          defaultValue=""
          disabled={unsaved}
          placeholder={has_key ? "••••••••  (configured)" : "sk-…"}
          aria-describedby="profile-api-key-status"
          onChange={() => setStatus(null)}
        />
        <button type="button" className="button" disabled={unsaved || busy} onClick={() => void store()}>
          {has_key ? "Replace key" : "Store key"}
        </button>
      </div>
      <p id="profile-api-key-status" className={status ? (status.tone === "ok" ? "field-ok" : "field-error") : "field-hint"} role={status ? "status" : undefined}>
        {status?.text ?? hint}
      </p>
    </div>
  );
}
