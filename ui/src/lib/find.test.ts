import { describe, expect, it } from "vitest";
import type { Entry } from "../state/transcript";
import { findMatches, matchCount, paintMatches, rangesIn } from "./find";

const entries: Entry[] = [
  { kind: "user", id: "u1", text: "Fix the Parser, then the parser tests" },
  { kind: "tool", id: "call:c1", call_id: "c1", name: "read_file", arguments: '{"path":"parser.rs"}', status: "success" },
  { kind: "assistant", id: "a1", text: "The parser is fixed.", streaming: false },
  { kind: "notice", id: "n1", text: "parser notice" },
];

describe("findMatches", () => {
  it("finds every occurrence in the messages, case-insensitively, in transcript order", () => {
    expect(findMatches(entries, "PARSER")).toEqual([
      { entry: 0, occurrence: 0 },
      { entry: 0, occurrence: 1 },
      { entry: 2, occurrence: 0 },
    ]);
  });

  it("finds nothing for a blank query, and does not count overlapping occurrences twice", () => {
    expect(findMatches(entries, "   ")).toEqual([]);
    expect(findMatches([{ kind: "user", id: "u", text: "aaaa" }], "aa")).toHaveLength(2);
  });
});

describe("matchCount", () => {
  it("says where the current match is, or that there is none", () => {
    expect(matchCount("parser", 5, 1)).toBe("2 of 5");
    expect(matchCount("parser", 0, -1)).toBe("No matches");
    expect(matchCount("", 0, -1)).toBe("");
  });
});

describe("rangesIn and paintMatches", () => {
  function row(index: number, html: string) {
    const el = document.createElement("div");
    el.className = "message-row";
    el.dataset.index = String(index);
    el.innerHTML = html;
    return el;
  }

  it("finds the query in a row's message text, not in its buttons", () => {
    const el = row(0, '<div class="assistant-body"><div class="markdown"><p>Copy the parser; copy it</p><button>Copy</button></div></div>');
    expect(rangesIn(el, "copy").map((r) => r.toString())).toEqual(["Copy", "copy"]);
  });

  it("returns the current match's range in its row, by occurrence", () => {
    const list = document.createElement("div");
    list.append(row(0, '<p class="user-text">parser one</p>'), row(2, '<div class="assistant-body"><div class="markdown"><p>a parser, a parser</p></div></div>'));
    const range = paintMatches(list, "parser", { entry: 2, occurrence: 1 });
    expect(range?.startContainer.textContent).toBe("a parser, a parser");
    expect(range?.startOffset).toBe(12);
    expect(paintMatches(list, "parser", { entry: 5, occurrence: 0 })).toBeNull();
  });
});
