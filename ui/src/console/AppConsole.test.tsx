import { mockShell } from "../test/shell";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { App } from "../App";
import { consoleApp, summary1, summary2 } from "../test/consoleFixtures";

vi.mock("./UPlotChart", () => ({ UPlotChart: () => <div data-testid="uplot-stand-in" /> }));

// The console's code loads when it first opens; compiled once here, so opening it waits on the module, not on the test runner's transform.
beforeAll(() => import("./ConsoleDock"));

beforeEach(() => {
  mockShell(consoleApp());
});

describe("the console in the app", () => {
  it("opens on the compaction a transcript divider asks to inspect, focusing its card", async () => {
    render(<App />);
    fireEvent.click(await screen.findByRole("button", { name: /^Parser work/ }));
    const transcript = await screen.findByRole("log", { name: "Conversation" });
    const dividers = await within(transcript).findAllByRole("separator");
    expect(dividers.map((d) => d.id)).toEqual([`compaction-${summary1.id}`, `compaction-${summary2.id}`]);
    expect(screen.queryByRole("complementary", { name: "Debug console" })).toBeNull();

    fireEvent.click(within(dividers[0]!).getByRole("button", { name: "Inspect in console" }));
    const console = await screen.findByRole("complementary", { name: "Debug console" });
    const card = await within(console).findByRole("article", { name: /Compaction 1 of 2/ });
    await waitFor(() => expect(document.activeElement).toBe(card));
    expect(card).toHaveClass("focused");
    expect(within(console).getByTestId("compactions-count")).toHaveTextContent("2");
    expect(card.dataset.summaryId).toBe(summary1.id);
    expect(document.getElementById(`compaction-${card.dataset.summaryId}`)).toBe(dividers[0]);
  });
});
