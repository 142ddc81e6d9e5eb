import { useId, useMemo, useState } from "react";
import { TipLabel } from "./Tooltip";
import type { ApprovalPolicy } from "../bindings/ApprovalPolicy";
import type { SandboxMode } from "../bindings/SandboxMode";
import type { SandboxNetwork } from "../bindings/SandboxNetwork";
import { NetworkControl } from "./NetworkControl";
import { useAppliedWorkspaceNetwork } from "./useAppliedWorkspaceNetwork";
import { SANDBOX_MODES, isSandboxed, sandboxHint } from "../lib/sandbox";
import { SandboxUnavailableNote } from "./SandboxUnavailableNote";
import type { ProfileView } from "../bindings/ProfileView";
import { folderName } from "../lib/format";
import { Modal } from "./Modal";
import "./NewSessionSheet.css";
import { POLICIES } from "./SettingsDialog";

/** What the sheet starts a session with. */
export interface NewSessionChoice {
  workspace: string;
  profileId: string;
  approval: ApprovalPolicy;
  /** The sandbox this session's shell commands run in (recorded in it). */
  sandbox: SandboxMode;
  /** What its sandboxed commands reach (recorded in it). */
  network: SandboxNetwork;
}

interface NewSessionSheetProps {
  /** Recent folders, most recent first (`recent`); `null` while they load. */
  recent: string[] | null;
  profiles: ProfileView[];
  defaultProfile: string;
  defaultApproval: ApprovalPolicy;
  /** The settings' sandbox for new sessions. */
  defaultSandbox: SandboxMode;
  /** Why this computer cannot sandbox commands, if it cannot (then a sandboxed session asks before each one). */
  sandboxUnavailable?: string | null;
  /** The settings' network and allowed domains for new sessions. */
  defaultNetwork: SandboxNetwork;
  allowDomains: readonly string[];
  /** The native folder picker; `null` when cancelled. */
  onBrowse: () => Promise<string | null>;
  onStart: (choice: NewSessionChoice) => void;
  onCancel: () => void;
}

/** Whether `text` is an absolute folder path a person typed (Unix or Windows). */
function isAbsolute(text: string): boolean {
  return text.startsWith("/") || /^[A-Za-z]:[\\/]/.test(text);
}

/**
 * A new session in one small sheet: a folder from the recent ones (type to filter, arrows to
 * move, Enter to start; a typed full path is offered too; Browse… for the system picker), then
 * the profile and the approval policy, all confirmed with one Start.
 */
export function NewSessionSheet({ recent, profiles, defaultProfile, defaultApproval, defaultSandbox, sandboxUnavailable = null, defaultNetwork, allowDomains, onBrowse, onStart, onCancel }: NewSessionSheetProps) {
  const listId = useId();
  const [filter, setFilter] = useState("");
  const [browsed, setBrowsed] = useState<string[]>([]);
  const [active, setActive] = useState(0);
  const [profileId, setProfileId] = useState(defaultProfile);
  const [approval, setApproval] = useState<ApprovalPolicy>(defaultApproval);
  const [sandbox, setSandbox] = useState<SandboxMode>(defaultSandbox);
  const [chosenNetwork, setNetwork] = useState<SandboxNetwork | null>(null);
  const folders = useMemo(() => {
    const known = [...browsed, ...(recent ?? []).filter((folder) => !browsed.includes(folder))];
    const text = filter.trim();
    const matching = text ? known.filter((folder) => folder.toLowerCase().includes(text.toLowerCase())) : known;
    return isAbsolute(text) && !matching.includes(text) ? [text, ...matching] : matching;
  }, [browsed, recent, filter]);
  const at = Math.min(active, Math.max(folders.length - 1, 0));
  const workspace = folders[at] ?? null;
  // The workspace's own network file, where it applies, comes before the settings' network; its
  // domains are listed first, as the app lists them for the session.
  const fromFile = useAppliedWorkspaceNetwork(workspace);
  const network = chosenNetwork ?? fromFile?.network ?? defaultNetwork;
  const domains = useMemo(() => [...new Set([...(fromFile?.domains ?? []), ...allowDomains])], [fromFile, allowDomains]);
  const start = () => {
    if (workspace) onStart({ workspace, profileId, approval, sandbox, network });
  };
  const browse = async () => {
    const folder = await onBrowse();
    if (!folder) return;
    setBrowsed((list) => [folder, ...list.filter((f) => f !== folder)]);
    setFilter("");
    setActive(0);
  };
  const optionId = (index: number) => `${listId}-${index}`;
  return (
    <Modal
      title="New session"
      onClose={onCancel}
      className="new-session-sheet"
      footer={
        <>
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className="button primary" onClick={start} disabled={!workspace}>
            Start session
          </button>
        </>
      }
    >
      <div className="new-session-folder-row">
        <label className="field-label" htmlFor={`${listId}-filter`}>
          Folder
        </label>
        <button type="button" className="button small" onClick={() => void browse()}>
          Browse…
        </button>
      </div>
      <input
        id={`${listId}-filter`}
        data-autofocus
        className="text-input"
        type="text"
        role="combobox"
        aria-expanded="true"
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={workspace ? optionId(at) : undefined}
        placeholder="Type to filter recent folders, or a folder's full path"
        value={filter}
        onChange={(event) => {
          setFilter(event.target.value);
          setActive(0);
        }}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown") {
            event.preventDefault();
            setActive(Math.min(at + 1, folders.length - 1));
          } else if (event.key === "ArrowUp") {
            event.preventDefault();
            setActive(Math.max(at - 1, 0));
          } else if (event.key === "Enter") {
            event.preventDefault();
            start();
          }
        }}
      />
      <ul id={listId} role="listbox" aria-label="Recent folders" className="new-session-folders">
        {folders.map((folder, index) => (
          <li
            key={folder}
            id={optionId(index)}
            role="option"
            aria-selected={index === at}
            className={index === at ? "selected" : undefined}
            title={folder}
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => setActive(index)}
            onDoubleClick={() => onStart({ workspace: folder, profileId, approval, sandbox, network })}
          >
            <strong>{folderName(folder)}</strong> <span className="muted">{folder}</span>
          </li>
        ))}
      </ul>
      {folders.length === 0 && (
        <p className="muted new-session-empty">
          {recent === null ? "Loading recent folders…" : filter.trim() ? "No recent folder matches. Type a full path, or Browse…" : "No recent folders yet. Browse… for one, or type its full path."}
        </p>
      )}
      <p className="new-session-chosen" data-testid="new-session-folder">
        {workspace ? (
          <>
            Starts in <strong>{workspace}</strong>
          </>
        ) : (
          "Choose the folder the agent works in."
        )}
      </p>
      <label className="field-label" htmlFor={`${listId}-profile`}>
        Profile
      </label>
      <select id={`${listId}-profile`} className="text-input" value={profileId} onChange={(event) => setProfileId(event.target.value)}>
        {profiles.map((profile) => (
          <option key={profile.id} value={profile.id}>
            {profile.label}
          </option>
        ))}
      </select>
      <fieldset className="new-session-approval">
        <legend className="field-label">Approval (for every session in this app)</legend>
        <div className="segmented" role="radiogroup" aria-label="Approval">
          {POLICIES.map((policy) => (
            <TipLabel key={policy.value} className={approval === policy.value ? "selected" : undefined} tip={policy.hint}>
              <input type="radio" name={`${listId}-approval`} value={policy.value} checked={approval === policy.value} onChange={() => setApproval(policy.value)} />
              {policy.label}
            </TipLabel>
          ))}
        </div>
        <p className="muted small">{POLICIES.find((policy) => policy.value === approval)?.hint}</p>
      </fieldset>
      <fieldset className="new-session-approval">
        <legend className="field-label">Shell sandbox (this session)</legend>
        <div className="segmented" role="radiogroup" aria-label="Shell sandbox">
          {SANDBOX_MODES.map((mode) => (
            <TipLabel key={mode.value} className={sandbox === mode.value ? "selected" : undefined} tip={mode.hint}>
              <input type="radio" name={`${listId}-sandbox`} value={mode.value} checked={sandbox === mode.value} onChange={() => setSandbox(mode.value)} />
              {mode.label}
            </TipLabel>
          ))}
        </div>
        <p className="muted small" data-testid="new-session-sandbox-hint">
          {sandboxHint(sandbox)}
        </p>
        {sandboxUnavailable && isSandboxed(sandbox) && <SandboxUnavailableNote reason={sandboxUnavailable} />}
        <NetworkControl label="Network (this session)" value={network} onChange={setNetwork} sandbox={sandbox} domains={domains} />
        {chosenNetwork === null && fromFile && isSandboxed(sandbox) && (
          <p className="muted small" data-testid="new-session-network-source">
            From this workspace&rsquo;s <code>.strata/network.toml</code>, saved by Strata.
          </p>
        )}
      </fieldset>
    </Modal>
  );
}
