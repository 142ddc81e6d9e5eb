import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { openFirstSession } from "./test/openSession";

/** The app with the first fixture session open (read-only): the person. */
async function openSession() {
  return (await openFirstSession()).user;
}

describe("the app's shortcuts", () => {
  it("Ctrl+F opens the find bar over the open transcript, counting its matches; Escape closes it", async () => {
    const user = await openSession();
    await user.keyboard("{Control>}f{/Control}");
    const field = await screen.findByRole("searchbox", { name: "Find in the transcript" });
    expect(field).toHaveFocus();
    await user.keyboard("parser");
    const bar = screen.getByRole("search", { name: "Find in the transcript" });
    expect(within(bar).getByRole("status")).toHaveTextContent("1 of 2");
    await user.keyboard("{Enter}");
    expect(within(bar).getByRole("status")).toHaveTextContent("2 of 2");
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("search", { name: "Find in the transcript" })).toBeNull();
  });

  it('"?" outside a text field lists the shortcuts in a dialog; Escape closes it and gives focus back', async () => {
    const user = await openSession();
    const toggle = screen.getByRole("button", { name: "Debug console" });
    toggle.focus();
    await user.keyboard("?");
    const dialog = await screen.findByRole("dialog", { name: "Keyboard shortcuts" });
    expect(within(dialog).getByText("Find in the transcript (Enter: next match, Shift+Enter: previous)")).toBeInTheDocument();
    expect(within(dialog).getAllByRole("term").map((term) => term.textContent)).toContain("Ctrl+F");
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(toggle).toHaveFocus();
  });

  it('"?" typed in a text field is just text', async () => {
    const user = await openSession();
    const search = screen.getByRole("searchbox", { name: /Search sessions/ });
    await user.type(search, "?");
    await waitFor(() => expect(search).toHaveValue("?"));
    expect(screen.queryByRole("dialog", { name: "Keyboard shortcuts" })).toBeNull();
  });
});
