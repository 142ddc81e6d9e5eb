import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { applyUpdates } from "../state/transcript";
import { ThinkingBlock } from "./Messages";

const streaming = { kind: "thinking" as const, id: "thinking:r1", text: "Reading the ", streaming: true };

describe("ThinkingBlock", () => {
  it("shows thinking as it streams, then folds it once done", async () => {
    const { rerender } = render(<ThinkingBlock entry={streaming} />);
    const toggle = screen.getByRole("button", { name: "Thinking…" });
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByText("Reading the")).toBeInTheDocument();
    rerender(<ThinkingBlock key="item-1" entry={{ ...streaming, id: "item-1", text: "Reading the parser first.", streaming: false }} />);
    const done = screen.getByRole("button", { name: "Thinking" });
    expect(done).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByText("Reading the parser first.")).toBeNull();
    await userEvent.click(done);
    expect(screen.getByText("Reading the parser first.")).toBeInTheDocument();
  });

  it("never renders the model's thinking as markup", () => {
    render(<ThinkingBlock entry={{ ...streaming, text: "<img src=x onerror=alert(1)>" }} />);
    expect(document.querySelector("img")).toBeNull();
    expect(screen.getByText("<img src=x onerror=alert(1)>")).toBeInTheDocument();
  });

  it("streamed deltas join the thinking entry they name", () => {
    const entries = applyUpdates([streaming], [{ op: "append_text", id: "thinking:r1", delta: "parser." }]);
    expect(entries[0]).toMatchObject({ kind: "thinking", text: "Reading the parser." });
  });
});
