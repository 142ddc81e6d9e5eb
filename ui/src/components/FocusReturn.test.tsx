// Issue 27, item 15: focus is never lost when a menu or dialog closes.
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { useFocusKeeper } from "../hooks/useReturnFocus";
import { listedSession, sidebarHandlers } from "../test/sidebar";
import { SessionSidebar } from "./SessionSidebar";

/** The sidebar, whose Delete removes the row once the shell answers (later, as the real one does). */
function Sidebar() {
  useFocusKeeper();
  const [sessions, setSessions] = useState(() => [listedSession("s1", "Streaming JSON parser"), listedSession("s2", "Harbor tidy-up")]);
  const remove = (id: string) => window.setTimeout(() => setSessions((list) => list.filter((s) => s.id !== id)), 20);
  return <SessionSidebar sessions={sessions} activeId={null} query="" {...sidebarHandlers()} onDelete={remove} />;
}

describe("focus when a menu or dialog closes", () => {
  it("a session row's menu gives focus back to its button on Escape", async () => {
    const user = userEvent.setup();
    render(<Sidebar />);
    const button = screen.getByRole("button", { name: "Actions for Streaming JSON parser" });
    await user.click(button);
    expect(screen.getByRole("menuitem", { name: "Open" })).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("menu")).toBeNull();
    expect(button).toHaveFocus();
  });

  it("the dialog a menu item opened gives focus back to the menu's button, not to the item that is gone", async () => {
    const user = userEvent.setup();
    render(<Sidebar />);
    const button = screen.getByRole("button", { name: "Actions for Streaming JSON parser" });
    await user.click(button);
    await user.click(screen.getByRole("menuitem", { name: "Delete…" }));
    await user.click(within(screen.getByRole("dialog", { name: "Delete session?" })).getByRole("button", { name: "Cancel" }));
    expect(button).toHaveFocus();
  });

  it("when the row itself is deleted, focus goes somewhere in the page rather than nowhere", async () => {
    const user = userEvent.setup();
    render(<Sidebar />);
    await user.click(screen.getByRole("button", { name: "Actions for Streaming JSON parser" }));
    await user.click(screen.getByRole("menuitem", { name: "Delete…" }));
    await user.click(screen.getByRole("button", { name: "Delete session" }));
    await waitFor(() => expect(screen.queryByText("Streaming JSON parser")).toBeNull());
    await waitFor(() => expect(screen.getByRole("button", { name: /New session/ })).toHaveFocus());
  });
});
