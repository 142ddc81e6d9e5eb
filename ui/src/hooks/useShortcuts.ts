import { useEffect, useRef } from "react";

export interface Shortcuts {
  newSession: () => void;
  focusComposer: () => void;
  toggleConsole: () => void;
  toggleChanges: () => void;
  toggleSidebar: () => void;
  openSettings: () => void;
  showShortcuts: () => void;
  commandPalette: () => void;
  stop: () => void;
}

/** A shortcut's name: what it does, for the list below and the command palette. */
export type ShortcutName = keyof Shortcuts | "send" | "find" | "approve";

/** The app's keyboard shortcuts: Ctrl+N, Ctrl+L, Ctrl+B, Ctrl+K, Ctrl+Shift+D, Ctrl+Shift+G, Ctrl+, "?" and Esc. */
export function matchShortcut(event: KeyboardEvent): keyof Shortcuts | null {
  const mod = event.ctrlKey || event.metaKey;
  const key = event.key.toLowerCase();
  if (mod && event.shiftKey && key === "d") return "toggleConsole";
  if (mod && event.shiftKey && key === "g") return "toggleChanges";
  if (mod && !event.shiftKey && key === "n") return "newSession";
  if (mod && !event.shiftKey && key === "l") return "focusComposer";
  if (mod && !event.shiftKey && key === "b") return "toggleSidebar";
  if (mod && !event.shiftKey && !event.altKey && key === "k") return "commandPalette";
  if (mod && key === ",") return "openSettings";
  if (isHelpShortcut(event)) return "showShortcuts";
  if (key === "escape" && !mod) return "stop";
  return null;
}

/** Ctrl+F (Cmd+F): find in the transcript, handled by the open conversation. */
export function isFindShortcut(event: KeyboardEvent): boolean {
  return (event.ctrlKey || event.metaKey) && !event.shiftKey && !event.altKey && event.key.toLowerCase() === "f";
}

/** Whether a key press goes into a field the person types in (a single-key shortcut then waits). */
export function typingIn(target: EventTarget | null): boolean {
  if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLElement && target.isContentEditable;
}

/** "?" outside a text field: the list of shortcuts. */
export function isHelpShortcut(event: KeyboardEvent): boolean {
  return event.key === "?" && !event.ctrlKey && !event.metaKey && !event.altKey && !typingIn(event.target);
}

/** Every keyboard shortcut, as the "?" dialog lists them. */
export const SHORTCUT_LIST: { name: ShortcutName; keys: string[]; does: string }[] = [
  { name: "commandPalette", keys: ["Ctrl", "K"], does: "Command palette: every action, session and setting by name" },
  { name: "newSession", keys: ["Ctrl", "N"], does: "New session" },
  { name: "focusComposer", keys: ["Ctrl", "L"], does: "Go to the message box" },
  { name: "send", keys: ["Enter"], does: "Send the message (Shift+Enter: a new line; / for commands, @ for files)" },
  { name: "find", keys: ["Ctrl", "F"], does: "Find in the transcript (Enter: next match, Shift+Enter: previous)" },
  { name: "toggleSidebar", keys: ["Ctrl", "B"], does: "Show or hide the sessions" },
  { name: "toggleConsole", keys: ["Ctrl", "Shift", "D"], does: "Show or hide the debug console" },
  { name: "toggleChanges", keys: ["Ctrl", "Shift", "G"], does: "Show or hide the Changes view (files changed, with diffs and restore)" },
  { name: "openSettings", keys: ["Ctrl", ","], does: "Open Settings" },
  { name: "approve", keys: ["Y"], does: "Allow a waiting tool call once (A: for the session, N: deny)" },
  { name: "stop", keys: ["Esc"], does: "Close a dialog, menu, drawer or the find bar; else stop the running turn" },
  { name: "showShortcuts", keys: ["?"], does: "This list of shortcuts" },
];

export function useShortcuts(handlers: Shortcuts) {
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const name = matchShortcut(event);
      if (!name) return;
      // Escape belongs to open dialogs and menus first, and "?" does not open a dialog over one.
      if ((name === "stop" || name === "showShortcuts" || name === "commandPalette") && document.querySelector("[role=dialog], [role=menu]")) return;
      if (name !== "stop") event.preventDefault();
      latest.current[name]();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}
