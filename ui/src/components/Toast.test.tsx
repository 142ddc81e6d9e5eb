/// <reference types="node" />
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { Toast } from "./Toast";

let style: HTMLStyleElement | null = null;

afterEach(() => {
  style?.remove();
  style = null;
});

describe("Toast", () => {
  it("sits at the top, under the header, so it never covers the composer at the bottom", () => {
    style = document.createElement("style");
    // The tests load no CSS (`css: false`), so the app's stylesheet is read as text.
    style.textContent = readFileSync(join(import.meta.dirname, "../styles/app.css"), "utf8");
    document.head.append(style);
    render(<Toast message={{ tone: "ok", text: "Settings saved." }} onDismiss={() => {}} />);
    const toast = getComputedStyle(screen.getByRole("status"));
    expect(toast.position).toBe("fixed");
    expect(toast.bottom === "" || toast.bottom === "auto").toBe(true);
    // Below the 50px header, not over it.
    expect(Number.parseFloat(toast.top)).toBeGreaterThanOrEqual(50);
  });

  it("never shows a raw id: a command's error names the item or session in words", () => {
    render(
      <Toast
        message={{ tone: "error", text: "Not pinned: item 0193a1b2-c3d4-7e5f-8a9b-0000000c0501 is not in session 0193a1b2-c3d4-7e5f-8a9b-0000000c0502" }}
        onDismiss={() => {}}
      />,
    );
    const toast = screen.getByRole("alert");
    expect(toast).toHaveTextContent("Not pinned: this item is not in this session");
    expect(toast).not.toHaveTextContent("0193a1b2");
  });
});
