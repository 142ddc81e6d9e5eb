import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useRef, useState } from "react";
import { describe, expect, it, vi } from "vitest";
import type { Entry } from "../state/transcript";
import type { MessageListHandle } from "./MessageList";
import { TranscriptFind } from "./TranscriptFind";

const entries: Entry[] = [
  { kind: "user", id: "u1", text: "Fix the parser" },
  { kind: "assistant", id: "a1", text: "The parser is fixed; the parser tests pass.", streaming: false },
  { kind: "user", id: "u2", text: "Thanks" },
];

function Harness({ scrollToEntry }: { scrollToEntry: (id: string) => boolean }) {
  const [open, setOpen] = useState(false);
  const list = useRef<MessageListHandle>({ scrollToEntry, scrollToCompaction: () => false, focusApproval: () => {}, scrollToLatest: () => {} });
  const scope = useRef<HTMLDivElement>(null);
  return (
    <div ref={scope}>
      <button type="button" onClick={() => setOpen(true)}>
        Open find
      </button>
      {open && <TranscriptFind entries={entries} list={list} scope={scope} hasOlder={false} onClose={() => setOpen(false)} />}
    </div>
  );
}

describe("TranscriptFind", () => {
  it("counts the matches, goes to the next with Enter and the previous with Shift+Enter, scrolling to each", async () => {
    const scrollToEntry = vi.fn(() => true);
    const user = userEvent.setup();
    render(<Harness scrollToEntry={scrollToEntry} />);
    await user.click(screen.getByRole("button", { name: "Open find" }));
    const field = screen.getByRole("searchbox", { name: "Find in the transcript" });
    expect(field).toHaveFocus();
    await user.type(field, "PARSER");
    const count = screen.getByRole("status");
    expect(count).toHaveTextContent("1 of 3");
    expect(scrollToEntry).toHaveBeenLastCalledWith("u1");
    await user.keyboard("{Enter}");
    expect(count).toHaveTextContent("2 of 3");
    expect(scrollToEntry).toHaveBeenLastCalledWith("a1");
    await user.keyboard("{Enter}{Enter}");
    expect(count).toHaveTextContent("1 of 3");
    await user.keyboard("{Shift>}{Enter}{/Shift}");
    expect(count).toHaveTextContent("3 of 3");
    await user.click(screen.getByRole("button", { name: /Previous match/ }));
    expect(count).toHaveTextContent("2 of 3");
    await user.clear(field);
    await user.type(field, "nowhere");
    expect(count).toHaveTextContent("No matches");
    expect(screen.getByRole("button", { name: /Next match/ })).toBeDisabled();
  });

  it("closes on Escape and gives focus back to what opened it", async () => {
    const user = userEvent.setup();
    render(<Harness scrollToEntry={() => true} />);
    const opener = screen.getByRole("button", { name: "Open find" });
    await user.click(opener);
    await user.keyboard("parser{Escape}");
    expect(screen.queryByRole("search")).toBeNull();
    expect(opener).toHaveFocus();
  });
});
