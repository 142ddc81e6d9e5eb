import { useEffect, useRef } from "react";

export interface Shortcuts {
  newSession: () => void;
  focusComposer: () => void;
  toggleConsole: () => void;
  toggleSidebar: () => void;
  openSettings: () => void;
  stop: () => void;
}

/** The app's keyboard shortcuts: Ctrl+N, Ctrl+L, Ctrl+B, Ctrl+Shift+D, Ctrl+, and Esc. */
export function matchShortcut(event: KeyboardEvent): keyof Shortcuts | null {
  const mod = event.ctrlKey || event.metaKey;
  const key = event.key.toLowerCase();
  if (mod && event.shiftKey && key === "d") return "toggleConsole";
  if (mod && !event.shiftKey && key === "n") return "newSession";
  if (mod && !event.shiftKey && key === "l") return "focusComposer";
  if (mod && !event.shiftKey && key === "b") return "toggleSidebar";
  if (mod && key === ",") return "openSettings";
  if (key === "escape" && !mod) return "stop";
  return null;
}

export function useShortcuts(handlers: Shortcuts) {
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const name = matchShortcut(event);
      if (!name) return;
      // Escape belongs to open dialogs and menus first.
      if (name === "stop" && document.querySelector("[role=dialog], [role=menu]")) return;
      if (name !== "stop") event.preventDefault();
      latest.current[name]();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}
