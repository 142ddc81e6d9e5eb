import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { CompactionView } from "../bindings/CompactionView";
import { consoleViews } from "../test/consoleFixtures";
import { CompactionCard } from "./Compactions";

function card(view: CompactionView) {
  return render(<CompactionCard view={view} number={1} of={1} focused={false} onReveal={() => {}} />);
}

describe("CompactionCard reclaimed tokens", () => {
  it("shows what the next round's report reclaimed", () => {
    card(consoleViews[0]!);
    expect(screen.getByTestId("compaction-reclaimed")).toHaveTextContent("−6.2k tokens");
  });

  it.each([
    ["grew", 9000],
    ["stayed the same", 8412],
  ])("says nothing was reclaimed when the next round's context %s, never “−0 tokens”", (_, next) => {
    const { container } = card({ ...consoleViews[0]!, next_context_tokens: next });
    expect(screen.getByTestId("compaction-reclaimed")).toHaveTextContent("no tokens reclaimed");
    expect(container.textContent).not.toMatch(/−0\b/);
  });

  it("says nothing about reclaim until the next round reports", () => {
    card(consoleViews[1]!);
    expect(screen.queryByTestId("compaction-reclaimed")).toBeNull();
  });
});
