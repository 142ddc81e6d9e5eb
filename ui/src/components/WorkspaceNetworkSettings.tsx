import { memo, useEffect, useId, useState } from "react";
import * as api from "../api/commands";
import { toCommandFailure } from "../api/commands";
import { pickWorkspace } from "../api/dialogs";
import type { SandboxNetwork } from "../bindings/SandboxNetwork";
import type { WorkspaceNetworkView } from "../bindings/WorkspaceNetworkView";
import { SANDBOX_NETWORKS, networkHint } from "../lib/sandbox";
import { AddFormField } from "./AddFormField";
import "./WorkspaceNetworkSettings.css";

/** The choices as this section names them (no "…": the domains are edited right here). */
const CHOICES = SANDBOX_NETWORKS.map((choice) => ({ ...choice, label: choice.value === "allow-list" ? "Allowed domains" : choice.label }));

export function networkLabel(network: SandboxNetwork): string {
  return CHOICES.find((choice) => choice.value === network)?.label ?? network;
}

/** A choice with its domains, in a sentence's words: `allowed domains (crates.io, *.npmjs.org)`. */
function described(network: SandboxNetwork, domains: readonly string[]): string {
  const label = networkLabel(network).toLowerCase();
  if (network !== "allow-list") return `network ${label}`;
  return domains.length ? `${label} (${domains.join(", ")})` : `${label}, none listed`;
}

interface Draft {
  network: SandboxNetwork;
  domains: string[];
}

/** What the form starts from: the file's choice when it applies, else Off (nothing is taken from a file Strata did not save). */
function draftOf(view: WorkspaceNetworkView | null): Draft {
  return view?.applied && view.network ? { network: view.network, domains: view.allow_domains } : { network: "off", domains: [] };
}

function sameDraft(a: Draft, b: Draft): boolean {
  return a.network === b.network && a.domains.length === b.domains.length && a.domains.every((d, i) => d === b.domains[i]);
}

interface WorkspaceNetworkSettingsProps {
  /** The open session's workspace, shown first; another can be chosen. */
  workspace: string | null;
}

/**
 * The workspace's `.strata/network.toml`: what its sessions' sandboxed commands may reach. Shows
 * the file's choice and whether Strata trusts it (a file changed since Strata saved it is shown
 * as not applied, its wider choice never used), and saves a new one with its own button, through
 * the same app function as `strata rules network`, which checks each domain.
 */
export const WorkspaceNetworkSettings = memo(function WorkspaceNetworkSettings({ workspace: initial }: WorkspaceNetworkSettingsProps) {
  const [workspace, setWorkspace] = useState(initial);
  const [view, setView] = useState<WorkspaceNetworkView | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [draft, setDraft] = useState<Draft>(() => draftOf(null));
  const [domain, setDomain] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ids = useId();

  useEffect(() => {
    setView(null);
    setLoadError(null);
    setError(null);
    setSaved(null);
    setDraft(draftOf(null));
    if (!workspace) return;
    let current = true;
    api
      .getWorkspaceNetwork(workspace)
      .then((found) => {
        if (!current) return;
        setView(found);
        setDraft(draftOf(found));
      })
      .catch((failure: unknown) => current && setLoadError(toCommandFailure(failure).message));
    return () => {
      current = false;
    };
  }, [workspace]);

  const choose = async () => {
    const picked = await pickWorkspace();
    if (picked) setWorkspace(picked);
  };

  const addDomain = () => {
    const typed = domain.trim();
    if (typed === "") {
      setError("Type a domain first, e.g. crates.io or *.npmjs.org.");
      return;
    }
    setError(null);
    setSaved(null);
    if (!draft.domains.includes(typed)) setDraft((d) => ({ ...d, domains: [...d.domains, typed] }));
    setDomain("");
  };

  const removeDomain = (gone: string) => {
    setSaved(null);
    setDraft((d) => ({ ...d, domains: d.domains.filter((x) => x !== gone) }));
  };

  const save = async () => {
    if (!workspace) return;
    setBusy(true);
    try {
      const found = await api.saveWorkspaceNetwork({ workspace, network: draft.network, allow_domains: draft.network === "allow-list" ? draft.domains : [] });
      setView(found);
      setLoadError(null);
      setDraft(draftOf(found));
      setError(null);
      setSaved(`Saved: new sessions in this workspace get ${described(draft.network, found.allow_domains)}.`);
    } catch (failure) {
      setError(toCommandFailure(failure).message);
      setSaved(null);
    } finally {
      setBusy(false);
    }
  };

  const dirty = !sameDraft(draft, draftOf(view));
  const refused = error ? draft.domains.find((d) => error.includes(`"${d}"`)) : undefined;
  return (
    <section className="settings-section" aria-labelledby={`${ids}-heading`}>
      <h3 id={`${ids}-heading`}>Workspace network</h3>
      <p className="muted settings-rules-hint">
        What sandboxed shell commands of new sessions in a workspace may reach, kept in its <code>.strata/network.toml</code> (the file{" "}
        <code>strata rules network</code> writes). It applies only as Strata saved it; saved here with its own button.
      </p>
      <div className="wsnet-workspace">
        {workspace ? (
          <span className="wsnet-workspace-path">
            Workspace: <code data-testid="wsnet-workspace">{workspace}</code>
          </span>
        ) : (
          <span className="muted wsnet-workspace-path">No workspace: open a session, or choose its folder.</span>
        )}
        <button type="button" className="button small" onClick={() => void choose()}>
          {workspace ? "Choose another folder…" : "Choose a folder…"}
        </button>
      </div>
      {workspace && <FileState view={view} loadError={loadError} />}
      {workspace && (view !== null || loadError !== null) && (
        <div className="wsnet-form" role="group" aria-label="Network for this workspace">
          <span className="field-label" id={`${ids}-choice`}>
            Network for sessions in this workspace
          </span>
          <div className="segmented" role="radiogroup" aria-labelledby={`${ids}-choice`}>
            {CHOICES.map((choice) => (
              <label key={choice.value} className={draft.network === choice.value ? "selected" : undefined} title={choice.hint}>
                <input
                  type="radio"
                  name={`${ids}-network`}
                  value={choice.value}
                  checked={draft.network === choice.value}
                  onChange={() => {
                    setSaved(null);
                    setDraft((d) => ({ ...d, network: choice.value }));
                  }}
                />
                {choice.label}
              </label>
            ))}
          </div>
          <p className="muted small">{networkHint(draft.network)}</p>
          {draft.network === "allow-list" && (
            <>
              {draft.domains.length === 0 ? (
                <p className="muted small wsnet-empty">No domain yet: until you add one, commands reach nothing.</p>
              ) : (
                <ul className="wsnet-domains" aria-label="Allowed domains">
                  {draft.domains.map((d) => (
                    <li key={d} className={d === refused ? "wsnet-refused" : undefined} aria-invalid={d === refused || undefined}>
                      <code>{d}</code>
                      <button type="button" className="link-button" aria-label={`Remove ${d}`} onClick={() => removeDomain(d)}>
                        Remove
                      </button>
                    </li>
                  ))}
                </ul>
              )}
              <div className="rules-add wsnet-add" role="group" aria-label="Add a domain">
                <AddFormField id={`${ids}-domain`} label="Domain" value={domain} placeholder="crates.io or *.npmjs.org" className="wsnet-add-domain" maxLength={260} onChange={setDomain} onEnter={addDomain} />
                <button type="button" className="button" onClick={addDomain}>
                  Add domain
                </button>
              </div>
            </>
          )}
          <div className="wsnet-actions">
            <button type="button" className="button" aria-disabled={busy} onClick={() => void (busy ? undefined : save())}>
              {busy ? "Saving…" : "Save workspace network"}
            </button>
            {dirty && <span className="muted small">Not saved yet</span>}
            {saved && !dirty && (
              <span className="wsnet-saved" role="status">
                {saved}
              </span>
            )}
          </div>
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
});

/** What the file says now, and whether it applies. */
function FileState({ view, loadError }: { view: WorkspaceNetworkView | null; loadError: string | null }) {
  if (loadError !== null) {
    return (
      <p className="settings-shell-warning" role="note" data-testid="wsnet-state">
        <span className="approval-warning-icon" aria-hidden="true">
          !
        </span>
        <span>
          <strong>The network file could not be read:</strong> {loadError} Saving here replaces it.
        </span>
      </p>
    );
  }
  if (view === null) return <p className="muted">Reading the workspace&rsquo;s network file…</p>;
  if (!view.exists || view.network === null) {
    return (
      <p className="wsnet-state" data-testid="wsnet-state">
        <span className="badge">No choice</span>
        <span className="muted">{view.exists ? "The file makes no choice" : "No network file yet"}: sessions here get the network of the settings above.</span>
      </p>
    );
  }
  if (view.applied) {
    return (
      <p className="wsnet-state" data-testid="wsnet-state">
        <span className="badge badge-ok">Applied</span>
        <span>
          New sessions here get <strong>{described(view.network, view.allow_domains)}</strong>
          <span className="muted">{view.network === "off" ? " (a file can always turn the network off)." : ", as Strata saved it."}</span>
        </span>
      </p>
    );
  }
  return (
    <div className="settings-shell-warning wsnet-untrusted" role="note" data-testid="wsnet-state">
      <span className="approval-warning-icon" aria-hidden="true">
        !
      </span>
      <div>
        <p>
          <strong>Not applied:</strong> the file changed since Strata saved it (or Strata never did), so its wider choice is ignored and sessions
          here get the network of the settings above. Save here to choose again.
        </p>
        <p className="wsnet-not-applied" data-testid="wsnet-not-applied">
          It asks for <span className="badge badge-warn">{networkLabel(view.network)}</span>
          {view.allow_domains.map((d) => (
            <code key={d}>{d}</code>
          ))}
          <span className="muted">not applied</span>
        </p>
      </div>
    </div>
  );
}
