// Streaming text cut into the blocks that can no longer change and the tail
// still growing, so a streamed answer's settled paragraphs are parsed once
// and only its last one again on every frame. A block ends at a blank line
// followed by a line that starts at the margin, outside a fenced code block:
// indented lines (a list item's second paragraph, indented code) stay with
// the block before them. The first character of such a line decides, so a
// line still streaming may already start a block. Cutting there can render a list split by blank
// lines as two lists while the answer streams; the finished message is
// parsed whole.

/** Where a fence opens or closes: up to 3 spaces, then 3 or more backticks or tildes. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export interface StreamingBlocks {
  /** Blocks that the text after them cannot change, in order. */
  settled: string[];
  /** The last block, still growing. */
  tail: string;
}

export function splitSettled(text: string): StreamingBlocks {
  const settled: string[] = [];
  let blockStart = 0;
  let fence: string | null = null;
  let afterBlank = false;
  let lineStart = 0;
  while (lineStart < text.length) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    const marker = FENCE.exec(line)?.[1];
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker.trim()) fence = null;
    } else if (line.trim() === "") {
      afterBlank = true;
    } else {
      if (afterBlank && !/^[ \t]/.test(line) && lineStart > blockStart) {
        settled.push(text.slice(blockStart, lineStart));
        blockStart = lineStart;
      }
      afterBlank = false;
      if (marker) fence = marker;
    }
    lineStart = lineEnd + 1;
  }
  return { settled, tail: text.slice(blockStart) };
}
