import type { SessionListItem } from "../api/types";
import { TipButton } from "./Tooltip";
import { folderName } from "../lib/format";
import { sessionTitle } from "./SessionSidebar";
import { SessionInfo } from "./SessionInfo";
import type { ComponentProps } from "react";

/** Why a session is read-only: the only case is a session another process is writing. */
/** The same, short enough for the composer's placeholder. */
export const HELD_SHORT = "Read-only while another Strata process writes this session.";
export const HELD_NOTICE = "Read-only: another Strata process (the strata command line or another window) is writing this session. It follows along here and opens for you once that process lets go.";

interface ConversationHeaderProps {
  summary: SessionListItem;
  /** False while another process holds the session: the header says so and offers Check again. */
  live: boolean;
  /** A turn is running: the profile cannot be switched until it ends. */
  running: boolean;
  onSwitchProfile: () => void;
  /** Reads the session again (whether the other process still holds it). */
  onReload: () => void;
  /** The session's facts for the info popover (policy, profile, parent), beyond its list row. */
  info: Omit<ComponentProps<typeof SessionInfo>, "summary">;
}

/**
 * The open session's header: the title on a row of its own (cut last, with the whole title in
 * its tooltip), then the workspace line and, when another process holds the session, the notice
 * and Check again.
 */
export function ConversationHeader({ summary, live, running, onSwitchProfile, onReload, info }: ConversationHeaderProps) {
  const title = sessionTitle(summary);
  return (
    <div className="conversation-header">
      <div className="conversation-title">
        <h1 title={title}>{title}</h1>
        <SessionInfo summary={summary} {...info} />
      </div>
      <div className="conversation-meta">
        <div className="workspace">
          <span className="workspace-name" title={summary.workspace}>
            <span aria-hidden="true">▣</span> {folderName(summary.workspace)}
          </span>
          <span className="workspace-model muted" title={summary.model}>
            · {summary.model}
          </span>
          <TipButton
            className="link-button switch-profile"
            onClick={onSwitchProfile}
            disabled={running || !live}
            tip={!live ? HELD_NOTICE : running ? "Wait for the turn to finish" : "Talk to another saved profile from the next turn on"}
          >
            Switch profile
          </TipButton>
        </div>
        {!live && (
          // Compact: the badge shows the state, the name and tooltip say what it means.
          <div className="readonly-banner" role="status" aria-label={HELD_NOTICE}>
            <span className="badge readonly-badge" title={HELD_NOTICE}>
              Read-only
            </span>
            <TipButton className="button small" onClick={onReload} tip="See whether the other process still holds it">
              Check again
            </TipButton>
          </div>
        )}
      </div>
    </div>
  );
}
