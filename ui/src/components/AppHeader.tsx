import type { AppInfo, SessionListItem } from "../api/types";
import type { SessionCost } from "../bindings/SessionCost";
import { SessionCostBadge } from "./SessionCostBadge";
import { TipButton } from "./Tooltip";
import { HEALTH_TEXT, type ProviderHealth } from "../lib/providerHealth";

interface AppHeaderProps {
  info: AppInfo | null;
  /** The open session: the header names its model, which may not be the active profile's. */
  session?: SessionListItem | null;
  /** Whether the session sidebar shows (docked, or as a drawer in a narrow window). */
  sidebarOpen: boolean;
  onToggleSidebar: () => void;
  /** What to call the session's provider: its profile's name (never its id or the kind's slug). */
  sessionProvider?: string | null;
  /** How the provider fared on the latest request: the dot turns amber while retrying, red after a failure. */
  health?: ProviderHealth;
  /** What the open session cost so far, shown beside its model. */
  cost?: SessionCost | null;
  consoleOpen: boolean;
  onToggleConsole: () => void;
  /** Whether the Changes view shows; its toggle is there while a session is open. */
  changesOpen?: boolean;
  onToggleChanges?: () => void;
  onOpenSettings: () => void;
}

/**
 * Brand, the model (the open session's, else the active profile's, with a demo badge on the
 * offline model), settings and the console toggle.
 */
export function AppHeader({
  info,
  session,
  sidebarOpen,
  onToggleSidebar,
  sessionProvider,
  health = "ok",
  cost,
  consoleOpen,
  onToggleConsole,
  changesOpen = false,
  onToggleChanges,
  onOpenSettings,
}: AppHeaderProps) {
  const profile = info?.active_profile;
  const demo = session ? session.provider_kind === "demo" : info?.is_demo;
  return (
    <header className="app-header">
      <div className="brand">
        <TipButton
          className={`icon-button sidebar-toggle${sidebarOpen ? " pressed" : ""}`}
          aria-expanded={sidebarOpen}
          aria-label="Sessions"
          aria-keyshortcuts="Control+B"
          tip={`${sidebarOpen ? "Hide" : "Show"} sessions (Ctrl+B)`}
          onClick={onToggleSidebar}
        >
          <span aria-hidden="true">☰</span>
        </TipButton>
        <span className="brand-mark" aria-hidden="true">
          <span />
          <span />
          <span />
        </span>
        <span className="brand-name">Strata</span>
      </div>
      <div className="header-center">
        {session ? (
          <>
            <span className="model-chip" title="The model this session talks to" data-health={health}>
              <span className={`model-dot ${health}`} role="img" aria-label={HEALTH_TEXT[health]} title={HEALTH_TEXT[health]} data-testid="provider-dot" />
              <span className="model-label">{sessionProvider ?? "Provider"}</span>
              {/* A profile named after its model ("OpenAI Responses · gpt-5.4") says it once. */}
              {!sessionProvider?.endsWith(session.model) && <span className="model-name">{session.model}</span>}
              {demo && <span className="badge badge-demo">Demo</span>}
            </span>
            {cost && <SessionCostBadge cost={cost} />}
          </>
        ) : (
          profile && (
            <TipButton className="model-chip" onClick={onOpenSettings} tip="Change the model in Settings">
              <span className="model-dot" aria-hidden="true" />
              <span className="model-label">{profile.label}</span>
              {!profile.label.endsWith(profile.model) && <span className="model-name">{profile.model}</span>}
              {demo && <span className="badge badge-demo">Demo</span>}
            </TipButton>
          )
        )}
      </div>
      <div className="header-actions">
        {onToggleChanges && (
          <TipButton
            className={`button ghost${changesOpen ? " pressed" : ""}`}
            aria-pressed={changesOpen}
            aria-keyshortcuts="Control+Shift+G"
            onClick={onToggleChanges}
            tip="Files changed, with diffs and restore (Ctrl+Shift+G)"
          >
            Changes
          </TipButton>
        )}
        <TipButton
          className={`button ghost${consoleOpen ? " pressed" : ""}`}
          aria-pressed={consoleOpen}
          aria-keyshortcuts="Control+Shift+D"
          onClick={onToggleConsole}
          tip="Toggle debug console (Ctrl+Shift+D)"
        >
          Debug console
        </TipButton>
        <TipButton className="button ghost" aria-keyshortcuts="Control+," onClick={onOpenSettings} tip="Settings (Ctrl+,)">
          Settings
        </TipButton>
      </div>
    </header>
  );
}

/** Shown while the offline demo model is active: what it is and how to connect a real one. */
export function DemoBanner({ onConnect }: { onConnect: () => void }) {
  return (
    <div className="demo-banner" role="note">
      <span>
        <strong>You are on the offline demo model.</strong> It runs without a network or key and answers with canned
        work, so you can try Strata safely.
      </span>
      <button type="button" className="button small" onClick={onConnect}>
        Connect a provider
      </button>
    </div>
  );
}
