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

  it("says the action once in plain words: a shell call as Run: and its command, the folder apart", () => {
    render(<ApprovalPrompt tool="run_shell" summary="run `cargo test` in /work/app" detail="cargo test" onDecide={() => {}} />);
    expect(screen.getByTestId("approval-action")).toHaveTextContent(/^Run: cargo test$/);
    expect(screen.getByText("in /work/app")).toBeInTheDocument();
    expect(screen.getByRole("group").textContent?.match(/cargo test/g)).toHaveLength(1);
  });

  it("says a write of a new file as Create and shows its diff", () => {
    const created = "--- /dev/null\n+++ b/hello.py\n@@ -0,0 +1 @@\n+print('hi')\n";
    render(<ApprovalPrompt tool="write_file" summary="write_file hello.py" detail={created} onDecide={() => {}} />);
    expect(screen.getByTestId("approval-action")).toHaveTextContent(/^Create hello.py$/);
    expect(screen.getByText("+print('hi')")).toHaveClass("diff-add");
  });

  it("marks a destructive command more strongly than the standing shell warning", () => {
    render(<ApprovalPrompt tool="run_shell" summary="run `rm -rf build` in /w" detail="rm -rf build" onDecide={() => {}} />);
    expect(screen.getByRole("group")).toHaveClass("approval-destructive");
    expect(screen.getByTestId("destructive-warning")).toHaveTextContent(
      "Destructive command. If you allow it, it deletes files and folders recursively (rm -r). This cannot be undone from Strata.",
    );
  });

  it("gives no destructive warning for an ordinary command", () => {
    render(<ApprovalPrompt tool="run_shell" summary="run `cargo test` in /w" detail="cargo test" onDecide={() => {}} />);
    expect(screen.queryByTestId("destructive-warning")).toBeNull();
    expect(screen.getByTestId("shell-warning")).toBeInTheDocument();
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

  it("says what a shell command in a sandboxed session can reach instead of warning it runs unconfined", () => {
    render(<ApprovalPrompt tool="run_shell" summary="run `make` in /w" detail="make" onDecide={() => {}} sandbox="workspace-write" />);
    expect(screen.queryByTestId("shell-warning")).toBeNull();
    expect(screen.getByTestId("shell-sandboxed")).toHaveTextContent(
      "Sandboxed (workspace-write). Commands write only inside the workspace and their temp folder.",
    );
  });

  it("says what network a sandboxed shell command reaches", () => {
    render(<ApprovalPrompt tool="run_shell" summary="run `cargo fetch` in /w" detail="cargo fetch" onDecide={() => {}} sandbox="workspace-write" network="network allow-list (crates.io)" />);
    expect(screen.getByTestId("shell-sandboxed")).toHaveTextContent(
      "Sandboxed (workspace-write). Commands write only inside the workspace and their temp folder. Network allow-list (crates.io).",
    );
  });

  it("warns as unconfined when the session's sandbox is off", () => {
    render(<ApprovalPrompt tool="run_shell" summary="run `make` in /w" detail="make" onDecide={() => {}} sandbox="off" />);
    expect(screen.queryByTestId("shell-sandboxed")).toBeNull();
    expect(screen.getByTestId("shell-warning")).toHaveTextContent("Not sandboxed.");
  });

  it("gives no shell warning for file tools", () => {
    render(<ApprovalPrompt tool="write_file" summary="write_file src/a.rs" detail={diff} onDecide={() => {}} />);
    expect(screen.queryByTestId("shell-warning")).toBeNull();
  });

  it("has no buttons in a session another process holds, and says where to answer", () => {
    render(<ApprovalPrompt tool="write_file" summary="write_file a" detail="" />);
    expect(screen.queryByRole("button")).toBeNull();
    expect(screen.getByText("Another Strata process holds this session: answer it there.")).toBeInTheDocument();
  });

  it("offers always allow for a shell command with the exact rule it saves, shown before it is pressed", async () => {
    const onDecide = vi.fn();
    const user = userEvent.setup();
    render(
      <ApprovalPrompt tool="run_shell" summary="run `cargo test --workspace` in /w" detail="cargo test --workspace" onDecide={onDecide} proposedRules={["cargo test*"]} />,
    );
    const always = screen.getByRole("button", { name: "Always allow cargo test*" });
    expect(always).toHaveTextContent("Always allow cargo test* R");
    expect(always).toHaveAccessibleDescription(/saves the rule cargo test\* to this workspace.s \.strata\/rules\.toml/);
    // Reached with the keyboard: after Allow for session, before Deny.
    await user.tab();
    await user.tab();
    expect(always).toHaveFocus();
    await user.keyboard("{Enter}");
    expect(onDecide).toHaveBeenCalledWith("always_allow");
  });

  it("names every rule of a compound command and offers nothing without a proposal or an answerer", () => {
    const { unmount } = render(
      <ApprovalPrompt tool="run_shell" summary="run `git add . && git commit` in /w" detail="git add . && git commit" onDecide={() => {}} proposedRules={["git add*", "git commit*"]} />,
    );
    expect(screen.getByRole("button", { name: "Always allow git add*, git commit*" })).toBeInTheDocument();
    expect(screen.getByTestId("always-allow-note")).toHaveTextContent("saves the rules git add* and git commit*");
    unmount();
    const { unmount: gone } = render(<ApprovalPrompt tool="run_shell" summary="run `rm -rf build` in /w" detail="rm -rf build" onDecide={() => {}} />);
    expect(screen.queryByRole("button", { name: /Always allow/ })).toBeNull();
    gone();
    render(<ApprovalPrompt tool="run_shell" summary="run `make` in /w" detail="make" proposedRules={["make*"]} />);
    expect(screen.queryByRole("button", { name: /Always allow/ })).toBeNull();
    expect(screen.queryByTestId("always-allow-note")).toBeNull();
  });

  it("offers always allow for an MCP tool by its names and says the rule holds for the server's launch command", async () => {
    const fingerprint = `sha256:${"ab12".repeat(16)}`;
    const onDecide = vi.fn();
    const user = userEvent.setup();
    render(
      <ApprovalPrompt
        tool="mcp__github__search_issues"
        summary="call search_issues on MCP server github"
        detail='{"q":"bug"}'
        onDecide={onDecide}
        proposedRules={[`github/search_issues@${fingerprint}`]}
      />,
    );
    const always = screen.getByRole("button", { name: "Always allow github/search_issues" });
    expect(always).toHaveTextContent("Always allow github/search_issues R");
    expect(always).not.toHaveTextContent("sha256");
    const note = screen.getByTestId("always-allow-note");
    expect(note).toHaveTextContent("later calls of this tool run without asking while the server runs the same launch command (sha256:ab12ab12ab12…)");
    expect(note).toHaveTextContent("if its command changes, Strata asks again");
    expect(note).not.toHaveTextContent("later commands");
    await user.click(always);
    expect(onDecide).toHaveBeenCalledWith("always_allow");
  });
});
