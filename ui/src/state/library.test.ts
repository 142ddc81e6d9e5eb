import { describe, expect, it } from "vitest";
import type { SessionListItem } from "../bindings/SessionListItem";
import { applyLibraryChange } from "./library";

const row = (id: string, updated_at: string, title = id): SessionListItem => ({
  id,
  title,
  workspace: "/w",
  provider_kind: "demo",
  model: "strata-demo",
  created_at: "2026-11-29T10:00:00Z",
  updated_at,
  item_count: 1,
  compaction_count: 0,
});

describe("applyLibraryChange", () => {
  const rows = [row("b", "2026-11-29T12:00:00Z"), row("a", "2026-11-29T11:00:00Z")];

  it("adds a new session in newest-first order", () => {
    const next = applyLibraryChange(rows, { v: 1, updated: [row("c", "2026-11-29T11:30:00.5Z")], removed: [] });
    expect(next.map((r) => r.id)).toEqual(["b", "c", "a"]);
  });

  it("replaces a changed session's row and moves it up", () => {
    const next = applyLibraryChange(rows, { v: 1, updated: [row("a", "2026-11-29T12:00:01.25Z", "Renamed")], removed: [] });
    expect(next.map((r) => [r.id, r.title])).toEqual([["a", "Renamed"], ["b", "b"]]);
  });

  it("drops removed sessions and ignores unknown ones", () => {
    const next = applyLibraryChange(rows, { v: 1, updated: [], removed: ["b", "zzz"] });
    expect(next.map((r) => r.id)).toEqual(["a"]);
  });

  it("keeps the same array for an empty change", () => {
    expect(applyLibraryChange(rows, { v: 1, updated: [], removed: [] })).toBe(rows);
  });
});
