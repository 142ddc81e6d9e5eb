import { describe, expect, it } from "vitest";
import { CHAT_MIN_WIDTH, consoleMaxWidth, CONSOLE_MIN_WIDTH, SIDEBAR_WIDTH } from "./useLayout";

describe("consoleMaxWidth", () => {
  it("leaves the chat its minimum beside a docked console and the sidebar", () => {
    expect(consoleMaxWidth(1440, { drawer: false, sidebar: true })).toBe(1440 - SIDEBAR_WIDTH - CHAT_MIN_WIDTH);
    expect(consoleMaxWidth(1280, { drawer: false, sidebar: false })).toBe(1280 - CHAT_MIN_WIDTH);
  });

  it("never goes under the console's own minimum or over its maximum", () => {
    expect(consoleMaxWidth(900, { drawer: false, sidebar: true })).toBe(CONSOLE_MIN_WIDTH);
    expect(consoleMaxWidth(4000, { drawer: false, sidebar: true })).toBe(900);
  });

  it("lets a drawer cover all but a margin of the chat", () => {
    expect(consoleMaxWidth(880, { drawer: true, sidebar: false })).toBe(880 - 64);
  });
});
