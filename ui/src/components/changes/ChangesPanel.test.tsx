import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ChangeDiff } from "../../bindings/ChangeDiff";
import type { RestoreReport } from "../../bindings/RestoreReport";
import type { SessionChanges } from "../../bindings/SessionChanges";
import { mockShell } from "../../test/shell";
import { ToolCallCard } from "../ToolCallCard";
import { ChangesContext, useSessionChanges } from "./changesData";
import { ChangesPanel } from "./ChangesPanel";
import { DIFF_LINES_SHOWN, DiffView } from "./DiffView";

const SESSION = "0190f5c2-0000-7000-8000-000000000001";

const changes: SessionChanges = {
  v: 1,
  session_id: SESSION,
  groups: [
    {
      turn: 1,
      calls: [{ call_id: "call-1", cause: "write_file", files: [{ record: 4, path: "a.txt", kind: "created", added: 3, removed: 0, restorable: true }] }],
    },
    {
      turn: 2,
      calls: [
        { call_id: "call-2", cause: "apply_edit", files: [{ record: 8, path: "a.txt", kind: "modified", added: 1, removed: 1, restorable: true }] },
        { call_id: "call-3", cause: "write_file", files: [{ record: 9, path: "b.txt", kind: "created", added: 1, removed: 0, restorable: true }] },
      ],
    },
  ],
  files: [
    { path: "a.txt", kind: "created", changes: 2, added: 3, removed: 0 },
    { path: "b.txt", kind: "created", changes: 1, added: 1, removed: 0 },
  ],
};

const editDiff: ChangeDiff = {
  v: 1,
  path: "a.txt",
  kind: "modified",
  before: { size: 14, sha256: "a".repeat(64), stored: true },
  after: { size: 14, sha256: "b".repeat(64), stored: true },
  body: {
    kind: "text",
    added: 1,
    removed: 1,
    omitted_lines: 0,
    hunks: [
      {
        header: "@@ -1,3 +1,3 @@",
        lines: [
          { tag: "context", old: 1, new: 1, text: "one" },
          { tag: "removed", old: 2, new: null, text: "two" },
          { tag: "added", old: null, new: 2, text: "TWO" },
          { tag: "context", old: 3, new: 3, text: "three" },
        ],
      },
    ],
  },
};

const preview: RestoreReport = {
  v: 1,
  kind: "restore",
  session_id: SESSION,
  dry_run: true,
  restored: true,
  files: [
    { path: "a.txt", step: "write" },
    { path: "b.txt", step: "delete" },
  ],
  refused: [],
};

function Harness({ canRestore = true, onRestored = () => undefined }: { canRestore?: boolean; onRestored?: (report: RestoreReport) => void }) {
  const data = useSessionChanges(SESSION, "0");
  return (
    <ChangesContext.Provider value={{ ...data, restore: { allowed: canRestore, offReason: "Wait until the turn has finished", onRestored } }}>
      <ChangesPanel data={data} canRestore={canRestore} restoreOffReason="Wait until the turn has finished" onClose={() => undefined} onRestored={onRestored} />
      <ToolCallCard tool={{ id: "call:call-2", call_id: "call-2", name: "apply_edit", arguments: '{"path":"a.txt"}', status: "success" }} />
    </ChangesContext.Provider>
  );
}

/** A fake shell answering the Changes view's commands; the calls it got, in order. */
function backend(answers: Partial<Record<string, (args: Record<string, unknown>) => unknown>> = {}) {
  const calls: { cmd: string; args: Record<string, unknown> }[] = [];
  mockShell((cmd, args) => {
    calls.push({ cmd, args });
    const answer = answers[cmd];
    if (answer) return answer(args);
    if (cmd === "list_changes") return changes;
    if (cmd === "change_diff") return editDiff;
    if (cmd === "preview_restore") return preview;
    if (cmd === "restore_files") return { ...preview, dry_run: false, restore_id: "restore-1" };
    throw new Error(`unexpected ${cmd}`);
  });
  return calls;
}

afterEach(() => clearMocks());

describe("ChangesPanel", () => {
  it("lists each turn's files by call with their line counts, and a file's diff once opened", async () => {
    const user = userEvent.setup();
    const calls = backend();
    render(<Harness />);
    const turn2 = await screen.findByRole("region", { name: "Turn 2" });
    expect(within(screen.getByRole("region", { name: "Turn 1" })).getByText("a.txt")).toBeInTheDocument();
    expect(within(turn2).getByText("apply_edit")).toBeInTheDocument();
    expect(within(turn2).getByText("2 files", { exact: false })).toBeInTheDocument();
    const edit = within(turn2).getByRole("button", { name: /Modified a\.txt/ });
    expect(within(edit).getByLabelText("1 lines added")).toHaveTextContent("+1");
    expect(edit).toHaveAttribute("aria-expanded", "false");
    await user.click(edit);
    const table = await within(turn2).findByRole("table", { name: "Changes to a.txt" });
    expect(calls.find((c) => c.cmd === "change_diff")?.args.target).toEqual({ kind: "change", record: 8 });
    const removed = within(table).getByText("two").closest("tr");
    expect(removed).toHaveClass("diff-removed");
    expect(within(removed as HTMLElement).getByLabelText("old line 2")).toHaveTextContent("2");
    expect(within(table).getByText("TWO").closest("tr")).toHaveClass("diff-added");
    expect(within(table).getByText("@@ -1,3 +1,3 @@")).toBeInTheDocument();
  });

  it("shows each file once over the whole session, its diff spanning every change", async () => {
    const user = userEvent.setup();
    const calls = backend();
    render(<Harness />);
    await screen.findByRole("region", { name: "Turn 2" });
    await user.click(screen.getByRole("radio", { name: "Whole session" }));
    const whole = screen.getByRole("region", { name: "Whole session" });
    expect(within(whole).getAllByRole("listitem")).toHaveLength(2);
    expect(within(whole).getByText("2 changes")).toBeInTheDocument();
    await user.click(within(whole).getByRole("button", { name: /a\.txt/ }));
    await within(whole).findByRole("table");
    expect(calls.filter((c) => c.cmd === "change_diff").at(-1)?.args.target).toEqual({ kind: "session_file", path: "a.txt" });
  });

  it("previews a restore before a turn, listing what it writes back and deletes, and restores on confirmation", async () => {
    const user = userEvent.setup();
    const restored = vi.fn();
    const calls = backend();
    render(<Harness onRestored={restored} />);
    const turn2 = await screen.findByRole("region", { name: "Turn 2" });
    await user.click(within(turn2).getByRole("button", { name: "Restore to before this turn" }));
    const dialog = await screen.findByRole("dialog", { name: "Restore files to before turn 2" });
    const list = await within(dialog).findByRole("list", { name: "Files the restore changes" });
    expect(within(list).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["Write backa.txt", "Deleteb.txt"]);
    expect(calls.map((c) => c.cmd)).not.toContain("restore_files");
    expect(calls.find((c) => c.cmd === "preview_restore")?.args.target).toEqual({ kind: "before_turn", turn: 2 });
    await user.click(within(dialog).getByRole("button", { name: "Restore 2 files" }));
    await waitFor(() => expect(restored).toHaveBeenCalledTimes(1));
    expect(restored.mock.calls[0]?.[0]).toMatchObject({ restore_id: "restore-1" });
    expect(calls.find((c) => c.cmd === "restore_files")?.args.target).toEqual({ kind: "before_turn", turn: 2 });
  });

  it("refuses a restore over a file changed outside Strata, naming it, with no way to go ahead", async () => {
    const user = userEvent.setup();
    const calls = backend({
      preview_restore: () => ({ ...preview, restored: false, refused: [{ path: "a.txt", reason: "changed outside Strata since its last recorded change" }] }),
    });
    render(<Harness />);
    const turn1 = await screen.findByRole("region", { name: "Turn 1" });
    await user.click(within(turn1).getByRole("button", { name: "Restore to before this turn" }));
    const dialog = await screen.findByRole("dialog");
    const alert = await within(dialog).findByRole("alert");
    expect(alert).toHaveTextContent("Strata will not restore these files");
    expect(alert).toHaveTextContent("a.txt");
    expect(alert).toHaveTextContent("changed outside Strata since its last recorded change");
    expect(within(dialog).queryByRole("button", { name: /^Restore/ })).toBeNull();
    const close = within(dialog).getAllByRole("button", { name: "Close" });
    await user.click(close[close.length - 1] as HTMLElement);
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(calls.map((c) => c.cmd)).not.toContain("restore_files");
  });

  it("offers to undo a restore, restoring to before it", async () => {
    const user = userEvent.setup();
    const withRestore: SessionChanges = {
      ...changes,
      groups: [...changes.groups, { turn: null, calls: [{ call_id: "restore-1", cause: "restore", files: [{ record: 12, path: "b.txt", kind: "deleted", added: 0, removed: 1, restorable: true }] }] }],
    };
    const calls = backend({ list_changes: () => withRestore });
    render(<Harness />);
    const restore = await screen.findByRole("region", { name: "Restore" });
    await user.click(within(restore).getByRole("button", { name: "Undo this restore" }));
    await screen.findByRole("dialog", { name: "Restore files to before this restore" });
    expect(calls.find((c) => c.cmd === "preview_restore")?.args.target).toEqual({ kind: "before_item", item: "restore-1" });
  });

  it("turns restores off while the session cannot be written", async () => {
    backend();
    render(<Harness canRestore={false} />);
    const turn2 = await screen.findByRole("region", { name: "Turn 2" });
    expect(within(turn2).getByRole("button", { name: "Restore to before this turn" })).toBeDisabled();
  });

  it("says when the session changed no file", async () => {
    backend({ list_changes: () => ({ ...changes, groups: [], files: [] }) });
    render(<Harness />);
    expect(await screen.findByText(/No file changed in this session yet/)).toBeInTheDocument();
  });
});

describe("DiffView", () => {
  it("shows a content kept by hash and size only as such, with no lines", () => {
    render(<DiffView diff={{ ...editDiff, path: "logo.png", body: { kind: "withheld", reason: "not_kept" } }} />);
    expect(screen.getByRole("note")).toHaveTextContent("recorded by hash and size only");
    expect(screen.getByRole("note")).toHaveTextContent("sha256 aaaaaaaaaaaa");
    expect(screen.queryByRole("table")).toBeNull();
  });

  it("draws a long diff's first lines and the rest on request", async () => {
    const user = userEvent.setup();
    const lines = Array.from({ length: DIFF_LINES_SHOWN + 25 }, (_, n) => ({ tag: "added" as const, old: null, new: n + 1, text: `line ${n + 1}` }));
    render(<DiffView diff={{ ...editDiff, body: { kind: "text", added: lines.length, removed: 0, omitted_lines: 0, hunks: [{ header: "@@ -0,0 +1,425 @@", lines }] } }} />);
    expect(screen.getAllByRole("row")).toHaveLength(DIFF_LINES_SHOWN + 1);
    await user.click(screen.getByRole("button", { name: "Show 25 more lines" }));
    expect(screen.getAllByRole("row")).toHaveLength(DIFF_LINES_SHOWN + 26);
  });
});

describe("a tool card's changed files", () => {
  it("lists the files its call changed, folded, with the diff on opening", async () => {
    const user = userEvent.setup();
    backend();
    render(<Harness />);
    await screen.findByRole("region", { name: "Turn 2" });
    const card = screen.getByRole("region", { name: "Tool call apply_edit" });
    expect(within(card).queryByText("Changed files")).toBeNull();
    await user.click(within(card).getByRole("button", { expanded: false }));
    const files = within(card).getByRole("list", { name: "Files this call changed" });
    const row = within(files).getByRole("button", { name: /a\.txt/ });
    expect(row).toHaveAttribute("aria-expanded", "false");
    await user.click(row);
    expect(await within(card).findByRole("table", { name: "Changes to a.txt" })).toBeInTheDocument();
  });

  it("restores to before the call, previewed first", async () => {
    const user = userEvent.setup();
    const calls = backend();
    render(<Harness />);
    await screen.findByRole("region", { name: "Turn 2" });
    const card = screen.getByRole("region", { name: "Tool call apply_edit" });
    await user.click(within(card).getByRole("button", { expanded: false }));
    await user.click(within(card).getByRole("button", { name: "Restore to before this call" }));
    await screen.findByRole("dialog", { name: "Restore files to before this call" });
    expect(calls.find((c) => c.cmd === "preview_restore")?.args.target).toEqual({ kind: "before_item", item: "call-2" });
  });
});
