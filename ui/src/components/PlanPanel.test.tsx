import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { Plan } from "../bindings/Plan";
import { currentPlan, type Entry, type ToolCard } from "../state/transcript";
import { PlanPanel } from "./PlanPanel";
import { ToolCallCard } from "./ToolCallCard";

const plan: Plan = {
  explanation: "The parser fails on empty input.",
  plan: [
    { step: "Read src/parser.rs", status: "completed" },
    { step: "NEXT-STEP-fix-the-parser", status: "in_progress" },
    { step: "Run cargo test", status: "pending" },
  ],
};

function planCard(callId: string, p: Plan | undefined, status: ToolCard["status"] = "success"): ToolCard {
  return {
    kind: "tool",
    id: `call:${callId}`,
    call_id: callId,
    name: "update_plan",
    arguments: JSON.stringify(p ?? { plan: "broken" }),
    status,
    plan: p,
  };
}

describe("PlanPanel", () => {
  it("lists every step with its status read out, the progress and the explanation", () => {
    render(<PlanPanel plan={plan} />);
    const panel = screen.getByRole("complementary", { name: "Plan" });
    expect(within(panel).getByRole("button", { expanded: true })).toHaveTextContent("1 of 3 done");
    const steps = within(panel).getAllByRole("listitem");
    expect(steps.map((s) => s.textContent)).toEqual([
      "Read src/parser.rs (Done)",
      "NEXT-STEP-fix-the-parser (In progress)",
      "Run cargo test (To do)",
    ]);
    expect(panel).toHaveTextContent("The parser fails on empty input.");
  });

  it("folds to one line naming the step in progress", async () => {
    const user = userEvent.setup();
    render(<PlanPanel plan={plan} />);
    await user.click(screen.getByRole("button", { name: /Plan/ }));
    const head = screen.getByRole("button", { expanded: false });
    expect(head).toHaveTextContent("NEXT-STEP-fix-the-parser");
    expect(screen.queryAllByRole("listitem")).toHaveLength(0);
  });

  it("renders a step's text as text, never as markup", () => {
    const hostile: Plan = { plan: [{ step: '<img src=x onerror="alert(1)">', status: "pending" }] };
    const { container } = render(<PlanPanel plan={hostile} />);
    expect(container.querySelector("img")).toBeNull();
    expect(screen.getByText('<img src=x onerror="alert(1)">')).toBeInTheDocument();
  });
});

describe("currentPlan", () => {
  const older: Plan = { plan: [{ step: "older", status: "pending" }] };
  it("is the newest card's plan, else the page's", () => {
    const entries: Entry[] = [planCard("a", older), planCard("b", plan)];
    expect(currentPlan({ entries, pagePlan: null })).toBe(plan);
    // A card Rust gave no plan (it did not run, or its arguments set none) does not count.
    expect(currentPlan({ entries: [planCard("a", older), planCard("b", undefined, "cancelled")], pagePlan: null })).toBe(older);
    expect(currentPlan({ entries: [], pagePlan: older })).toBe(older);
    expect(currentPlan({ entries: [], pagePlan: null })).toBeNull();
  });
});

describe("an update_plan card", () => {
  it("shows the progress as its hint and the steps instead of raw arguments", async () => {
    const user = userEvent.setup();
    render(<ToolCallCard tool={planCard("p1", plan)} />);
    const header = screen.getByRole("button", { expanded: false });
    expect(header).toHaveTextContent("1 of 3 done");
    await user.click(header);
    expect(screen.getAllByRole("listitem")).toHaveLength(3);
    expect(screen.queryByText("Arguments")).toBeNull();
  });
});
