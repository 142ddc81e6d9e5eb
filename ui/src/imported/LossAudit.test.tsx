import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { LossAudit, lossCounts } from "./LossAudit";

const empty = { against_summary: true, paths: [], commands: [], errors: [], rules: [] };

describe("LossAudit", () => {
  it("counts and lists what was lost, hostile text shown as text", async () => {
    const hostile = '<img src=x onerror="alert(1)">';
    const { container } = render(<LossAudit loss={{ ...empty, paths: ["src/parser/lexer.rs", hostile], commands: ["cargo test"] }} />);
    expect(screen.getByText("Lost at this compaction: 2 paths, 1 command")).toBeTruthy();
    await userEvent.click(screen.getByText(/Lost at this compaction/));
    expect(screen.getByText("src/parser/lexer.rs")).toBeTruthy();
    expect(screen.getByText(hostile)).toBeTruthy();
    expect(container.querySelector("img")).toBeNull();
  });

  it("says nothing was lost, and when the summary could not be read", () => {
    render(<LossAudit loss={{ ...empty, against_summary: false }} />);
    expect(screen.getByText("Nothing lost at this compaction.")).toBeTruthy();
    expect(screen.getByText(/audited against the kept messages only/)).toBeTruthy();
  });

  it("names only the non-empty groups, singular for one", () => {
    expect(lossCounts({ ...empty, errors: ["a"], rules: ["b", "c"] })).toBe("1 error, 2 rules");
  });
});
