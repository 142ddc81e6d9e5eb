import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState, type FocusEvent, type KeyboardEvent, type PointerEvent, type ReactNode, type ButtonHTMLAttributes, type LabelHTMLAttributes } from "react";
import { createPortal } from "react-dom";

/** How long the pointer rests on a control before its tooltip shows, in milliseconds. */
const SHOW_AFTER = 500;

interface Place {
  left: number;
  top: number;
}

/** The props a control spreads to get its tooltip, and the tooltip to render beside it. */
export interface TooltipParts {
  trigger: {
    "aria-describedby"?: string;
    /** The tooltip's text, always on the control (what a test or a script reads; the bubble shows it). */
    "data-tooltip": string;
    onPointerEnter: (event: PointerEvent<HTMLElement>) => void;
    onPointerLeave: () => void;
    onPointerDown: () => void;
    onFocus: (event: FocusEvent<HTMLElement>) => void;
    onBlur: () => void;
    onKeyDown: (event: KeyboardEvent<HTMLElement>) => void;
  };
  tooltip: ReactNode;
}

function placeUnder(el: HTMLElement): Place {
  const box = el.getBoundingClientRect();
  return { left: Math.round(box.left + box.width / 2), top: Math.round(box.bottom + 6) };
}

/** The bubble, centred under its control and kept inside the window. */
function Bubble({ id, text, place }: { id: string; text: string; place: Place }) {
  const bubble = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = bubble.current;
    if (!el) return;
    const width = el.offsetWidth;
    const left = Math.max(8, Math.min(window.innerWidth - 8 - width, place.left - width / 2));
    el.style.left = `${Math.round(left)}px`;
  }, [place]);
  return (
    <div ref={bubble} id={id} role="tooltip" className="tooltip" style={{ left: place.left, top: place.top }}>
      {text}
    </div>
  );
}

/**
 * A tooltip of the app's own (instead of a native `title`, which stays up over the dialog or menu
 * its button opened): shown after the pointer rests on the control, or when the keyboard
 * focuses it; gone as soon as the control is pressed (pointer, Enter or Space), on Escape, when
 * the pointer leaves or focus goes. A press keeps it away until the pointer leaves.
 */
export function useTooltip(text: string): TooltipParts {
  const id = useId();
  const [place, setPlace] = useState<Place | null>(null);
  const timer = useRef<number | undefined>(undefined);
  const pressed = useRef(false);
  const pointerIn = useRef(false);
  const hide = useCallback(() => {
    window.clearTimeout(timer.current);
    setPlace(null);
  }, []);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  // Escape closes it wherever focus is (WCAG 1.4.13: dismissable without moving the pointer).
  useEffect(() => {
    if (!place) return;
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key === "Escape") hide();
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [place, hide]);

  const press = () => {
    pressed.current = true;
    hide();
  };
  return {
    trigger: {
      "aria-describedby": place ? id : undefined,
      "data-tooltip": text,
      onPointerEnter: (event) => {
        pointerIn.current = true;
        if (pressed.current) return;
        const el = event.currentTarget;
        window.clearTimeout(timer.current);
        timer.current = window.setTimeout(() => setPlace(placeUnder(el)), SHOW_AFTER);
      },
      onPointerLeave: () => {
        pointerIn.current = false;
        pressed.current = false;
        hide();
      },
      onPointerDown: press,
      onFocus: (event) => {
        // The keyboard's focus only: a click focuses too, and its press has hidden the tooltip.
        let keyboard = false;
        try {
          keyboard = event.currentTarget.matches(":focus-visible");
        } catch {
          keyboard = false;
        }
        if (keyboard && !pressed.current) setPlace(placeUnder(event.currentTarget));
      },
      onBlur: () => {
        // A keyboard press is forgotten once focus moves on (the pointer's lasts until it leaves).
        if (!pointerIn.current) pressed.current = false;
        hide();
      },
      onKeyDown: (event) => {
        if (event.key === "Enter" || event.key === " ") press();
      },
    },
    tooltip: place ? createPortal(<Bubble id={id} text={text} place={place} />, document.body) : null,
  };
}

/** A radio's label with a tooltip of the app's own (a segmented control's option): `tip` replaces a `title`. */
export function TipLabel({ tip, children, ...props }: LabelHTMLAttributes<HTMLLabelElement> & { tip: string }) {
  const { trigger, tooltip } = useTooltip(tip);
  return (
    <label {...props} {...trigger}>
      {children}
      {tooltip}
    </label>
  );
}

/** A button with a tooltip of the app's own: `tip` replaces a `title`. */
export function TipButton({ tip, children, onKeyDown, ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { tip: string }) {
  const { trigger, tooltip } = useTooltip(tip);
  return (
    <>
      <button
        type="button"
        {...props}
        {...trigger}
        // A control described by something of its own (a refusal's reason) keeps it.
        aria-describedby={[props["aria-describedby"], trigger["aria-describedby"]].filter(Boolean).join(" ") || undefined}
        onKeyDown={(event) => {
          trigger.onKeyDown(event);
          onKeyDown?.(event);
        }}
      >
        {children}
      </button>
      {tooltip}
    </>
  );
}
