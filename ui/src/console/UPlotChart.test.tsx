import { render, screen, waitFor } from "@testing-library/react";
import type uPlot from "uplot";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { UPlotChart } from "./UPlotChart";

const loader = vi.hoisted(() => ({ load: vi.fn<() => Promise<unknown>>() }));
vi.mock("./loadUPlot", () => ({ loadUPlot: () => loader.load() }));

// jsdom has no canvas: a stand-in constructor records what the chart was built with.
const built: { opts: uPlot.Options; data: uPlot.AlignedData; target: HTMLElement }[] = [];
class FakeUPlot {
  width: number;
  height: number;
  constructor(opts: uPlot.Options, data: uPlot.AlignedData, target: HTMLElement) {
    built.push({ opts, data, target });
    this.width = opts.width;
    this.height = opts.height;
  }
  setData() {}
  setSize() {}
  destroy() {}
}

const options = (width: number): uPlot.Options => ({ width, height: 200, series: [{}, {}] });
const data: uPlot.AlignedData = [
  [1, 2, 3],
  [900, 1100, 1300],
];

beforeEach(() => {
  built.length = 0;
  loader.load.mockReset();
});

describe("UPlotChart", () => {
  it("builds the chart in its box once the library has loaded", async () => {
    loader.load.mockResolvedValue(FakeUPlot);
    const onCreate = vi.fn();
    const { container } = render(<UPlotChart options={options} data={data} optionsKey="light" onCreate={onCreate} />);
    await waitFor(() => expect(built).toHaveLength(1));
    expect(built[0]?.target).toBe(container.querySelector(".uplot-box"));
    expect(built[0]?.data).toBe(data);
    expect(built[0]?.opts.width).toBeGreaterThanOrEqual(240);
    expect(onCreate).toHaveBeenCalledWith(expect.any(FakeUPlot));
    expect(screen.queryByTestId("chart-failure")).toBeNull();
  });

  it("says why instead of leaving an empty frame when the library fails to load", async () => {
    loader.load.mockRejectedValue(new RangeError("invalid language tag: C"));
    const { container } = render(<UPlotChart options={options} data={data} optionsKey="light" />);
    const failure = await screen.findByRole("alert");
    expect(failure).toHaveTextContent("The chart could not be drawn.");
    expect(failure).toHaveTextContent("invalid language tag: C");
    expect(container.querySelector(".uplot-box")).not.toBeVisible();
    expect(built).toHaveLength(0);
  });
});
