import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { CompactionProblemNotice } from "./TranscriptNotices";

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
