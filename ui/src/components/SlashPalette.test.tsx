import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { Composer } from "./Composer";
import { commandOf, filterCommands, type PaletteCommand } from "./SlashPalette";
import { withAppCommands } from "./appCommands";

const COMMANDS: PaletteCommand[] = [
  { name: "compact", description: "Compact the history now", argumentHint: "[focus]", source: "built_in" },
  { name: "review", description: "Review a part of the code", argumentHint: "<part>", source: "workspace", file: ".strata/commands/review.md" },
  { name: "release-notes", description: "Draft the release notes", source: "user", file: "~/.config/strata/commands/release-notes.md" },
];

function Harness({ onSend, onPaletteOpen, commands = COMMANDS, unavailable }: { onSend: (t: string) => void; onPaletteOpen?: () => void; commands?: PaletteCommand[]; unavailable?: Map<string, string> }) {
  const [value, setValue] = useState("");
  return <Composer value={value} onChange={setValue} onSend={onSend} onStop={() => {}} running={false} commands={commands} unavailable={unavailable} onPaletteOpen={onPaletteOpen} />;
}

const input = () => screen.getByRole("combobox", { name: "Message" });
const options = () => within(screen.getByRole("listbox", { name: "Commands" })).getAllByRole("option");
const selected = () => options().find((o) => o.getAttribute("aria-selected") === "true");

describe("the slash command palette", () => {
  it("opens on a / at the start with every command, its description and where it comes from", async () => {
    const onPaletteOpen = vi.fn();
    const user = userEvent.setup();
    render(<Harness onSend={() => {}} onPaletteOpen={onPaletteOpen} />);
    expect(input()).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByRole("listbox")).toBeNull();
    await user.type(input(), "/");
    expect(onPaletteOpen).toHaveBeenCalledTimes(1);
    expect(input()).toHaveAttribute("aria-expanded", "true");
    expect(input()).toHaveAttribute("aria-controls", screen.getByRole("listbox").id);
    const all = options();
    expect(all.map((o) => o.textContent)).toEqual([
      "/compact [focus]Compact the history nowbuilt-in",
      "/review <part>Review a part of the codeworkspace",
      "/release-notesDraft the release notesuser",
    ]);
    expect(input()).toHaveAttribute("aria-activedescendant", all[0]!.id);
    expect(all[1]).toHaveAttribute("title", ".strata/commands/review.md");
  });

  it("filters as the name is typed, moves with the arrows and fills the chosen name on Enter", async () => {
    const onSend = vi.fn();
    const user = userEvent.setup();
    render(<Harness onSend={onSend} />);
    await user.type(input(), "/re");
    expect(options().map((o) => o.querySelector(".slash-name")?.firstChild?.textContent)).toEqual(["/review", "/release-notes"]);
    expect(selected()).toHaveTextContent("/review");
    await user.keyboard("{ArrowDown}");
    expect(selected()).toHaveTextContent("/release-notes");
    expect(input()).toHaveAttribute("aria-activedescendant", selected()!.id);
    await user.keyboard("{ArrowDown}");
    expect(selected()).toHaveTextContent("/review");
    await user.keyboard("{ArrowUp}{Enter}");
    expect(input()).toHaveValue("/release-notes ");
    expect(onSend).not.toHaveBeenCalled();
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(screen.getByText("/release-notes: Draft the release notes")).toBeInTheDocument();
    await user.type(input(), "for 1.2{Enter}");
    expect(onSend).toHaveBeenCalledWith("/release-notes for 1.2");
  });

  it("chooses with Tab or a click, closes on Escape and keeps the text", async () => {
    const user = userEvent.setup();
    render(<Harness onSend={() => {}} />);
    await user.type(input(), "/rev");
    await user.keyboard("{Tab}");
    expect(input()).toHaveValue("/review ");
    expect(input()).toHaveFocus();
    await user.clear(input());
    await user.type(input(), "/");
    await user.click(options()[2]!);
    expect(input()).toHaveValue("/release-notes ");
    await user.clear(input());
    await user.type(input(), "/co");
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(input()).toHaveAttribute("aria-expanded", "false");
    expect(input()).toHaveValue("/co");
  });

  it("runs a command whose whole name is typed on Enter", async () => {
    const onSend = vi.fn();
    const user = userEvent.setup();
    render(<Harness onSend={onSend} />);
    await user.type(input(), "/compact{Enter}");
    expect(onSend).toHaveBeenCalledWith("/compact");
  });

  it("does not send a /name no command has and says so", async () => {
    const onSend = vi.fn();
    const user = userEvent.setup();
    render(<Harness onSend={onSend} />);
    await user.type(input(), "/nope");
    expect(screen.getByText(/No command has that name/)).toBeInTheDocument();
    await user.type(input(), " now{Enter}");
    expect(onSend).not.toHaveBeenCalled();
    expect(screen.getByText(/There is no \/nope command/)).toHaveClass("error");
    expect(screen.getByRole("button", { name: "Send" })).toBeDisabled();
    // A path is a message, not a command.
    await user.clear(input());
    await user.type(input(), "/src/main.rs fails{Enter}");
    expect(onSend).toHaveBeenCalledWith("/src/main.rs fails");
  });

  it("shows a prompt file's description as text, never as markup", async () => {
    const user = userEvent.setup();
    const hostile: PaletteCommand[] = [{ name: "x", description: '<img src=x onerror="alert(1)"> **bold**', source: "workspace" }];
    const { container } = render(<Harness onSend={() => {}} commands={hostile} />);
    await user.type(input(), "/");
    expect(options()[0]).toHaveTextContent('<img src=x onerror="alert(1)"> **bold**');
    expect(container.querySelector("img, strong")).toBeNull();
  });
});

describe("slash command helpers", () => {
  it("reads /name and its arguments, and nothing from a path or a bare slash", () => {
    expect(commandOf("  /review  the parser ")).toEqual({ name: "review", args: "the parser" });
    expect(commandOf("/compact")).toEqual({ name: "compact", args: "" });
    expect(commandOf("/src/main.rs")).toBeNull();
    expect(commandOf("/")).toBeNull();
    expect(commandOf("please /compact")).toBeNull();
  });

  it("lists name prefixes before names that only contain the text", () => {
    expect(filterCommands(COMMANDS, "e").map((c) => c.name)).toEqual(["review", "release-notes"]);
    expect(filterCommands(COMMANDS, "act").map((c) => c.name)).toEqual(["compact"]);
    expect(filterCommands(COMMANDS, "RE").map((c) => c.name)).toEqual(["review", "release-notes"]);
  });

  it("offers the app's actions that can run now after the built-ins and before the prompt files", () => {
    const clear = vi.fn();
    const off = { run: vi.fn(), disabled: "No." };
    const own = { compact: off, undo: off, fork: off, pin: off, model: { run: vi.fn() }, reasoning: off, clear: { run: clear } };
    const { commands, run } = withAppCommands(COMMANDS, own);
    expect(commands?.map((c) => c.name)).toEqual(["compact", "model", "clear", "review", "release-notes"]);
    expect(run.has("undo")).toBe(false);
    expect(withAppCommands(COMMANDS, own).unavailable.get("undo")).toBe("No.");
    run.get("clear")?.("");
    expect(clear).toHaveBeenCalled();
    run.get("model")?.("fast");
    expect(own.model.run).toHaveBeenCalledWith("fast");
    expect(withAppCommands(undefined, own).commands).toBeUndefined();
  });

  it("says why a built-in cannot run now instead of calling it unknown, and does not send it", async () => {
    const onSend = vi.fn();
    const user = userEvent.setup();
    render(<Harness onSend={onSend} unavailable={new Map([["reasoning", "This model takes no reasoning setting."]])} />);
    await user.type(input(), "/reasoning high{Enter}");
    expect(onSend).not.toHaveBeenCalled();
    expect(screen.getByText("/reasoning cannot run now: This model takes no reasoning setting.")).toHaveClass("error");
    expect(screen.getByRole("button", { name: "Send" })).toBeDisabled();
  });
});
