import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { filterActions, matchScore, type PaletteAction } from "../commands/palette";
import { openFirstSession } from "../test/openSession";
import { CommandPalette } from "./CommandPalette";

function actionList() {
  const ran: string[] = [];
  const action = (id: string, title: string, more: Partial<PaletteAction> = {}): PaletteAction => ({ id, title, group: "Session", run: () => ran.push(id), ...more });
  const actions = [
    action("new-session", "New session…", { shortcut: "newSession" }),
    action("undo", "Undo the latest compaction", { disabled: "No compaction to undo." }),
    action("toggle-console", "Show or hide the debug console", { group: "View", shortcut: "toggleConsole" }),
    action("session:1", "Parser refactor", { group: "Switch to session", keywords: "/work/parser" }),
  ];
  return { actions, ran };
}

/** A button that opens the palette, as the app does: the palette's focus goes back to it. */
function Harness({ actions }: { actions: PaletteAction[] }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      {open && <CommandPalette mode="all" actions={actions} onClose={() => setOpen(false)} />}
    </>
  );
}

const field = () => screen.getByRole("combobox", { name: "Command palette" });
const optionTitles = () => within(screen.getByRole("listbox")).getAllByRole("option").map((o) => o.querySelector(".command-palette-title")?.textContent);

describe("the command palette", () => {
  it("matches each typed word by a word's start, a part of it or its letters in order, best first", () => {
    expect(matchScore("Show or hide the debug console", "cons")).toBe(3);
    expect(matchScore("Show or hide the debug console", "onsole")).toBe(2);
    expect(matchScore("Show or hide the debug console", "dbg cnsl")).toBe(2);
    expect(matchScore("Show or hide the debug console", "zebra")).toBeNull();
    // Letters in order count only inside one word: "stop" is not found across "Compact the history".
    expect(matchScore("Compact the history now /compact summarise", "stop")).toBeNull();
    expect(matchScore("Stop the running turn", "stop the")).toBe(6);
    const { actions } = actionList();
    expect(filterActions(actions, "parser").map((a) => a.id)).toEqual(["session:1"]);
    expect(filterActions(actions, "").map((a) => a.id)).toEqual(actions.map((a) => a.id));
  });

  it("filters as the person types and shows each action's shortcut and group", async () => {
    const user = userEvent.setup();
    render(<CommandPalette mode="all" actions={actionList().actions} onClose={() => {}} />);
    expect(field()).toHaveFocus();
    expect(field()).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByText("Switch to session")).toBeInTheDocument();
    expect(screen.getByLabelText("Shortcut Ctrl+Shift+D")).toBeInTheDocument();
    await user.keyboard("debug");
    expect(optionTitles()).toEqual(["Show or hide the debug console"]);
    await user.clear(field());
    await user.keyboard("zzzz");
    expect(screen.getByText("Nothing matches “zzzz”.")).toBeInTheDocument();
  });

  it("moves with the arrows (wrapping), runs the active action on Enter and gives focus back", async () => {
    const user = userEvent.setup();
    const { actions, ran } = actionList();
    render(<Harness actions={actions} />);
    const opener = screen.getByRole("button", { name: "Open" });
    await user.click(opener);
    const options = () => within(screen.getByRole("listbox")).getAllByRole("option");
    expect(field()).toHaveAttribute("aria-activedescendant", options()[0]!.id);
    await user.keyboard("{ArrowUp}");
    expect(options()[3]).toHaveAttribute("aria-selected", "true");
    expect(field()).toHaveAttribute("aria-activedescendant", options()[3]!.id);
    await user.keyboard("{ArrowDown}{ArrowDown}{ArrowDown}{Enter}");
    expect(screen.queryByRole("dialog")).toBeNull();
    await waitFor(() => expect(ran).toEqual(["toggle-console"]));
    expect(opener).toHaveFocus();
  });

  it("lists an action that cannot run now with why, and Enter leaves it be", async () => {
    const user = userEvent.setup();
    const { actions, ran } = actionList();
    render(<Harness actions={actions} />);
    await user.click(screen.getByRole("button", { name: "Open" }));
    await user.keyboard("undo");
    const undo = screen.getByRole("option", { name: /Undo the latest compaction/ });
    expect(undo).toHaveAttribute("aria-disabled", "true");
    expect(undo).toHaveTextContent("Unavailable: No compaction to undo.");
    await user.keyboard("{Enter}");
    await user.click(undo);
    expect(screen.getByRole("dialog", { name: "Command palette" })).toBeInTheDocument();
    await new Promise((done) => setTimeout(done, 10));
    expect(ran).toEqual([]);
  });

  it("closes on Escape without running anything, focus back on what opened it", async () => {
    const user = userEvent.setup();
    const { actions, ran } = actionList();
    render(<Harness actions={actions} />);
    const opener = screen.getByRole("button", { name: "Open" });
    await user.click(opener);
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(opener).toHaveFocus();
    expect(ran).toEqual([]);
  });
});

describe("the command palette in the app", () => {
  const openApp = openFirstSession;

  it("opens on Ctrl+K and runs the debug console's toggle, the same as its shortcut", async () => {
    const { user } = await openApp();
    const toggle = screen.getByRole("button", { name: "Debug console" });
    const before = toggle.getAttribute("aria-pressed") ?? toggle.getAttribute("aria-expanded");
    await user.keyboard("{Control>}k{/Control}");
    await screen.findByRole("dialog", { name: "Command palette" });
    await user.keyboard("debug console{Enter}");
    await waitFor(() => expect(toggle.getAttribute("aria-pressed") ?? toggle.getAttribute("aria-expanded")).not.toBe(before));
  });

  it("switches to another session found by its title", async () => {
    const { user, sessions } = await openApp();
    const other = sessions[1]!.summary.title!;
    await user.keyboard("{Control>}k{/Control}");
    await user.keyboard(other.slice(0, 8));
    const option = await screen.findByRole("option", { name: new RegExp(other.slice(0, 8).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) });
    await user.click(option);
    await screen.findByRole("heading", { level: 1, name: other });
  });

  it("lists what cannot run now as unavailable, with why, and the shortcuts dialog names Ctrl+K", async () => {
    const { user } = await openApp();
    await user.keyboard("{Control>}k{/Control}");
    await user.keyboard("stop the running");
    expect(screen.getByRole("option", { name: /Stop the running turn/ })).toHaveTextContent("Unavailable: No turn is running.");
    await user.clear(screen.getByRole("combobox", { name: "Command palette" }));
    await user.keyboard("keyboard shortcuts{Enter}");
    const dialog = await screen.findByRole("dialog", { name: "Keyboard shortcuts" });
    expect(within(dialog).getAllByRole("term").map((term) => term.textContent)).toContain("Ctrl+K");
  });

  it("opens Settings at the section chosen and finds in the transcript, as Ctrl+F does", async () => {
    const { user } = await openApp();
    await user.keyboard("{Control>}k{/Control}");
    await user.keyboard("settings theme{Enter}");
    await screen.findByRole("dialog", { name: "Settings" });
    await waitFor(() => expect(document.activeElement).toHaveAttribute("name", "theme"));
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    await user.keyboard("{Control>}k{/Control}");
    await user.keyboard("find in the{Enter}");
    expect(await screen.findByRole("searchbox", { name: "Find in the transcript" })).toBeInTheDocument();
  });
});
