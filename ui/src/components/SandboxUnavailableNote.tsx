/** Says, where a sandbox is chosen, that this computer cannot have it and what Strata does instead (asks before each command, never runs it unconfined silently). */
export function SandboxUnavailableNote({ reason }: { reason: string }) {
  return (
    <p className="settings-shell-warning" role="note" data-testid="sandbox-unavailable">
      <span className="approval-warning-icon" aria-hidden="true">
        !
      </span>
      <span>
        <strong>Not available here:</strong> {reason}. Every shell command asks first.
      </span>
    </p>
  );
}
