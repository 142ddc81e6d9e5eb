import { useState } from "react";
import type { ResponseItem } from "../api/types";
import { prettyJson } from "../lib/format";
import { ItemIdChip } from "./ItemIdChip";
import { describeItem } from "./model";

/** Characters shown before "Show all". */
export const ITEM_PREVIEW_CHARS = 360;

interface ItemViewProps {
  item: ResponseItem;
  /** A status beside the label: "removed", "kept", "added". */
  status?: "removed" | "kept" | "added";
  /** Text to show instead of the item's own (e.g. the summary as the model receives it). */
  text?: string;
}

const STATUS_LABEL: Record<NonNullable<ItemViewProps["status"]>, string> = {
  removed: "Removed",
  kept: "Kept",
  added: "Added by Strata",
};

/** One history item, as plain text (never HTML), long ones folded. */
export function ItemView({ item, status, text }: ItemViewProps) {
  const described = describeItem(item);
  const raw = text ?? described.text;
  const body = described.tone === "tool" ? prettyJson(raw) : raw;
  const [open, setOpen] = useState(false);
  const long = body.length > ITEM_PREVIEW_CHARS;
  const shown = long && !open ? `${body.slice(0, ITEM_PREVIEW_CHARS).trimEnd()}…` : body;
  return (
    <div
      className={`history-item tone-${described.tone}${status ? ` status-${status}` : ""}`}
      data-testid="history-item"
      data-kind={described.tone}
      data-status={status}
      data-item-id={item.id}
    >
      <div className="history-item-head">
        <span className={`item-badge tone-${described.tone}`}>{described.label}</span>
        {status && <span className={`item-status status-${status}`}>{STATUS_LABEL[status]}</span>}
        <span className="history-item-size muted">{body.length.toLocaleString()} chars</span>
        <ItemIdChip id={item.id} />
      </div>
      <div className={`history-item-text${described.tone === "tool" || described.tone === "output" ? " mono" : ""}`}>
        {shown}
      </div>
      {long && (
        <button type="button" className="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "Show less" : `Show all ${body.length.toLocaleString()} characters`}
        </button>
      )}
    </div>
  );
}
