import { render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";

describe("Markdown", () => {
  it("loads the renderer when a message first needs it, showing the text plain until then", async () => {
    // A fresh copy of the module: the test setup loads the shared one up front.
    vi.resetModules();
    const { Markdown, markdownRenderer } = await import("./Markdown");
    expect(markdownRenderer.current).toBeNull();
    render(<Markdown text={"some **bold** text"} />);
    expect(screen.getByText("some **bold** text")).toHaveClass("markdown-pending");
    expect(await screen.findByText("bold", { selector: "strong" }, { timeout: 10_000 })).toBeInTheDocument();
    expect(markdownRenderer.current).not.toBeNull();
    expect(document.querySelector(".markdown-pending")).toBeNull();
  });
});
