import { useEffect, useMemo, useRef, useState } from "react";
import { TipButton } from "../components/Tooltip";
import type uPlot from "uplot";
import { formatTokens } from "../lib/format";
import { chartColumns, type ChartData } from "./model";
import { UPlotChart } from "./UPlotChart";

/** Reads the theme's colours from the CSS variables. */
function palette() {
  const css = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    line: read("--accent", "#5450d6"),
    fill: read("--accent-soft", "#ecebfd"),
    marker: read("--warn", "#a35f00"),
    threshold: read("--bad", "#c9372c"),
    ceiling: read("--muted", "#6a6e7b"),
    grid: read("--border", "#e2e3e9"),
    text: read("--muted", "#6a6e7b"),
    surface: read("--surface", "#ffffff"),
  };
}

/** Follows `data-theme` on the document so the canvas repaints in the new colours. */
function useThemeKey(): string {
  const [theme, setTheme] = useState(() => document.documentElement.dataset.theme ?? "light");
  useEffect(() => {
    const observer = new MutationObserver(() => setTheme(document.documentElement.dataset.theme ?? "light"));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    return () => observer.disconnect();
  }, []);
  return theme;
}

/** Whether the window ceiling fits on a scale that still shows the rounds (else it is drawn only on request). */
export function ceilingFits(data: ChartData): boolean {
  if (data.context_window === null) return false;
  const top = Math.max(data.peak, data.threshold ?? 0);
  return top === 0 || data.context_window <= top * 2.5;
}

const HEIGHT = 200;

/** Reported context tokens per round, the threshold, the window ceiling and each compaction. */
export function ContextChart({ data, onMarker }: { data: ChartData; onMarker?: (summaryId: string) => void }) {
  const theme = useThemeKey();
  const [fullWindow, setFullWindow] = useState(false);
  const [hover, setHover] = useState<number | null>(null);
  const chart = useRef<uPlot | null>(null);
  const columns = useMemo(() => chartColumns(data), [data]);
  const showCeiling = data.context_window !== null && (fullWindow || ceilingFits(data));
  const compactionsAt = useMemo(() => {
    const map = new Map<number, number[]>();
    for (const marker of data.markers) map.set(marker.round, [...(map.get(marker.round) ?? []), marker.number]);
    return map;
  }, [data.markers]);

  const options = useMemo(() => {
    const colors = palette();
    return (width: number): uPlot.Options => ({
      width,
      height: HEIGHT,
      padding: [12, 18, 0, 0],
      legend: { show: false },
      cursor: { drag: { x: true, y: false, setScale: true }, points: { size: 7 } },
      scales: {
        x: { time: false },
        y: {
          range: (_u, _min, max) => {
            const top = Math.max(max, data.threshold ?? 0, showCeiling ? (data.context_window ?? 0) : 0, 1000);
            return [0, top * 1.08];
          },
        },
      },
      axes: [
        {
          stroke: colors.text,
          grid: { stroke: colors.grid, width: 1 },
          ticks: { show: false },
          font: "11px system-ui, sans-serif",
          values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? String(v) : "")),
        },
        {
          stroke: colors.text,
          grid: { stroke: colors.grid, width: 1 },
          ticks: { show: false },
          size: 44,
          font: "11px system-ui, sans-serif",
          values: (_u, splits) => splits.map((v) => formatTokens(Math.round(v))),
        },
      ],
      series: [
        { label: "Round" },
        { label: "Context tokens", stroke: colors.line, width: 2, fill: `${colors.line}22`, spanGaps: true, points: { show: data.points.length <= 60, size: 4 } },
        {
          label: "Compaction",
          stroke: colors.marker,
          paths: () => null,
          points: { show: true, size: 11, width: 2.5, stroke: colors.marker, fill: colors.surface },
        },
        { label: "Threshold", stroke: colors.threshold, width: 1.5, dash: [6, 4], points: { show: false } },
        { label: "Context window", stroke: colors.ceiling, width: 1.5, dash: [2, 4], points: { show: false }, show: showCeiling },
      ],
      hooks: {
        setCursor: [
          (u) => {
            setHover(u.cursor.idx ?? null);
          },
        ],
      },
    });
  }, [data.threshold, data.context_window, data.points.length, showCeiling]);

  const point = hover !== null ? data.points[hover] : undefined;
  const compactionHere = point ? compactionsAt.get(point.round) : undefined;
  const last = data.points[data.points.length - 1];
  const summary = `Context tokens over ${data.points.length} rounds; peak ${formatTokens(data.peak)}${
    data.threshold !== null ? `, threshold ${formatTokens(data.threshold)}` : ""
  }${data.context_window !== null ? `, window ${formatTokens(data.context_window)}` : ""}; ${data.markers.length} compaction${
    data.markers.length === 1 ? "" : "s"
  }.`;

  const moveCursor = (index: number) => {
    const u = chart.current;
    const target = data.points[index];
    if (!u || !target) return;
    const top = target.context_tokens !== null ? u.valToPos(target.context_tokens, "y") : 0;
    u.setCursor({ left: u.valToPos(target.round, "x"), top });
  };

  if (data.points.length === 0) {
    return (
      <div className="console-hint" data-testid="context-chart-empty">
        <strong>No rounds yet.</strong> Each model round reports how many tokens its context took; they are charted here
        against the compaction threshold and the model's window.
      </div>
    );
  }

  return (
    <figure className="context-chart" data-testid="context-chart">
      <div
        className="chart-frame"
        role="img"
        aria-label={summary}
        tabIndex={0}
        onKeyDown={(event) => {
          const current = hover ?? data.points.length - 1;
          if (event.key === "ArrowLeft") moveCursor(Math.max(0, current - 1));
          else if (event.key === "ArrowRight") moveCursor(Math.min(data.points.length - 1, current + 1));
          else if (event.key === "Home") moveCursor(0);
          else if (event.key === "End") moveCursor(data.points.length - 1);
          else if (event.key === "Enter" && compactionHere && onMarker) {
            const marker = data.markers.find((m) => m.number === compactionHere[0]);
            if (marker) onMarker(marker.summaryId);
          } else return;
          event.preventDefault();
        }}
        onDoubleClick={() => chart.current?.setScale("x", { min: 1, max: Math.max(2, data.points.length) })}
      >
        <UPlotChart
          options={options}
          data={columns as uPlot.AlignedData}
          optionsKey={`${theme}:${showCeiling}:${data.threshold}:${data.context_window}:${data.points.length > 60}`}
          onCreate={(created) => {
            chart.current = created;
          }}
        />
      </div>
      <figcaption className="chart-caption">
        <div className="chart-readout" aria-live="polite" data-testid="chart-readout">
          {point ? (
            <>
              <strong>Round {point.round}</strong>
              {point.context_tokens !== null ? (
                <span>
                  {formatTokens(point.context_tokens)} context
                  {point.inputTokens !== null && ` (${formatTokens(point.inputTokens)} in`}
                  {point.cachedTokens ? `, ${formatTokens(point.cachedTokens)} cached` : ""}
                  {point.outputTokens !== null && `, ${formatTokens(point.outputTokens)} out`}
                  {point.inputTokens !== null && ")"}
                </span>
              ) : (
                <span className="muted">no usage reported</span>
              )}
              {data.threshold !== null && point.context_tokens !== null && (
                <span className="muted">{Math.round((point.context_tokens / data.threshold) * 100)}% of threshold</span>
              )}
              {compactionHere && <span className="readout-compaction">compaction #{compactionHere.join(", #")} after this round</span>}
            </>
          ) : (
            <span className="muted">
              {last?.context_tokens != null ? `Last round: ${formatTokens(last.context_tokens)} tokens. ` : ""}
              Hover or use the arrow keys for a round's numbers; drag to zoom, double-click to reset.
            </span>
          )}
        </div>
        <div className="chart-legend">
          <span className="legend-item legend-context">Context tokens</span>
          {data.threshold !== null && <span className="legend-item legend-threshold">Threshold {formatTokens(data.threshold)}</span>}
          {data.context_window !== null && (
            <TipButton
              className={`legend-item legend-window legend-toggle${showCeiling ? "" : " off"}`}
              aria-pressed={showCeiling}
              disabled={ceilingFits(data)}
              tip={ceilingFits(data) ? "The window fits on the scale" : "Scale the chart to the model's whole window"}
              onClick={() => setFullWindow(!fullWindow)}
            >
              Window {formatTokens(data.context_window)}
              {showCeiling ? "" : " · off scale"}
            </TipButton>
          )}
          <span className="legend-item legend-marker">Compaction</span>
        </div>
      </figcaption>
    </figure>
  );
}
