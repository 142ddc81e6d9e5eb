import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import type { SessionListItem } from "../api/types";
import { sidebarHandlers } from "../test/sidebar";
import { SessionSidebar } from "./SessionSidebar";

const sessions: SessionListItem[] = [
  { id: "s1", title: "Streaming JSON parser", workspace: "/home/ana/tidewater", provider_kind: "openai-responses", model: "gpt-5.4", created_at: "2026-11-29T10:00:00Z", updated_at: "2026-11-29T11:00:00Z", item_count: 46, compaction_count: 2 },
  { id: "s2", workspace: "/home/ana/harbor", provider_kind: "openai-responses", model: "gpt-5.4", created_at: "2026-11-28T10:00:00Z", updated_at: "2026-11-28T11:00:00Z", item_count: 3, compaction_count: 0 },
];

function setup(overrides: Partial<Parameters<typeof SessionSidebar>[0]> = {}) {
  const handlers = sidebarHandlers();
  function Harness() {
    const [query, setQuery] = useState("");
    return (
      <SessionSidebar
        sessions={sessions}
        activeId="s1"
        query={query}
        {...handlers}
        onQueryChange={(q) => {
          setQuery(q);
          handlers.onQueryChange(q);
        }}
        {...overrides}
      />
    );
  }
  render(<Harness />);
  return { handlers, user: userEvent.setup() };
}

describe("SessionSidebar", () => {
  it("lists title, workspace, item and compaction counts", () => {
    setup();
    const first = screen.getByRole("button", { name: /^Streaming JSON parser/ });
    expect(first).toHaveTextContent("tidewater");
    expect(first).toHaveTextContent("46 items");
    expect(first).toHaveTextContent("2 compactions");
    expect(first).toHaveAttribute("aria-current", "page");
    expect(screen.getByRole("button", { name: /^Untitled session/ })).toHaveTextContent("3 items");
  });

  it("counts one item in the singular", () => {
    render(
      <SessionSidebar sessions={[{ ...sessions[1]!, item_count: 1 }]} activeId={null} query="" onQueryChange={() => {}} onNew={() => {}} onOpen={() => {}} onRename={() => {}} onDelete={() => {}} onExport={() => {}} />,
    );
    const row = screen.getByRole("button", { name: /^Untitled session/ });
    expect(row).toHaveTextContent("1 item");
    expect(row).not.toHaveTextContent("1 items");
  });

  it("shows what a session cost, and nothing for one without a price", () => {
    const priced = { ...sessions[0]!, cost: { usd: 1_230_000_000_000, price_as_of: "2026-12-02" } };
    render(<SessionSidebar sessions={[priced, sessions[1]!]} activeId={null} query="" onQueryChange={() => {}} onNew={() => {}} onOpen={() => {}} onRename={() => {}} onDelete={() => {}} onExport={() => {}} />);
    expect(screen.getByRole("button", { name: /^Streaming JSON parser/ })).toHaveTextContent("$1.23");
    expect(screen.getAllByTestId("session-row-cost")).toHaveLength(1);
  });

  it("searches as the person types", async () => {
    const { handlers, user } = setup();
    await user.type(screen.getByRole("searchbox", { name: "Search sessions" }), "parser");
    expect(handlers.onQueryChange).toHaveBeenLastCalledWith("parser");
  });

  it("says when nothing matches", () => {
    render(
      <SessionSidebar sessions={[]} activeId={null} query="zebra" onQueryChange={() => {}} onNew={() => {}} onOpen={() => {}} onRename={() => {}} onDelete={() => {}} onExport={() => {}} />,
    );
    expect(screen.getByText("No session matches “zebra”.")).toBeInTheDocument();
  });

  it("opens on click and from the menu, which offers no separate read-only or resume step", async () => {
    const { handlers, user } = setup();
    await user.click(screen.getByRole("button", { name: /^Streaming JSON parser/ }));
    expect(handlers.onOpen).toHaveBeenCalledWith("s1");
    await user.click(screen.getByRole("button", { name: "Actions for Streaming JSON parser" }));
    expect(screen.queryByRole("menuitem", { name: /Resume|read-only/ })).toBeNull();
    await user.click(screen.getByRole("menuitem", { name: "Open" }));
    expect(handlers.onOpen).toHaveBeenCalledTimes(2);
  });

  it("renames in place with Enter, and Escape cancels", async () => {
    const { handlers, user } = setup();
    await user.click(screen.getByRole("button", { name: "Actions for Streaming JSON parser" }));
    await user.click(screen.getByRole("menuitem", { name: "Rename" }));
    const input = screen.getByRole("textbox", { name: "Session title" });
    await user.clear(input);
    await user.type(input, "JSON streaming{Enter}");
    expect(handlers.onRename).toHaveBeenCalledWith("s1", "JSON streaming");

    await user.click(screen.getByRole("button", { name: "Actions for Streaming JSON parser" }));
    await user.click(screen.getByRole("menuitem", { name: "Rename" }));
    await user.type(screen.getByRole("textbox", { name: "Session title" }), "x{Escape}");
    expect(handlers.onRename).toHaveBeenCalledTimes(1);
  });

  it("deletes only after confirmation", async () => {
    const { handlers, user } = setup();
    await user.click(screen.getByRole("button", { name: "Actions for Streaming JSON parser" }));
    await user.click(screen.getByRole("menuitem", { name: "Delete…" }));
    const dialog = screen.getByRole("dialog", { name: "Delete session?" });
    expect(dialog).toHaveTextContent("Streaming JSON parser");
    expect(within(dialog).getByRole("button", { name: "Cancel" })).toHaveFocus();
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(handlers.onDelete).not.toHaveBeenCalled();
    expect(screen.queryByRole("dialog")).toBeNull();

    await user.click(screen.getByRole("button", { name: "Actions for Streaming JSON parser" }));
    await user.click(screen.getByRole("menuitem", { name: "Delete…" }));
    await user.click(screen.getByRole("button", { name: "Delete session" }));
    expect(handlers.onDelete).toHaveBeenCalledWith("s1");
  });

  it("exports as Markdown or JSON", async () => {
    const { handlers, user } = setup();
    await user.click(screen.getByRole("button", { name: "Actions for Streaming JSON parser" }));
    await user.click(screen.getByRole("menuitem", { name: "Export as JSON" }));
    expect(handlers.onExport).toHaveBeenCalledWith("s1", "json");
  });
});
