import { describe, expect, it, vi } from "vitest";
import type { SessionListItem } from "../api/types";
import { SHORTCUT_LIST, type Shortcuts } from "../hooks/useShortcuts";
import { appActions, SETTINGS_SECTIONS, type AppActionInputs } from "./appActions";
import type { SessionCommands } from "./sessionCommands";

function inputs(): AppActionInputs {
  const command = () => ({ run: vi.fn() });
  const session: SessionCommands = { compact: command(), undo: command(), fork: command(), pin: command(), model: command(), reasoning: command(), clear: command() };
  const shortcuts = Object.fromEntries(
    ["newSession", "focusComposer", "toggleConsole", "toggleChanges", "toggleSidebar", "openSettings", "showShortcuts", "commandPalette", "stop"].map((name) => [name, vi.fn()]),
  ) as unknown as Shortcuts;
  const row = (id: string, title: string) => ({ id, title, workspace: "/work/p" }) as SessionListItem;
  return {
    shortcuts,
    session,
    sessions: [row("s1", "Open one"), row("s2", "Parser work")],
    openId: "s1",
    openSession: vi.fn(),
    profiles: [],
    reasoning: null,
    running: true,
    theme: "light",
    toggleTheme: vi.fn(),
    openSettingsAt: vi.fn(),
    find: vi.fn(),
    showChoices: vi.fn(),
  };
}

describe("the command palette's one list of actions", () => {
  it("has an action for every shortcut of the app but the palette's own, each running the shortcut's handler", () => {
    const given = inputs();
    const actions = appActions(given, "all");
    const named = SHORTCUT_LIST.map((entry) => entry.name).filter((name) => !["commandPalette", "send", "approve"].includes(name));
    for (const name of named) {
      const action = actions.find((a) => a.shortcut === name);
      expect(action, name).toBeDefined();
      if (name in given.shortcuts) {
        action?.run();
        expect(given.shortcuts[name as keyof Shortcuts], name).toHaveBeenCalled();
      }
    }
  });

  it("lists every Settings section, the other sessions (not the open one) and the session commands by their slash name", () => {
    const actions = appActions(inputs(), "all");
    const titles = actions.map((a) => a.title);
    for (const { heading } of SETTINGS_SECTIONS) expect(titles).toContain(`Settings: ${heading}`);
    expect(titles).toContain("Parser work");
    expect(titles).not.toContain("Open one");
    for (const name of ["compact", "undo", "fork", "pin", "clear"]) expect(actions.find((a) => a.id === name)?.keywords).toContain(`/${name}`);
  });

  it("narrows to the profiles for /model and the levels for /reasoning", () => {
    const given = { ...inputs(), profiles: [{ id: "fast", kind: "openai-responses", label: "Fast", model: "gpt-fast", has_key: true, compact_threshold: 1 }] } as AppActionInputs;
    expect(appActions(given, "model").map((a) => a.title)).toEqual(["Fast · gpt-fast"]);
    appActions(given, "model")[0]!.run();
    expect(given.session.model.run).toHaveBeenCalledWith("fast");
    expect(appActions(given, "reasoning").map((a) => a.id)).toEqual(["reasoning:off", "reasoning:low", "reasoning:medium", "reasoning:high", "reasoning:max"]);
  });
});
