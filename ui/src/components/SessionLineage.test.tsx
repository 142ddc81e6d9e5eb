import { fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { SessionListItem } from "../api/types";
import { listedSession } from "../test/sidebar";
import { lineageTree, SessionSidebar } from "./SessionSidebar";

const row = listedSession;

const parent = row("0193a1b2-0000-7000-8000-00000000a001", "Parser work");
const fork = row("0193a1b2-0000-7000-8000-00000000a002", "Parser work, try two", {
  parent_session_id: parent.id,
  point: { kind: "at_item", item_id: "0193a1b2-0000-7000-8000-0000000ff001" },
});
const orphan = row("0193a1b2-0000-7000-8000-00000000a003", "From a deleted session", {
  parent_session_id: "0193a1b2-0000-7000-8000-00000000dead",
  point: { kind: "before_compaction", number: 2 },
});

function setup(sessions: SessionListItem[], activeId: string | null = null) {
  const onOpen = vi.fn();
  render(
    <SessionSidebar
      sessions={sessions}
      activeId={activeId}
      query=""
      onQueryChange={vi.fn()}
      onNew={vi.fn()}
      onOpen={onOpen}
      onRename={vi.fn()}
      onDelete={vi.fn()}
      onExport={vi.fn()}
    />,
  );
  return { onOpen };
}

describe("lineage in the sidebar", () => {
  it("nests a listed fork under its parent and keeps the rest in list order", () => {
    const tree = lineageTree([fork, orphan, parent]);
    expect(tree.map((node) => node.session.id)).toEqual([orphan.id, parent.id]);
    expect(tree[1]?.forks.map((node) => node.session.id)).toEqual([fork.id]);
  });

  it("never loses a row to a lineage cycle", () => {
    const a = row("a", "A", { parent_session_id: "b", point: { kind: "before_compaction", number: 1 } });
    const b = row("b", "B", { parent_session_id: "a", point: { kind: "before_compaction", number: 1 } });
    const ids = (nodes: ReturnType<typeof lineageTree>): string[] => nodes.flatMap((n) => [n.session.id, ...ids(n.forks)]);
    expect(ids(lineageTree([a, b])).sort()).toEqual(["a", "b"]);
  });

  it("says a fork is one, of which session and where, and its link selects the parent", async () => {
    const { onOpen } = setup([fork, parent]);
    const forks = screen.getByRole("list", { name: "Forks of Parser work" });
    const lineage = within(forks).getByTestId("session-lineage");
    expect(lineage).toHaveTextContent("Fork of Parser work · after item 0193a1b2…f001");
    const link = within(lineage).getByRole("button", { name: "Parser work" });
    link.focus();
    await userEvent.keyboard("{Enter}");
    expect(onOpen).toHaveBeenCalledWith(parent.id);
  });

  it("folds a parent's forks behind a disclosure, unless the open session is one of them", () => {
    setup([fork, parent]);
    const toggle = screen.getByRole("button", { name: "1 fork" });
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    fireEvent.click(toggle);
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByRole("list", { name: "Forks of Parser work" })).toBeNull();
  });

  it("keeps the open fork visible", () => {
    setup([fork, parent], fork.id);
    const toggle = screen.getByRole("button", { name: "1 fork" });
    expect(toggle).toBeDisabled();
    expect(screen.getByRole("button", { name: /^Parser work, try two/ })).toHaveAttribute("aria-current", "page");
  });

  it("names a parent that is not listed without a dead link", () => {
    setup([orphan]);
    const lineage = screen.getByTestId("session-lineage");
    expect(lineage).toHaveTextContent("Fork of session 0193a1b2…dead (not listed) · before compaction 2");
    expect(within(lineage).queryByRole("button")).toBeNull();
  });
});
