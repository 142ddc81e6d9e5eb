// The before/after dialog's sizes: the figures the core's view carries
// (the gauge's estimator, or a layered record's own), each marked ≈.
import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { consoleViews } from "../test/consoleFixtures";
import { BeforeAfterDialog } from "./BeforeAfterDialog";

describe("the before/after dialog", () => {
  it("shows the view's own estimates, each marked ≈ and said to be the gauge's", () => {
    const view = { ...consoleViews[0]!, estimated_tokens_before: 2767, estimated_tokens_after: 714 };
    render(<BeforeAfterDialog view={view} number={1} onClose={() => {}} />);
    expect(screen.getByTestId("before-after-estimate-before")).toHaveTextContent(/^≈ 2\.8k tokens$/);
    expect(screen.getByTestId("before-after-estimate-after")).toHaveTextContent(/^≈ 714 tokens$/);
    const lead = screen.getByTestId("before-after-lead");
    expect(lead).toHaveTextContent("≈ marks an estimate, made in Rust by the estimator the context gauge uses");
    expect(lead).not.toHaveTextContent("four characters");
    expect(lead).not.toHaveTextContent(/about \d/);
  });
});

describe("the after column's tags", () => {
  it("tags what Strata added (a state sheet) 'Added by Strata', never 'Kept'", () => {
    const base = consoleViews[0]!;
    const sheet = { type: "message" as const, id: "i-sheet", role: "user" as const, content: "[State sheet] files: src/parser.rs" };
    render(<BeforeAfterDialog view={{ ...base, after: [...base.after, sheet] }} number={1} onClose={() => {}} />);
    const after = screen.getByTestId("before-after-after");
    const tagOf = (id: string) => after.querySelector(`[data-item-id="${id}"] .item-status`)?.textContent;
    expect(tagOf("i-sheet")).toBe("Added by Strata");
    expect(tagOf(base.summary.id)).toBe("Added by Strata");
    const keptId = base.after.find((item) => item.id !== base.summary.id && base.before.some((b) => b.id === item.id))!.id;
    expect(tagOf(keptId)).toBe("Kept");
  });
});
