import { act, fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { SessionListItem } from "../api/types";
import { listedSession, sidebarHandlers } from "../test/sidebar";
import { SessionSidebar } from "./SessionSidebar";

/** A library as large as the one the desktop bench lists. */
const LIBRARY = 1_000;
/** Enough rows for several windows, for the tests that need no more. */
const SHORT = 200;

const session = (n: number, forked_from?: SessionListItem["forked_from"]) => listedSession(`s${n}`, `Session ${n}`, forked_from);
const library = (count = LIBRARY) => Array.from({ length: count }, (_, n) => session(n));
const forkOf = (n: number, parent: number) => session(n, { parent_session_id: `s${parent}`, point: { kind: "before_compaction", number: 1 } });

function setup(sessions: SessionListItem[], activeId: string | null = null, query = "") {
  const props = { activeId, query, ...sidebarHandlers() };
  const view = render(<SessionSidebar sessions={sessions} {...props} />);
  const rerender = (changes: Partial<typeof props> & { sessions?: SessionListItem[] }) =>
    view.rerender(<SessionSidebar sessions={changes.sessions ?? sessions} {...props} {...changes} />);
  return { rerender, user: userEvent.setup() };
}

const scroller = () => document.querySelector<HTMLElement>(".session-scroller")!;
const rendered = () => Array.from(document.querySelectorAll<HTMLElement>("ul.session-list > li")).map((li) => li.dataset.sessionId);
const listHeight = () => Number.parseFloat(document.querySelector<HTMLElement>("ul.session-list")!.style.height);
const openButton = (n: number) => screen.getByRole("button", { name: new RegExp(`^Session ${n} `) });

function scrollTo(top: number) {
  act(() => {
    scroller().scrollTop = top;
    fireEvent.scroll(scroller());
  });
}

describe("the virtualised sidebar", () => {
  it("puts only the rows near the viewport of 1,000 sessions in the DOM, each telling its place in the whole list", () => {
    setup(library());
    const rows = document.querySelectorAll("ul.session-list > li");
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.length).toBeLessThan(60);
    expect(rows[0]).toHaveAttribute("aria-setsize", String(LIBRARY));
    expect(rows[0]).toHaveAttribute("aria-posinset", "1");
    expect(screen.queryByRole("button", { name: /^Session 999 / })).toBeNull();

    scrollTo(listHeight() - 800);
    expect(rendered()).toContain("s999");
    expect(rendered()).not.toContain("s0");
    expect(document.querySelector("li[data-session-id=s999]")).toHaveAttribute("aria-posinset", "1000");
  });

  it("moves between sessions with the arrow keys, Home and End, bringing rows outside the window in", { timeout: 20_000 }, async () => {
    const { user } = setup(library(SHORT));
    openButton(0).focus();
    await user.keyboard("{ArrowDown}");
    expect(openButton(1)).toHaveFocus();
    await user.keyboard("{End}");
    expect(openButton(SHORT - 1)).toHaveFocus();
    await user.keyboard("{ArrowUp}");
    expect(openButton(SHORT - 2)).toHaveFocus();
    await user.keyboard("{Home}");
    expect(openButton(0)).toHaveFocus();
    await user.keyboard("{ArrowUp}");
    expect(openButton(0)).toHaveFocus();
  });

  it("steps into the forks shown under a session and over folded ones", async () => {
    const { user } = setup([session(0), forkOf(1, 0), session(2), forkOf(3, 2), session(4)]);
    openButton(0).focus();
    await user.keyboard("{ArrowDown}");
    expect(openButton(1)).toHaveFocus();
    await user.click(screen.getAllByRole("button", { name: "1 fork" })[1]!);
    openButton(2).focus();
    await user.keyboard("{ArrowDown}");
    expect(openButton(4)).toHaveFocus();
  });

  it("keeps the focused row, and focus in it, when the list scrolls away", () => {
    setup(library(SHORT));
    openButton(0).focus();
    scrollTo(listHeight() / 2);
    expect(rendered().length).toBeLessThan(60);
    expect(rendered()).toContain("s0");
    expect(rendered()).not.toContain("s1");
    expect(openButton(0)).toHaveFocus();
    // The kept row comes first, in list order, so Tab order stays the list's.
    expect(rendered()[0]).toBe("s0");
  });

  it("keeps a session's forks folded after its row leaves the DOM and comes back", async () => {
    const { user } = setup([session(0), forkOf(1, 0), ...library(SHORT).slice(2)]);
    await user.click(screen.getByRole("button", { name: "1 fork" }));
    expect(screen.queryByRole("list", { name: "Forks of Session 0" })).toBeNull();
    act(() => (document.activeElement as HTMLElement).blur());
    scrollTo(listHeight() - 800);
    expect(rendered()).not.toContain("s0");
    scrollTo(0);
    expect(screen.getByRole("button", { name: "1 fork" })).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByRole("list", { name: "Forks of Session 0" })).toBeNull();
  });

  it("scrolls a session opened from elsewhere into the window", () => {
    const { rerender } = setup(library(SHORT));
    expect(rendered()).not.toContain("s170");
    rerender({ activeId: "s170" });
    expect(openButton(170)).toHaveAttribute("aria-current", "page");
  });

  it("shows the sessions of a new query from the top", () => {
    const { rerender } = setup(library(SHORT));
    scrollTo(listHeight() / 2);
    const found = library(SHORT).filter((s) => s.title?.endsWith("7"));
    rerender({ query: "7", sessions: found });
    expect(scroller().scrollTop).toBe(0);
    expect(rendered()[0]).toBe("s7");
  });
});
