import type { ReasoningEffort } from "../bindings/ReasoningEffort";
import { Listbox, type ListboxOption } from "./Listbox";
import { useTooltip } from "./Tooltip";

/** Why the control is disabled for a model the catalog says does not reason. */
export const CANNOT_REASON = "This model takes no reasoning setting; switch to a model that reasons to choose one.";
/** Why it is disabled while a turn runs (the setting applies from the next round a turn starts). */
export const REASONING_WHILE_RUNNING = "Reasoning can be changed once this turn ends.";
export const REASONING_HINT = "How hard the model thinks from the next turn on (OpenAI's effort, Claude's thinking budget).";

/** The reasoning levels, as the list box, the palette and `/reasoning` offer them. */
export const REASONING_OPTIONS: readonly ListboxOption<ReasoningEffort>[] = [
  { value: "off", label: "Off", hint: "No thinking, or the model's least" },
  { value: "low", label: "Low", hint: "A little thinking" },
  { value: "medium", label: "Medium", hint: "The usual amount" },
  { value: "high", label: "High", hint: "Thinks longer on hard steps" },
  { value: "max", label: "Max", hint: "The most the model offers" },
];

interface ReasoningControlProps {
  /** The setting in force; `null` when neither the session nor its profile set one. */
  value: ReasoningEffort | null;
  canReason: boolean;
  running: boolean;
  /** Why the session cannot be changed here now (another process writes it). */
  heldReason?: string;
  onChange: (effort: ReasoningEffort) => void;
}

/** The session's reasoning setting, beside the composer: a list box showing the current value. */
export function ReasoningControl({ value, canReason, running, heldReason, onChange }: ReasoningControlProps) {
  const disabled = !canReason || running || heldReason !== undefined;
  const tip = useTooltip(!canReason ? CANNOT_REASON : (heldReason ?? (running ? REASONING_WHILE_RUNNING : REASONING_HINT)));
  return (
    <div className="reasoning-control">
      <label htmlFor="reasoning-effort" className="reasoning-label">
        Reasoning
      </label>
      {/* The tooltip sits on a wrapper: a disabled button gets no pointer events in every engine. */}
      <span {...tip.trigger} className="reasoning-trigger">
        <Listbox<ReasoningEffort>
          id="reasoning-effort"
          value={value}
          options={REASONING_OPTIONS}
          onChange={onChange}
          placeholder="Default"
          disabled={disabled}
          aria-describedby={tip.trigger["aria-describedby"]}
        />
      </span>
      {tip.tooltip}
    </div>
  );
}
