import type { ChartPoint } from "../bindings/ChartPoint";
import { exactTokens } from "./steps";

const WIDTH = 320;
const HEIGHT = 120;

/**
 * Per model call, its reported input as a stacked bar: read from the
 * provider's cache (bottom) against not (top), with a mark where the
 * request stopped repeating the previous one. An SVG image with a text
 * description; the list beside it names every break.
 */
export function CacheChart({ points }: { points: ChartPoint[] }) {
  const rounds = points.filter((point) => point.input_tokens != null);
  if (rounds.length === 0) {
    return (
      <p className="muted" data-testid="cache-chart-none">
        No model call has reported its input yet.
      </p>
    );
  }
  const top = Math.max(...rounds.map((point) => point.input_tokens ?? 0), 1);
  const step = WIDTH / rounds.length;
  const bar = Math.max(1, step * 0.8);
  const cached = rounds.reduce((sum, point) => sum + Math.min(point.cached_tokens ?? 0, point.input_tokens ?? 0), 0);
  const input = rounds.reduce((sum, point) => sum + (point.input_tokens ?? 0), 0);
  const share = input > 0 ? Math.round((cached / input) * 100) : 0;
  const breaks = rounds.filter((point) => point.cache_break != null).length;
  const description = `${rounds.length} model calls; ${share}% of their input (${exactTokens(cached)} of ${exactTokens(input)} tokens) was read from the cache; the cache broke ${breaks} time${breaks === 1 ? "" : "s"}.`;
  return (
    <figure className="cache-chart" data-testid="cache-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="cache-chart-title" aria-describedby="cache-chart-desc" preserveAspectRatio="none">
        <title id="cache-chart-title">Cached against uncached input per model call</title>
        <desc id="cache-chart-desc">{description}</desc>
        {rounds.map((point, i) => {
          const total = point.input_tokens ?? 0;
          const hit = Math.min(point.cached_tokens ?? 0, total);
          const hitHeight = (hit / top) * HEIGHT;
          const missHeight = ((total - hit) / top) * HEIGHT;
          const x = i * step + (step - bar) / 2;
          return (
            <g key={point.round} data-testid="cache-bar">
              <rect className="cache-hit" x={x} y={HEIGHT - hitHeight} width={bar} height={hitHeight} />
              <rect className="cache-miss" x={x} y={HEIGHT - hitHeight - missHeight} width={bar} height={missHeight} />
              {point.cache_break && <rect className="cache-break" x={x} y={0} width={Math.max(1, bar / 4)} height={HEIGHT} data-testid="cache-break-mark" />}
            </g>
          );
        })}
      </svg>
      <figcaption className="cache-legend">
        <span className="swatch cache-hit" aria-hidden="true" /> read from cache · <span className="swatch cache-miss" aria-hidden="true" /> not cached ·{" "}
        <span className="swatch cache-break" aria-hidden="true" /> request changed
        <span className="visually-hidden">{description}</span>
      </figcaption>
    </figure>
  );
}
