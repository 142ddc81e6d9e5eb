import { describe, expect, it } from "vitest";
import { splitSettled } from "./markdownBlocks";

const joined = ({ settled, tail }: ReturnType<typeof splitSettled>) => settled.join("") + tail;

describe("splitSettled", () => {
  it("settles each paragraph once the next one has begun", () => {
    const text = "First.\n\nSecond, still\nthe second.\n\nThi";
    const blocks = splitSettled(text);
    expect(blocks).toEqual({ settled: ["First.\n\n", "Second, still\nthe second.\n\n"], tail: "Thi" });
    expect(joined(blocks)).toBe(text);
    expect(splitSettled("Only one.\n\n")).toEqual({ settled: [], tail: "Only one.\n\n" });
  });

  it("keeps a fenced code block whole, blank lines and all, until its fence closes", () => {
    const open = "Intro.\n\n```rust\nfn a() {}\n\nfn b() {}\n";
    expect(splitSettled(open)).toEqual({ settled: ["Intro.\n\n"], tail: "```rust\nfn a() {}\n\nfn b() {}\n" });
    const closed = `${open}\`\`\`\n\nAfter.`;
    expect(splitSettled(closed).settled).toEqual(["Intro.\n\n", "```rust\nfn a() {}\n\nfn b() {}\n```\n\n"]);
    expect(splitSettled("~~~\n\n```\n\nstill code").settled).toEqual([]);
  });

  it("keeps indented lines with the block before them", () => {
    const text = "- item\n\n  more of the item\n\n      indented code\n\nNext.";
    expect(splitSettled(text)).toEqual({ settled: ["- item\n\n  more of the item\n\n      indented code\n\n"], tail: "Next." });
  });

  it("gives back the whole text in order, whatever was streamed so far", () => {
    const text = "# Title\n\nA *b* c.\n\n```\nx\n\ny\n```\n\n1. one\n\n   two\n2. three\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
    for (let end = 0; end <= text.length; end += 1) expect(joined(splitSettled(text.slice(0, end)))).toBe(text.slice(0, end));
  });
});
