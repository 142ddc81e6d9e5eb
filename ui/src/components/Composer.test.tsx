import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { Composer } from "./Composer";
import { ContextGauge } from "./ContextGauge";

function Harness(props: { onSend: (t: string) => void; running?: boolean; onStop?: () => void }) {
  const [value, setValue] = useState("");
  return <Composer value={value} onChange={setValue} onSend={props.onSend} onStop={props.onStop ?? (() => {})} running={props.running ?? false} />;
}

describe("Composer", () => {
  it("sends on Enter and adds a line on Shift+Enter", async () => {
    const onSend = vi.fn();
    const user = userEvent.setup();
    render(<Harness onSend={onSend} />);
    const input = screen.getByRole("combobox", { name: "Message" });
    await user.type(input, "first line{Shift>}{Enter}{/Shift}second line");
    expect(input).toHaveValue("first line\nsecond line");
    expect(onSend).not.toHaveBeenCalled();
    await user.keyboard("{Enter}");
    expect(onSend).toHaveBeenCalledWith("first line\nsecond line");
  });

  it("does not send blank text and explains /compact", async () => {
    const onSend = vi.fn();
    const user = userEvent.setup();
    render(<Harness onSend={onSend} />);
    await user.type(screen.getByRole("combobox", { name: "Message" }), "   {Enter}");
    expect(onSend).not.toHaveBeenCalled();
    await user.type(screen.getByRole("combobox", { name: "Message" }), "/compact");
    expect(screen.getByRole("button", { name: "Compact" })).toBeEnabled();
    expect(screen.getByText(/Compacts the history now/)).toBeInTheDocument();
  });

  it("offers Stop while a turn runs", async () => {
    const onStop = vi.fn();
    const user = userEvent.setup();
    render(<Harness onSend={() => {}} running onStop={onStop} />);
    await user.click(screen.getByRole("button", { name: /Stop/ }));
    expect(onStop).toHaveBeenCalled();
    expect(screen.queryByRole("button", { name: "Send" })).toBeNull();
  });
});

describe("ContextGauge", () => {
  it("shows the last round's context tokens against the threshold and window", () => {
    render(<ContextGauge context_tokens={6_500} threshold={8_000} context_window={32_000} />);
    const meter = screen.getByRole("meter", { name: "Context tokens" });
    expect(meter).toHaveAttribute("aria-valuenow", "6500");
    expect(meter).toHaveAttribute("aria-valuemax", "32000");
    expect(meter).toHaveAttribute("aria-valuetext", "6.5k tokens in context, compacts at 8k, window 32k");
    expect(meter.parentElement).toHaveClass("tone-near");
  });

  it("turns red past the threshold and says when nothing was reported", () => {
    const { rerender } = render(<ContextGauge context_tokens={9_000} threshold={8_000} context_window={32_000} />);
    expect(screen.getByRole("meter").parentElement).toHaveClass("tone-over");
    rerender(<ContextGauge context_tokens={null} threshold={8_000} context_window={32_000} />);
    expect(screen.getByRole("meter")).toHaveAttribute("aria-valuetext", "No round has reported usage yet");
  });
});
