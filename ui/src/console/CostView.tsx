import type { ConsoleView } from "../bindings/ConsoleView";
import type { StepMoney } from "../bindings/StepMoney";
import { CacheChart } from "./CacheChart";
import { causeText, formatCost, formatUsd, priceDate } from "./money";

/** What the session cost (per turn, its summary calls) and why its cache broke, from the fold's figures. */
export function CostView({ view }: { view: ConsoleView }) {
  const cost = view.gauge.cost;
  const breaks = view.chart.filter((point) => point.cache_break != null);
  return (
    <div className="cost-view" data-testid="cost-view">
      <p className="cost-total" data-testid="session-cost">
        Session: <strong>{formatCost(cost.total)}</strong>
        {cost.total && <span className="muted"> · at {priceDate(cost.total.price_as_of)}</span>}
        {cost.summaries && <span> · of which summaries {formatUsd(cost.summaries.usd)}</span>}
        {cost.unpriced_rounds > 0 && (
          <span className="muted" data-testid="unpriced">
            {" "}
            · {cost.unpriced_rounds} model call{cost.unpriced_rounds === 1 ? "" : "s"} with no price (tokens only)
          </span>
        )}
      </p>
      {cost.turns.length > 0 && (
        <table className="drift-table" data-testid="turn-costs">
          <caption className="visually-hidden">Cost per turn</caption>
          <thead>
            <tr>
              <th scope="col">Turn</th>
              <th scope="col">Model calls</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {cost.turns.map((turn) => (
              <tr key={turn.turn}>
                <th scope="row">{turn.turn}</th>
                <td>{turn.rounds}</td>
                <td>{formatCost(turn.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h4 className="subheading">Prompt cache per model call</h4>
      <CacheChart points={view.chart} />
      {breaks.length > 0 ? (
        <ul className="cache-breaks" data-testid="cache-breaks">
          {breaks.map((point) => (
            <li key={point.round} data-testid="cache-break">
              Model call {point.round}: the request changed at item {(point.cache_break?.index ?? 0) + 1}
              {point.cache_break?.item_id && <code className="muted"> {point.cache_break.item_id.slice(-8)}</code>}, after {causeText(point.cache_break?.cause ?? "other")}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">Every request repeated the one before it, so the cache could serve it.</p>
      )}
    </div>
  );
}

/** A compaction's cost (its summary call and the cache it gave up) against what it saved since. */
export function StepMoneyLine({ money }: { money: StepMoney }) {
  const spent = (money.summary ?? 0) + money.cache_given_up;
  const net = money.saved - spent;
  return (
    <p className="card-meta" data-testid="step-money">
      Cost {formatUsd(spent)} ({money.summary != null ? `summary ${formatUsd(money.summary)}` : "no summary call"} + cache given up {formatUsd(money.cache_given_up)}) · saved {formatUsd(money.saved)} over{" "}
      {money.rounds_after} model call{money.rounds_after === 1 ? "" : "s"} ·{" "}
      <strong className={net >= 0 ? "tone-ok" : "tone-bad"}>{net >= 0 ? `${formatUsd(net)} ahead` : `${formatUsd(-net)} behind`}</strong>
    </p>
  );
}
