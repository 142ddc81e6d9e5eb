// Fork from here's Files choice: leave the files (the default, said
// plainly), restore the folder in place, or a new git worktree (disabled
// with its reason outside a git repository), each previewed from Rust's
// preview_fork before confirming; a refusal lists the files and blocks it.
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { mockShell } from "../test/shell";
import type { ForkPreview } from "../bindings/ForkPreview";
import { ForkDialog } from "./ForkDialog";

const point = { kind: "at_item", item_id: "i-a1" } as const;

function preview(extra: Partial<ForkPreview> = {}): ForkPreview {
  return {
    v: 1,
    kind: "fork_preview",
    session_id: "s1",
    point,
    workspace: "/home/ana/ingest",
    worktree_unavailable: "the workspace is not in a git repository",
    files: [
      { path: "a.txt", step: "write" },
      { path: "b.txt", step: "delete" },
    ],
    refused: [],
    ...extra,
  };
}

function open(answer: ForkPreview) {
  const asked: unknown[] = [];
  mockShell((cmd, args) => {
    if (cmd !== "preview_fork") throw { kind: "internal", message: `unexpected ${cmd}` };
    asked.push(args);
    return answer;
  });
  const onConfirm = vi.fn();
  render(<ForkDialog sessionId="s1" point={point} label="up to and including this item" workspace="/home/ana/ingest" onCancel={() => {}} onConfirm={onConfirm} />);
  const dialog = screen.getByRole("dialog", { name: "Fork from here?" });
  return { asked, onConfirm, dialog, files: within(dialog).getByRole("radiogroup", { name: "Files" }) };
}

describe("ForkDialog's Files choice", () => {
  it("leaves the files by default, saying so, and offers no worktree outside a git repository", async () => {
    const { asked, onConfirm, dialog, files } = open(preview());
    const worktree = within(files).getByRole("radio", { name: /New git worktree at that point/ });
    expect(await within(files).findByText("Not available: the workspace is not in a git repository.")).toBeInTheDocument();
    expect(worktree).toBeDisabled();
    expect(within(files).getByRole("radio", { name: /Leave files as they are/ })).toBeChecked();
    expect(within(dialog).getByTestId("fork-files-notice")).toHaveTextContent("Files in the workspace are not rewound.");
    expect(asked).toEqual([{ session_id: "s1", point }]);
    await userEvent.setup().click(within(dialog).getByRole("button", { name: "Fork session" }));
    expect(onConfirm).toHaveBeenCalledWith("keep");
  });

  it("previews restoring the folder in place, file by file, then forks with it", async () => {
    const { onConfirm, dialog, files } = open(preview());
    const user = userEvent.setup();
    await user.click(within(files).getByRole("radio", { name: /Restore this folder to that point/ }));
    const list = await within(dialog).findByRole("list", { name: "Files that would change" });
    expect(within(list).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["Restore a.txt", "Delete b.txt"]);
    expect(within(dialog).queryByTestId("fork-files-notice")).toBeNull();
    await user.click(within(dialog).getByRole("button", { name: "Fork session" }));
    expect(onConfirm).toHaveBeenCalledWith("in_place");
  });

  it("lists the files that refuse it and will not fork with files, only without", async () => {
    const hostile = '<img src=x onerror="alert(1)">.txt';
    const { onConfirm, dialog, files } = open(preview({ refused: [{ path: hostile, reason: "changed outside Strata since its last recorded change" }] }));
    const user = userEvent.setup();
    await user.click(within(files).getByRole("radio", { name: /Restore this folder to that point/ }));
    const refusal = await within(dialog).findByTestId("fork-files-refused");
    expect(refusal).toHaveTextContent(`${hostile}: changed outside Strata since its last recorded change`);
    expect(refusal.querySelector("img")).toBeNull();
    expect(within(dialog).getByRole("button", { name: "Fork session" })).toBeDisabled();
    await user.click(within(files).getByRole("radio", { name: /Leave files as they are/ }));
    await user.click(within(dialog).getByRole("button", { name: "Fork session" }));
    expect(onConfirm).toHaveBeenCalledWith("keep");
  });

  it("shows the new worktree's folder in a git repository and forks into it", async () => {
    const { onConfirm, dialog, files } = open(preview({ worktree: "/home/ana/ingest-fork-1a2b3c4d", worktree_unavailable: undefined }));
    const user = userEvent.setup();
    const worktree = within(files).getByRole("radio", { name: /New git worktree at that point/ });
    await waitFor(() => expect(worktree).toBeEnabled());
    await user.click(worktree);
    expect(await within(dialog).findByTestId("fork-files-preview")).toHaveTextContent("A new git worktree at /home/ana/ingest-fork-1a2b3c4d");
    await user.click(within(dialog).getByRole("button", { name: "Fork session" }));
    expect(onConfirm).toHaveBeenCalledWith("worktree");
  });
});
