import { useId, useRef, useState, type KeyboardEvent } from "react";
import { useClickOutside } from "../hooks/useClickOutside";

export interface ListboxOption<T extends string> {
  value: T;
  label: string;
  /** A second line, e.g. what the choice means. */
  hint?: string;
}

interface ListboxProps<T extends string> {
  /** The id of the button, for a `<label htmlFor>`. */
  id: string;
  /** `null`: no choice yet (the placeholder shows). */
  value: T | null;
  options: readonly ListboxOption<T>[];
  onChange: (value: T) => void;
  /** Shown when `value` is none of the options. */
  placeholder?: string;
  disabled?: boolean;
  "aria-describedby"?: string;
}

/**
 * The app's own drop-down (the WAI-ARIA "select-only combobox" pattern): a button that opens a
 * listbox. Arrow keys, Home and End move, typing jumps to an option by its first letters, Enter or
 * Space chooses, Escape and Tab close it; focus stays on the button, the active option is announced
 * through `aria-activedescendant`, and it follows the theme (the native `<select>` popup does not).
 */
export function Listbox<T extends string>({ id, value, options, onChange, placeholder = "Choose…", disabled, ...aria }: ListboxProps<T>) {
  const listId = useId();
  const [open, setOpen] = useState(false);
  const selectedIndex = options.findIndex((o) => o.value === value);
  const [active, setActive] = useState(Math.max(0, selectedIndex));
  const typed = useRef({ text: "", at: 0 });
  const root = useRef<HTMLDivElement>(null);
  const selected = options[selectedIndex];

  useClickOutside(open, [root], () => setOpen(false));

  const show = (index: number) => {
    setActive(Math.min(Math.max(index, 0), options.length - 1));
    setOpen(true);
  };
  const choose = (index: number) => {
    const option = options[index];
    if (option) onChange(option.value);
    setOpen(false);
  };
  const jumpTo = (key: string) => {
    const now = Date.now();
    typed.current = { text: now - typed.current.at < 700 ? typed.current.text + key : key, at: now };
    const prefix = typed.current.text.toLowerCase();
    const found = options.findIndex((o) => o.label.toLowerCase().startsWith(prefix));
    if (found !== -1) show(found);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    const handled = () => {
      event.preventDefault();
      event.stopPropagation();
    };
    switch (event.key) {
      case "ArrowDown":
        handled();
        show(open ? active + 1 : Math.max(0, selectedIndex));
        return;
      case "ArrowUp":
        handled();
        show(open ? active - 1 : Math.max(0, selectedIndex));
        return;
      case "Home":
        handled();
        show(0);
        return;
      case "End":
        handled();
        show(options.length - 1);
        return;
      case "Enter":
      case " ":
        handled();
        if (open) choose(active);
        else show(Math.max(0, selectedIndex));
        return;
      case "Escape":
        // Closes the list only; a second Escape reaches the dialog.
        if (open) {
          handled();
          setOpen(false);
        }
        return;
      case "Tab":
        setOpen(false);
        return;
      default:
        if (event.key.length === 1 && /\S/.test(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey) {
          handled();
          jumpTo(event.key);
        }
    }
  };

  const optionId = (index: number) => `${listId}-option-${index}`;
  return (
    <div className={`listbox${open ? " open" : ""}`} ref={root}>
      <button
        type="button"
        id={id}
        className="listbox-button"
        role="combobox"
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open ? optionId(active) : undefined}
        aria-describedby={aria["aria-describedby"]}
        disabled={disabled}
        onClick={() => (open ? setOpen(false) : show(Math.max(0, selectedIndex)))}
        onKeyDown={onKeyDown}
      >
        <span className="listbox-value">{selected?.label ?? placeholder}</span>
        <span className="listbox-chevron" aria-hidden="true">
          ▾
        </span>
      </button>
      <ul id={listId} role="listbox" className="listbox-options" aria-labelledby={id} hidden={!open} tabIndex={-1}>
        {options.map((option, index) => (
          <li
            key={option.value}
            id={optionId(index)}
            role="option"
            aria-selected={option.value === value}
            className={`listbox-option${index === active ? " active" : ""}`}
            // Keep focus on the button: choosing with the mouse must not blur it.
            onMouseDown={(event) => event.preventDefault()}
            onMouseEnter={() => setActive(index)}
            onClick={() => choose(index)}
          >
            <span>{option.label}</span>
            {option.hint && <span className="listbox-hint">{option.hint}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
