/** One labelled text field of a settings section's add form; Enter submits the form. */
export function AddFormField({
  id,
  label,
  value,
  placeholder,
  className = "",
  maxLength,
  onChange,
  onEnter,
}: {
  id: string;
  label: string;
  value: string;
  placeholder: string;
  className?: string;
  maxLength?: number;
  onChange: (value: string) => void;
  onEnter: () => void;
}) {
  return (
    <div className={`field rules-add-field ${className}`.trim()}>
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        type="text"
        className="text-input"
        value={value}
        placeholder={placeholder}
        spellCheck={false}
        maxLength={maxLength}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter") {
            event.preventDefault();
            onEnter();
          }
        }}
      />
    </div>
  );
}
