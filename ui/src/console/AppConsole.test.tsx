import { mockIPC } from "@tauri-apps/api/mocks";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { App } from "../App";
import { consoleTranscriptPage, consoleView, consoleViews } from "../test/consoleFixtures";

vi.mock("./UPlotChart", () => ({ UPlotChart: () => <div data-testid="uplot-stand-in" /> }));

const profile = { id: "demo", kind: "demo", label: "Offline demo", model: "strata-demo", has_key: false, context_window: 32000, compact_threshold: 8000 };

beforeEach(() => {
  mockIPC((cmd) => {
    switch (cmd) {
      case "app_info":
        return { version: "0.1.0", strata_home: "/h", active_profile: profile, is_demo: true };
      case "get_settings":
        return { profiles: [profile], active_profile: "demo", approval_policy: "ask", theme: "light" };
      case "list_sessions":
        return { v: 1, sessions: [consoleView().summary], total: 1 };
      case "open_session":
        return consoleView();
      case "compaction_views":
        return consoleViews;
      case "open_transcript":
        return consoleTranscriptPage();
      case "watch_library":
        return null;
      default:
        throw { kind: "internal", message: `unexpected ${cmd}` };
    }
  });
});

describe("the console in the app", () => {
  it("opens on the compaction a transcript divider asks to inspect, focusing its card", async () => {
    render(<App />);
    fireEvent.click(await screen.findByRole("button", { name: /^Parser work/ }));
    const transcript = await screen.findByRole("log", { name: "Conversation" });
    const dividers = await within(transcript).findAllByRole("separator");
    expect(dividers.map((d) => d.id)).toEqual(["compaction-i-summary-1", "compaction-i-summary-2"]);
    expect(screen.queryByRole("complementary", { name: "Debug console" })).toBeNull();

    fireEvent.click(within(dividers[0]!).getByRole("button", { name: "Inspect in console" }));
    const console = await screen.findByRole("complementary", { name: "Debug console" });
    const card = await within(console).findByRole("article", { name: /Compaction 1 of 2/ });
    await waitFor(() => expect(document.activeElement).toBe(card));
    expect(card).toHaveClass("focused");
    expect(within(console).getByTestId("compactions-count")).toHaveTextContent("2");
    expect(card.dataset.summaryId).toBe("i-summary-1");
    expect(document.getElementById(`compaction-${card.dataset.summaryId}`)).toBe(dividers[0]);
  });
});
