import { ConfirmDialog } from "./Modal";

interface BroadWorkspaceDialogProps {
  /** The folder the person picked, which Strata refused as too broad. */
  workspace: string;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * Asks before a session works in `/` or the home folder itself (the shell
 * refuses those with `broad_workspace` until the person confirms). Cancel
 * has the focus, so Enter does not widen the agent's reach by accident.
 */
export function BroadWorkspaceDialog({ workspace, onConfirm, onCancel }: BroadWorkspaceDialogProps) {
  const what = workspace === "/" ? "the root of the whole filesystem" : "your home folder";
  return (
    <ConfirmDialog
      title="Work in this whole folder?"
      confirmLabel="Use this folder"
      danger
      className="link-dialog broad-workspace-dialog"
      onConfirm={onConfirm}
      onCancel={onCancel}
      message={
        <div data-testid="broad-workspace-confirm">
          <div className="link-url-label">Workspace</div>
          <code className="link-url" data-testid="broad-workspace-path">
            {workspace}
          </code>
          <p className="link-warning" role="alert">
            This is {what}, not a project folder.
          </p>
          <p>
            The agent&apos;s file tools could read anything under it and, with your approval, change anything
            under it. Shell commands you approve run with your rights, so they can reach everything you can.
          </p>
          <p className="muted link-hint">Choose a project folder instead unless you mean to give the agent all of this.</p>
        </div>
      }
    />
  );
}
