import { mockShell } from "./test/shell";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeAll, describe, expect, it } from "vitest";
import { App } from "./App";
import type { SessionListItem, SessionView } from "./api/types";
import type { LiveBatch } from "./bindings/LiveBatch";
import type { SearchHit } from "./bindings/SearchHit";
import type { SearchResults } from "./bindings/SearchResults";
import type { MainlineEvent } from "./bindings/MainlineEvent";
import type { SessionPage } from "./bindings/SessionPage";
import type { TranscriptEntry } from "./bindings/TranscriptEntry";
import type { TranscriptUpdate } from "./bindings/TranscriptUpdate";
import { demoSettings, shellPage, shellSessions, shellView } from "./test/fixtures";

// The console's code loads when it first opens; compiled once here, so opening it waits on the module, not on the test runner's transform.
beforeAll(() => import("./console/ConsoleDock"));

const settings = demoSettings;

/** One page holding every listed session. */
function page(sessions: SessionListItem[]): SessionPage {
  return { v: 1, sessions, total: sessions.length };
}

/** `search_sessions`' answer: one hit in `session`. */
function oneHit(
  query: unknown,
  session: ReturnType<typeof shellSessions>[number],
  hit: Pick<SearchHit, "item_id" | "kind" | "snippet" | "matches">,
): SearchResults {
  const { id, title, updated_at } = session.summary;
  return { v: 1, query: String(query), total: 1, total_capped: false, hits: [{ session_id: id, session_title: title ?? null, updated_at, ...hit }] };
}

/** Sends a mainline event with the transcript updates Rust's conversion makes of it. */
function emitter(channel: { onmessage: (batch: LiveBatch) => void }, sessionId: string) {
  let seq = 0;
  return (event: MainlineEvent, updates: TranscriptUpdate[]) =>
    channel.onmessage({ events: [{ envelope: { v: 1, seq: seq++, session_id: sessionId, event: { family: "mainline", event } }, updates }] });
}

/** A shell answering with `answer`, and app info and settings for the demo profile; it records every call. */
function recordingShell(answer: (cmd: string, args: Record<string, unknown>) => unknown) {
  const calls: { cmd: string; args: Record<string, unknown> }[] = [];
  mockShell(async (cmd, rawArgs) => {
    const args = (rawArgs ?? {}) as Record<string, unknown>;
    calls.push({ cmd, args });
    if (cmd === "app_info") return { version: "0.1.0", strata_home: "/h", active_profile: settings.profiles[0], is_demo: true };
    if (cmd === "get_settings") return settings;
    // The library feed: these tests push no changes.
    if (cmd === "watch_library") return null;
    return answer(cmd, args);
  });
  return calls;
}

/** A scripted shell: records every call; `send_message` waits for an approval. */
function fakeShell() {
  const sessions = shellSessions();
  let approve: ((decision: string) => void) | null = null;
  let finishTurn: (() => void) | null = null;
  const calls = recordingShell(async (cmd, args) => {
    switch (cmd) {
      case "list_sessions":
        return page(sessions.map((s) => s.summary).filter((s) => !args.query || s.title?.toLowerCase().includes(String(args.query))));
      case "open_session":
        return shellView(sessions.find((x) => x.summary.id === args.session_id)!);
      case "open_transcript":
        return shellPage(sessions.find((x) => x.summary.id === args.session_id)!);
      case "answer_approval":
        approve?.(String(args.decision));
        return true;
      case "stop_turn":
        finishTurn?.();
        return true;
      case "send_message": {
        // Stands in for the app, which reads `/compact [focus]` from the text (Rust's ComposerInput).
        if (String(args.text).startsWith("/compact ")) {
          return { kind: "compaction", skipped: "Nothing to compact yet: the history is too short.", history_items: 3 };
        }
        const emit = emitter(args.on_event as { onmessage: (batch: LiveBatch) => void }, String(args.session_id));
        const card = { kind: "tool" as const, id: "call:c9", call_id: "c9", name: "run_shell", arguments: '{"command":"cargo test"}', turn_id: "t9" };
        const asked = { ...card, status: "awaiting_approval" as const, approval: { summary: "run `cargo test` in /w", detail: "cargo test" } };
        emit({ kind: "turn_started", turn_id: "t9", user_message: { type: "message", id: "u9", role: "user", content: String(args.text) } }, [
          { op: "append", entry: { kind: "user", id: "u9", text: String(args.text), turn_id: "t9" } },
        ]);
        emit({ kind: "text_delta", turn_id: "t9", round_id: "r9", delta: "Checking the tests" }, [
          { op: "append", entry: { kind: "assistant", id: "stream:r9", text: "Checking the tests", streaming: true, turn_id: "t9" } },
        ]);
        emit({ kind: "tool_call_started", turn_id: "t9", call_id: "c9", name: "run_shell", arguments: '{"command":"cargo test"}' }, [
          { op: "append", entry: { ...card, status: "running" } },
        ]);
        emit({ kind: "approval_requested", turn_id: "t9", call_id: "c9", tool: "run_shell", summary: "run `cargo test` in /w", detail: "cargo test" }, [
          { op: "replace", id: "call:c9", entry: asked },
        ]);
        const decision = await new Promise<string>((resolve) => (approve = resolve));
        const decided = { ...asked, status: "running" as const, approval: { ...asked.approval, decision: decision as "allow_once" } };
        emit({ kind: "approval_resolved", turn_id: "t9", call_id: "c9", decision: decision as "allow_once" }, [{ op: "replace", id: "call:c9", entry: decided }]);
        emit({ kind: "tool_call_finished", turn_id: "t9", call_id: "c9", name: "run_shell", status: "success", output: "ok", duration_ms: 900 }, [
          { op: "replace", id: "call:c9", entry: { ...decided, status: "success", output: { preview: "ok", chars: 2 }, duration_ms: 900 } },
        ]);
        await new Promise<void>((resolve) => (finishTurn = resolve));
        emit({ kind: "turn_finished", turn_id: "t9", outcome: "cancelled", rounds: 1 }, [
          { op: "replace", id: "stream:r9", entry: { kind: "assistant", id: "stream:r9", text: "Checking the tests", streaming: false, unsaved: "stopped", turn_id: "t9" } },
          { op: "append", entry: { kind: "turn_end", id: "turn_end:t9", outcome: "cancelled", rounds: 1 } },
        ]);
        return { kind: "turn", turn_id: "t9", outcome: "cancelled", rounds: 1 };
      }
      default:
        throw { kind: "internal", message: `unexpected ${cmd}` };
    }
  });
  return { calls, sessions };
}

describe("App", () => {
  it("opens the person's own session live at once, streams a turn, answers an approval by keyboard and stops", async () => {
    const { calls, sessions } = fakeShell();
    const user = userEvent.setup();
    render(<App />);
    expect(await screen.findByText("Demo")).toBeInTheDocument();
    await user.click(await screen.findByRole("button", { name: /^Streaming JSON parser for ingest/ }));
    expect(await screen.findByRole("meter", { name: "Context tokens" })).toHaveAttribute("aria-valuenow", "2930");
    // No read-only step and no Resume: the composer works as soon as the session shows.
    const composer = screen.getByRole("combobox", { name: "Message" });
    await waitFor(() => expect(composer).toBeEnabled());
    expect(screen.queryByText("Read-only")).toBeNull();
    expect(screen.queryByRole("button", { name: /Resume/ })).toBeNull();
    await user.type(composer, "Run the tests{Enter}");
    expect(await screen.findByText("Checking the tests")).toBeInTheDocument();
    expect(composer).toHaveValue("");
    const prompt = await screen.findByRole("group", { name: "Approval needed for run_shell" });
    // The person is typing, so the prompt does not steal focus; the keyboard reaches it
    // through the composer's "Review" button.
    expect(composer).toHaveFocus();
    expect(document.querySelector(".approval-waiting-summary")).toHaveTextContent("Waiting for your approval: Run: cargo test");
    await user.tab();
    expect(screen.getByRole("button", { name: "Review" })).toHaveFocus();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(within(prompt).getByRole("button", { name: /Allow once/ })).toHaveFocus());
    await user.keyboard("{Enter}");
    await waitFor(() => expect(calls.some((c) => c.cmd === "answer_approval")).toBe(true));
    expect(calls.find((c) => c.cmd === "answer_approval")?.args).toEqual({
      session_id: sessions[0]!.summary.id,
      call_id: "c9",
      decision: "allow_once",
    });
    await waitFor(() => expect(screen.queryByRole("group", { name: /Approval needed/ })).toBeNull());

    await user.click(screen.getByRole("button", { name: /Stop/ }));
    expect(await screen.findByText("Stopped. The turn was cancelled.")).toBeInTheDocument();
    expect(calls.filter((c) => c.cmd === "stop_turn")).toHaveLength(1);
   }, 20_000); // Many keystrokes: slow on a loaded two-core machine.

  it("answers a waiting approval with Y typed in the empty composer, and gives the composer its focus back", async () => {
    const { calls } = fakeShell();
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByRole("button", { name: /^Streaming JSON parser for ingest/ }));
    await waitFor(() => expect(screen.getByRole("combobox", { name: "Message" })).toBeEnabled());
    const composer = screen.getByRole("combobox", { name: "Message" });
    await user.type(composer, "Run the tests{Enter}");
    await screen.findByRole("group", { name: "Approval needed for run_shell" });
    expect(composer).toHaveFocus();

    // With a draft in the composer, "y" and "n" are the person's to type.
    await user.type(composer, "Ok then yes, no");
    expect(composer).toHaveValue("Ok then yes, no");
    expect(calls.some((c) => c.cmd === "answer_approval")).toBe(false);
    await user.clear(composer);

    await user.keyboard("y");
    await waitFor(() => expect(calls.find((c) => c.cmd === "answer_approval")?.args.decision).toBe("allow_once"));
    expect(composer).toHaveValue("");
    expect(composer).toHaveFocus();
    await waitFor(() => expect(screen.queryByRole("group", { name: /Approval needed/ })).toBeNull());
    await user.click(screen.getByRole("button", { name: /Stop/ }));
    expect(await screen.findByText("Stopped. The turn was cancelled.")).toBeInTheDocument();
  });

  it("shows the title a session gets after its first turn in the conversation header, and the session's model", async () => {
    const session = { ...shellSessions()[0]! };
    session.summary = { ...session.summary, title: undefined, model: "qwen3-coder", provider_kind: "openai-chat" };
    mockShell(async (cmd, rawArgs) => {
      const args = (rawArgs ?? {}) as Record<string, unknown>;
      switch (cmd) {
        case "app_info":
          return { version: "0.1.0", strata_home: "/h", active_profile: settings.profiles[0], is_demo: false };
        case "get_settings":
          return settings;
        case "list_sessions":
          return page([session.summary]);
        case "open_session":
          return { summary: session.summary, records: [], context: [], threshold: 8000, live: false, held_elsewhere: false, record_count: 0 } satisfies SessionView;
        case "open_transcript":
          return { v: 1, session_id: session.summary.id, entries: [], total: 0, start: 0 };
        case "send_message": {
          const emit = emitter(args.on_event as { onmessage: (batch: LiveBatch) => void }, session.summary.id);
          emit({ kind: "turn_started", turn_id: "t1", user_message: { type: "message", id: "u1", role: "user", content: String(args.text) } }, [
            { op: "append", entry: { kind: "user", id: "u1", text: String(args.text), turn_id: "t1" } },
          ]);
          emit({ kind: "turn_finished", turn_id: "t1", outcome: "completed", rounds: 1 }, []);
          // The session's title is derived from its first message from now on.
          session.summary = { ...session.summary, title: String(args.text) };
          return { kind: "turn", turn_id: "t1", outcome: "completed", rounds: 1 };
        }
        default:
          throw { kind: "internal", message: `unexpected ${cmd}` };
      }
    });
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByRole("button", { name: /^Untitled session/ }));
    expect(await screen.findByRole("heading", { level: 1, name: "Untitled session" })).toBeInTheDocument();
    // The header names the open session's model, not the active profile's.
    expect(screen.getByRole("banner")).toHaveTextContent("qwen3-coder");
    expect(screen.getByRole("banner")).not.toHaveTextContent("strata-demo");
    await waitFor(() => expect(screen.getByRole("combobox", { name: "Message" })).toBeEnabled());
    await user.type(screen.getByRole("combobox", { name: "Message" }), "Count the lines{Enter}");
    await waitFor(() => expect(screen.getAllByText("Count the lines").length).toBeGreaterThan(1));
    expect(await screen.findByRole("heading", { level: 1, name: "Count the lines" })).toBeInTheDocument();
  });

  it("sends /compact as typed and shows the notice when the compaction is skipped", async () => {
    const { calls } = fakeShell();
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByRole("button", { name: /^Flaky orders_e2e/ }));
    await waitFor(() => expect(screen.getByRole("combobox", { name: "Message" })).toBeEnabled());
    await user.type(screen.getByRole("combobox", { name: "Message" }), "/compact keep the failing test{Enter}");
    expect(await screen.findByText("Nothing to compact yet: the history is too short.")).toBeInTheDocument();
    const sent = calls.find((c) => c.cmd === "send_message");
    expect(sent?.args.text).toBe("/compact keep the failing test");
    expect(calls.some((c) => c.cmd === "compact_now")).toBe(false);
  });

  it("toggles the debug console with Ctrl+Shift+D and shows its empty state", async () => {
    fakeShell();
    const user = userEvent.setup();
    render(<App />);
    await screen.findByText("Demo");
    expect(screen.queryByRole("complementary", { name: "Debug console" })).toBeNull();
    await act(async () => {
      await user.keyboard("{Control>}{Shift>}D{/Shift}{/Control}");
    });
    const panel = await screen.findByRole("complementary", { name: "Debug console" });
    expect(panel).toHaveTextContent("No session open");
    await user.keyboard("{Control>}{Shift>}D{/Shift}{/Control}");
    expect(screen.queryByRole("complementary", { name: "Debug console" })).toBeNull();
  });

  it("searches sessions through list_sessions", async () => {
    const { calls } = fakeShell();
    const user = userEvent.setup();
    render(<App />);
    await screen.findByRole("button", { name: /^Streaming JSON parser/ });
    await user.type(screen.getByRole("searchbox", { name: "Search sessions" }), "flaky");
    await waitFor(() => expect(calls.some((c) => c.cmd === "list_sessions" && c.args.query === "flaky")).toBe(true));
    await waitFor(() => expect(screen.queryByRole("button", { name: /^Streaming JSON parser/ })).toBeNull());
    expect(screen.getByRole("button", { name: /^Flaky orders_e2e/ })).toBeInTheDocument();
  });
  it("shows full-text hits for the query and opens the picked hit's session", async () => {
    const sessions = shellSessions();
    const flaky = sessions[1]!;
    const calls = recordingShell((cmd, args) => {
      switch (cmd) {
        case "list_sessions":
          return page(args.query ? [] : sessions.map((s) => s.summary));
        case "search_sessions":
          return oneHit(args.query, flaky, { item_id: "i-u2", kind: "user", snippet: "Why does orders_e2e <b>fail</b> sometimes?", matches: [{ start: 9, end: 19 }] });
        case "open_session":
          return shellView(sessions.find((x) => x.summary.id === args.session_id)!);
        case "open_transcript":
          return shellPage(sessions.find((x) => x.summary.id === args.session_id)!);
        default:
          throw { kind: "internal", message: `unexpected ${cmd}` };
      }
    });
    const user = userEvent.setup();
    render(<App />);
    await screen.findByRole("button", { name: /^Streaming JSON parser/ });
    await user.type(screen.getByRole("searchbox", { name: "Search sessions" }), "orders_e2e");
    const hits = await screen.findByRole("region", { name: "Matches in session text" });
    expect(calls.some((c) => c.cmd === "search_sessions" && c.args.query === "orders_e2e")).toBe(true);
    expect(within(hits).getByText("orders_e2e").tagName).toBe("MARK");
    expect(hits.querySelector("b")).toBeNull();
    await user.click(within(hits).getByRole("button", { name: /^Flaky orders_e2e test/ }));
    expect(await screen.findByText("Why does orders_e2e fail sometimes?")).toBeInTheDocument();
    expect(calls.some((c) => c.cmd === "open_transcript" && c.args.session_id === flaky.summary.id)).toBe(true);
  }, 20_000);

  it("opens a hit in an old tool output at its card: the page reaching back to it, the card marked", async () => {
    const sessions = shellSessions();
    const flaky = sessions[1]!;
    const card: TranscriptEntry = {
      kind: "tool",
      id: "call:c7",
      call_id: "c7",
      name: "run_shell",
      arguments: '{"command":"cargo test orders"}',
      output: { preview: "thread 'orders_e2e' panicked at deadline_exceeded_7f3", chars: 52 },
      status: "finished",
    };
    const entries: TranscriptEntry[] = [
      { kind: "user", id: "i-u2", text: "Why does orders_e2e fail sometimes?" },
      card,
      { kind: "assistant", id: "i-a9", text: "It waits on a timer.", streaming: false },
    ];
    const calls = recordingShell((cmd, args) => {
      switch (cmd) {
        case "list_sessions":
          return page(sessions.map((s) => s.summary));
        case "search_sessions":
          return oneHit(args.query, flaky, { item_id: "i-out-7", kind: "tool_output", snippet: "panicked at deadline_exceeded_7f3", matches: [{ start: 13, end: 33 }] });
        case "open_session":
          return shellView(flaky);
        case "open_transcript":
          // The backend names the card that shows the output item.
          return args.at_item === "i-out-7"
            ? { v: 1, session_id: flaky.summary.id, entries, total: 40, start: 37, older: "i-u2", target: "call:c7" }
            : { v: 1, session_id: flaky.summary.id, entries: entries.slice(2), total: 40, start: 39, older: "i-a9" };
        default:
          throw { kind: "internal", message: `unexpected ${cmd}` };
      }
    });
    const user = userEvent.setup();
    render(<App />);
    await screen.findByRole("button", { name: /^Streaming JSON parser/ });
    await user.type(screen.getByRole("searchbox", { name: "Search sessions" }), "deadline_exceeded_7f3");
    const hits = await screen.findByRole("region", { name: "Matches in session text" });
    await user.click(within(hits).getByRole("button", { name: /^Flaky orders_e2e test/ }));
    await waitFor(() => expect(document.querySelector('[data-search-target="true"]')).not.toBeNull());
    const marked = document.querySelectorAll('[data-search-target="true"]');
    expect(marked).toHaveLength(1);
    expect(marked[0]!.textContent).toContain("run_shell");
    expect(marked[0]!.classList.contains("search-target")).toBe(true);
    const opened = calls.filter((c) => c.cmd === "open_transcript");
    expect(opened[0]?.args.at_item).toBe("i-out-7");
    // Later pages only reach further back (scrolling), never reopen at the newest.
    expect(opened.slice(1).every((c) => c.args.before !== undefined && c.args.at_item === undefined)).toBe(true);
  }, 20_000);
  describe("a workspace of / or the home folder", () => {
    /** A shell whose folder picker returns `/home/ana` and which refuses it until confirmed. */
    function broadShell() {
      const created = { ...shellSessions()[0]!.summary, id: "s-home", title: undefined, workspace: "/home/ana" };
      const creates: Record<string, unknown>[] = [];
      mockShell(async (cmd, rawArgs) => {
        const args = (rawArgs ?? {}) as Record<string, unknown>;
        switch (cmd) {
          case "app_info":
            return { version: "0.1.0", strata_home: "/h", active_profile: settings.profiles[0], is_demo: true };
          case "get_settings":
            return settings;
          case "list_sessions":
            return page(creates.some((a) => a.allow_broad_workspace) ? [created] : []);
          case "pick_workspace":
            return "/home/ana";
          case "recent":
            return { workspaces: [] };
          case "remember_open":
          case "watch_library":
            return null;
          case "create_session":
            creates.push(args);
            if (!args.allow_broad_workspace) {
              throw { kind: "broad_workspace", message: "The workspace /home/ana is your home folder: ..." };
            }
            return created;
          case "open_session":
            return { summary: created, records: [], context: [], threshold: 8000, live: true, held_elsewhere: false, record_count: 0 } satisfies SessionView;
          case "open_transcript":
            return { v: 1, session_id: created.id, entries: [], total: 0, start: 0 };
          default:
            throw { kind: "internal", message: `unexpected ${cmd}` };
        }
      });
      return { creates };
    }

    /** New session, then Browse… in the sheet (the picker answers /home/ana), then Start. */
    async function pickInSheet(user: ReturnType<typeof userEvent.setup>) {
      await user.click((await screen.findAllByRole("button", { name: /New session/ }))[0]!);
      const sheet = await screen.findByRole("dialog", { name: "New session" });
      await user.click(within(sheet).getByRole("button", { name: "Browse…" }));
      await waitFor(() => expect(within(sheet).getByTestId("new-session-folder")).toHaveTextContent("Starts in /home/ana"));
      await user.click(within(sheet).getByRole("button", { name: "Start session" }));
    }

    it("is refused, then asks with Cancel focused; confirming creates the session with allow_broad_workspace", async () => {
      const { creates } = broadShell();
      const user = userEvent.setup();
      render(<App />);
      await pickInSheet(user);
      const dialog = await screen.findByRole("dialog", { name: "Work in this whole folder?" });
      expect(within(dialog).getByTestId("broad-workspace-path")).toHaveTextContent("/home/ana");
      expect(dialog).toHaveTextContent("your home folder");
      expect(dialog).toHaveTextContent("with your approval, change anything");
      expect(dialog).toHaveTextContent("run with your rights");
      expect(within(dialog).getByRole("button", { name: "Cancel" })).toHaveFocus();
      expect(creates).toEqual([{ workspace: "/home/ana", allow_broad_workspace: false, profile_id: "demo", approval_policy: "ask", sandbox: "off", network: "off" }]);
      await user.click(within(dialog).getByRole("button", { name: "Use this folder" }));
      await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
      expect(creates[1]).toEqual({ workspace: "/home/ana", allow_broad_workspace: true, profile_id: "demo", approval_policy: "ask", sandbox: "off", network: "off" });
      expect(await screen.findByRole("combobox", { name: "Message" })).toBeInTheDocument();
      // No error toast: the refusal was a question, not a failure.
      expect(screen.queryByText(/your home folder: \.\.\./)).toBeNull();
    });

    it("creates nothing when the person cancels (Enter on the focused Cancel)", async () => {
      const { creates } = broadShell();
      const user = userEvent.setup();
      render(<App />);
      await pickInSheet(user);
      await screen.findByRole("dialog", { name: "Work in this whole folder?" });
      await user.keyboard("{Enter}");
      await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
      expect(creates).toHaveLength(1);
      expect(creates[0]?.allow_broad_workspace).toBe(false);
      expect(screen.queryByRole("combobox", { name: "Message" })).toBeNull();
    });
  });

  describe("the transcript", () => {
    /** A shell holding one session of `count` messages, paged like Rust pages them, with one long tool output. */
    function pagedShell(count: number) {
      const session = shellSessions()[0]!;
      const entries: TranscriptEntry[] = Array.from({ length: count }, (_, i): TranscriptEntry =>
        i === count - 1
          ? { kind: "tool", id: "call:c1", call_id: "c1", name: "read_file", arguments: '{"path":"big.log"}', status: "finished", output: { preview: "line 0\nline 1", chars: 5000 } }
          : { kind: "user", id: `e${i}`, text: `Message ${i}` },
      );
      const calls = recordingShell((cmd, args) => {
        switch (cmd) {
          case "list_sessions":
            return page([session.summary]);
          case "open_session":
            return shellView(session);
          case "open_transcript": {
            const end = typeof args.before === "string" ? entries.findIndex((e) => e.id === args.before) : entries.length;
            const start = Math.max(0, end - Number(args.limit));
            const slice = entries.slice(start, end);
            return { v: 1, session_id: session.summary.id, entries: slice, total: entries.length, start, ...(start > 0 ? { older: slice[0]!.id } : {}) };
          }
          case "tool_output":
            return { call_id: "c1", output: "line 0\nline 1\nline 4999: the end", chars: 5000 };
          default:
            throw { kind: "internal", message: `unexpected ${cmd}` };
        }
      });
      return { calls, session };
    }

    it("opens with the newest page and loads older pages as the person scrolls up, until the first", async () => {
      const { calls } = pagedShell(450);
      const user = userEvent.setup();
      render(<App />);
      await user.click(await screen.findByRole("button", { name: /^Streaming JSON parser/ }));
      const list = await screen.findByRole("log", { name: "Conversation" });
      const pages = () => calls.filter((c) => c.cmd === "open_transcript").map((c) => c.args.before ?? null);
      expect(pages()).toEqual([null]);
      expect(calls.find((c) => c.cmd === "open_transcript")?.args).toEqual({ session_id: shellSessions()[0]!.summary.id, limit: 200 });
      expect(list).toHaveAttribute("data-has-older", "true");

      const scrollUp = () => {
        fireEvent.scroll(list, { target: { scrollTop: 400 } });
        fireEvent.scroll(list, { target: { scrollTop: 0 } });
      };
      scrollUp();
      await waitFor(() => expect(pages()).toEqual([null, "e250"]));
      await waitFor(() => expect(screen.getAllByText(/^Message \d+$/).length).toBeGreaterThan(0));
      scrollUp();
      await waitFor(() => expect(pages()).toEqual([null, "e250", "e50"]));
      await waitFor(() => expect(list).not.toHaveAttribute("data-has-older"));
      // Every page arrived once; at the first, scrolling up asks for nothing more.
      scrollUp();
      expect(pages()).toHaveLength(3);
    });

    it("fetches a tool output whole only when its card is expanded, and only once", async () => {
      const { calls } = pagedShell(3);
      const user = userEvent.setup();
      render(<App />);
      await user.click(await screen.findByRole("button", { name: /^Streaming JSON parser/ }));
      const header = await screen.findByRole("button", { name: /read_file/ });
      expect(calls.some((c) => c.cmd === "tool_output")).toBe(false);
      await user.click(header);
      expect(await screen.findByText(/line 4999: the end/)).toBeInTheDocument();
      expect(calls.filter((c) => c.cmd === "tool_output").map((c) => c.args)).toEqual([
        { session_id: shellSessions()[0]!.summary.id, call_id: "c1" },
      ]);
      await user.click(header);
      await user.click(header);
      expect(await screen.findByText(/line 4999: the end/)).toBeInTheDocument();
      expect(calls.filter((c) => c.cmd === "tool_output")).toHaveLength(1);
    });
  });
});
