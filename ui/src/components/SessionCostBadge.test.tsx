import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { SessionCostBadge } from "./SessionCostBadge";

describe("SessionCostBadge", () => {
  it("shows the session's total", () => {
    render(<SessionCostBadge cost={{ total: { usd: 1_500_000_000_000, price_as_of: "2026-12-02" }, unpriced_rounds: 0, turns: [], steps: [] }} />);
    expect(screen.getByTestId("session-cost-badge")).toHaveTextContent("$1.50");
  });

  it("says no price when the model has none, and nothing before any round reported", () => {
    const { rerender } = render(<SessionCostBadge cost={{ unpriced_rounds: 2, turns: [], steps: [] }} />);
    expect(screen.getByTestId("session-cost-badge")).toHaveTextContent("no price");
    rerender(<SessionCostBadge cost={{ unpriced_rounds: 0, turns: [], steps: [] }} />);
    expect(screen.queryByTestId("session-cost-badge")).toBeNull();
  });
});
