import { memo, useCallback, useRef, useState } from "react";
import { toCommandFailure } from "../api/commands";
import type { ApprovalPolicy, Settings, Theme } from "../api/types";
import type { CompactionPolicy } from "../bindings/CompactionPolicy";
import type { SandboxMode } from "../bindings/SandboxMode";
import type { SetApiKey } from "../bindings/SetApiKey";
import {
  fromDraft,
  hasErrors,
  newProfile,
  toDraft,
  validateSettings,
  type ProfileDraft,
  type SettingsDraft,
  type SettingsErrors,
} from "../state/settingsForm";
import { SANDBOX_MODES, isSandboxed, parseDomains, sandboxHint } from "../lib/sandbox";
import type { SandboxNetwork } from "../bindings/SandboxNetwork";
import { NetworkControl } from "./NetworkControl";
import { SHELL_RIGHTS_SHORT } from "./ApprovalPrompt";
import { CompactionSettings, useThresholdCheck } from "./CompactionSettings";
import { Modal } from "./Modal";
import { ProfileEditor, type TypedKeys } from "./ProfileEditor";
import { McpSettings } from "./McpSettings";
import { RulesSettings } from "./RulesSettings";
import { WorkspaceNetworkSettings } from "./WorkspaceNetworkSettings";
import { SandboxUnavailableNote } from "./SandboxUnavailableNote";
import type { ImportSettings } from "../bindings/ImportSettings";
import type { ImportSettingsView } from "../bindings/ImportSettingsView";
import { ImportSettingsSection } from "../imported/ImportSettingsSection";

interface SettingsDialogProps {
  settings: Settings;
  /** The profile to show first (an error's "Open profile settings"); else the active one. */
  initialProfile?: string | null;
  /** Saves the settings with the keys typed for their profiles (new ones included): one Save. */
  onSave: (settings: Settings, apiKeys: SetApiKey[]) => Promise<void>;
  onClose: () => void;
  /** The open session's workspace, whose rules file the Rules section lists too. */
  workspace?: string | null;
  /** Why this computer cannot sandbox commands, if it cannot (then a sandboxed session asks before each one). */
  sandboxUnavailable?: string | null;
  /** Which other agents' sessions the library shows, saved at once. */
  imports?: { view: ImportSettingsView; onSave: (settings: ImportSettings) => void } | null;
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

/**
 * Provider profiles, approval policy and theme. Nothing is saved while any field is invalid.
 * Every section is memoised and every handler stable, so a keystroke renders the section it is
 * typed in (and the profile tabs when it is a profile's name), not the whole form.
 */
export function SettingsDialog({ settings, initialProfile = null, onSave, onClose, workspace = null, sandboxUnavailable = null, imports = null }: SettingsDialogProps) {
  const [draft, setDraft] = useState(() => toDraft(settings));
  const [selected, setSelected] = useState(() =>
    initialProfile && settings.profiles.some((p) => p.id === initialProfile) ? initialProfile : settings.active_profile,
  );
  const [errors, setErrors] = useState<SettingsErrors>({ profiles: {} });
  const [saving, setSaving] = useState(false);
  const typedKeys = useRef<TypedKeys>(new Map()).current;
  const profile = draft.profiles.find((p) => p.id === selected) ?? draft.profiles[0];
  const thresholdState = useThresholdCheck(draft.compact_threshold, draft.active_profile);

  const updateProfile = useCallback(
    (id: string, patch: Partial<ProfileDraft>) => setDraft((d) => ({ ...d, profiles: d.profiles.map((p) => (p.id === id ? { ...p, ...patch } : p)) })),
    [],
  );
  const makeActive = useCallback((id: string) => setDraft((d) => ({ ...d, active_profile: id })), []);
  // The draft as last rendered, for the handlers that must not change with it.
  const latest = useRef(draft);
  latest.current = draft;
  const removeProfile = useCallback(
    (id: string) => {
      typedKeys.delete(id);
      const rest = latest.current.profiles.filter((p) => p.id !== id);
      setDraft((d) => ({ ...d, profiles: d.profiles.filter((p) => p.id !== id), active_profile: d.active_profile === id ? (rest[0]?.id ?? "") : d.active_profile }));
      setSelected(rest[0]?.id ?? "");
    },
    [typedKeys],
  );
  const addProfile = useCallback(() => {
    const created = newProfile(latest.current.profiles);
    setDraft((d) => ({ ...d, profiles: [...d.profiles, created] }));
    setSelected(created.id);
  }, []);
  const set = useCallback(<K extends keyof SettingsDraft>(key: K, value: SettingsDraft[K]) => setDraft((d) => ({ ...d, [key]: value })), []);
  const setPolicy = useCallback((value: CompactionPolicy) => set("compaction_policy", value), [set]);
  const setThreshold = useCallback((value: string) => set("compact_threshold", value), [set]);

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
    const kept = new Set(draft.profiles.filter((p) => p.kind !== "demo").map((p) => p.id));
    const apiKeys = [...typedKeys].filter(([id]) => kept.has(id)).map(([profile_id, key]) => ({ profile_id, key }));
    setSaving(true);
    try {
      await onSave(fromDraft(draft), apiKeys);
      typedKeys.clear();
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
          <button type="button" className="button primary" onClick={() => void save()} aria-disabled={saving}>
            {saving ? "Saving…" : "Save settings"}
          </button>
        </>
      }
    >
      <div className="settings">
        <section className="settings-section" aria-labelledby="profiles-heading">
          <h3 id="profiles-heading">Provider profiles</h3>
          <div className="profiles">
            <ProfileTabs profiles={draft.profiles} selected={profile?.id} active={draft.active_profile} invalid={errors.profiles} onSelect={setSelected} onAdd={addProfile} />
            {profile && (
              <ProfileEditor
                key={profile.id}
                profile={profile}
                errors={errors.profiles[profile.id] ?? NO_ERRORS}
                active={profile.id === draft.active_profile}
                canRemove={draft.profiles.length > 1}
                typedKeys={typedKeys}
                onChange={updateProfile}
                onMakeActive={makeActive}
                onRemove={removeProfile}
              />
            )}
          </div>
        </section>

        <ApprovalSection value={draft.approval_policy} sandbox={draft.sandbox} unavailable={sandboxUnavailable} network={draft.sandbox_network} domainsText={draft.sandbox_allow_domains} onChange={set} />

        <RulesSettings workspace={workspace} />

        <WorkspaceNetworkSettings workspace={workspace} />

        <McpSettings />

        {imports && <ImportSettingsSection view={imports.view} onSave={imports.onSave} />}

        <CompactionSettings policy={draft.compaction_policy} threshold={draft.compact_threshold} thresholdState={thresholdState} onPolicy={setPolicy} onThreshold={setThreshold} />

        <ThemeSection value={draft.theme} onChange={set} />
      </div>
    </Modal>
  );
}

const NO_ERRORS = {};

interface ProfileTabsProps {
  profiles: ProfileDraft[];
  selected: string | undefined;
  active: string;
  invalid: SettingsErrors["profiles"];
  onSelect: (id: string) => void;
  onAdd: () => void;
}

/** The profiles by name, the active one and those without a key marked. */
const ProfileTabs = memo(function ProfileTabs({ profiles, selected, active, invalid, onSelect, onAdd }: ProfileTabsProps) {
  return (
    <ul className="profile-tabs" role="list">
      {profiles.map((p) => (
        <ProfileTab
          key={p.id}
          id={p.id}
          label={p.label}
          selected={p.id === selected}
          active={p.id === active}
          invalid={Boolean(invalid[p.id])}
          noKey={p.kind !== "demo" && !p.has_key}
          onSelect={onSelect}
        />
      ))}
      <li>
        <button type="button" className="link-button" onClick={onAdd}>
          + Add profile
        </button>
      </li>
    </ul>
  );
});

interface ProfileTabProps {
  id: string;
  label: string;
  selected: boolean;
  active: boolean;
  invalid: boolean;
  noKey: boolean;
  onSelect: (id: string) => void;
}

/** One tab; its props are plain values, so typing in another profile's field leaves it alone. */
const ProfileTab = memo(function ProfileTab({ id, label, selected, active, invalid, noKey, onSelect }: ProfileTabProps) {
  return (
    <li>
      <button type="button" className={`profile-tab${selected ? " selected" : ""}${invalid ? " invalid" : ""}`} aria-pressed={selected} onClick={() => onSelect(id)}>
        {/* One line in the narrow list: a long name is cut with an ellipsis, whole on hover. */}
        <span className="profile-tab-name" title={label || "Unnamed profile"}>
          {label || "Unnamed profile"}
        </span>
        {active && <span className="badge">Active</span>}
        {noKey && (
          <span className="badge badge-warn" title="No API key is configured for this profile">
            No key
          </span>
        )}
      </button>
    </li>
  );
});

type SetField = <K extends keyof SettingsDraft>(key: K, value: SettingsDraft[K]) => void;

/** The approval policy and the shell sandbox, together: between them they say what runs without asking and what it can reach. */
const ApprovalSection = memo(function ApprovalSection({
  value,
  sandbox,
  unavailable,
  network,
  domainsText,
  onChange,
}: {
  value: ApprovalPolicy;
  sandbox: SandboxMode;
  unavailable: string | null;
  network: SandboxNetwork;
  domainsText: string;
  onChange: SetField;
}) {
  return (
    <fieldset className="settings-section">
      <legend>Approval policy and sandbox</legend>
      {POLICIES.map((policy) => (
        <label key={policy.value} className="radio-row">
          <input type="radio" name="approval-policy" value={policy.value} checked={value === policy.value} onChange={() => onChange("approval_policy", policy.value)} />
          <span>
            <strong>{policy.label}</strong> <span className="muted">{policy.hint}</span>
          </span>
        </label>
      ))}
      <div className="settings-sandbox">
        <span className="field-label" id="settings-sandbox-label">
          Shell sandbox for new sessions
        </span>
        <div className="segmented" role="radiogroup" aria-labelledby="settings-sandbox-label">
          {SANDBOX_MODES.map((mode) => (
            <label key={mode.value} className={sandbox === mode.value ? "selected" : undefined} title={mode.hint}>
              <input type="radio" name="sandbox" value={mode.value} checked={sandbox === mode.value} onChange={() => onChange("sandbox", mode.value)} />
              {mode.label}
            </label>
          ))}
        </div>
      </div>
      <NetworkControl
        label="Network for new sessions"
        value={network}
        onChange={(choice) => onChange("sandbox_network", choice)}
        sandbox={sandbox}
        domains={parseDomains(domainsText)}
        domainsText={domainsText}
        onDomainsText={(text) => onChange("sandbox_allow_domains", text)}
      />
      {isSandboxed(sandbox) ? (
        <p className="settings-shell-warning settings-shell-sandboxed" data-testid="settings-shell-sandboxed">
          <span>
            <strong>Sandboxed:</strong> {sandboxHint(sandbox)} Where this computer cannot sandbox, every command asks first.
          </span>
        </p>
      ) : (
        <p className="settings-shell-warning" data-testid="settings-shell-warning">
          <span className="approval-warning-icon" aria-hidden="true">
            !
          </span>
          <span>
            <strong>Not sandboxed:</strong> a shell command you approve, or that runs under Auto, {SHELL_RIGHTS_SHORT}
          </span>
        </p>
      )}
      {isSandboxed(sandbox) && unavailable && <SandboxUnavailableNote reason={unavailable} />}
    </fieldset>
  );
});

const ThemeSection = memo(function ThemeSection({ value, onChange }: { value: Theme; onChange: SetField }) {
  return (
    <fieldset className="settings-section">
      <legend>Theme</legend>
      <div className="segmented">
        {THEMES.map((theme) => (
          <label key={theme.value} className={value === theme.value ? "selected" : undefined}>
            <input type="radio" name="theme" value={theme.value} checked={value === theme.value} onChange={() => onChange("theme", theme.value)} />
            {theme.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
});
