import { act, render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { eventStream, ROUND, TURN, userItem } from "../test/fixtures";
import { emptyTranscript, foldEvent, type Entry } from "../state/transcript";
import { MessageList } from "./MessageList";

function manyEntries(count: number): Entry[] {
  return Array.from({ length: count }, (_, i): Entry =>
    i % 2 === 0
      ? { kind: "user", key: `u${i}`, text: `Question ${i}` }
      : { kind: "assistant", key: `a${i}`, text: `Answer **${i}**`, streaming: false },
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

  it("shows streamed text as it arrives and marks it busy until committed", () => {
    const s = eventStream();
    let state = foldEvent(emptyTranscript, s.mainline({ kind: "turn_started", turn_id: TURN, user_message: userItem("Hi") }));
    state = foldEvent(state, s.mainline({ kind: "text_delta", turn_id: TURN, round_id: ROUND, delta: "Working on " }));
    const { rerender } = render(<MessageList entries={state.entries} />);
    expect(screen.getByRole("article", { name: "Strata" })).toHaveAttribute("aria-busy", "true");
    expect(screen.getByText("Working on")).toBeInTheDocument();

    state = foldEvent(state, s.mainline({ kind: "text_delta", turn_id: TURN, round_id: ROUND, delta: "the `parser`" }));
    rerender(<MessageList entries={state.entries} />);
    const message = screen.getByRole("article", { name: "Strata" });
    expect(message).toHaveTextContent("Working on the parser");
    expect(within(message).getByText("parser").tagName).toBe("CODE");

    state = foldEvent(state, s.mainline({ kind: "message_committed", turn_id: TURN, item: { type: "message", id: "a1", role: "assistant", content: "Working on the `parser`." } }));
    rerender(<MessageList entries={state.entries} />);
    expect(screen.getByRole("article", { name: "Strata" })).toHaveAttribute("aria-busy", "false");
  });

  it("marks a stopped partial answer as not saved, next to the cancelled notice", () => {
    const s = eventStream();
    let state = foldEvent(emptyTranscript, s.mainline({ kind: "turn_started", turn_id: TURN, user_message: userItem("Write an essay") }));
    state = foldEvent(state, s.mainline({ kind: "text_delta", turn_id: TURN, round_id: ROUND, delta: "Once upon a time, " }));
    const { rerender } = render(<MessageList entries={state.entries} />);
    expect(screen.queryByTestId("unsaved-note")).toBeNull();

    state = foldEvent(state, s.mainline({ kind: "turn_finished", turn_id: TURN, outcome: "cancelled", rounds: 1 }));
    rerender(<MessageList entries={state.entries} />);
    const message = screen.getByRole("article", { name: "Strata" });
    expect(message).toHaveClass("message-unsaved");
    expect(message).toHaveTextContent("Once upon a time,");
    expect(message).toHaveAccessibleDescription(
      "Stopped — this partial answer was not saved and the model will not see it.",
    );
    expect(screen.getByRole("status")).toHaveTextContent("Stopped. The turn was cancelled.");
  });

  it("never runs model output as HTML", () => {
    const hostile = [
      "Here you go <script>window.__pwned = true</script>",
      '<img src=x onerror="window.__pwned = true">',
      "[click me](javascript:window.__pwned=true)",
      "![tracker](https://evil.example/pixel.png)",
    ].join("\n\n");
    const { container } = render(
      <MessageList entries={[{ kind: "assistant", key: "a", text: hostile, streaming: false }]} />,
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
      <MessageList entries={[{ kind: "assistant", key: "a", text: "```rust\nfn main() {}\n```", streaming: false }]} />,
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
        key: "compaction:s1",
        summaryId: "s1",
        summary: "Parser done.",
        metadata: { trigger: "auto", reason: "r", context_tokens: 9000, threshold: 8000, removed: 5, kept: 2, summarizer_model: "m", duration_ms: 1200 },
      },
      ...manyEntries(400).map((e) => ({ ...e, key: `late-${e.key}` })),
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
});
