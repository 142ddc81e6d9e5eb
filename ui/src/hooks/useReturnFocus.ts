import { useEffect, useLayoutEffect, type RefObject } from "react";

/**
 * Where focus goes when what had it before a dialog, menu or drawer opened is gone (the session
 * row it was deleted from): the message box when it takes input, else the transcript, else the
 * sidebar's New session, else the main landmark. Never nowhere (the page's body).
 */
const FALLBACKS = ["#composer-input:not(:disabled)", "[role=log]", ".new-session", "main"];

/** Focuses `previous` when it is still in the page, else the first fallback there is outside `closing`. */
export function restoreFocus(previous: HTMLElement | null, closing?: Element | null) {
  if (previous?.isConnected && !closing?.contains(previous)) {
    previous.focus();
    if (document.activeElement === previous) return;
  }
  for (const selector of FALLBACKS) {
    const el = Array.from(document.querySelectorAll<HTMLElement>(selector)).find((candidate) => !closing?.contains(candidate));
    if (!el) continue;
    if (el.tabIndex < 0 && !el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
    el.focus();
    if (document.activeElement === el) return;
  }
}

/**
 * Gives focus back when the element in `container` closes: to what had it when it opened, if
 * focus was inside the closing element (or nowhere) at that moment. Nothing else is moved, so
 * closing a panel the person is not in does not take them out of what they are typing.
 */
export function useReturnFocus(container: RefObject<HTMLElement | null>) {
  useLayoutEffect(() => {
    const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    const node = container.current;
    return () => {
      const active = document.activeElement;
      const lost = !active || active === document.body || (node?.contains(active) ?? false);
      if (lost) restoreFocus(opener, node);
    };
  }, [container]);
}

/**
 * Keeps focus in the page: when the element that had it is removed (its session row deleted, a
 * card replaced) and focus falls to the page's body, it goes to the first fallback instead.
 */
export function useFocusKeeper() {
  useEffect(() => {
    let last: Element | null = null;
    const onFocusIn = (event: FocusEvent) => {
      last = event.target instanceof Element ? event.target : null;
    };
    const observer = new MutationObserver(() => {
      if (last && !last.isConnected && (document.activeElement === document.body || document.activeElement === null)) {
        last = null;
        restoreFocus(null);
      }
    });
    document.addEventListener("focusin", onFocusIn);
    observer.observe(document.body, { childList: true, subtree: true });
    return () => {
      document.removeEventListener("focusin", onFocusIn);
      observer.disconnect();
    };
  }, []);
}
