import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { ApprovalPrompt } from "./ApprovalPrompt";

const diff = "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-old\n+new\n";

describe("ApprovalPrompt", () => {
  it("takes keyboard focus and is answered with Tab and Enter", async () => {
    const onDecide = vi.fn();
    const user = userEvent.setup();
    render(<ApprovalPrompt tool="write_file" summary="write_file src/a.rs" detail={diff} onDecide={onDecide} />);
    const allowOnce = screen.getByRole("button", { name: /Allow once/ });
    expect(allowOnce).toHaveFocus();
    await user.tab();
    expect(screen.getByRole("button", { name: /Allow for session/ })).toHaveFocus();
    await user.tab();
    expect(screen.getByRole("button", { name: /Deny/ })).toHaveFocus();
    await user.keyboard("{Enter}");
    expect(onDecide).toHaveBeenCalledWith("deny");
  });

  it("answers with the Y, A and N keys", async () => {
    const onDecide = vi.fn();
    const user = userEvent.setup();
    render(<ApprovalPrompt tool="run_shell" summary="run `ls` in /w" detail="ls" onDecide={onDecide} />);
    await user.keyboard("y");
    await user.keyboard("a");
    await user.keyboard("n");
    expect(onDecide.mock.calls).toEqual([["allow_once"], ["allow_for_session"], ["deny"]]);
  });

  it("shows the diff with added and removed lines marked", () => {
    render(<ApprovalPrompt tool="write_file" summary="write_file src/a.rs" detail={diff} onDecide={() => {}} />);
    expect(screen.getByText("+new")).toHaveClass("diff-add");
    expect(screen.getByText("-old")).toHaveClass("diff-del");
  });

  it("says an approved shell command runs with the person's rights, outside any sandbox", () => {
    render(<ApprovalPrompt tool="run_shell" summary="run `rm -rf build` in /w" detail="rm -rf build" onDecide={() => {}} />);
    expect(screen.getByTestId("shell-warning")).toHaveTextContent(
      "Not sandboxed. If you allow it, this command runs as you, with your rights, outside any sandbox: it can read, change or delete anything your account can, and reach the network.",
    );
  });

  it("gives no shell warning for file tools", () => {
    render(<ApprovalPrompt tool="write_file" summary="write_file src/a.rs" detail={diff} onDecide={() => {}} />);
    expect(screen.queryByTestId("shell-warning")).toBeNull();
  });

  it("has no buttons in a read-only session", () => {
    render(<ApprovalPrompt tool="write_file" summary="write_file a" detail="" />);
    expect(screen.queryByRole("button")).toBeNull();
    expect(screen.getByText("Resume the session to answer.")).toBeInTheDocument();
  });
});
