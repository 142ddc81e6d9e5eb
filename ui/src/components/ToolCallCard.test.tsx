import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { ToolCard } from "../state/transcript";
import { ToolCallCard } from "./ToolCallCard";

const finished: ToolCard = {
  kind: "tool",
  id: "call:call_1",
  call_id: "call_1",
  name: "run_shell",
  arguments: '{"command":"cargo test -p ingest"}',
  output: { preview: "test result: ok. 18 passed", chars: 26 },
  status: "success",
  duration_ms: 1234,
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

  it("shows no duration under 10 ms, where it says nothing", () => {
    const { rerender } = render(<ToolCallCard tool={{ ...finished, duration_ms: 0 }} />);
    expect(screen.getByRole("button", { expanded: false })).not.toHaveTextContent(/\d ms/);
    rerender(<ToolCallCard tool={{ ...finished, duration_ms: 9 }} />);
    expect(screen.getByRole("button", { expanded: false })).not.toHaveTextContent(/\d ms/);
    rerender(<ToolCallCard tool={{ ...finished, duration_ms: 10 }} />);
    expect(screen.getByRole("button", { expanded: false })).toHaveTextContent("10 ms");
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

  it("asks for the whole output only when a card whose output was cut is expanded, then shows it", async () => {
    const onExpand = vi.fn();
    const user = userEvent.setup();
    const cut: ToolCard = { ...finished, output: { preview: "line 1\nline 2", chars: 9000 } };
    const { rerender } = render(<ToolCallCard tool={cut} onExpand={onExpand} />);
    expect(onExpand).not.toHaveBeenCalled();
    await user.click(screen.getByRole("button", { name: /run_shell/ }));
    expect(onExpand).toHaveBeenCalledWith("call_1");
    expect(screen.getByText(/line 1/)).toBeInTheDocument();
    expect(screen.getByRole("status")).toHaveTextContent("Loading the whole output (9,000 characters)");

    rerender(<ToolCallCard tool={cut} onExpand={onExpand} full={{ state: "loaded", text: "line 1\nline 2\nline 3 (the end)" }} />);
    expect(screen.getByText(/line 3 \(the end\)/)).toBeInTheDocument();
    expect(screen.queryByRole("status")).toBeNull();

    rerender(<ToolCallCard tool={cut} onExpand={onExpand} full={{ state: "failed", message: "The session is gone." }} />);
    expect(screen.getByRole("status")).toHaveTextContent("The whole output could not be loaded: The session is gone.");
  });

  it("never asks for an output it already holds whole", async () => {
    const onExpand = vi.fn();
    const user = userEvent.setup();
    render(<ToolCallCard tool={finished} onExpand={onExpand} />);
    await user.click(screen.getByRole("button", { name: /run_shell/ }));
    expect(screen.getByText("test result: ok. 18 passed")).toBeInTheDocument();
    expect(onExpand).not.toHaveBeenCalled();
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
          duration_ms: undefined,
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
