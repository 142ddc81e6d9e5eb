import { useEffect, useId, useRef, useState, type KeyboardEvent, type Ref } from "react";
import { TipButton } from "./Tooltip";
import { SlashPalette, commandOf, filterCommands, optionId, type PaletteCommand } from "./SlashPalette";
import { MentionPalette, mentionAt, mentionOptionId, mentionText, mentionedPaths } from "./MentionPalette";
import { useMentionFinder } from "../hooks/useMentionFinder";
import type { WorkspaceFile } from "../bindings/WorkspaceFile";

interface ComposerProps {
  value: string;
  onChange: (value: string) => void;
  onSend: (text: string) => void;
  onStop: () => void;
  running: boolean;
  disabled?: boolean;
  disabledReason?: string;
  textareaRef?: Ref<HTMLTextAreaElement>;
  /** A tool call waiting for the person, offered as a way to reach its prompt. */
  /** `alwaysOffered`: the card offers "Always allow" (its R key). */
  waitingApproval?: { summary: string; alwaysOffered?: boolean; onReview: () => void };
  /**
   * The slash commands offered after a `/` at the start (built-ins and prompt files); none: no
   * palette, and no command is refused here (the app still refuses unknown ones).
   */
  commands?: readonly PaletteCommand[];
  /** The built-ins that cannot run now, by name, with why (typed, they say so and are not sent). */
  unavailable?: ReadonlyMap<string, string>;
  /** The palette opened: the commands may be read again (a prompt file may have changed). */
  onPaletteOpen?: () => void;
  /** The workspace paths matching what follows an `@` (`find_workspace_files`); none: no `@` finder. */
  findFiles?: (query: string) => Promise<WorkspaceFile[]>;
}

/**
 * Multi-line input: Enter sends, Shift+Enter adds a line, `/compact [focus]` compacts. A `/` at the
 * start opens the palette of slash commands (an ARIA combobox: arrows move, Enter or Tab choose,
 * Escape closes, typing filters); a `/name` no command has is not sent. An `@` at the start or after
 * whitespace opens the file finder the same way: the chosen path becomes `@path` in the text (a
 * folder opens its own paths next), and the paths chosen that the text still mentions are listed
 * as what the message will attach.
 */
export function Composer({
  value,
  onChange,
  onSend,
  onStop,
  running,
  disabled,
  disabledReason,
  textareaRef,
  waitingApproval,
  commands,
  unavailable,
  onPaletteOpen,
  findFiles,
}: ComposerProps) {
  const local = useRef<HTMLTextAreaElement | null>(null);
  const listId = useId();
  const [dismissed, setDismissed] = useState(false);
  const [active, setActive] = useState(0);
  // Typing the name: a `/` first and no whitespace yet.
  const open = commands !== undefined && !disabled && !dismissed && value.startsWith("/") && !/\s/.test(value);
  const matches = open ? filterCommands(commands, value.slice(1)) : [];
  const current = Math.min(active, Math.max(0, matches.length - 1));
  const [caret, setCaret] = useState(0);
  const [mentionDismissed, setMentionDismissed] = useState<number | null>(null);
  const [chosenPaths, setChosenPaths] = useState<string[]>([]);
  const mention = findFiles && !disabled && !open ? mentionAt(value, caret) : null;
  const mentionOpen = mention !== null && mentionDismissed !== mention.start;
  const files = useMentionFinder(findFiles, mentionOpen && mention ? mention.query : null);
  const fileMatches = mentionOpen ? (files ?? []) : [];
  const currentFile = Math.min(active, Math.max(0, fileMatches.length - 1));
  const mentioned = mentionedPaths(value);
  const attaching = chosenPaths.filter((path) => mentioned.includes(path));
  const wasOpen = useRef(false);
  useEffect(() => {
    if (open && !wasOpen.current) onPaletteOpen?.();
    wasOpen.current = open;
  }, [open, onPaletteOpen]);
  useEffect(() => {
    const el = local.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, 240)}px`;
  }, [value]);
  const named = commandOf(value);
  const known = named && commands ? commands.find((c) => c.name === named.name) : undefined;
  const offReason = named ? unavailable?.get(named.name) : undefined;
  const unknown = named !== null && commands !== undefined && known === undefined && offReason === undefined;
  const canSend = !disabled && !running && value.trim().length > 0 && !unknown && offReason === undefined;
  const send = () => {
    if (canSend) onSend(value.trim());
  };
  const isCommand = named?.name === "compact";
  const hint =
    offReason && named
    ? `/${named.name} cannot run now: ${offReason}`
    : unknown && named
    ? `There is no /${named.name} command: pick one from the list (type /), or add ${named.name}.md to the workspace's .strata/commands folder.`
    : isCommand
      ? "Compacts the history now; text after /compact guides the summary."
      : known
        ? `/${known.name}: ${known.description}`
        : `Enter to send · Shift+Enter for a new line · / for commands${findFiles ? " · @ for files" : ""}`;
  const change = (next: string, nextCaret = next.length) => {
    if (!next.startsWith("/")) setDismissed(false);
    setActive(0);
    setCaret(nextCaret);
    // Escape closes the finder for that one mention; a new one opens it again.
    if (mentionAt(next, nextCaret)?.start !== mentionDismissed) setMentionDismissed(null);
    onChange(next);
  };
  const chooseFile = (file: WorkspaceFile) => {
    if (!mention) return;
    // A folder keeps the finder open on its own paths; a file ends the mention with a space.
    const inserted = file.is_dir ? mentionText(file.path) : `${mentionText(file.path)} `;
    const next = value.slice(0, mention.start) + inserted + value.slice(caret);
    const nextCaret = mention.start + inserted.length;
    setChosenPaths((held) => (held.includes(file.path) ? held : [...held, file.path]));
    change(next, nextCaret);
    const el = local.current;
    if (el) {
      el.focus();
      requestAnimationFrame(() => el.setSelectionRange(nextCaret, nextCaret));
    }
  };
  const choose = (command: PaletteCommand) => {
    change(`/${command.name} `);
    local.current?.focus();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.nativeEvent.isComposing) return;
    if (mentionOpen && mention) {
      const taken = listKey(event, fileMatches.length, currentFile, {
        move: setActive,
        close: () => setMentionDismissed(mention.start),
        choose: (index) => {
          const chosen = fileMatches[index];
          if (chosen) chooseFile(chosen);
        },
      });
      if (taken) return;
    }
    if (open) {
      const taken = listKey(event, matches.length, current, {
        move: setActive,
        close: () => setDismissed(true),
        choose: (index) => {
          const chosen = matches[index];
          if (!chosen) return;
          // The whole name typed already: Enter runs it, as it would with the palette closed.
          if (event.key === "Enter" && value === `/${chosen.name}`) send();
          else choose(chosen);
        },
      });
      if (taken) return;
    }
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      send();
    }
  };
  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <label htmlFor="composer-input" className="visually-hidden">
        Message
      </label>
      {open && <SlashPalette id={listId} commands={matches} active={current} onChoose={choose} onActivate={setActive} />}
      {mentionOpen && (
        <MentionPalette id={listId} files={files} active={currentFile} onChoose={chooseFile} onActivate={setActive} />
      )}
      <textarea
        id="composer-input"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open || mentionOpen}
        aria-controls={open || mentionOpen ? listId : undefined}
        aria-activedescendant={
          open && matches.length > 0
            ? optionId(listId, current)
            : mentionOpen && fileMatches.length > 0
              ? mentionOptionId(listId, currentFile)
              : undefined
        }
        ref={(el) => {
          local.current = el;
          if (typeof textareaRef === "function") textareaRef(el);
          else if (textareaRef) textareaRef.current = el;
        }}
        rows={1}
        value={value}
        disabled={disabled}
        placeholder={disabled ? disabledReason : "Ask Strata to work in this folder…"}
        onChange={(event) => change(event.target.value, event.target.selectionStart ?? event.target.value.length)}
        onSelect={(event) => setCaret(event.currentTarget.selectionStart ?? 0)}
        onKeyDown={onKeyDown}
        aria-describedby="composer-hint"
      />
      {attaching.length > 0 && (
        <ul className="mention-chips" aria-label="Files this message attaches">
          {attaching.map((path) => (
            <li key={path} className="badge mention-chip" title={path}>
              {path}
            </li>
          ))}
        </ul>
      )}
      <div className="composer-bar">
        {waitingApproval ? (
          <span className="approval-waiting" role="status">
            {/* One line: a long or hostile command must not push the transcript (and its full approval card) away. */}
            <span className="approval-waiting-summary">Waiting for your approval: {waitingApproval.summary}</span>
            <span
              className="approval-waiting-keys"
              title={waitingApproval.alwaysOffered ? "Allow once, allow for the session, always allow, deny" : "Allow once, allow for the session, deny"}
            >
              <kbd>Y</kbd> <kbd>A</kbd> {waitingApproval.alwaysOffered && <kbd>R</kbd>} <kbd>N</kbd>
            </span>
            <button type="button" className="button small" onClick={waitingApproval.onReview}>
              Review
            </button>
          </span>
        ) : (
          /* One line beside the button (a narrow chat cuts it with an ellipsis; the tooltip has it all). */
          <span id="composer-hint" className={`composer-hint${unknown || offReason ? " error" : ""}`} title={hint}>
            {hint}
          </span>
        )}
        {running ? (
          <TipButton className="button danger" onClick={onStop} tip="Stop (Esc)">
            <span className="stop-square" aria-hidden="true" /> Stop
          </TipButton>
        ) : (
          <button type="submit" className="button primary" disabled={!canSend}>
            {isCommand ? "Compact" : "Send"}
          </button>
        )}
      </div>
    </form>
  );
}

/**
 * A key for an open listbox of `count` options whose `current` is active: Escape closes, the
 * arrows move (wrapping), Tab or Enter choose; whether the key was taken (and kept from the field).
 */
function listKey(
  event: KeyboardEvent<HTMLTextAreaElement>,
  count: number,
  current: number,
  on: { move: (index: number) => void; close: () => void; choose: (index: number) => void },
): boolean {
  const arrow = event.key === "ArrowDown" || event.key === "ArrowUp";
  const chooses = event.key === "Tab" || (event.key === "Enter" && !event.shiftKey);
  if (event.key !== "Escape" && !(count > 0 && (arrow || chooses))) return false;
  event.preventDefault();
  event.stopPropagation();
  if (event.key === "Escape") on.close();
  else if (arrow) on.move((current + (event.key === "ArrowDown" ? 1 : count - 1)) % count);
  else on.choose(current);
  return true;
}
