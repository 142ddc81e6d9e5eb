import { describe, expect, it } from "vitest";
import { snippetParts } from "./highlight";

describe("snippetParts", () => {
  it("splits at character ranges, counting code points not UTF-16 units", () => {
    // "🦓" is two UTF-16 units but one character, as the Rust side counts.
    expect(snippetParts("🦓 a zebra and a ZEBRA", [{ start: 4, end: 9 }, { start: 16, end: 21 }])).toEqual([
      { text: "🦓 a ", matched: false },
      { text: "zebra", matched: true },
      { text: " and a ", matched: false },
      { text: "ZEBRA", matched: true },
    ]);
  });

  it("keeps all the text when ranges are bogus", () => {
    const parts = snippetParts("abc", [{ start: 2, end: 1 }, { start: 1, end: 9 }, { start: 0, end: 1 }]);
    expect(parts.map((p) => p.text).join("")).toBe("abc");
    expect(parts).toEqual([
      { text: "a", matched: true },
      { text: "bc", matched: false },
    ]);
  });
});
