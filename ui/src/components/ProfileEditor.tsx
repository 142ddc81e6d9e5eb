import { memo, useEffect, useRef, useState, type ReactNode } from "react";
import { providerKinds, setApiKey, toCommandFailure } from "../api/commands";
import type { ProviderDraft } from "../bindings/ProviderDraft";
import type { ProviderKindInfo } from "../bindings/ProviderKindInfo";
import type { ProviderKind } from "../api/types";
import type { ProfileDraft, ProfileErrors } from "../state/settingsForm";
import { ConnectionCheck } from "./ConnectionCheck";
import { Listbox } from "./Listbox";

/** Keys typed into the form and not stored yet, by profile id: kept out of React state and the DOM. */
export type TypedKeys = Map<string, string>;

interface ProfileEditorProps {
  profile: ProfileDraft;
  errors: ProfileErrors;
  active: boolean;
  canRemove: boolean;
  typedKeys: TypedKeys;
  /** Each takes the profile's id, so the dialog passes the same functions to every profile. */
  onChange: (id: string, patch: Partial<ProfileDraft>) => void;
  onMakeActive: (id: string) => void;
  onRemove: (id: string) => void;
}

export function Field({ id, label, error, hint, children }: { id: string; label: string; error?: string; hint?: string; children: ReactNode }) {
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
export function useProviderKinds(): ProviderKindInfo[] {
  const [kinds, setKinds] = useState<ProviderKindInfo[]>([]);
  useEffect(() => {
    let current = true;
    providerKinds()
      .then((loaded) => current && Array.isArray(loaded) && setKinds(loaded))
      // Without the list the drop-down still shows the profile's own kind.
      .catch(() => {});
    return () => {
      current = false;
    };
  }, []);
  return kinds;
}

/** A profile draft as `test_connection` and `list_models` take it, with the key typed for it, if any. */
export function providerDraft(profile: ProfileDraft, typedKey: string | undefined): ProviderDraft {
  return {
    kind: profile.kind,
    model: profile.model.trim(),
    ...(profile.base_url.trim() ? { base_url: profile.base_url.trim() } : {}),
    ...(profile.isNew ? {} : { profile_id: profile.id }),
    ...(typedKey ? { api_key: typedKey } : {}),
  };
}

/**
 * One profile's fields. Memoised with stable handlers: typing in one field renders this editor
 * only, not the rest of Settings.
 */
export const ProfileEditor = memo(function ProfileEditor({ profile, errors, active, canRemove, typedKeys, onChange, onMakeActive, onRemove }: ProfileEditorProps) {
  const is_demo = profile.kind === "demo";
  const kinds = useProviderKinds();
  const [models, setModels] = useState<string[]>([]);
  const change = (patch: Partial<ProfileDraft>) => onChange(profile.id, patch);
  const text = (field: "label" | "model" | "base_url" | "context_window", label: string, hint?: string, extra?: { inputMode?: "numeric"; placeholder?: string; list?: string }) => {
    const id = `profile-${field}`;
    return (
      <Field id={id} label={label} error={errors[field]} hint={hint}>
        <input
          id={id}
          value={profile[field]}
          aria-invalid={Boolean(errors[field])}
          aria-describedby={describedBy(id, errors[field], hint)}
          onChange={(event) => change({ [field]: event.target.value })}
          {...extra}
        />
      </Field>
    );
  };
  const kindOptions = kinds.some((k) => k.kind === profile.kind)
    ? kinds.map((k) => ({ value: k.kind, label: k.label }))
    : [{ value: profile.kind, label: profile.kind }, ...kinds.map((k) => ({ value: k.kind, label: k.label }))];
  return (
    <div className="profile-editor">
      <div className="profile-grid">
        {text("label", "Name")}
        <Field id="profile-kind" label="Provider">
          <Listbox<ProviderKind>
            id="profile-kind"
            value={profile.kind}
            options={kindOptions}
            onChange={(value) => {
              const kind = kinds.find((k) => k.kind === value);
              if (kind) change({ kind: kind.kind, model: kind.default_model });
            }}
          />
        </Field>
        {text("model", "Model", models.length ? `${models.length} models on this server; type to pick one.` : undefined, { list: "profile-model-options" })}
        {models.length > 0 && (
          <datalist id="profile-model-options">
            {models.map((model) => (
              <option key={model} value={model} />
            ))}
          </datalist>
        )}
        {!is_demo && text("base_url", "Base URL", "Leave empty for the provider's default endpoint.", { placeholder: "https://api.openai.com/v1" })}
        {text("context_window", "Context window (tokens)", "Leave empty to use the model catalog.", { inputMode: "numeric", placeholder: "e.g. 400000" })}
      </div>
      {!is_demo && <ApiKeyField profile={profile} typedKeys={typedKeys} onStored={() => change({ has_key: true })} />}
      {!is_demo && <ConnectionCheck draft={() => providerDraft(profile, typedKeys.get(profile.id))} onModels={setModels} />}
      <div className="profile-actions">
        {active ? (
          <span className="muted">New turns use this profile.</span>
        ) : (
          <button type="button" className="button" onClick={() => onMakeActive(profile.id)}>
            Use this profile
          </button>
        )}
        {canRemove && (
          <button type="button" className="button danger" onClick={() => onRemove(profile.id)}>
            Remove profile
          </button>
        )}
      </div>
    </div>
  );
});

/**
 * The profile's key. Uncontrolled: React mirrors a controlled input's value into its `value`
 * attribute, which would put the typed key into the DOM. A saved profile's key can be stored at
 * once ("Store key"); any typed key, a new profile's too, is stored with "Save settings".
 */
function ApiKeyField({ profile, typedKeys, onStored }: { profile: ProfileDraft; typedKeys: TypedKeys; onStored: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [status, setStatus] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [typed, setTyped] = useState(() => typedKeys.has(profile.id));
  const store = async () => {
    if (busy) return;
    const key = input.current?.value.trim() ?? "";
    if (!key) {
      setStatus({ tone: "error", text: "Paste a key first." });
      return;
    }
    setBusy(true);
    try {
      await setApiKey(profile.id, key);
      if (input.current) input.current.value = "";
      typedKeys.delete(profile.id);
      setTyped(false);
      setStatus({ tone: "ok", text: "Key stored. It is never shown again." });
      onStored();
    } catch (error) {
      setStatus({ tone: "error", text: toCommandFailure(error).message });
    } finally {
      setBusy(false);
    }
  };
  const hint = typed
    ? "This key is stored when you save the settings."
    : profile.has_key
      ? // `has_key` does not say where the key comes from (keychain, key file or environment variable).
        "A key is configured for this profile. Paste a new one to replace it."
      : "Stored in the system keychain (or, where there is none, in Strata's private key file), never shown again.";
  return (
    <div className={`field api-key${status?.tone === "error" ? " has-error" : ""}`}>
      <label htmlFor="profile-api-key">
        API key {profile.has_key ? <span className="badge badge-ok">Configured</span> : <span className="badge badge-warn">No key</span>}
      </label>
      <div className="inline-input">
        <input
          id="profile-api-key"
          type="password"
          autoComplete="off"
          ref={input}
          defaultValue=""
          placeholder={typed ? "••••••••  (typed, not saved yet)" : profile.has_key ? "••••••••  (configured)" : "sk-…"}
          aria-describedby="profile-api-key-status"
          onChange={(event) => {
            const key = event.target.value.trim();
            if (key) typedKeys.set(profile.id, key);
            else typedKeys.delete(profile.id);
            setTyped(Boolean(key));
            setStatus(null);
          }}
        />
        {!profile.isNew && (
          // Not `disabled` while it works: a disabled button drops its focus (and Escape with it).
          <button type="button" className="button" aria-disabled={busy} onClick={() => void store()}>
            {profile.has_key ? "Replace key" : "Store key"}
          </button>
        )}
      </div>
      <p id="profile-api-key-status" className={status ? (status.tone === "ok" ? "field-ok" : "field-error") : "field-hint"} role={status ? "status" : undefined}>
        {status?.text ?? hint}
      </p>
    </div>
  );
}
