import { useEffect, useState } from "react";

interface CopyButtonProps {
  text: string;
  label?: string;
  /** What a screen reader hears, when the visible label alone is ambiguous. */
  ariaLabel?: string;
}

/** Copies `text` to the clipboard and says so for a moment. */
export function CopyButton({ text, label = "Copy", ariaLabel }: CopyButtonProps) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = window.setTimeout(() => setCopied(false), 1500);
    return () => window.clearTimeout(timer);
  }, [copied]);
  return (
    <button
      type="button"
      className="copy-button"
      aria-label={copied ? "Copied" : (ariaLabel ?? label)}
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => setCopied(true));
      }}
    >
      {copied ? "Copied" : label}
    </button>
  );
}
