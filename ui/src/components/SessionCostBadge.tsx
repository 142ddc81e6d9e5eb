import type { SessionCost } from "../bindings/SessionCost";
import { formatCost, priceDate } from "../console/money";
import { useTooltip } from "./Tooltip";

/** What the open session cost so far (the console fold's total), or "no price" for a model the price table lacks. */
export function SessionCostBadge({ cost }: { cost: SessionCost }) {
  const total = cost.total;
  const unpriced = cost.unpriced_rounds > 0 ? ` ${cost.unpriced_rounds} model call${cost.unpriced_rounds === 1 ? " has" : "s have"} no price.` : "";
  const tip = useTooltip(total ? `What this session cost so far, at ${priceDate(total.price_as_of)}.${unpriced}` : `No price is known for this model: tokens only.${unpriced}`);
  if (!total && cost.unpriced_rounds === 0) return null;
  return (
    <span className="gauge-cost" data-testid="session-cost-badge" tabIndex={0} {...tip.trigger}>
      {formatCost(total)}
      {tip.tooltip}
    </span>
  );
}
