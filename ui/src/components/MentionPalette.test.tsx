import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import type { WorkspaceFile } from "../bindings/WorkspaceFile";
import { Composer } from "./Composer";
import { mentionAt, mentionText, mentionedPaths } from "./MentionPalette";

const FILES: WorkspaceFile[] = [
  { path: "src/", is_dir: true },
  { path: "src/main.rs", is_dir: false },
  { path: "src/parser.rs", is_dir: false },
  { path: "notes/first draft.md", is_dir: false },
];

/** A stand-in for `find_workspace_files`: the paths containing the query. */
const finder = () => vi.fn(async (query: string) => FILES.filter((file) => file.path.includes(query)));

function Harness({ onSend, findFiles }: { onSend: (t: string) => void; findFiles: (q: string) => Promise<WorkspaceFile[]> }) {
  const [value, setValue] = useState("");
  return <Composer value={value} onChange={setValue} onSend={onSend} onStop={() => {}} running={false} commands={[]} findFiles={findFiles} />;
}

const input = () => screen.getByRole("combobox", { name: "Message" });
const listbox = () => screen.findByRole("listbox", { name: "Files" });
const optionTexts = async () =>
  (await within(await listbox()).findAllByRole("option")).map((o) => o.querySelector(".slash-name")?.textContent);

describe("the @ file finder", () => {
  it("opens after an @, asks the workspace for what is typed and lists files and folders", async () => {
    const findFiles = finder();
    const user = userEvent.setup();
    render(<Harness onSend={() => {}} findFiles={findFiles} />);
    await user.type(input(), "look at @par");
    expect(await optionTexts()).toEqual(["src/parser.rs"]);
    expect(findFiles).toHaveBeenLastCalledWith("par");
    expect(input()).toHaveAttribute("aria-expanded", "true");
    expect(input()).toHaveAttribute("aria-activedescendant", (await within(await listbox()).findAllByRole("option"))[0]!.id);
  });

  it("says @ finds files in the composer's hint only when the finder is there", () => {
    const { unmount } = render(<Harness onSend={() => {}} findFiles={finder()} />);
    expect(screen.getByText(/@ for files/)).toBeInTheDocument();
    unmount();
    render(<Composer value="" onChange={() => {}} onSend={() => {}} onStop={() => {}} running={false} />);
    expect(screen.queryByText(/@ for files/)).toBeNull();
  });

  it("waits for typing to pause before asking", async () => {
    const findFiles = finder();
    const user = userEvent.setup();
    render(<Harness onSend={() => {}} findFiles={findFiles} />);
    await user.type(input(), "@main");
    await listbox();
    expect(await optionTexts()).toEqual(["src/main.rs"]);
    expect(findFiles.mock.calls.map(([query]) => query)).not.toContain("ma");
  });

  it("inserts the chosen path on Enter, lists what the message attaches, and sends the text", async () => {
    const onSend = vi.fn();
    const user = userEvent.setup();
    render(<Harness onSend={onSend} findFiles={finder()} />);
    await user.type(input(), "explain @.rs");
    expect(await optionTexts()).toEqual(["src/main.rs", "src/parser.rs"]);
    await user.keyboard("{ArrowDown}{Enter}");
    expect(input()).toHaveValue("explain @src/parser.rs ");
    expect(onSend).not.toHaveBeenCalled();
    const chips = screen.getByRole("list", { name: "Files this message attaches" });
    expect(within(chips).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["src/parser.rs"]);
    await user.type(input(), "please{Enter}");
    expect(onSend).toHaveBeenCalledWith("explain @src/parser.rs please");
  });

  it("keeps a folder open for its own paths, quotes a path with spaces, and Tab chooses", async () => {
    const user = userEvent.setup();
    render(<Harness onSend={() => {}} findFiles={finder()} />);
    await user.type(input(), "@sr");
    expect((await optionTexts())[0]).toBe("src/");
    await user.keyboard("{Tab}");
    expect(input()).toHaveValue("@src/");
    expect(await optionTexts()).toEqual(["src/", "src/main.rs", "src/parser.rs"]);
    await user.clear(input());
    await user.type(input(), "@draft");
    expect(await optionTexts()).toEqual(["notes/first draft.md"]);
    await user.keyboard("{Tab}");
    expect(input()).toHaveValue('@"notes/first draft.md" ');
  });

  it("closes on Escape for that mention, keeping the text, opens again for the next, and Enter then sends", async () => {
    const onSend = vi.fn();
    const user = userEvent.setup();
    render(<Harness onSend={onSend} findFiles={finder()} />);
    await user.type(input(), "mail @main");
    await listbox();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(input()).toHaveValue("mail @main");
    await user.type(input(), " @par");
    expect(await optionTexts()).toEqual(["src/parser.rs"]);
    await user.keyboard("{Escape}{Enter}");
    expect(onSend).toHaveBeenCalledWith("mail @main @par");
  });

  it("does not open inside a word, as in an email address", async () => {
    const findFiles = finder();
    const user = userEvent.setup();
    render(<Harness onSend={() => {}} findFiles={findFiles} />);
    await user.type(input(), "me@example");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(findFiles).not.toHaveBeenCalled();
  });
});

describe("mention text", () => {
  it("finds the mention the caret is in", () => {
    expect(mentionAt("see @src/ma", 11)).toEqual({ start: 4, query: "src/ma" });
    expect(mentionAt("see @src/ma now", 15)).toBeNull();
    expect(mentionAt("a@b", 3)).toBeNull();
    expect(mentionAt("@", 1)).toEqual({ start: 0, query: "" });
  });

  it("reads mentions as the app does", () => {
    expect(mentionedPaths('see @a.rs, @"b c.md" and me@x.org @a.rs')).toEqual(["a.rs", "b c.md"]);
    expect(mentionText("a b.md")).toBe('@"a b.md"');
    expect(mentionText("src/")).toBe("@src/");
  });
});
