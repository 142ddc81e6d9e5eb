import { fireEvent, render, screen } from "@testing-library/react";
import { useRef, useState } from "react";
import { describe, expect, it } from "vitest";
import { useClickOutside } from "./useClickOutside";

function Popover() {
  const [open, setOpen] = useState(true);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useClickOutside(open, [box, button], () => setOpen(false));
  return (
    <>
      <button ref={button}>Toggle</button>
      <div ref={box}>{open ? "Open" : "Closed"}</div>
      <p>Elsewhere</p>
    </>
  );
}

describe("useClickOutside", () => {
  it("closes on a press outside every given element, and not on one inside", () => {
    render(<Popover />);
    fireEvent.mouseDown(screen.getByText("Open"));
    fireEvent.mouseDown(screen.getByRole("button", { name: "Toggle" }));
    expect(screen.getByText("Open")).toBeInTheDocument();
    fireEvent.mouseDown(screen.getByText("Elsewhere"));
    expect(screen.getByText("Closed")).toBeInTheDocument();
  });
});
