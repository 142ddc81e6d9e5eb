import { describe, expect, it } from "vitest";
import { matchShortcut } from "../hooks/useShortcuts";
import { folderName, formatDuration, formatRelativeTime, formatTokens, prettyJson } from "./format";

describe("formatting for people", () => {
  it("formats token counts", () => {
    expect(formatTokens(950)).toBe("950");
    expect(formatTokens(12_400)).toBe("12.4k");
    expect(formatTokens(8_000)).toBe("8k");
    expect(formatTokens(400_000)).toBe("400k");
    expect(formatTokens(1_250_000)).toBe("1.25M");
  });

  it("formats durations", () => {
    expect(formatDuration(840)).toBe("840 ms");
    expect(formatDuration(1234)).toBe("1.2 s");
    expect(formatDuration(2000)).toBe("2 s");
    expect(formatDuration(95_000)).toBe("1 min 35 s");
  });

  it("formats times relative to now", () => {
    const now = new Date("2026-11-29T12:00:00Z");
    expect(formatRelativeTime("2026-11-29T11:59:30Z", now)).toBe("just now");
    expect(formatRelativeTime("2026-11-29T11:55:00Z", now)).toBe("5 min ago");
    expect(formatRelativeTime("2026-11-29T09:00:00Z", now)).toBe("3 h ago");
    expect(formatRelativeTime("2026-11-28T09:00:00Z", now)).toBe("yesterday");
  });

  it("shortens paths and pretty-prints JSON arguments", () => {
    expect(folderName("/home/ana/projects/tidewater/")).toBe("tidewater");
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson("not json")).toBe("not json");
  });
});

describe("composer shortcuts", () => {
  it("maps keys to shortcuts", () => {
    const key = (init: KeyboardEventInit) => matchShortcut(new KeyboardEvent("keydown", init));
    expect(key({ key: "D", ctrlKey: true, shiftKey: true })).toBe("toggleConsole");
    expect(key({ key: "n", ctrlKey: true })).toBe("newSession");
    expect(key({ key: "l", metaKey: true })).toBe("focusComposer");
    expect(key({ key: ",", ctrlKey: true })).toBe("openSettings");
    expect(key({ key: "Escape" })).toBe("stop");
    expect(key({ key: "b", ctrlKey: true })).toBe("toggleSidebar");
    expect(key({ key: "?", shiftKey: true })).toBe("showShortcuts");
    expect(key({ key: "?", ctrlKey: true })).toBeNull();
    expect(key({ key: "d", shiftKey: true })).toBeNull();
  });
});
