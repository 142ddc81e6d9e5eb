// Issue 12's actions on one transcript item: Pin / Unpin, and a small "…"
// menu with Compact up to here and Fork from here. Each is offered only
// when the conversation passes its callback (a live, idle session).
import { useEffect, useId, useRef, useState, type CSSProperties, type KeyboardEvent } from "react";
import { createPortal } from "react-dom";
import { useClickOutside } from "../hooks/useClickOutside";
import { TipButton, useTooltip } from "./Tooltip";

/** What a person can do with one item; an absent callback hides its control. */
export interface ItemHistory {
  pinned: boolean;
  /** Pins (`true`) or unpins the item. */
  onPin?: (pinned: boolean) => void;
  /** Asks to summarise everything before the item (not offered on the first). */
  onCompactUpTo?: () => void;
  /** Asks to fork a new session with the history up to and including the item. */
  onFork?: () => void;
  /** Set when pinning cannot help (the item is no longer in the model's context): why. */
  pinDisabled?: string;
}

export const PIN_HINT = "Pin — kept verbatim through every compaction";
/** The tooltip of "Fork from before this" on a compaction (the transcript's divider, the console's card). */
export const FORK_BEFORE_HINT = "A new session with the original items from before this compaction, not the summary";
const UNPIN_HINT = "Unpin — later compactions may summarise it";

function PinIcon() {
  return (
    <svg className="pin-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      <path d="M10.5 1.5 14.5 5.5 12.6 6.2 10.2 8.6 10.5 11.8 9.3 13 6.6 10.3 2.6 14.3 1.7 13.4 5.7 9.4 3 6.7 4.2 5.5 7.4 5.8 9.8 3.4Z" />
    </svg>
  );
}

/** Shown on a pinned item, whatever the session's mode. */
export function PinnedBadge() {
  return (
    <span className="pill pinned-badge" data-testid="pinned-badge" title="Pinned: kept verbatim through every compaction">
      <PinIcon /> Pinned
    </span>
  );
}

export function PinButton({ pinned, onPin, subject, disabled }: { pinned: boolean; onPin: (pinned: boolean) => void; subject: string; disabled?: string }) {
  const hint = disabled ?? (pinned ? UNPIN_HINT : PIN_HINT);
  return (
    <TipButton
      tip={hint}
      className={`item-action pin-button${pinned ? " pinned" : ""}`}
      aria-pressed={pinned}
      aria-label={`Pin ${subject}`}
      data-testid="pin-button"
      disabled={disabled !== undefined}
      onClick={() => onPin(!pinned)}
    >
      <PinIcon />
      <span className="item-action-label">Pin</span>
    </TipButton>
  );
}

interface MenuEntry {
  label: string;
  hint: string;
  run: () => void;
}

/** Room the menu needs below its button before it opens upwards instead. */
const MENU_ROOM = 150;

/**
 * Where the open menu goes: under its button, or above it near the window's bottom. It is
 * drawn in the page's body, so the transcript's rows (clipped, transformed) cannot cut it.
 */
function menuPlace(button: HTMLElement): CSSProperties {
  const box = button.getBoundingClientRect();
  const right = Math.max(8, window.innerWidth - box.right);
  return window.innerHeight - box.bottom < MENU_ROOM ? { right, bottom: window.innerHeight - box.top + 4 } : { right, top: box.bottom + 4 };
}

/** "⋯": a menu button; arrows move between its entries, Escape closes it and returns focus. */
export function ItemMenu({ entries, subject }: { entries: MenuEntry[]; subject: string }) {
  const [place, setPlace] = useState<CSSProperties | null>(null);
  const open = place !== null;
  const setOpen = (value: boolean) => setPlace(value && trigger.current ? menuPlace(trigger.current) : null);
  const menuId = useId();
  // Not a native title: it would stay up over the menu this button opens.
  const tip = useTooltip("More actions");
  const trigger = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
    // The transcript scrolls (or settles) under an open menu: the menu follows its button.
    const scrolled = () => {
      if (trigger.current) setPlace(menuPlace(trigger.current));
    };
    document.addEventListener("scroll", scrolled, true);
    return () => document.removeEventListener("scroll", scrolled, true);
  }, [open]);
  useClickOutside(open, [menu, trigger], () => setOpen(false));

  if (entries.length === 0) return null;

  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) trigger.current?.focus();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = Array.from(menu.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? []);
    const at = items.indexOf(document.activeElement as HTMLElement);
    const move = (to: number) => {
      event.preventDefault();
      items[(to + items.length) % items.length]?.focus();
    };
    if (event.key === "ArrowDown") move(at + 1);
    else if (event.key === "ArrowUp") move(at - 1);
    else if (event.key === "Home") move(0);
    else if (event.key === "End") move(items.length - 1);
    else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close(true);
    } else if (event.key === "Tab") close(false);
  };

  return (
    <span className={`item-menu${open ? " open" : ""}`}>
      <button
        ref={trigger}
        type="button"
        className="item-action item-menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={`More actions on ${subject}`}
        data-testid="item-menu-button"
        {...tip.trigger}
        onClick={() => setOpen(!open)}
        onKeyDown={(event) => {
          tip.trigger.onKeyDown(event);
          if (event.key === "ArrowDown" && !open) {
            event.preventDefault();
            setOpen(true);
          }
        }}
      >
        <span aria-hidden="true">⋯</span>
      </button>
      {tip.tooltip}
      {open &&
        createPortal(
          <div ref={menu} id={menuId} className="item-menu-list" role="menu" aria-label={`Actions on ${subject}`} onKeyDown={onKeyDown} style={place}>
            {entries.map((entry) => (
              <button
                key={entry.label}
                type="button"
                role="menuitem"
                tabIndex={-1}
                className="item-menu-item"
                onClick={() => {
                  close(true);
                  entry.run();
                }}
              >
                <span className="item-menu-label">{entry.label}</span>
                <span className="item-menu-hint">{entry.hint}</span>
              </button>
            ))}
          </div>,
          document.body,
        )}
    </span>
  );
}

/** The pin button and the "…" menu of one item, in its actions row. */
export function ItemActions({ history, subject }: { history?: ItemHistory; subject: string }) {
  if (!history) return null;
  const entries: MenuEntry[] = [];
  if (history.onCompactUpTo) {
    entries.push({ label: "Compact up to here", hint: "Summarise everything before this; keep the rest verbatim", run: history.onCompactUpTo });
  }
  if (history.onFork) {
    entries.push({ label: "Fork from here", hint: "A new session with the conversation up to here", run: history.onFork });
  }
  return (
    <>
      {history.onPin && <PinButton pinned={history.pinned} onPin={history.onPin} subject={subject} disabled={history.pinDisabled} />}
      <ItemMenu entries={entries} subject={subject} />
    </>
  );
}
