import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { CompactionDivider, CompactionProblemNotice, EvictionNotice, ForkNotice, RecoveryNotice, TurnEndNotice } from "./TranscriptNotices";

describe("CompactionProblemNotice", () => {
  it("shows a failed summary as a warning that names the failure, not as an error", () => {
    render(
      <CompactionProblemNotice
        entry={{ kind: "compaction_problem", id: "p1", problem: "summary_failed", message: "Compaction failed after 3 attempts: HTTP 400" }}
      />,
    );
    const notice = screen.getByRole("status");
    expect(notice.className).toContain("notice-warning");
    expect(notice.className).not.toContain("notice-error");
    expect(notice.textContent).toContain("its summary failed");
    expect(notice.textContent).toContain("HTTP 400");
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("says a refused compaction would have dropped what must stay, with the check's message", () => {
    render(
      <CompactionProblemNotice
        entry={{ kind: "compaction_problem", id: "p2", problem: "refused", message: "It would drop pinned item msg_1." }}
      />,
    );
    expect(screen.getByRole("status").textContent).toMatch(/refused.*would have dropped.*pinned item msg_1/s);
  });
});

describe("EvictionNotice", () => {
  it("shows the eviction's own estimates, marked ≈, not characters ÷ 4", () => {
    // 40,000 characters would read "10k" by characters ÷ 4; the eviction's
    // estimator made 20k → 12k, so the outputs were about 8k tokens.
    const evicted = [
      { item_id: "i1", call_id: "c1", tool: "read_file", chars: 24_000, placeholder: "[tool output evicted: i1]" },
      { item_id: "i2", call_id: "c2", tool: "read_file", chars: 16_000, placeholder: "[tool output evicted: i2]" },
    ];
    render(
      <EvictionNotice
        entry={{
          kind: "eviction",
          id: "e1",
          eviction: { trigger: "auto", threshold: 24_000, low_water: 6_000, estimated_before: 20_000, estimated_after: 12_000, evicted },
        }}
      />,
    );
    const text = screen.getByRole("status").textContent ?? "";
    expect(text).toContain("2 older tool outputs (≈ 8k tokens)");
    expect(text).toContain("≈ 20k → ≈ 12k tokens (estimates)");
    expect(text).not.toContain("10k");
  });

  it("says what a small eviction saved instead of a before and after that read the same", () => {
    const evicted = [{ item_id: "i1", call_id: "c1", tool: "list_directory", chars: 400, placeholder: "[tool output evicted: i1]" }];
    render(
      <EvictionNotice
        entry={{ kind: "eviction", id: "e2", eviction: { trigger: "auto", threshold: 2_000, low_water: 500, estimated_before: 1_640, estimated_after: 1_580, evicted } }}
      />,
    );
    const text = screen.getByRole("status").textContent ?? "";
    expect(text).not.toContain("1.6k → ≈ 1.6k");
    expect(text).toContain("1 older tool output (≈ 60 tokens) replaced by placeholders · saved ≈ 60 tokens (estimate)");
  });
});

describe("CompactionDivider", () => {
  const summary = {
    id: "sum-1",
    summary: "Earlier work.",
    metadata: { trigger: "manual" as const, reason: "asked", removed: 4, kept: 2, summarizer_model: "demo", duration_ms: 12 },
  };

  it("says when its compaction was undone, and nothing of the sort before", () => {
    const { rerender } = render(<CompactionDivider entry={{ kind: "compaction", id: "compaction:sum-1", summary }} />);
    expect(screen.queryByTestId("divider-undone")).toBeNull();
    rerender(<CompactionDivider entry={{ kind: "compaction", id: "compaction:sum-1", summary, undone: true }} />);
    expect(screen.getByTestId("divider-undone")).toHaveTextContent("undone: the model sees the history from before it again");
  });
});

describe("RecoveryNotice", () => {
  it("says what reopening the session repaired, as a status warning with Rust's sentence", () => {
    render(
      <RecoveryNotice
        entry={{
          kind: "recovery",
          id: "record:9:1",
          notice: { kind: "aborted_calls", calls: 2 },
          text: "2 tool calls of an earlier run never finished; they were recorded as aborted.",
        }}
      />,
    );
    const notice = screen.getByRole("status");
    expect(notice.className).toContain("notice-warning");
    expect(notice.textContent).toContain("Repaired when the session was reopened");
    expect(notice.textContent).toContain("2 tool calls of an earlier run never finished");
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("shows a hostile sentence as text, never as markup", () => {
    render(
      <RecoveryNotice
        entry={{
          kind: "recovery",
          id: "read:skipped:4",
          notice: { kind: "skipped_record", line: 4, message: "<img src=x onerror=alert(1)>" },
          text: "Line 4 of the session file is not a record and was skipped: <img src=x onerror=alert(1)>",
        }}
      />,
    );
    expect(screen.getByRole("status").textContent).toContain("Part of the session file could not be read");
    expect(screen.getByRole("status").textContent).toContain("<img src=x onerror=alert(1)>");
    expect(document.querySelector("img")).toBeNull();
  });
});

describe("TurnEndNotice", () => {
  it("draws nothing for a completed turn and says how another ended", () => {
    const { container } = render(<TurnEndNotice entry={{ kind: "turn_end", id: "t1", outcome: "completed", rounds: 2 }} />);
    expect(container.textContent).toBe("");
    render(<TurnEndNotice entry={{ kind: "turn_end", id: "t2", outcome: "cancelled", rounds: 1 }} />);
    expect(screen.getByRole("status").textContent).toContain("cancelled");
  });
});

describe("one boundary, one divider", () => {
  it("says on the compaction's divider that older tool outputs were evicted first and why the summary followed", () => {
    const evicted = [{ item_id: "i1", call_id: "c1", tool: "read_file", chars: 1_840, placeholder: "[tool output evicted: i1]" }];
    render(
      <CompactionDivider
        entry={{
          kind: "compaction",
          id: "compaction:s1",
          summary: { id: "s1", summary: "Earlier work.", metadata: { trigger: "auto", reason: "over", removed: 4, kept: 1, summarizer_model: "demo", duration_ms: 40 } },
          eviction: { trigger: "auto", threshold: 8_000, low_water: 6_000, estimated_before: 9_000, estimated_after: 8_500, evicted },
        }}
      />,
    );
    expect(screen.getByTestId("divider-eviction")).toHaveTextContent(
      "First 1 older tool output was replaced by placeholders (saved ≈ 500 tokens); that was not enough, so the history was summarised",
    );
    expect(screen.getByRole("separator")).toHaveTextContent("4 items summarised, 1 kept");
  });
});

describe("ForkNotice", () => {
  const entry = {
    kind: "fork" as const,
    id: "record:9",
    origin: { parent_session_id: "0193a1b2-c3d4-7e5f-8a9b-0000000c0501", point: { kind: "before_compaction" as const, number: 1 } },
    text: "Forked from another session just before its compaction #1: everything above is copied from it",
  };

  it("links to the parent by its title, never its id, and opens it", async () => {
    const onOpen = vi.fn();
    render(<ForkNotice entry={entry} parentTitle="Fix the CSV parser" onOpenParent={onOpen} />);
    const notice = screen.getByTestId("fork-notice");
    expect(notice).not.toHaveTextContent(entry.origin.parent_session_id);
    await userEvent.setup().click(screen.getByRole("button", { name: "Open the parent session, “Fix the CSV parser”" }));
    expect(onOpen).toHaveBeenCalledWith(entry.origin.parent_session_id);
  });

  it("says so when the parent is no longer listed", () => {
    render(<ForkNotice entry={entry} onOpenParent={vi.fn()} />);
    expect(screen.getByTestId("fork-notice")).toHaveTextContent("The parent session is no longer in the library.");
    expect(screen.queryByRole("button")).toBeNull();
  });
});
