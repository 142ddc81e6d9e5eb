import { useEffect, useRef } from "react";
import type { ApprovalDecision } from "../api/types";

const KEYS: Record<string, ApprovalDecision> = { y: "allow_once", a: "allow_for_session", r: "always_allow", n: "deny" };

/**
 * The decision a key press makes while an approval waits, or null when the key is the person's
 * to type: a modified key, a key in a text field other than the empty composer, in a dialog or menu.
 */
export function approvalKey(event: KeyboardEvent, composer: HTMLElement | null, alwaysOffered = false): ApprovalDecision | null {
  // A held key repeats: one decision per press.
  if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing || event.repeat) return null;
  const decision = KEYS[event.key.toLowerCase()];
  if (!decision || (decision === "always_allow" && !alwaysOffered)) return null;
  const target = event.target instanceof Element ? event.target : null;
  if (target?.closest("[role=dialog], [role=menu]") || document.querySelector("[aria-modal=true]")) return null;
  if (target && target === composer) return (composer as HTMLTextAreaElement).value === "" ? decision : null;
  if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return null;
  if (target instanceof HTMLElement && target.isContentEditable) return null;
  return decision;
}

/**
 * Y / A / N (and R when "Always allow" is offered) answer the waiting approval wherever the
 * keyboard is (the card shows them), so a person whose cursor is still in the empty composer does
 * not type "y" into it; focus then goes back to the composer. `callId` is the waiting call, null
 * when none waits.
 */
export function useApprovalKeys(
  callId: string | null,
  decide: (callId: string, decision: ApprovalDecision) => void,
  composer: { current: HTMLTextAreaElement | null },
  alwaysOffered = false,
) {
  const latest = useRef(decide);
  useEffect(() => {
    latest.current = decide;
  });
  useEffect(() => {
    if (callId === null) return;
    const onKey = (event: KeyboardEvent) => {
      const decision = approvalKey(event, composer.current, alwaysOffered);
      if (!decision) return;
      event.preventDefault();
      latest.current(callId, decision);
      composer.current?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [callId, composer, alwaysOffered]);
}
