import { useEffect, useRef, type RefObject } from "react";

/**
 * While `open`, a mouse press outside every element of `inside` calls `onOutside`: how the app's
 * menus, list boxes and popovers close on a click elsewhere.
 */
export function useClickOutside(open: boolean, inside: readonly RefObject<HTMLElement | null>[], onOutside: () => void) {
  // The latest callback and refs, so the listener is added once per opening.
  const latest = useRef({ inside, onOutside });
  latest.current = { inside, onOutside };
  useEffect(() => {
    if (!open) return;
    const press = (event: MouseEvent) => {
      const target = event.target as Node;
      if (!latest.current.inside.some((ref) => ref.current?.contains(target))) latest.current.onOutside();
    };
    document.addEventListener("mousedown", press);
    return () => document.removeEventListener("mousedown", press);
  }, [open]);
}
