import { useEffect, useState } from "react";

/** Below this window width the console overlays the chat as a drawer and the sidebar collapses. */
export const DRAWER_BELOW = 1200;
/** The conversation never gets narrower than this while the console is docked beside it. */
export const CHAT_MIN_WIDTH = 520;
/** The session sidebar's width when it is docked (`.sidebar` in app.css). */
export const SIDEBAR_WIDTH = 280;
/** The console's own bounds, whatever the window. */
export const CONSOLE_MIN_WIDTH = 280;
export const CONSOLE_MAX_WIDTH = 900;
/** What a drawer leaves of the chat beside it, so the person sees what it covers and can click back. */
const DRAWER_MARGIN = 64;

const NARROW_QUERY = `(max-width: ${DRAWER_BELOW - 0.02}px)`;

function narrowNow(): boolean {
  return typeof window.matchMedia === "function" && window.matchMedia(NARROW_QUERY).matches;
}

/** Whether the window is narrower than {@link DRAWER_BELOW}, following resizes. */
export function useNarrowWindow(): boolean {
  const [narrow, setNarrow] = useState(narrowNow);
  useEffect(() => {
    if (typeof window.matchMedia !== "function") return;
    const query = window.matchMedia(NARROW_QUERY);
    const update = () => setNarrow(query.matches);
    update();
    query.addEventListener("change", update);
    return () => query.removeEventListener("change", update);
  }, []);
  return narrow;
}

/** The window's inner width, following resizes. */
export function useWindowWidth(): number {
  const [width, setWidth] = useState(() => window.innerWidth);
  useEffect(() => {
    const update = () => setWidth(window.innerWidth);
    window.addEventListener("resize", update);
    return () => window.removeEventListener("resize", update);
  }, []);
  return width;
}

/**
 * The widest the console may be in a window `windowWidth` wide: docked, what leaves the chat
 * {@link CHAT_MIN_WIDTH} beside the sidebar (when shown); as a drawer, all but a margin of the
 * chat. Never under {@link CONSOLE_MIN_WIDTH}, never over {@link CONSOLE_MAX_WIDTH}.
 */
export function consoleMaxWidth(windowWidth: number, { drawer, sidebar }: { drawer: boolean; sidebar: boolean }): number {
  const room = drawer ? windowWidth - DRAWER_MARGIN : windowWidth - (sidebar ? SIDEBAR_WIDTH : 0) - CHAT_MIN_WIDTH;
  return Math.max(CONSOLE_MIN_WIDTH, Math.min(CONSOLE_MAX_WIDTH, Math.floor(room)));
}

/** `width` held within the console's bounds for a maximum of `max`. */
export function clampConsoleWidth(width: number, max: number): number {
  return Math.max(CONSOLE_MIN_WIDTH, Math.min(max, Math.round(width)));
}
