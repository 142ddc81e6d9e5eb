import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { SessionView } from "../api/types";
import { emptyTranscript } from "../state/transcript";
import { DebugConsolePanel, type ConsoleContext } from "./DebugConsolePanel";

const session = { summary: { id: "s1" }, records: [], context: [], threshold: 8000, live: false } as unknown as SessionView;

function context(overrides: Partial<ConsoleContext> = {}): ConsoleContext {
  return { session, transcript: emptyTranscript, debugEvents: [], focusedCompaction: null, revealInTranscript: () => {}, ...overrides };
}

describe("DebugConsolePanel", () => {
  it("explains what will appear when there is nothing to show", () => {
    render(<DebugConsolePanel context={context({ session: null })} sections={[]} width={380} onResize={() => {}} onClose={() => {}} />);
    expect(screen.getByRole("complementary", { name: "Debug console" })).toHaveTextContent("No session open");
  });

  it("renders plugged-in sections with the read-only context", () => {
    const reveal = vi.fn();
    render(
      <DebugConsolePanel
        context={context({ focusedCompaction: "c1", revealInTranscript: reveal })}
        sections={[
          {
            id: "tile",
            title: "Compactions",
            render: (ctx) => (
              <button type="button" onClick={() => ctx.revealInTranscript(ctx.focusedCompaction ?? "")}>
                Show {ctx.focusedCompaction}
              </button>
            ),
          },
        ]}
        width={380}
        onResize={() => {}}
        onClose={() => {}}
      />,
    );
    fireEvent.click(screen.getByRole("button", { name: "Show c1" }));
    expect(reveal).toHaveBeenCalledWith("c1");
    expect(screen.getByRole("region", { name: "Compactions" })).toBeInTheDocument();
  });

  it("resizes from the keyboard within its bounds and closes", () => {
    const onResize = vi.fn();
    const onClose = vi.fn();
    render(<DebugConsolePanel context={context()} sections={[]} width={890} onResize={onResize} onClose={onClose} />);
    const handle = screen.getByRole("separator", { name: "Resize debug console" });
    fireEvent.keyDown(handle, { key: "ArrowLeft" });
    fireEvent.keyDown(handle, { key: "ArrowRight" });
    expect(onResize.mock.calls).toEqual([[900], [866]]);
    fireEvent.click(screen.getByRole("button", { name: /Close debug console/ }));
    expect(onClose).toHaveBeenCalled();
  });

  it("holds the chosen width to what the window leaves, and Home and End go to the bounds", () => {
    const onResize = vi.fn();
    render(<DebugConsolePanel context={context()} sections={[]} width={600} maxWidth={400} onResize={onResize} onClose={() => {}} />);
    const handle = screen.getByRole("separator", { name: "Resize debug console" });
    expect(handle).toHaveAttribute("aria-valuenow", "400");
    expect(handle).toHaveAttribute("aria-valuemax", "400");
    expect(screen.getByRole("complementary", { name: "Debug console" })).toHaveStyle({ width: "400px" });
    fireEvent.keyDown(handle, { key: "ArrowLeft" });
    fireEvent.keyDown(handle, { key: "Home" });
    fireEvent.keyDown(handle, { key: "End" });
    expect(onResize.mock.calls).toEqual([[400], [280], [400]]);
  });

  it("is resized by dragging its splitter, within the window's maximum", () => {
    const onResize = vi.fn();
    render(<DebugConsolePanel context={context()} sections={[]} width={380} maxWidth={500} onResize={onResize} onClose={() => {}} />);
    const handle = screen.getByRole("separator", { name: "Resize debug console" });
    // jsdom has no PointerEvent: mouse events of the pointer types carry the coordinates.
    const pointer = (target: EventTarget, type: string, clientX: number) => fireEvent(target as Element, new MouseEvent(type, { bubbles: true, clientX }));
    pointer(handle, "pointerdown", 700);
    pointer(window, "pointermove", 650);
    pointer(window, "pointermove", 100);
    pointer(window, "pointerup", 100);
    pointer(window, "pointermove", 0);
    expect(onResize.mock.calls).toEqual([[430], [500]]);
  });
});
