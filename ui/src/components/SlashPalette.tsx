import "./SlashPalette.css";

/** Where a command of the palette comes from: the app's own, or a prompt file's folder. */
export type PaletteSource = "built_in" | "workspace" | "user";

/** One command the composer offers after a `/` (descriptions come from files: shown as text only). */
export interface PaletteCommand {
  name: string;
  description: string;
  argumentHint?: string;
  source: PaletteSource;
  /** A prompt file's path as shown, for the option's tooltip. */
  file?: string;
}

const BADGES: Record<PaletteSource, string> = {
  built_in: "built-in",
  workspace: "workspace",
  user: "user",
};

/** A command name's characters, as the app reads them (`[A-Za-z0-9_-]`, 1 to 32). */
export const COMMAND_NAME = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * What the composer's text names, when it starts with `/name` (a valid command name) followed by
 * nothing or whitespace: the name and the trimmed rest. A path (`/src/main.rs …`) names nothing.
 */
export function commandOf(text: string): { name: string; args: string } | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith("/")) return null;
  const rest = trimmed.slice(1);
  const space = rest.search(/\s/);
  const name = space === -1 ? rest : rest.slice(0, space);
  if (!COMMAND_NAME.test(name)) return null;
  return { name, args: space === -1 ? "" : rest.slice(space).trim() };
}

/** The commands whose name matches what was typed after the `/`: name prefixes first, then names containing it. */
export function filterCommands(commands: readonly PaletteCommand[], query: string): PaletteCommand[] {
  const q = query.toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(q));
  const contains = commands.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q));
  return [...starts, ...contains];
}

interface SlashPaletteProps {
  id: string;
  commands: readonly PaletteCommand[];
  active: number;
  onChoose: (command: PaletteCommand) => void;
  onActivate: (index: number) => void;
}

/** The option's id, for the composer's `aria-activedescendant`. */
export const optionId = (listId: string, index: number) => `${listId}-option-${index}`;

/**
 * The composer's list of slash commands (the listbox of an ARIA combobox whose input is the
 * composer's text field: focus stays there, the active option is announced through
 * `aria-activedescendant`). A click chooses; the pointer never steals focus from the field.
 */
export function SlashPalette({ id, commands, active, onChoose, onActivate }: SlashPaletteProps) {
  return (
    <ul id={id} role="listbox" aria-label="Commands" className="slash-palette">
      {commands.length === 0 ? (
        <li className="slash-empty" role="presentation">
          No command has that name. Prompt files go in the workspace's .strata/commands folder.
        </li>
      ) : (
        commands.map((command, index) => (
          <li
            key={`${command.source}:${command.name}`}
            id={optionId(id, index)}
            role="option"
            aria-selected={index === active}
            className={`slash-option${index === active ? " active" : ""}`}
            title={command.file}
            onMouseDown={(event) => event.preventDefault()}
            onMouseEnter={() => onActivate(index)}
            onClick={() => onChoose(command)}
          >
            <span className="slash-name">
              {`/${command.name}`}
              {command.argumentHint && <span className="slash-hint"> {command.argumentHint}</span>}
            </span>
            <span className="slash-description">{command.description}</span>
            <span className={`badge slash-badge slash-badge-${command.source}`}>{BADGES[command.source]}</span>
          </li>
        ))
      )}
    </ul>
  );
}
