// A thin React wrapper over uPlot (canvas, ~50 kB): it owns the chart's
// lifetime, keeps it as wide as its box and recreates it when the theme or
// the options change. Kept apart so tests without a canvas can stub it.
import { useEffect, useRef } from "react";
import type uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

interface UPlotChartProps {
  /** Builds the options for a width; called again when the theme changes. */
  options: (width: number) => uPlot.Options;
  data: uPlot.AlignedData;
  /** Changes when the options must be rebuilt (the scale mode, the theme). */
  optionsKey: string;
  onCreate?: (chart: uPlot | null) => void;
}

export function UPlotChart({ options, data, optionsKey, onCreate }: UPlotChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const latest = useRef({ options, data, onCreate });
  latest.current = { options, data, onCreate };

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let created: uPlot | null = null;
    let resize: ResizeObserver | null = null;
    let cancelled = false;
    // Loaded on first use: the library only ships with the console's chart.
    void import("uplot").then(({ default: UPlot }) => {
      if (cancelled) return;
      const chartNow = new UPlot(latest.current.options(Math.max(240, el.clientWidth)), latest.current.data, el);
      created = chartNow;
      chart.current = chartNow;
      latest.current.onCreate?.(chartNow);
      if (typeof ResizeObserver !== "undefined") {
        resize = new ResizeObserver(() => {
          const next = Math.max(240, el.clientWidth);
          if (next !== chartNow.width) chartNow.setSize({ width: next, height: chartNow.height });
        });
        resize.observe(el);
      }
    });
    return () => {
      cancelled = true;
      resize?.disconnect();
      created?.destroy();
      chart.current = null;
      latest.current.onCreate?.(null);
    };
  }, [optionsKey]);

  useEffect(() => {
    chart.current?.setData(data);
  }, [data]);

  return <div ref={box} className="uplot-box" />;
}
