import { CopyButton } from "../components/CopyButton";
import { shortId } from "../lib/format";

/**
 * An item's id, shortened and monospace, with a button copying the whole id
 * for `strata pin`, `strata fork --at` and `strata compact --up-to`.
 */
export function ItemIdChip({ id }: { id: string }) {
  return (
    <span className="item-id" data-testid="item-id" data-item-id={id}>
      <code title={id}>{shortId(id)}</code>
      <CopyButton text={id} label="Copy id" ariaLabel={`Copy item id ${id}`} />
    </span>
  );
}
