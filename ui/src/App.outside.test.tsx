// Issue 27, items 6 and 7: the person's own sessions open live; one another
// process holds opens read-only with every control that writes disabled,
// follows that writer, and opens live once it lets go; a change made outside
// Strata to the open session is shown, and a write the backend refused
// because of one reloads the session and says why.
import { mockShell } from "./test/shell";
import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "./App";
import type { LibraryChange } from "./bindings/LibraryChange";
import { HELD_NOTICE } from "./components/ConversationHeader";
import { ContextControls } from "./console/ContextControls";
import { demoSettings, shellPage, shellSessions, shellView } from "./test/fixtures";

const STALE = "This session changed outside Strata since it was shown here. Nothing was written: reload it to see what changed, then try again.";

/** A shell whose open session another process may hold (`state.held`) and whose library changes the test pushes. */
function shell(state: { held: boolean; refuseSend?: boolean }) {
  const sessions = shellSessions();
  const session = sessions[0]!;
  const calls: { cmd: string; args: Record<string, unknown> }[] = [];
  let push: ((change: LibraryChange) => void) | null = null;
  mockShell((cmd, args) => {
    calls.push({ cmd, args });
    switch (cmd) {
      case "app_info":
        return { version: "0.1.0", strata_home: "/h", active_profile: demoSettings.profiles[0], is_demo: false };
      case "get_settings":
        return demoSettings;
      case "list_sessions":
        return { v: 1, sessions: sessions.map((s) => s.summary), total: sessions.length };
      case "watch_library": {
        const channel = args.on_event as { onmessage: (change: LibraryChange) => void };
        push = (change) => channel.onmessage(change);
        return null;
      }
      case "compaction_status":
        return { policy: "layered", threshold: 8000, context_window: 32000, circuit_open: false };
      case "open_session":
        return shellView(session, false, state.held);
      case "open_transcript":
        return shellPage(session);
      case "send_message":
        if (state.refuseSend) throw { kind: "stale", message: STALE };
        throw { kind: "internal", message: "unexpected send" };
      default:
        throw { kind: "internal", message: `unexpected ${cmd}` };
    }
  });
  return {
    calls,
    session,
    /** What the other writer appended, as the file now holds it. */
    append: (text: string) => {
      session.transcript = [...session.transcript, { kind: "user", id: `outside-${session.transcript.length}`, text }];
    },
    push: (change: Partial<LibraryChange>) => act(() => push!({ v: 1, updated: [session.summary], removed: [], ...change })),
  };
}

const composer = () => screen.getByRole("combobox", { name: "Message" });

describe("a session another process holds", () => {
  it("opens read-only with the composer, Switch profile and Pin disabled, follows the writer, and opens live once it lets go", async () => {
    const state = { held: true };
    const { calls, session, append, push } = shell(state);
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByRole("button", { name: /^Streaming JSON parser for ingest/ }));
    const status = await screen.findByRole("status", { name: HELD_NOTICE });
    expect(status).toHaveTextContent("Read-only");
    expect(composer()).toBeDisabled();
    expect(screen.getByRole("button", { name: "Switch profile" })).toBeDisabled();
    // Nothing that writes is offered on an item; a fork (a new session) still is.
    const message = screen.getByText("Make the JSON parser stream.").closest("article") as HTMLElement;
    expect(within(message).queryByRole("button", { name: /^Pin / })).toBeNull();
    await waitFor(() => expect(calls.some((c) => c.cmd === "watch_library")).toBe(true));

    // The other process writes: the window follows it, still read-only.
    append("Typed in the terminal");
    push({ changed_outside: [session.summary.id] });
    expect(await screen.findByText("Typed in the terminal")).toBeInTheDocument();
    expect(composer()).toBeDisabled();

    // It lets go (its file closes, with no new record): the session is the person's again.
    state.held = false;
    push({});
    await waitFor(() => expect(composer()).toBeEnabled());
    expect(screen.queryByRole("status", { name: HELD_NOTICE })).toBeNull();
    expect(await screen.findByText("The other process let go of this session: it is yours to continue.")).toBeInTheDocument();
  }, 20_000);

  it("disables the console's policy control, saying why", () => {
    const setPolicy = undefined;
    render(
      <ContextControls
        compaction={{ sessionId: "s1", gauge: { tokens: 100, estimated: false, threshold: 8000, policy: "layered", cost: { unpriced_rounds: 0, turns: [], steps: [] } }, undo: null, setPolicy }}
        running={false}
      />,
    );
    const group = screen.getByRole("radiogroup", { name: "Compaction policy for this session" });
    for (const radio of within(group).getAllByRole("radio")) expect(radio).toBeDisabled();
    expect(within(group).getByText("Base").closest("label")).toHaveAttribute("data-tooltip", expect.stringMatching(/^Read-only/));
  });
});

describe("a session changed outside Strata", () => {
  it("shows what another writer added while it is open, and says so", async () => {
    const { calls, session, append, push } = shell({ held: false });
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByRole("button", { name: /^Streaming JSON parser for ingest/ }));
    await waitFor(() => expect(composer()).toBeEnabled());
    await waitFor(() => expect(calls.some((c) => c.cmd === "watch_library")).toBe(true));
    const opened = calls.filter((c) => c.cmd === "open_transcript").length;

    // A change that is the app's own (not named outside) reads nothing again.
    push({});
    append("Run by the strata command line");
    push({ changed_outside: [session.summary.id] });
    expect(await screen.findByText("Run by the strata command line")).toBeInTheDocument();
    expect(calls.filter((c) => c.cmd === "open_transcript")).toHaveLength(opened + 1);
    expect(await screen.findByText("This session changed outside Strata; it now shows what was added.")).toBeInTheDocument();
    expect(composer()).toBeEnabled();
  }, 20_000);

  it("reloads the session when a send is refused because of a change outside, and shows the refusal", async () => {
    const { append } = shell({ held: false, refuseSend: true });
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByRole("button", { name: /^Streaming JSON parser for ingest/ }));
    await waitFor(() => expect(composer()).toBeEnabled());
    append("Written before the send");
    await user.type(composer(), "Continue{Enter}");
    expect(await screen.findByText("Written before the send")).toBeInTheDocument();
    expect(await screen.findByText(STALE)).toBeInTheDocument();
  }, 20_000);
});
