import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { Entry } from "../state/transcript";
import { ToolCallCard } from "./ToolCallCard";

type ToolEntry = Extract<Entry, { kind: "tool" }>;

const finished: ToolEntry = {
  kind: "tool",
  key: "t1",
  callId: "call_1",
  name: "run_shell",
  arguments: '{"command":"cargo test -p ingest"}',
  output: "test result: ok. 18 passed",
  status: "success",
  durationMs: 1234,
};

describe("ToolCallCard", () => {
  it("shows name, a hint of the arguments, duration and status, collapsed", () => {
    render(<ToolCallCard tool={finished} />);
    const header = screen.getByRole("button", { expanded: false });
    expect(header).toHaveTextContent("run_shell");
    expect(header).toHaveTextContent("cargo test -p ingest");
    expect(header).toHaveTextContent("1.2 s");
    expect(header).toHaveTextContent("Done");
    expect(screen.queryByText("test result: ok. 18 passed")).toBeNull();
  });

  it("expands to the pretty-printed arguments and the output, and collapses again", async () => {
    const user = userEvent.setup();
    render(<ToolCallCard tool={finished} />);
    await user.click(screen.getByRole("button", { name: /run_shell/ }));
    expect(screen.getByRole("button", { name: /run_shell/ })).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByText("test result: ok. 18 passed")).toBeInTheDocument();
    expect(screen.getByText(/"command": "cargo test -p ingest"/)).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: /run_shell/ }));
    expect(screen.queryByText("test result: ok. 18 passed")).toBeNull();
  });

  it.each([
    ["running", "Running"],
    ["error", "Failed"],
    ["denied", "Denied"],
    ["timed_out", "Timed out"],
    ["cancelled", "Cancelled"],
  ] as const)("labels status %s as %s", (status, label) => {
    render(<ToolCallCard tool={{ ...finished, status }} />);
    expect(screen.getByRole("button", { name: /run_shell/ })).toHaveTextContent(label);
  });

  it("is open with an approval prompt while it waits for the person", async () => {
    const onDecide = vi.fn();
    const user = userEvent.setup();
    render(
      <ToolCallCard
        tool={{
          ...finished,
          output: undefined,
          durationMs: undefined,
          status: "awaiting_approval",
          approval: { summary: "run `cargo test -p ingest` in /work", detail: "cargo test -p ingest" },
        }}
        onDecide={onDecide}
      />,
    );
    expect(screen.getByRole("group", { name: "Approval needed for run_shell" })).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: /Allow for session/ }));
    expect(onDecide).toHaveBeenCalledWith("call_1", "allow_for_session");
  });
});
