import { mockShell } from "../test/shell";
import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { App } from "../App";
import type { ProfileView, Settings } from "../api/types";
import type { ImportSettingsView } from "../bindings/ImportSettingsView";
import type { ImportedSessionItem } from "../bindings/ImportedSessionItem";
import type { ImportedSessionView } from "../bindings/ImportedSessionView";
import { shellSessions } from "../test/fixtures";
import { foundSentence, shouldAsk } from "./ImportConsent";

const demo: ProfileView = { id: "demo", kind: "demo", label: "Offline demo", model: "strata-demo", has_key: false, compact_threshold: 8000 };
const settings: Settings = { profiles: [demo], active_profile: "demo", approval_policy: "ask", theme: "system", compaction_policy: "layered", sandbox: "workspace-write", sandbox_network: "off", sandbox_allow_domains: [] };

const claude: ImportedSessionItem = {
  id: "claude-1",
  source: "claude_code",
  path: "/h/.claude/projects/-w/claude-1.jsonl",
  // Hostile text from another tool's file: shown as text, never as markup.
  title: "<img src=x onerror=alert(1)> Fix the bug",
  workspace: "/work/demo",
  models: ["claude-test"],
  updated_at: "2026-01-22T01:40:57Z",
  item_count: 9,
  compaction_count: 2,
};
const codex: ImportedSessionItem = { ...claude, id: "thread-1", source: "codex", path: "/h/.codex/sessions/rollout-thread-1.jsonl", title: "Codex work", compaction_count: 1 };

const claudeView: ImportedSessionView = {
  v: 1,
  summary: claude,
  entries: [
    { kind: "user", id: "item:0", text: "fix the bug" },
    { kind: "assistant", id: "item:1", text: "Fixed.", streaming: false },
  ],
  compactions: [
    { id: "imported-compaction:1", number: 1, line: 6, after_round: 1, before_entry: "item:1", kind: { kind: "summary" }, trigger: "manual", summary: { kind: "text", text: "the bug is in src" }, tokens_before: 153739, tokens_after: 62 },
  ],
  chart: [],
  warnings: { skipped_lines: 0, unknown_types: 0 },
};

function shell(importView: ImportSettingsView) {
  const sessions = shellSessions();
  const saved: ImportSettingsView[] = [];
  let view = importView;
  mockShell((cmd, rawArgs) => {
    const args = (rawArgs ?? {}) as Record<string, unknown>;
    switch (cmd) {
      case "app_info":
        return { version: "0.1.0", strata_home: "/h", active_profile: demo, is_demo: false };
      case "get_settings":
        return settings;
      case "list_sessions":
        return { v: 1, sessions: sessions.map((s) => s.summary), total: sessions.length };
      case "watch_library":
      case "remember_open":
        return null;
      case "recent":
        return { workspaces: [] };
      case "list_imported":
        return { v: 1, sessions: view.settings.tools.length ? [claude, codex] : [], unreadable: [] };
      case "import_settings":
        return view;
      case "save_import_settings":
        view = { ...view, settings: args.settings as ImportSettingsView["settings"] };
        saved.push(view);
        return view;
      case "open_imported":
        return claudeView;
      case "search_imported":
        return { v: 1, hits: [] };
      default:
        throw { kind: "internal", message: `unexpected ${cmd}` };
    }
  });
  return { saved };
}

const shown: ImportSettingsView = { settings: { asked: true, tools: ["codex", "claude_code"], extra_paths: [] }, found: { codex: 1, claude_code: 1, copilot_cli: 0 } };

describe("other agents' sessions in the sidebar", () => {
  it("lists them with a source badge in words, and the filter narrows to one tool or to Strata's own", async () => {
    shell(shown);
    render(<App />);
    const list = await screen.findByRole("list", { name: "Other agents' sessions" });
    await within(list).findByText("Codex work");
    // The hostile title is text: no image element was made from it.
    expect(within(list).getByText(/Fix the bug/).textContent).toContain("<img");
    expect(document.querySelector("img[src=x]")).toBeNull();
    const badges = within(list).getAllByTestId("source-badge").map((b) => b.textContent);
    expect(badges).toEqual(expect.arrayContaining(["From Claude Code", "From Codex"]));

    const filter = screen.getByRole("combobox", { name: "Show sessions from" });
    await userEvent.selectOptions(filter, "codex");
    expect(within(list).queryByText(/Fix the bug/)).toBeNull();
    expect(within(list).getByText("Codex work")).toBeTruthy();
    expect(document.querySelector<HTMLElement>(".session-scroller:not(.imported-scroller)")?.hidden).toBe(true);

    await userEvent.selectOptions(filter, "strata");
    expect(screen.queryByRole("list", { name: "Other agents' sessions" })).toBeNull();
  });

  it("opens one read-only with its compaction card and no composer", async () => {
    shell(shown);
    render(<App />);
    const list = await screen.findByRole("list", { name: "Other agents' sessions" });
    await userEvent.click(await within(list).findByText(/Fix the bug/));
    const pane = await screen.findByRole("main", { name: "Imported session" });
    const card = within(pane).getByTestId("imported-compaction-card");
    expect(within(card).getByTestId("imported-tokens-before").textContent).toBe("153,739");
    expect(within(card).getByTestId("compaction-trigger").textContent).toBe("Asked for");
    expect(within(pane).getByTestId("imported-readonly").textContent).toContain("Read-only");
    expect(within(pane).queryByRole("textbox")).toBeNull();
  });
});

describe("the discovery question", () => {
  it("names the counts found, is asked once, and Show keeps the tools found", async () => {
    const { saved } = shell({ settings: { asked: false, tools: [], extra_paths: [] }, found: { codex: 48, claude_code: 132, copilot_cli: 0 } });
    render(<App />);
    const banner = await screen.findByRole("region", { name: "Other agents' sessions" });
    expect(banner.textContent).toContain("Strata found 132 Claude Code and 48 Codex sessions on this computer: show them in your library?");
    await userEvent.click(within(banner).getByRole("button", { name: "Show" }));
    await waitFor(() => expect(screen.queryByRole("region", { name: "Other agents' sessions" })).toBeNull());
    expect(saved.at(-1)?.settings).toEqual({ asked: true, tools: ["claude_code", "codex"], extra_paths: [] });
  });

  it("Not now is remembered and shows nothing", async () => {
    const { saved } = shell({ settings: { asked: false, tools: [], extra_paths: [] }, found: { codex: 2, claude_code: 0, copilot_cli: 0 } });
    render(<App />);
    const banner = await screen.findByRole("region", { name: "Other agents' sessions" });
    await userEvent.click(within(banner).getByRole("button", { name: "Not now" }));
    await waitFor(() => expect(screen.queryByRole("region", { name: "Other agents' sessions" })).toBeNull());
    expect(saved.at(-1)?.settings).toEqual({ asked: true, tools: [], extra_paths: [] });
  });

  it("is not asked when nothing was found or once answered, and counts one session in the singular", () => {
    const none = { codex: 0, claude_code: 0, copilot_cli: 0 };
    expect(shouldAsk({ settings: { asked: false, tools: [], extra_paths: [] }, found: none })).toBe(false);
    expect(shouldAsk({ settings: { asked: true, tools: [], extra_paths: [] }, found: { ...none, codex: 3 } })).toBe(false);
    expect(shouldAsk({ settings: { asked: false, tools: [], extra_paths: [] }, found: { ...none, codex: 3 } })).toBe(true);
    expect(foundSentence({ ...none, codex: 1 })).toBe("1 Codex session");
  });
});
