import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { CompactionView } from "../bindings/CompactionView";
import type { StepFigures } from "../bindings/StepFigures";
import { consoleViews } from "../test/consoleFixtures";
import { CompactionCard } from "./Compactions";

const estimate = (tokens: number) => ({ tokens, estimated: true });

function card(view: CompactionView, figures: StepFigures) {
  return render(<CompactionCard view={view} number={1} of={1} focused={false} onReveal={() => {}} figures={figures} />);
}

describe("CompactionCard figures", () => {
  it("shows one figure per concept from the fold, every estimate marked ≈", () => {
    const { container } = card(consoleViews[0]!, { before: estimate(2_300), after: estimate(1_400), freed: estimate(900), next_reported: 1_520 });
    expect(screen.getByTestId("compaction-estimate")).toHaveTextContent("≈ 2,300 → ≈ 1,400 tokens · ≈ 900 freed");
    expect(screen.getByTestId("compaction-estimate-next")).toHaveTextContent("the next model call reported 1,520 (the estimate was off by +8%)");
    // No second figure for the same concept (a "reclaimed" beside the "freed").
    expect(container.textContent).not.toMatch(/reclaimed|tokens replaced|trigger − next round/);
  });

  it("says nothing about the next report until a model call made one", () => {
    card(consoleViews[1]!, { before: estimate(2_300), after: estimate(1_400), freed: estimate(900) });
    expect(screen.queryByTestId("compaction-estimate-next")).toBeNull();
  });
});
