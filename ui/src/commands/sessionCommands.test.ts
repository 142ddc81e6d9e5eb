import { describe, expect, it, vi } from "vitest";
import type { ProfileView } from "../api/types";
import { CANNOT_REASON } from "../components/ReasoningControl";
import { HELD_SHORT } from "../components/ConversationHeader";
import type { Actions } from "../state/store";
import type { Entry } from "../state/transcript";
import { NO_SESSION, NOTHING_TO_UNDO, WHILE_RUNNING, latestMessageId, sessionCommands } from "./sessionCommands";

const PROFILES = [
  { id: "demo", kind: "demo", label: "Demo", model: "demo-model", has_key: true, compact_threshold: 8000 },
  { id: "fast", kind: "openai", label: "Fast GPT", model: "gpt-fast", has_key: true, compact_threshold: 8000 },
] as ProfileView[];

const ENTRIES = [
  { kind: "user", id: "u1", text: "Hi" },
  { kind: "assistant", id: "a1", text: "Hello" },
  { kind: "assistant", id: "a2", text: "…", streaming: true },
] as unknown as Entry[];

function fakeActions() {
  return {
    send: vi.fn(() => Promise.resolve()),
    undoCompaction: vi.fn(() => Promise.resolve()),
    askFork: vi.fn(),
    pin: vi.fn(() => Promise.resolve()),
    switchProfile: vi.fn(() => Promise.resolve()),
    setReasoning: vi.fn(() => Promise.resolve()),
    createIn: vi.fn(() => Promise.resolve(true)),
    toast: vi.fn(),
  };
}

function commands(overrides: Partial<Parameters<typeof sessionCommands>[0]> = {}) {
  const actions = fakeActions();
  const openChoices = vi.fn();
  const all = sessionCommands({
    actions: actions as unknown as Actions,
    open: true,
    live: true,
    running: false,
    workspace: "/work/project",
    entries: ENTRIES,
    profiles: PROFILES,
    canReason: true,
    undoable: "summary-1",
    openChoices,
    ...overrides,
  });
  return { all, actions, openChoices };
}

describe("the session's commands", () => {
  it("pins the latest saved message, or the item named after /pin", () => {
    expect(latestMessageId(ENTRIES)).toBe("a1");
    const { all, actions } = commands();
    all.pin.run("");
    expect(actions.pin).toHaveBeenCalledWith("a1", true);
    all.pin.run(" 0193ab ");
    expect(actions.pin).toHaveBeenLastCalledWith("0193ab", true);
  });

  it("switches to the profile /model names by id or by name, and refuses an unknown one with the choices", () => {
    const { all, actions } = commands();
    all.model.run("fast");
    all.model.run("fast gpt");
    expect(actions.switchProfile.mock.calls).toEqual([["fast"], ["fast"]]);
    all.model.run("slow");
    expect(actions.switchProfile).toHaveBeenCalledTimes(2);
    expect(actions.toast).toHaveBeenCalledWith({ tone: "error", text: 'There is no profile "slow": type /model to choose one (demo, fast).' });
  });

  it("opens the choices when /model or /reasoning has no argument", () => {
    const { all, openChoices, actions } = commands();
    all.model.run("");
    all.reasoning.run("  ");
    expect(openChoices.mock.calls).toEqual([["model"], ["reasoning"]]);
    expect(actions.switchProfile).not.toHaveBeenCalled();
    expect(actions.setReasoning).not.toHaveBeenCalled();
  });

  it("sets the reasoning level /reasoning names in any case, and refuses another word", () => {
    const { all, actions } = commands();
    all.reasoning.run("HIGH");
    expect(actions.setReasoning).toHaveBeenCalledWith("high");
    all.reasoning.run("extreme");
    expect(actions.setReasoning).toHaveBeenCalledTimes(1);
    expect(actions.toast).toHaveBeenCalledWith({ tone: "error", text: '"extreme" is not a reasoning level: use off, low, medium, high, max.' });
  });

  it("starts /clear's new session in the same folder and forks from the latest message", () => {
    const { all, actions } = commands();
    all.clear.run("");
    expect(actions.createIn).toHaveBeenCalledWith("/work/project", false);
    all.fork.run("");
    expect(actions.askFork).toHaveBeenCalledWith({ kind: "at_item", item_id: "a1" }, "up to and including its latest message");
    all.compact.run("the parser");
    expect(actions.send).toHaveBeenCalledWith("/compact the parser");
  });

  it("says why each command cannot run: no session, a held session, a running turn, nothing to undo, no reasoning", () => {
    expect(commands({ open: false, workspace: null }).all.clear.disabled).toBe(NO_SESSION);
    expect(commands({ open: false }).all.model.disabled).toBe(NO_SESSION);
    expect(commands({ live: false }).all.pin.disabled).toBe(HELD_SHORT);
    expect(commands({ live: false }).all.fork.disabled).toBeUndefined();
    expect(commands({ running: true }).all.compact.disabled).toBe(WHILE_RUNNING);
    expect(commands({ undoable: null }).all.undo.disabled).toBe(NOTHING_TO_UNDO);
    expect(commands({ canReason: false }).all.reasoning.disabled).toBe(CANNOT_REASON);
    expect(commands().all.undo.disabled).toBeUndefined();
  });
});
