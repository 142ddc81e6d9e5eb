import { useEffect, useId, useRef, useState } from "react";
import type { SessionListItem } from "../api/types";
import type { CompactionPolicy } from "../bindings/CompactionPolicy";
import type { ProfileSet } from "../bindings/ProfileSet";
import type { ApprovalPolicy } from "../bindings/ApprovalPolicy";
import type { SandboxMode } from "../bindings/SandboxMode";
import { SANDBOX_MODES } from "../lib/sandbox";
import { useClickOutside } from "../hooks/useClickOutside";

/** A compaction policy in words. */
export const POLICY_LABEL: Record<CompactionPolicy, string> = {
  off: "Off — never compacts",
  base: "Base — summarises the history at the threshold",
  layered: "Layered — evicts old tool outputs first, then summarises",
};

interface SessionInfoProps {
  summary: SessionListItem;
  /** The profile the session talks to now (its last `profile_set`), when recorded. */
  profile: ProfileSet | null;
  /** What the person calls that profile (its saved name), when it is one of theirs. */
  profileName: string | null;
  /** The session's compaction policy, as its records leave it; null until the console's reading came. */
  policy: CompactionPolicy | null;
  /** The approval policy the app runs sessions under; null until the settings came. */
  approval?: ApprovalPolicy | null;
  /** The sandbox the session's shell commands run in (its last `sandbox_set`); null for a session from before the record. */
  sandbox?: SandboxMode | null;
  /** What its sandboxed commands reach (`network allow-list (crates.io)`); null without a sandbox. */
  network?: string | null;
  /** The parent's title when the session is a fork and the library lists the parent. */
  parentTitle?: string;
  onOpenParent?: (sessionId: string) => void;
}

/**
 * The session's facts, out of the transcript: its compaction policy, the profile it talks to,
 * when it was created, its folder and, for a fork, its parent. A button with aria-expanded opens
 * the popover; Escape or a click outside closes it and focus goes back to the button.
 */
export function SessionInfo({ summary, profile, profileName, policy, approval = null, sandbox = null, network = null, parentTitle, onOpenParent }: SessionInfoProps) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const panelId = useId();
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      event.stopPropagation();
      close(true);
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [open]);
  useClickOutside(open, [box], () => close(false));
  const origin = summary.forked_from;
  const model = profile?.model ?? summary.model;
  const name = profileName ?? profile?.profile ?? profile?.provider_kind ?? summary.provider_kind;
  return (
    <div className="session-info" ref={box}>
      <button
        ref={button}
        type="button"
        className="icon-button session-info-button"
        aria-label="Session info"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        aria-haspopup="dialog"
        onClick={() => setOpen((value) => !value)}
      >
        {/* Drawn, not the ⓘ character: fonts without it show an empty box. */}
        <svg className="info-icon" width="14" height="14" viewBox="0 0 14 14" fill="none" stroke="currentColor" strokeWidth="1.4" aria-hidden="true" focusable="false">
          <circle cx="7" cy="7" r="6" />
          <path d="M7 6.2v4" strokeLinecap="round" />
          <circle cx="7" cy="4" r="0.4" fill="currentColor" />
        </svg>
      </button>
      {open && (
        <div id={panelId} className="session-info-panel" role="dialog" aria-label="Session info" data-testid="session-info">
          <dl>
            <dt>Compaction policy</dt>
            <dd data-testid="info-policy">{policy ? POLICY_LABEL[policy] : "…"}</dd>
            <dt>Approval and sandbox</dt>
            <dd data-testid="info-approval">
              {approval ?? "…"} · {sandbox ? `sandbox ${sandbox}` : "sandbox not recorded"}
              {sandbox && <span className="muted"> — {SANDBOX_MODES.find((mode) => mode.value === sandbox)?.hint}</span>}
            </dd>
            {network && (
              <>
                <dt>Network</dt>
                <dd data-testid="info-network">{network}</dd>
              </>
            )}
            <dt>Profile</dt>
            <dd data-testid="info-profile">
              {/* A saved profile's name often says its model already. */}
              {name.includes(model) ? name : `${name} · ${model}`}
              {profile?.base_url ? <span className="muted"> at {profile.base_url}</span> : null}
            </dd>
            <dt>Created</dt>
            <dd data-testid="info-created">
              <time dateTime={summary.created_at}>{new Date(summary.created_at).toLocaleString()}</time>
            </dd>
            <dt>Folder</dt>
            <dd data-testid="info-folder" className="session-info-path">
              {summary.workspace}
            </dd>
            {origin && (
              <>
                <dt>Forked from</dt>
                <dd data-testid="info-parent">
                  {parentTitle !== undefined && onOpenParent ? (
                    <button
                      type="button"
                      className="link-button"
                      onClick={() => {
                        close(false);
                        onOpenParent(origin.parent_session_id);
                      }}
                    >
                      {parentTitle}
                    </button>
                  ) : (
                    <span className="muted">a session no longer in the library</span>
                  )}{" "}
                  <span className="muted">· {origin.point.kind === "at_item" ? "copied up to the item it was forked at" : `copied up to just before its compaction #${origin.point.number}`}</span>
                </dd>
              </>
            )}
          </dl>
        </div>
      )}
    </div>
  );
}
