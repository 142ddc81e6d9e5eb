import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { SearchHit } from "../bindings/SearchHit";
import { SearchHits } from "./SearchHits";

const hostile = '<img src=x onerror="window.pwned=1"> calls HttpClient::send <b>bold</b>';
const hits: SearchHit[] = [
  {
    session_id: "s1",
    session_title: "Fix the HTTP client",
    item_id: "i1",
    kind: "tool_output",
    snippet: hostile,
    matches: [{ start: 43, end: 59 }],
    updated_at: "2026-11-29T11:00:00Z",
  },
  {
    session_id: "s2",
    session_title: null,
    item_id: "i2",
    kind: "user",
    snippet: "why does HttpClient::send hang?",
    matches: [{ start: 9, end: 25 }],
    updated_at: "2026-11-28T11:00:00Z",
  },
];

describe("SearchHits", () => {
  it("shows each hit's session, kind and snippet with the match marked, as text", () => {
    const { container } = render(<SearchHits hits={hits} total={7} onPick={vi.fn()} />);
    const section = screen.getByRole("region", { name: "Matches in session text" });
    expect(section).toHaveTextContent("2 of 7");
    const first = within(section).getByRole("button", { name: /^Fix the HTTP client/ });
    expect(first).toHaveTextContent("Tool output");
    expect(first).toHaveTextContent(hostile);
    expect(within(first).getByText("HttpClient::send").tagName).toBe("MARK");
    // The snippet's markup stays text: no element came from it.
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("b")).toBeNull();
    expect((window as unknown as { pwned?: number }).pwned).toBeUndefined();
    expect(screen.getByRole("button", { name: /^Untitled session/ })).toHaveTextContent("You");
  });

  it("shows a capped count as a lower bound", () => {
    render(<SearchHits hits={hits} total={1000} totalCapped onPick={vi.fn()} />);
    expect(screen.getByRole("region", { name: "Matches in session text" })).toHaveTextContent("2 of 1000+");
  });

  it("hands the picked hit over", async () => {
    const onPick = vi.fn();
    render(<SearchHits hits={hits} total={2} onPick={onPick} />);
    await userEvent.setup().click(screen.getByRole("button", { name: /^Untitled session/ }));
    expect(onPick).toHaveBeenCalledWith(hits[1]);
  });

  it("shows nothing without hits", () => {
    const { container } = render(<SearchHits hits={[]} total={0} onPick={vi.fn()} />);
    expect(container).toBeEmptyDOMElement();
  });
});
