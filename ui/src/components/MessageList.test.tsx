import { act, fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { applyUpdates, type Entry } from "../state/transcript";
import { MessageList } from "./MessageList";

function manyEntries(count: number): Entry[] {
  return Array.from({ length: count }, (_, i): Entry =>
    i % 2 === 0
      ? { kind: "user", id: `u${i}`, text: `Question ${i}` }
      : { kind: "assistant", id: `a${i}`, text: `Answer **${i}**`, streaming: false },
  );
}

describe("MessageList", () => {
  it("renders a 5,000-message session with a bounded number of rows", () => {
    const { container } = render(<MessageList entries={manyEntries(5000)} />);
    const rows = container.querySelectorAll(".message-row");
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(60);
    expect(container.querySelectorAll("article").length).toBe(rows.length);
  });

  it("gives a completed turn's end no row, and a stopped one its notice", () => {
    const entries: Entry[] = [
      { kind: "user", id: "u1", text: "Hi" },
      { kind: "assistant", id: "a1", text: "Hello", streaming: false },
      { kind: "turn_end", id: "turn_end:t1", outcome: "completed", rounds: 1 },
      { kind: "user", id: "u2", text: "Again" },
      { kind: "turn_end", id: "turn_end:t2", outcome: "cancelled", rounds: 1 },
    ];
    const { container } = render(<MessageList entries={entries} />);
    expect(container.querySelectorAll(".message-row").length).toBe(4);
    expect(screen.getByRole("status")).toHaveTextContent("cancelled");
  });

  // The updates below are what Rust's conversion sends for a streamed answer
  // (crates/strata-app/src/transcript/fold.rs); the list only renders them.
  it("shows streamed text as it arrives and marks it busy until committed", () => {
    let entries = applyUpdates([], [
      { op: "append", entry: { kind: "user", id: "u1", text: "Hi" } },
      { op: "append", entry: { kind: "assistant", id: "stream:r1", text: "Working on ", streaming: true } },
    ]);
    const { rerender } = render(<MessageList entries={entries} />);
    expect(screen.getByRole("article", { name: "Strata" })).toHaveAttribute("aria-busy", "true");
    expect(screen.getByText("Working on")).toBeInTheDocument();

    entries = applyUpdates(entries, [{ op: "append_text", id: "stream:r1", delta: "the `parser`" }]);
    rerender(<MessageList entries={entries} />);
    const message = screen.getByRole("article", { name: "Strata" });
    expect(message).toHaveTextContent("Working on the parser");
    expect(within(message).getByText("parser").tagName).toBe("CODE");

    entries = applyUpdates(entries, [
      { op: "replace", id: "stream:r1", entry: { kind: "assistant", id: "a1", text: "Working on the `parser`.", streaming: false } },
    ]);
    rerender(<MessageList entries={entries} />);
    expect(entries.map((e) => e.id)).toEqual(["u1", "a1"]);
    expect(screen.getByRole("article", { name: "Strata" })).toHaveAttribute("aria-busy", "false");
  });

  it("marks a stopped partial answer as not saved, next to the cancelled notice", () => {
    let entries = applyUpdates([], [
      { op: "append", entry: { kind: "user", id: "u1", text: "Write an essay" } },
      { op: "append", entry: { kind: "assistant", id: "stream:r1", text: "Once upon a time, ", streaming: true } },
    ]);
    const { rerender } = render(<MessageList entries={entries} />);
    expect(screen.queryByTestId("unsaved-note")).toBeNull();

    entries = applyUpdates(entries, [
      { op: "replace", id: "stream:r1", entry: { kind: "assistant", id: "stream:r1", text: "Once upon a time, ", streaming: false, unsaved: "stopped" } },
      { op: "append", entry: { kind: "turn_end", id: "turn_end:t1", outcome: "cancelled", rounds: 1 } },
    ]);
    rerender(<MessageList entries={entries} />);
    const message = screen.getByRole("article", { name: "Strata" });
    expect(message).toHaveClass("message-unsaved");
    expect(message).toHaveTextContent("Once upon a time,");
    expect(message).toHaveAccessibleDescription(
      "Stopped — not sent to the model. The model will not see this partial answer, and it is not saved: it is gone once you reopen the session.",
    );
    // Still the person's to keep.
    expect(within(message).getByRole("button", { name: "Copy partial answer" })).toBeInTheDocument();
    expect(screen.getByRole("status")).toHaveTextContent("Stopped. The turn was cancelled.");
  });

  it("asks for the older page when the person scrolls near the top, and only when there is one", () => {
    const onLoadOlder = vi.fn();
    const { rerender } = render(<MessageList entries={manyEntries(50)} hasOlder onLoadOlder={onLoadOlder} />);
    const list = screen.getByRole("log", { name: "Conversation" });
    fireEvent.scroll(list, { target: { scrollTop: 1200 } });
    fireEvent.scroll(list, { target: { scrollTop: 600 } });
    expect(onLoadOlder).not.toHaveBeenCalled();
    fireEvent.scroll(list, { target: { scrollTop: 10 } });
    expect(onLoadOlder).toHaveBeenCalledTimes(1);

    rerender(<MessageList entries={manyEntries(50)} hasOlder={false} onLoadOlder={onLoadOlder} />);
    fireEvent.scroll(list, { target: { scrollTop: 600 } });
    fireEvent.scroll(list, { target: { scrollTop: 0 } });
    expect(onLoadOlder).toHaveBeenCalledTimes(1);
  });

  it("never runs model output as HTML", () => {
    const hostile = [
      "Here you go <script>window.__pwned = true</script>",
      '<img src=x onerror="window.__pwned = true">',
      "[click me](javascript:window.__pwned=true)",
      "![tracker](https://evil.example/pixel.png)",
    ].join("\n\n");
    const { container } = render(
      <MessageList entries={[{ kind: "assistant", id: "a", text: hostile, streaming: false }]} />,
    );
    expect(container.querySelector("script")).toBeNull();
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("[onerror]")).toBeNull();
    expect((window as { __pwned?: boolean }).__pwned).toBeUndefined();
    // The markup is shown as text.
    expect(container.textContent).toContain("<script>window.__pwned = true</script>");
    const link = screen.getByText("click me").closest("a");
    expect(link?.getAttribute("href") ?? "").not.toMatch(/^javascript:/i);
    // Images become links the person can choose to open.
    expect(screen.getByText("tracker").closest("a")).toHaveAttribute("href", "https://evil.example/pixel.png");
  });

  it("highlights code blocks and offers a copy button", () => {
    render(
      <MessageList entries={[{ kind: "assistant", id: "a", text: "```rust\nfn main() {}\n```", streaming: false }]} />,
    );
    expect(screen.getByRole("button", { name: "Copy code" })).toBeInTheDocument();
    expect(document.querySelector("code.hljs, code.language-rust")).not.toBeNull();
    expect(document.querySelector(".hljs-keyword")?.textContent).toBe("fn");
  });

  it("renders a compaction divider with an anchor and scrolls to it on request", async () => {
    const entries: Entry[] = [
      ...manyEntries(400),
      {
        kind: "compaction",
        id: "compaction:s1",
        summary: {
          id: "s1",
          summary: "Parser done.",
          metadata: { trigger: "auto", reason: "r", context_tokens: 9000, threshold: 8000, removed: 5, kept: 2, summarizer_model: "m", duration_ms: 1200 },
        },
      },
      ...manyEntries(400).map((e) => ({ ...e, id: `late-${e.id}` })),
    ];
    const handle: { current: import("./MessageList").MessageListHandle | null } = { current: null };
    const { container } = render(<MessageList entries={entries} ref={handle} />);
    expect(container.querySelector("#compaction-s1")).toBeNull();
    await act(async () => {
      expect(handle.current?.scrollToCompaction("s1")).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    expect(container.querySelector("#compaction-s1")).toHaveTextContent("Context compacted at 9k tokens (threshold 8k)");
    expect(handle.current?.scrollToCompaction("nope")).toBe(false);
  });

  describe("keeping to the bottom", () => {
    /**
     * Gives the list the layout jsdom does not compute: `height` of content in a 500px window,
     * its scroll position kept within them as a browser keeps it.
     */
    function layOut(list: HTMLElement, height: { value: number }) {
      let top = 0;
      Object.defineProperty(list, "clientHeight", { configurable: true, get: () => 500 });
      Object.defineProperty(list, "scrollHeight", { configurable: true, get: () => height.value });
      Object.defineProperty(list, "scrollTop", {
        configurable: true,
        get: () => top,
        set: (value: number) => {
          top = Math.max(0, Math.min(value, height.value - 500));
        },
      });
    }
    const streaming = (text: string): Entry[] => [
      ...manyEntries(20),
      { kind: "user", id: "u-last", text: "Explain it" },
      { kind: "assistant", id: "stream:r9", text, streaming: true },
    ];

    it("follows a streaming answer while the person is at the bottom", () => {
      const height = { value: 4000 };
      const { rerender } = render(<MessageList entries={streaming("One")} />);
      const list = screen.getByRole("log", { name: "Conversation" });
      layOut(list, height);
      fireEvent.scroll(list, { target: { scrollTop: 3500 } });
      height.value = 4600;
      rerender(<MessageList entries={streaming("One two three")} />);
      expect(list.scrollTop).toBe(4100);
      expect(screen.queryByTestId("jump-latest")).toBeNull();
    });

    it("stays where the person scrolled up to and offers Jump to latest, which goes back and follows again", async () => {
      const user = userEvent.setup();
      const height = { value: 4000 };
      const { rerender } = render(<MessageList entries={streaming("One")} />);
      const list = screen.getByRole("log", { name: "Conversation" });
      layOut(list, height);
      fireEvent.scroll(list, { target: { scrollTop: 3500 } });
      fireEvent.scroll(list, { target: { scrollTop: 1200 } });
      height.value = 4600;
      rerender(<MessageList entries={streaming("One two three")} />);
      expect(list.scrollTop).toBe(1200);

      await user.click(screen.getByRole("button", { name: "Jump to latest" }));
      expect(list.scrollTop).toBe(4100);
      expect(screen.queryByTestId("jump-latest")).toBeNull();
      height.value = 5000;
      rerender(<MessageList entries={streaming("One two three four")} />);
      expect(list.scrollTop).toBe(4500);
    });

    it("goes to the person's new message even when they had scrolled up", () => {
      const height = { value: 4000 };
      const entries = manyEntries(20);
      const { rerender } = render(<MessageList entries={entries} />);
      const list = screen.getByRole("log", { name: "Conversation" });
      layOut(list, height);
      fireEvent.scroll(list, { target: { scrollTop: 3500 } });
      fireEvent.scroll(list, { target: { scrollTop: 800 } });
      expect(screen.getByRole("button", { name: "Jump to latest" })).toBeInTheDocument();
      height.value = 4200;
      rerender(<MessageList entries={[...entries, { kind: "user", id: "u-new", text: "And now?" }]} />);
      expect(list.scrollTop).toBe(3700);
      expect(screen.queryByTestId("jump-latest")).toBeNull();
    });
  });

  it("marks the items above the latest compaction as out of the model's context, their Pin disabled, with a fork from before it", async () => {
    const user = userEvent.setup();
    const onForkBeforeCompaction = vi.fn();
    const divider = (id: string): Entry => ({
      kind: "compaction",
      id: `compaction:${id}`,
      summary: { id, summary: "s", metadata: { trigger: "auto", reason: "r", removed: 2, kept: 0, summarizer_model: "m", duration_ms: 10 } },
    });
    const entries: Entry[] = [
      { kind: "user", id: "u-old", text: "Old question" },
      { kind: "assistant", id: "a-pinned", text: "Pinned answer", streaming: false, pinned: true },
      divider("s1"),
      { kind: "assistant", id: "a-mid", text: "Middle answer", streaming: false },
      divider("s2"),
      { kind: "user", id: "u-new", text: "New question" },
    ];
    render(<MessageList entries={entries} history={{ onPin: () => {}, onForkBeforeCompaction }} />);
    const item = (name: RegExp) => screen.getByText(name).closest(".message-row") as HTMLElement;
    for (const old of [/Old question/, /Middle answer/]) {
      expect(within(item(old)).getByTestId("context-note")).toHaveTextContent("Not in the model's context — summarised in the compaction below");
      expect(within(item(old)).getByTestId("pin-button")).toBeDisabled();
    }
    // A pinned item stays in the model's context; what follows the divider is in it.
    expect(within(item(/Pinned answer/)).queryByTestId("context-note")).toBeNull();
    expect(within(item(/New question/)).queryByTestId("context-note")).toBeNull();
    expect(within(item(/New question/)).getByTestId("pin-button")).toBeEnabled();

    await user.click(within(item(/Old question/)).getByRole("button", { name: "Fork from before it" }));
    expect(onForkBeforeCompaction).toHaveBeenCalledWith("s2");
  });
});
