import { Fragment, useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { filterActions, shortcutKeys, type PaletteAction, type PaletteMode } from "../commands/palette";
import { Modal } from "./Modal";
import "./CommandPalette.css";

/** At most this many options are drawn; typing narrows the rest. */
export const SHOWN_AT_MOST = 60;

const PLACEHOLDER: Record<PaletteMode, string> = {
  all: "Type an action, a setting or a session's title…",
  model: "Choose the profile this session talks to…",
  reasoning: "Choose how hard the model thinks…",
};

const TITLE: Record<PaletteMode, string> = {
  all: "Command palette",
  model: "Switch model or profile",
  reasoning: "Reasoning level",
};

interface CommandPaletteProps {
  mode: PaletteMode;
  /** The actions of `mode` (`appActions`). */
  actions: readonly PaletteAction[];
  onClose: () => void;
}

/**
 * Ctrl+K: every action of the app by name, in a dialog. Its text field is an ARIA combobox whose
 * listbox holds the matching actions (focus stays in the field; the active option is announced
 * through `aria-activedescendant`): the arrows move, Enter runs, Escape closes and focus goes back
 * where it was. An action that cannot run now is listed with why, and Enter leaves it be.
 */
export function CommandPalette({ mode, actions, onClose }: CommandPaletteProps) {
  const listId = useId();
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const list = useRef<HTMLUListElement>(null);
  // A mode change (Switch model… chosen) starts its list afresh.
  useEffect(() => {
    setQuery("");
    setActive(0);
  }, [mode]);
  const matches = filterActions(actions, query);
  const shown = matches.slice(0, SHOWN_AT_MOST);
  const current = Math.min(active, Math.max(0, shown.length - 1));
  const optionId = (index: number) => `${listId}-option-${index}`;
  useEffect(() => {
    list.current?.querySelector(`[id="${CSS.escape(optionId(current))}"]`)?.scrollIntoView?.({ block: "nearest" });
  });

  const run = (action: PaletteAction | undefined) => {
    if (!action || action.disabled) return;
    // Closed first, so focus is back where it was before the action moves it (or opens a dialog).
    if (!action.keepsOpen) onClose();
    window.setTimeout(action.run, 0);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.nativeEvent.isComposing) return;
    const count = shown.length;
    const move = (to: number) => {
      event.preventDefault();
      if (count > 0) setActive((to + count) % count);
    };
    switch (event.key) {
      case "ArrowDown":
        return move(current + 1);
      case "ArrowUp":
        return move(current - 1);
      case "PageDown":
        return move(Math.min(current + 8, count - 1));
      case "PageUp":
        return move(Math.max(current - 8, 0));
      case "Enter":
        event.preventDefault();
        return run(shown[current]);
    }
  };

  const grouped = query.trim() === "";
  return (
    <Modal title={TITLE[mode]} onClose={onClose} className="command-palette">
      <input
        className="command-palette-input"
        type="text"
        role="combobox"
        aria-label={TITLE[mode]}
        aria-expanded="true"
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={shown.length > 0 ? optionId(current) : undefined}
        placeholder={PLACEHOLDER[mode]}
        value={query}
        spellCheck={false}
        autoComplete="off"
        data-autofocus
        onChange={(event) => {
          setQuery(event.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
      />
      <ul id={listId} ref={list} role="listbox" aria-label="Actions" className="command-palette-list">
        {shown.length === 0 && (
          <li role="presentation" className="command-palette-empty">
            Nothing matches “{query}”.
          </li>
        )}
        {shown.map((action, index) => {
          const keys = shortcutKeys(action.shortcut);
          const heading = grouped && action.group !== shown[index - 1]?.group;
          return (
            <Fragment key={action.id}>
              {heading && (
                <li role="presentation" className="command-palette-group">
                  {action.group}
                </li>
              )}
              <li
                id={optionId(index)}
                role="option"
                aria-selected={index === current}
                aria-disabled={action.disabled ? true : undefined}
                className={`command-palette-option${index === current ? " active" : ""}${action.disabled ? " disabled" : ""}`}
                onMouseDown={(event) => event.preventDefault()}
                onMouseMove={() => index !== current && setActive(index)}
                onClick={() => run(action)}
              >
                <span className="command-palette-text">
                  <span className="command-palette-title">{action.title}</span>
                  {action.disabled ? (
                    <span className="command-palette-hint unavailable">Unavailable: {action.disabled}</span>
                  ) : (
                    action.hint && <span className="command-palette-hint">{action.hint}</span>
                  )}
                </span>
                {!grouped && <span className="command-palette-tag">{action.group}</span>}
                {keys && (
                  <span className="command-palette-keys" aria-label={`Shortcut ${keys.join("+")}`}>
                    {keys.map((key) => (
                      <kbd key={key}>{key}</kbd>
                    ))}
                  </span>
                )}
              </li>
            </Fragment>
          );
        })}
        {matches.length > shown.length && (
          <li role="presentation" className="command-palette-more">
            {matches.length - shown.length} more: type to narrow the list.
          </li>
        )}
      </ul>
      <p className="command-palette-footer" aria-hidden="true">
        <kbd>↑</kbd> <kbd>↓</kbd> move · <kbd>Enter</kbd> run · <kbd>Esc</kbd> close
      </p>
    </Modal>
  );
}
