import type { SessionForkView } from "../bindings/SessionForkView";

/** What a fork did, for the toast: the history it kept, and what became of the files. */
export function forkToast(fork: SessionForkView): string {
  const kept = `Forked into a new session with ${fork.history_items} items of history.`;
  const done = fork.files;
  if (!done) return `${kept} Workspace files were not rewound.`;
  const count = done.restore.files.length;
  const files = count === 1 ? "1 file was" : `${count} files were`;
  const where = done.worktree ? ` It works in a new git worktree at ${done.worktree}.` : "";
  return `${kept} ${files} returned to that point (undo it from the new session's Changes view).${where}`;
}
