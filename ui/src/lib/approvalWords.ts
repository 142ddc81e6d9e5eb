// An approval's action said once, in plain words ("Create hello.py", "Run: rm -rf build"), from
// what the core asks: its one-line summary ("write_file hello.py", "run `ls` in /w") and its
// detail (the diff of a write, the command of a shell call). Pure.

export interface ApprovalAction {
  /** The action, e.g. "Create hello.py" or "Run: cargo test". */
  action: string;
  /** Where a command runs, when the summary says. */
  where?: string;
  /** The detail worth showing under the action (a diff, a command of several lines), if any. */
  detail?: string;
}

/** The path of a write's summary ("write_file src/a.rs" → "src/a.rs"). */
function pathOf(tool: string, summary: string): string {
  return summary.startsWith(`${tool} `) ? summary.slice(tool.length + 1) : summary;
}

/** The folder of a shell summary ("run `ls` in /w" → "/w"). */
function folderOf(command: string, summary: string): string | undefined {
  const tail = `\`${command}\` in `;
  const at = summary.lastIndexOf(tail);
  return at === -1 ? undefined : summary.slice(at + tail.length) || undefined;
}

export function approvalAction(tool: string, summary: string, detail: string): ApprovalAction {
  switch (tool) {
    case "write_file": {
      const created = detail.startsWith("--- /dev/null");
      return { action: `${created ? "Create" : "Overwrite"} ${pathOf(tool, summary)}`, detail: detail || undefined };
    }
    case "apply_edit":
      return { action: `Edit ${pathOf(tool, summary)}`, detail: detail || undefined };
    case "run_shell": {
      const command = detail.replace(/\n+$/, "");
      const [first = "", ...more] = command.split("\n");
      return {
        action: `Run: ${more.length > 0 ? `${first} …` : first}`,
        where: folderOf(command, summary),
        detail: more.length > 0 ? command : undefined,
      };
    }
    default:
      return { action: summary || tool, detail: detail && detail !== summary ? detail : undefined };
  }
}
