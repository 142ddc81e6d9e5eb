import { describe, expect, it } from "vitest";
import {
  applyUpdates,
  withoutIds,
  contextTokensOf,
  emptyTranscript,
  lastUserMessage,
  outOfContext,
  outputTruncated,
  pendingApprovals,
  pinTarget,
  prependPage,
  setPinned,
  type Entry,
  type ToolCard,
} from "./transcript";

// The entries and updates here are what Rust's conversion sends
// (crates/strata-app/src/transcript/fold.rs, tested there); the UI applies them.
const user = (id: string, text: string): Entry => ({ kind: "user", id, text });
const tool = (overrides: Partial<ToolCard> = {}): ToolCard => ({
  kind: "tool",
  id: "call:c1",
  call_id: "c1",
  name: "read_file",
  arguments: "{}",
  status: "running",
  ...overrides,
});

describe("applyUpdates", () => {
  it("appends, replaces by id (an entry may take a new id) and appends streamed text", () => {
    let entries = applyUpdates([], [
      { op: "append", entry: user("u1", "Hi") },
      { op: "append", entry: { kind: "assistant", id: "stream:r1", text: "Hel", streaming: true } },
      { op: "append_text", id: "stream:r1", delta: "lo" },
    ]);
    expect(entries[1]).toMatchObject({ text: "Hello", streaming: true });
    entries = applyUpdates(entries, [
      { op: "replace", id: "stream:r1", entry: { kind: "assistant", id: "a1", text: "Hello!", streaming: false } },
    ]);
    expect(entries.map((e) => e.id)).toEqual(["u1", "a1"]);
    expect(entries[1]).toMatchObject({ text: "Hello!", streaming: false });
  });

  it("treats an append of an entry it already shows as a replacement in place", () => {
    const entries = applyUpdates([user("u1", "Hi"), tool()], [{ op: "append", entry: tool({ status: "success" }) }]);
    expect(entries).toHaveLength(2);
    expect(entries[1]).toMatchObject({ status: "success" });
  });

  it("inserts an entry before the one it names (a divider above the items a compaction kept), else at the end", () => {
    const divider: Entry = { kind: "notice", id: "n1", text: "divider" };
    const entries = applyUpdates([user("u1", "Hi"), user("u2", "Kept")], [{ op: "insert", before: "u2", entry: divider }]);
    expect(entries.map((e) => e.id)).toEqual(["u1", "n1", "u2"]);
    expect(applyUpdates([user("u1", "Hi")], [{ op: "insert", before: "gone", entry: divider }]).map((e) => e.id)).toEqual(["u1", "n1"]);
  });

  it("removes the entry it names (an eviction whose compaction's divider now says it), and ignores one it does not show", () => {
    const eviction: Entry = { kind: "notice", id: "e1", text: "evicted" };
    const divider: Entry = { kind: "notice", id: "d1", text: "divider" };
    const entries = applyUpdates([user("u1", "Hi"), user("u2", "Kept"), eviction], [
      { op: "remove", id: "e1" },
      { op: "insert", before: "u2", entry: divider },
    ]);
    expect(entries.map((e) => e.id)).toEqual(["u1", "d1", "u2"]);
    expect(applyUpdates(entries, [{ op: "remove", id: "gone" }]).map((e) => e.id)).toEqual(["u1", "d1", "u2"]);
  });

  it("never changes the entries it was given", () => {
    const before = [user("u1", "Hi")];
    const after = applyUpdates(before, [{ op: "append", entry: user("u2", "More") }]);
    expect(before).toHaveLength(1);
    expect(after).toHaveLength(2);
    expect(applyUpdates(before, [])).toBe(before);
  });
});

describe("prependPage", () => {
  it("puts an older page in front and keeps entries already shown once", () => {
    const shown = [user("u3", "c"), user("u4", "d")];
    expect(prependPage(shown, [user("u1", "a"), user("u2", "b"), user("u3", "stale")]).map((e) => e.id)).toEqual(["u1", "u2", "u3", "u4"]);
    expect(prependPage(shown, [user("u1", "a")])[1]).toBe(shown[0]);
  });
});

describe("reading the transcript", () => {
  it("finds the last user message and the calls waiting for approval", () => {
    const waiting = tool({ status: "awaiting_approval", approval: { summary: "read", detail: "" } });
    const transcript = { ...emptyTranscript, entries: [user("u1", "first"), user("u2", "second"), waiting, tool({ id: "call:c2", call_id: "c2" })] };
    expect(lastUserMessage(transcript)).toBe("second");
    expect(pendingApprovals(transcript)).toEqual([waiting]);
    expect(lastUserMessage(emptyTranscript)).toBeNull();
  });

  it("knows when a card's preview is shorter than its output", () => {
    expect(outputTruncated(tool({ output: { preview: "abc", chars: 3 } }))).toBe(false);
    expect(outputTruncated(tool({ output: { preview: "abc", chars: 9000 } }))).toBe(true);
    // Characters, as Rust counts them, not UTF-16 units.
    expect(outputTruncated(tool({ output: { preview: "🦀🦀", chars: 2 } }))).toBe(false);
    expect(outputTruncated(tool())).toBe(false);
  });
});

describe("contextTokensOf", () => {
  it("is input plus output, like TokenUsage::context_tokens", () => {
    expect(contextTokensOf({ input_tokens: 1200, cached_input_tokens: 1000, output_tokens: 34, total_tokens: 9999 })).toBe(1234);
    expect(contextTokensOf({ input_tokens: 7 })).toBe(7);
    expect(contextTokensOf({ total_tokens: 5 })).toBeNull();
  });
});

describe("pins", () => {
  it("name a message by its id and a tool card by its output's item, none before the output is recorded", () => {
    expect(pinTarget(user("u1", "Hi"))).toBe("u1");
    expect(pinTarget(tool())).toBeNull();
    expect(pinTarget(tool({ item_id: "o1" }))).toBe("o1");
    expect(pinTarget({ kind: "assistant", id: "stream:r1", text: "…", streaming: true })).toBeNull();
    const pinned = setPinned([user("u1", "Hi"), tool({ item_id: "o1" })], "o1", true);
    expect(pinned.map((e) => ("pinned" in e ? e.pinned : undefined))).toEqual([undefined, true]);
  });
});

describe("withoutIds", () => {
  it("says a raw item id as this item", () => {
    expect(withoutIds("pinning item 0193a1b2-c3d4-7e5f-8a9b-0000000c0501 would exceed the limit")).toBe("pinning this item would exceed the limit");
    expect(withoutIds("no 0193A1B2-C3D4-7E5F-8A9B-0000000C0501 here")).toBe("no this item here");
    expect(withoutIds("nothing to hide")).toBe("nothing to hide");
    expect(withoutIds("session 0193a1b2-c3d4-7e5f-8a9b-0000000c0501 is held")).toBe("this session is held");
    expect(withoutIds("Summary 0193a1b2-c3d4-7e5f-8a9b-0000000c0501 gone; item_3f9a2b1c too")).toBe("this summary gone; this item too");
  });
});

describe("outOfContext", () => {
  const summary = (id: string) => ({
    id,
    summary: "Earlier work.",
    metadata: { trigger: "manual" as const, reason: "asked", removed: 2, kept: 1, summarizer_model: "demo", duration_ms: 3 },
  });
  const divider = (id: string, undone = false): Entry => ({ kind: "compaction", id: `compaction:${id}`, summary: summary(id), ...(undone ? { undone } : {}) });

  it("maps what is above the latest compaction in force to it, skipping pinned items and an undone compaction", () => {
    const entries = [user("u1", "first"), divider("s1"), user("u2", "second"), { ...user("u3", "kept"), pinned: true }, divider("s2"), user("u4", "now")];
    expect([...outOfContext(entries)]).toEqual([
      ["u1", "s2"],
      ["u2", "s2"],
    ]);
    // Undoing s2 puts u2 back; s1 is again the compaction in force.
    const undone = entries.map((entry) => (entry.id === "compaction:s2" ? divider("s2", true) : entry));
    expect([...outOfContext(undone)]).toEqual([["u1", "s1"]]);
    expect(outOfContext([user("u1", "first"), divider("s1", true)]).size).toBe(0);
  });
});
