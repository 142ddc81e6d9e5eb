// A thin React wrapper over uPlot (canvas, ~50 kB): it owns the chart's
// lifetime, keeps it as wide as its box and recreates it when the theme or
// the options change. Kept apart so tests without a canvas can stub it.
import { useEffect, useRef, useState } from "react";
import type uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { loadUPlot } from "./loadUPlot";

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
  /** Why the chart could not be drawn (the library failed to load or to build it). */
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let created: uPlot | null = null;
    let resize: ResizeObserver | null = null;
    let cancelled = false;
    // Loaded on first use: the library only ships with the console's chart.
    const draw = (UPlot: typeof uPlot) => {
      if (cancelled) return;
      setFailure(null);
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
    };
    loadUPlot()
      .then(draw)
      .catch((error: unknown) => {
        if (!cancelled) setFailure(error instanceof Error ? error.message : String(error));
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

  return (
    <>
      {failure !== null && (
        <div className="console-hint" role="alert" data-testid="chart-failure">
          <strong>The chart could not be drawn.</strong>
          {failure}
        </div>
      )}
      <div ref={box} className="uplot-box" hidden={failure !== null} />
    </>
  );
}
