import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { App } from "./App";
import { demoShell as shell } from "./test/demoShell";

beforeAll(() => import("./console/ConsoleDock"));

const realMatchMedia = window.matchMedia;
const setMatchMedia = (value: typeof window.matchMedia) => Object.defineProperty(window, "matchMedia", { configurable: true, value });
afterEach(() => setMatchMedia(realMatchMedia));

/** A window narrower than the drawer breakpoint: every `max-width` query matches. */
function narrowWindow() {
  setMatchMedia(((query: string) => ({
    matches: query.includes("max-width"),
    media: query,
    addEventListener: () => {},
    removeEventListener: () => {},
  })) as unknown as typeof window.matchMedia);
}

/** The app with the console opened from the header: the person, the header's toggle and the panel. */
async function openConsole() {
  shell();
  const user = userEvent.setup();
  render(<App />);
  const toggle = await screen.findByRole("button", { name: "Debug console" });
  await user.click(toggle);
  const panel = await screen.findByRole("complementary", { name: "Debug console" });
  return { user, toggle, panel };
}

describe("the window's layout", () => {
  it("in a wide window docks the sidebar, and the header's Sessions button hides and shows it", async () => {
    shell();
    const user = userEvent.setup();
    render(<App />);
    const toggle = await screen.findByRole("button", { name: "Sessions" });
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByRole("navigation", { name: "Sessions" })).toBeInTheDocument();
    expect(screen.queryByTestId("sidebar-drawer")).toBeNull();
    await user.click(toggle);
    expect(screen.queryByRole("navigation", { name: "Sessions" })).toBeNull();
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    await user.keyboard("{Control>}b{/Control}");
    expect(screen.getByRole("navigation", { name: "Sessions" })).toBeInTheDocument();
  });

  it("in a narrow window collapses the sidebar into a drawer that takes focus, closes on Escape and gives focus back", async () => {
    narrowWindow();
    const sessions = shell();
    const user = userEvent.setup();
    render(<App />);
    const toggle = await screen.findByRole("button", { name: "Sessions" });
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByRole("navigation", { name: "Sessions" })).toBeNull();

    await user.click(toggle);
    const drawer = await screen.findByTestId("sidebar-drawer");
    expect(within(drawer).getByRole("navigation", { name: "Sessions" })).toBeInTheDocument();
    await waitFor(() => expect(drawer).toContainElement(document.activeElement as HTMLElement));
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("sidebar-drawer")).toBeNull();
    expect(toggle).toHaveFocus();

    // Picking a session is done with the drawer: it closes, and focus is not lost.
    await user.click(toggle);
    const title = sessions[0]!.summary.title!;
    await user.click(await within(screen.getByTestId("sidebar-drawer")).findByText(title));
    expect(screen.queryByTestId("sidebar-drawer")).toBeNull();
    expect(await screen.findByRole("heading", { level: 1, name: title })).toBeInTheDocument();
    expect(document.activeElement).not.toBe(document.body);

    // A click beside it closes it too.
    await user.click(toggle);
    await user.click(screen.getByTestId("sidebar-scrim"));
    expect(screen.queryByTestId("sidebar-drawer")).toBeNull();
  });

  it("in a narrow window opens the console as a drawer over the chat: focus goes in, Escape closes it and returns focus", async () => {
    narrowWindow();
    const { user, toggle, panel } = await openConsole();
    expect(panel).toHaveClass("console-drawer");
    await waitFor(() => expect(within(panel).getByRole("button", { name: /Close debug console/ })).toHaveFocus());
    await act(async () => {
      await user.keyboard("{Escape}");
    });
    expect(screen.queryByRole("complementary", { name: "Debug console" })).toBeNull();
    expect(toggle).toHaveFocus();
  });

  it("in a wide window docks the console without taking focus, and closing it from inside gives focus back", async () => {
    const { user, toggle, panel } = await openConsole();
    expect(panel).not.toHaveClass("console-drawer");
    expect(toggle).toHaveFocus();
    await user.click(within(panel).getByRole("button", { name: /Close debug console/ }));
    expect(screen.queryByRole("complementary", { name: "Debug console" })).toBeNull();
    expect(toggle).toHaveFocus();
  });

  it("opens the console at the width kept from the last run, and keeps a new one once the resize settles", async () => {
    const savedLayouts: unknown[] = [];
    shell({ consoleWidth: 520, savedLayouts });
    // A wide window (jsdom's is 1024): room for a 520 px console beside the chat and the sidebar.
    const width = window.innerWidth;
    Object.defineProperty(window, "innerWidth", { configurable: true, value: 1600 });
    try {
      const user = userEvent.setup();
      render(<App />);
      await user.click(await screen.findByRole("button", { name: "Debug console" }));
      const handle = await screen.findByRole("separator", { name: "Resize debug console" });
      expect(handle).toHaveAttribute("aria-valuenow", "520");
      expect(savedLayouts).toEqual([]);
      handle.focus();
      await user.keyboard("{ArrowLeft}{ArrowLeft}{Home}");
      expect(handle).toHaveAttribute("aria-valuenow", "280");
      // Saved once, when it settled.
      await waitFor(() => expect(savedLayouts).toEqual([{ console_width: 280 }]), { timeout: 2000 });
    } finally {
      Object.defineProperty(window, "innerWidth", { configurable: true, value: width });
    }
  });
});
