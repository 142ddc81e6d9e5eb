import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

import { CANNOT_REASON, REASONING_HINT, REASONING_WHILE_RUNNING, ReasoningControl } from "./ReasoningControl";

describe("ReasoningControl", () => {
  it("shows the setting in force and sets another from its list", async () => {
    const onChange = vi.fn();
    render(<ReasoningControl value="medium" canReason running={false} onChange={onChange} />);
    const button = screen.getByRole("combobox", { name: "Reasoning" });
    expect(button).toHaveTextContent("Medium");
    expect(button.closest("[data-tooltip]")).toHaveAttribute("data-tooltip", REASONING_HINT);
    await userEvent.click(button);
    await userEvent.click(screen.getByRole("option", { name: /High/ }));
    expect(onChange).toHaveBeenCalledWith("high");
  });

  it("says Default when neither the session nor its profile set one", () => {
    render(<ReasoningControl value={null} canReason running={false} onChange={() => {}} />);
    expect(screen.getByRole("combobox", { name: "Reasoning" })).toHaveTextContent("Default");
  });

  it("is disabled, saying why, for a model that cannot reason and while a turn runs", () => {
    const { rerender } = render(<ReasoningControl value={null} canReason={false} running={false} onChange={() => {}} />);
    const button = screen.getByRole("combobox", { name: "Reasoning" });
    expect(button).toBeDisabled();
    expect(button.closest("[data-tooltip]")).toHaveAttribute("data-tooltip", CANNOT_REASON);
    rerender(<ReasoningControl value="high" canReason running onChange={() => {}} />);
    expect(button).toBeDisabled();
    expect(button.closest("[data-tooltip]")).toHaveAttribute("data-tooltip", REASONING_WHILE_RUNNING);
  });
});
