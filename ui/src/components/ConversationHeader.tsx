import type { SessionListItem } from "../api/types";
import { folderName } from "../lib/format";
import { sessionTitle } from "./SessionSidebar";

const READ_ONLY_NOTICE = "Read-only: browsing the session file.";

interface ConversationHeaderProps {
  summary: SessionListItem;
  /** False while the session is browsed read-only: the header offers Resume. */
  live: boolean;
  /** A turn is running: the profile cannot be switched until it ends. */
  running: boolean;
  onSwitchProfile: () => void;
  onResume: () => void;
}

/**
 * The open session's header: the title on a row of its own (cut last, with the whole title in
 * its tooltip), then the workspace line and, when read-only, the notice and Resume.
 */
export function ConversationHeader({ summary, live, running, onSwitchProfile, onResume }: ConversationHeaderProps) {
  const title = sessionTitle(summary);
  return (
    <div className="conversation-header">
      <div className="conversation-title">
        <h1 title={title}>{title}</h1>
      </div>
      <div className="conversation-meta">
        <div className="workspace">
          <span className="workspace-name" title={summary.workspace}>
            <span aria-hidden="true">▣</span> {folderName(summary.workspace)}
          </span>
          <span className="workspace-model muted" title={summary.model}>
            · {summary.model}
          </span>
          <button
            type="button"
            className="link-button switch-profile"
            onClick={onSwitchProfile}
            disabled={running}
            title={running ? "Wait for the turn to finish" : "Talk to another saved profile from the next turn on"}
          >
            Switch profile
          </button>
        </div>
        {!live && (
          // Compact: the badge shows the state, the name and tooltip say what it means.
          <div className="readonly-banner" role="status" aria-label={READ_ONLY_NOTICE}>
            <span className="badge readonly-badge" title={READ_ONLY_NOTICE}>
              Read-only
            </span>
            <button type="button" className="button small primary" onClick={onResume}>
              Resume session
            </button>
          </div>
        )}
      </div>
    </div>
  );
}
