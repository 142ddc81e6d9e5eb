// Issue 27, item 8: New session is a sheet of recent folders, profile and
// approval (not the raw folder picker), and the app reopens the session it
// showed last.
import { mockShell } from "./test/shell";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "./App";
import { emptyConsoleView } from "./state/console";
import { demoSettings, shellPage, shellSessions, shellView } from "./test/fixtures";

function shell(lastSession?: string) {
  const sessions = shellSessions();
  const calls: { cmd: string; args: Record<string, unknown> }[] = [];
  mockShell((cmd, args) => {
    calls.push({ cmd, args });
    const find = () => sessions.find((s) => s.summary.id === args.session_id)!;
    switch (cmd) {
      case "app_info":
        return { version: "0.1.0", strata_home: "/h", active_profile: demoSettings.profiles[0], is_demo: true };
      case "get_settings":
        return demoSettings;
      case "list_sessions":
        return { v: 1, sessions: sessions.map((s) => s.summary), total: sessions.length };
      case "recent":
        return { workspaces: ["/home/ana/ingest", "/home/ana/orders"], last_session: lastSession };
      case "create_session": {
        const created = { ...sessions[0]!, summary: { ...sessions[0]!.summary, id: "s-new", title: undefined, workspace: String(args.workspace) }, transcript: [] };
        sessions.unshift(created);
        return created.summary;
      }
      case "open_session":
        return shellView(find(), true);
      case "open_transcript":
        return shellPage(find());
      case "open_console":
        return emptyConsoleView(String(args.session_id), 8000, 32000);
      case "remember_open":
      case "watch_library":
        return null;
      default:
        throw { kind: "internal", message: `unexpected ${cmd}` };
    }
  });
  return { calls, sessions };
}

describe("new session and the last session", () => {
  it("reopens the session the window showed last on start, and remembers each session it opens", { timeout: 20_000 }, async () => {
    const { calls, sessions } = shell("0193a1b2-c3d4-7e5f-8a9b-000000000a02");
    const user = userEvent.setup();
    render(<App />);
    expect(await screen.findByRole("heading", { level: 1, name: "Flaky orders_e2e test" }, { timeout: 5000 })).toBeInTheDocument();
    // The sidebar's list arrives on its own (list_sessions), after or before the reopened session.
    await user.click(await screen.findByRole("button", { name: /^Streaming JSON parser for ingest/ }, { timeout: 5000 }));
    await waitFor(() =>
      expect(calls.filter((c) => c.cmd === "remember_open").map((c) => c.args.session_id)).toEqual([sessions[1]!.summary.id, sessions[0]!.summary.id]),
    );
  });

  it("opens the sheet on Ctrl+N, starts in the picked folder with its profile and approval, and opens the session live", { timeout: 20_000 }, async () => {
    const { calls } = shell();
    const user = userEvent.setup();
    render(<App />);
    await screen.findByRole("button", { name: /^Streaming JSON parser for ingest/ }, { timeout: 5000 });
    await user.keyboard("{Control>}n{/Control}");
    const sheet = await screen.findByRole("dialog", { name: "New session" }, { timeout: 5000 });
    await waitFor(() => expect(within(within(sheet).getByRole("listbox", { name: "Recent folders" })).getAllByRole("option").map((o) => o.getAttribute("title"))).toEqual(["/home/ana/ingest", "/home/ana/orders"]));
    expect(calls.some((c) => c.cmd === "pick_workspace")).toBe(false);
    await user.keyboard("{ArrowDown}");
    await user.click(within(sheet).getByRole("radio", { name: "Read-only" }));
    await user.click(within(sheet).getByRole("button", { name: "Start session" }));
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "New session" })).toBeNull());
    expect(calls.find((c) => c.cmd === "create_session")?.args).toEqual({ workspace: "/home/ana/orders", allow_broad_workspace: false, profile_id: "demo", approval_policy: "read-only", sandbox: "off", network: "off" });
    await waitFor(() => expect(screen.getByRole("combobox", { name: "Message" })).toHaveFocus());
  });
});
