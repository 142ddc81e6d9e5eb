import { mockShell } from "./test/shell";
import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "./App";
import type { ProfileView, SessionListItem, Settings } from "./api/types";
import type { LibraryChange } from "./bindings/LibraryChange";
import { shellPage, shellSessions, shellView } from "./test/fixtures";

const local: ProfileView = {
  id: "local",
  kind: "openai-chat",
  label: "Local server",
  base_url: "http://127.0.0.1:8080/v1",
  model: "qwen3-coder",
  has_key: false,
  compact_threshold: 8000,
};
const demo: ProfileView = { id: "demo", kind: "demo", label: "Offline demo", model: "strata-demo", has_key: false, compact_threshold: 8000 };
const settings: Settings = { profiles: [local, demo], active_profile: "local", approval_policy: "ask", theme: "system", compaction_policy: "layered", sandbox: "off", sandbox_network: "off", sandbox_allow_domains: [] };
const SWITCHED = "Switched to openai-chat · qwen3-coder at http://127.0.0.1:8080/v1 (profile local)";

/** A shell whose library changes the test pushes, as the sessions-folder watcher would. */
function shell(notice?: string) {
  const sessions = shellSessions();
  // Rust says the library's notice once: on the first listing only.
  let untold = notice;
  const calls: { cmd: string; args: Record<string, unknown> }[] = [];
  let push: ((change: LibraryChange) => void) | null = null;
  const find = (id: unknown) => sessions.find((x) => x.summary.id === id)!;
  mockShell((cmd, rawArgs) => {
    const args = (rawArgs ?? {}) as Record<string, unknown>;
    calls.push({ cmd, args });
    switch (cmd) {
      case "app_info":
        return { version: "0.1.0", strata_home: "/h", active_profile: local, is_demo: false };
      case "get_settings":
        return settings;
      case "list_sessions": {
        const page = { v: 1, sessions: sessions.map((s) => s.summary), total: sessions.length };
        const told = untold;
        untold = undefined;
        return told ? { ...page, notice: told } : page;
      }
      case "watch_library": {
        const channel = args.on_event as { onmessage: (change: LibraryChange) => void };
        push = (change) => channel.onmessage(change);
        return null;
      }
      case "open_session":
        return shellView(find(args.session_id));
      case "open_transcript":
        return shellPage(find(args.session_id));
      case "switch_profile": {
        // What the shell records, and Rust's transcript then shows.
        const s = find(args.session_id);
        s.transcript = [...s.transcript, { kind: "notice", id: "p1", text: SWITCHED }];
        s.summary = { ...s.summary, provider_kind: "openai-chat", model: "qwen3-coder" };
        return s.summary;
      }
      default:
        throw { kind: "internal", message: `unexpected ${cmd}` };
    }
  });
  return {
    calls,
    push: (change: LibraryChange) => act(() => push!(change)),
  };
}

const row = (overrides: Partial<SessionListItem>): SessionListItem => ({
  id: "cli-1",
  title: "Made by the CLI",
  workspace: "/home/ana/projects/cli",
  provider_kind: "demo",
  model: "strata-demo",
  created_at: "2026-11-29T12:30:00Z",
  updated_at: "2026-11-29T12:30:00Z",
  item_count: 3,
  compaction_count: 0,
  ...overrides,
});

const titles = () =>
  within(screen.getByRole("navigation", { name: "Sessions" }))
    .getAllByRole("button")
    .filter((b) => b.classList.contains("session-open"))
    .map((b) => b.querySelector(".session-title")?.textContent);

describe("the live library", () => {
  it("shows sessions another process creates, appends to and deletes, without listing again", async () => {
    const { calls, push } = shell();
    render(<App />);
    await screen.findByRole("button", { name: /^Streaming JSON parser/ }, { timeout: 5000 });
    await waitFor(() => expect(calls.some((c) => c.cmd === "watch_library")).toBe(true));
    const listed = calls.filter((c) => c.cmd === "list_sessions").length;

    push({ v: 1, updated: [row({})], removed: [] });
    expect(await screen.findByRole("button", { name: /^Made by the CLI/ })).toBeInTheDocument();
    expect(titles()[0]).toBe("Made by the CLI");

    push({ v: 1, updated: [row({ title: "Renamed by the CLI", item_count: 5, updated_at: "2026-11-29T12:31:00.5Z" })], removed: [] });
    const renamed = await screen.findByRole("button", { name: /^Renamed by the CLI/ });
    expect(renamed).toHaveTextContent("5 items");
    expect(screen.queryByRole("button", { name: /^Made by the CLI/ })).toBeNull();

    push({ v: 1, updated: [], removed: ["cli-1"] });
    await waitFor(() => expect(screen.queryByRole("button", { name: /^Renamed by the CLI/ })).toBeNull());
    expect(calls.filter((c) => c.cmd === "list_sessions")).toHaveLength(listed);
  }, 20_000);
});

describe("the library's notice", () => {
  it("shows a rebuilt index's notice as an alert beside the listed sessions, as text", async () => {
    const notice =
      "The session index was damaged (file is not a database); it was kept as /h/library.sqlite3.broken-<img src=x onerror=alert(1)> and rebuilt from the session files.";
    shell(notice);
    render(<App />);
    await screen.findByRole("button", { name: /^Streaming JSON parser/ }, { timeout: 5000 });
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent(notice);
    expect(alert.querySelector("img")).toBeNull();
  }, 20_000);
});

describe("switching a session's profile", () => {
  it("asks which profile, confirms before the history goes to the new endpoint, records it and shows it", async () => {
    const { calls } = shell();
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByRole("button", { name: /^Streaming JSON parser/ }, { timeout: 5000 }));
    await user.click(await screen.findByRole("button", { name: "Switch profile" }));

    const choose = await screen.findByRole("dialog", { name: "Switch profile" });
    // The session's own profile (demo · strata-demo) is not offered.
    expect(within(choose).getAllByRole("radio")).toHaveLength(1);
    await user.click(within(choose).getByRole("radio", { name: /Local server/ }));
    await user.click(within(choose).getByRole("button", { name: "Continue" }));

    const confirm = await screen.findByRole("dialog", { name: "Send this session's history there?" });
    expect(confirm).toHaveTextContent("the whole conversation (4 items so far)");
    expect(within(confirm).getByTestId("switch-endpoint")).toHaveTextContent("http://127.0.0.1:8080/v1");
    expect(calls.some((c) => c.cmd === "switch_profile")).toBe(false);
    await user.click(within(confirm).getByRole("button", { name: "Switch and send history there" }));

    await waitFor(() => expect(calls.filter((c) => c.cmd === "switch_profile")).toEqual([{ cmd: "switch_profile", args: expect.objectContaining({ profile_id: "local" }) }]));
    // Reopened: the recorded switch is a marker in the transcript, and the header names the new model.
    expect(await screen.findByText(SWITCHED)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole("banner")).toHaveTextContent("qwen3-coder"));
  }, 20_000);

  it("switches nothing when the person cancels the confirmation", async () => {
    const { calls } = shell();
    const user = userEvent.setup();
    render(<App />);
    await user.click(await screen.findByRole("button", { name: /^Streaming JSON parser/ }, { timeout: 5000 }));
    await user.click(await screen.findByRole("button", { name: "Switch profile" }));
    await user.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Continue" }));
    const confirm = await screen.findByRole("dialog", { name: "Send this session's history there?" });
    await user.click(within(confirm).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(calls.some((c) => c.cmd === "switch_profile")).toBe(false);
  }, 20_000);
});
