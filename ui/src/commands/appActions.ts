import type { ProfileView, SessionListItem } from "../api/types";
import type { ReasoningEffort } from "../bindings/ReasoningEffort";
import { REASONING_OPTIONS } from "../components/ReasoningControl";
import type { Shortcuts } from "../hooks/useShortcuts";
import { sessionTitle } from "../lib/lineage";
import { NO_SESSION, type SessionCommands } from "./sessionCommands";
import type { PaletteAction, PaletteMode } from "./palette";

/** The Settings dialog's sections, by the heading each shows (the palette scrolls to it). */
export const SETTINGS_SECTIONS = [
  { heading: "Provider profiles", keywords: "model key endpoint api" },
  { heading: "Approval policy and sandbox", keywords: "permissions network" },
  { heading: "Rules", keywords: "allow deny" },
  { heading: "Workspace network", keywords: "domains allow-list proxy network.toml" },
  { heading: "MCP servers", keywords: "tools" },
  { heading: "Other agents' sessions", keywords: "import claude codex" },
  { heading: "Context management", keywords: "compaction threshold" },
  { heading: "Theme", keywords: "dark light appearance" },
] as const;

export interface AppActionInputs {
  /** The handlers the keyboard shortcuts run (the palette runs the same ones). */
  shortcuts: Shortcuts;
  session: SessionCommands;
  sessions: readonly SessionListItem[];
  openId: string | null;
  openSession: (id: string) => void;
  profiles: readonly ProfileView[];
  /** The open session's profile, if known. */
  currentProfile?: string;
  reasoning: ReasoningEffort | null;
  running: boolean;
  theme: "light" | "dark";
  toggleTheme: () => void;
  openSettingsAt: (heading: string) => void;
  /** Opens the find bar over the transcript (what Ctrl+F does). */
  find: () => void;
  /** Moves the palette to the choices of `/model` or `/reasoning`. */
  showChoices: (mode: PaletteMode) => void;
}

const when = (ok: boolean, why: string) => (ok ? undefined : why);

/** The profiles to switch the open session to. */
function profileChoices(inputs: AppActionInputs): PaletteAction[] {
  const { profiles, currentProfile, session } = inputs;
  return profiles.map((profile) => ({
    id: `profile:${profile.id}`,
    title: `${profile.label} · ${profile.model}`,
    group: "Switch model or profile",
    keywords: `${profile.id} model profile`,
    hint:
      profile.id === currentProfile
        ? "The session's profile now"
        : `From the next turn the whole history goes to ${profile.kind === "demo" ? "the offline demo model" : (profile.base_url ?? "its default endpoint")}`,
    disabled: session.model.disabled ?? (profile.id === currentProfile ? "The session already uses it." : undefined),
    run: () => session.model.run(profile.id),
  }));
}

function reasoningChoices(inputs: AppActionInputs): PaletteAction[] {
  const { session, reasoning } = inputs;
  return REASONING_OPTIONS.map((option) => ({
    id: `reasoning:${option.value}`,
    title: `Reasoning: ${option.label}`,
    group: "Reasoning",
    keywords: `${option.value} thinking effort`,
    hint: option.value === reasoning ? `${option.hint ?? ""} (now)` : option.hint,
    disabled: session.reasoning.disabled,
    run: () => session.reasoning.run(option.value),
  }));
}

/**
 * Every action of the app, declared once: the shortcuts' own handlers (each listed with its
 * keys), the session's commands (the same the composer's `/name` runs), the settings sections,
 * the theme, the model and reasoning choices, and the sessions to switch to. `mode` narrows it to
 * what `/model` or `/reasoning` offer.
 */
export function appActions(inputs: AppActionInputs, mode: PaletteMode): PaletteAction[] {
  if (mode === "model") return profileChoices(inputs);
  if (mode === "reasoning") return reasoningChoices(inputs);
  const { shortcuts, session, openId, running } = inputs;
  const open = openId !== null;
  const sessionAction = (id: keyof SessionCommands, title: string, keywords?: string): PaletteAction => ({
    id,
    title,
    group: "Session",
    keywords: `/${id} ${keywords ?? ""}`,
    disabled: session[id].disabled,
    run: () => session[id].run(""),
  });
  const actions: PaletteAction[] = [
    { id: "new-session", title: "New session…", group: "Session", shortcut: "newSession", run: shortcuts.newSession },
    sessionAction("clear", "New session in this folder", "clear fresh"),
    sessionAction("compact", "Compact the history now", "summarise"),
    sessionAction("undo", "Undo the latest compaction"),
    sessionAction("fork", "Fork from the latest message", "branch copy"),
    sessionAction("pin", "Pin the latest message", "keep verbatim"),
    {
      id: "choose-model",
      title: "Switch model or profile…",
      group: "Session",
      keywords: "/model provider",
      disabled: session.model.disabled,
      keepsOpen: true,
      run: () => inputs.showChoices("model"),
    },
    {
      id: "choose-reasoning",
      title: "Reasoning level…",
      group: "Session",
      keywords: "/reasoning thinking effort",
      disabled: session.reasoning.disabled,
      keepsOpen: true,
      run: () => inputs.showChoices("reasoning"),
    },
    { id: "stop", title: "Stop the running turn", group: "Session", shortcut: "stop", disabled: when(running, "No turn is running."), run: shortcuts.stop },
    { id: "find", title: "Find in the transcript", group: "Session", shortcut: "find", keywords: "search", disabled: when(open, NO_SESSION), run: inputs.find },
    { id: "focus-composer", title: "Go to the message box", group: "Session", shortcut: "focusComposer", disabled: when(open, NO_SESSION), run: shortcuts.focusComposer },
    { id: "toggle-sidebar", title: "Show or hide the sessions", group: "View", shortcut: "toggleSidebar", keywords: "sidebar library", run: shortcuts.toggleSidebar },
    { id: "toggle-console", title: "Show or hide the debug console", group: "View", shortcut: "toggleConsole", keywords: "context gauge", run: shortcuts.toggleConsole },
    { id: "toggle-changes", title: "Show or hide the Changes view", group: "View", shortcut: "toggleChanges", keywords: "diff files restore", disabled: when(open, NO_SESSION), run: shortcuts.toggleChanges },
    {
      id: "toggle-theme",
      title: inputs.theme === "dark" ? "Switch to the light theme" : "Switch to the dark theme",
      group: "View",
      keywords: "theme dark light toggle",
      run: inputs.toggleTheme,
    },
    { id: "shortcuts", title: "Keyboard shortcuts", group: "Help", shortcut: "showShortcuts", keywords: "keys help", run: shortcuts.showShortcuts },
    { id: "settings", title: "Open Settings", group: "Settings", shortcut: "openSettings", keywords: "preferences", run: shortcuts.openSettings },
    ...SETTINGS_SECTIONS.map(({ heading, keywords }) => ({
      id: `settings:${heading}`,
      title: `Settings: ${heading}`,
      group: "Settings",
      keywords,
      run: () => inputs.openSettingsAt(heading),
    })),
  ];
  const sessions = inputs.sessions
    .filter((row) => row.id !== openId)
    .map((row) => ({
      id: `session:${row.id}`,
      title: sessionTitle(row),
      group: "Switch to session",
      keywords: row.workspace,
      hint: row.workspace,
      run: () => inputs.openSession(row.id),
    }));
  return [...actions, ...sessions];
}
