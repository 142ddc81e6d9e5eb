import { useCallback, useReducer, useRef, useState } from "react";
import * as api from "../api/commands";
import { toCommandFailure } from "../api/ipc";
import type { ApprovalDecision, SessionView } from "../api/types";
import { emptyTranscript, fromRecords, transcriptReducer } from "../state/transcript";

export type ConversationMode = "browse" | "live";

/** Parses `/compact [focus]`; `null` when the text is a normal message. */
export function parseCompactCommand(text: string): { focus?: string } | null {
  const match = /^\/compact(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return null;
  const focus = match[1]?.trim();
  return focus ? { focus } : {};
}

/** The open session: its snapshot, its transcript and the commands that drive it. */
export function useConversation(onChanged: () => void) {
  const [view, setView] = useState<SessionView | null>(null);
  const [mode, setMode] = useState<ConversationMode>("browse");
  const [transcript, dispatch] = useReducer(transcriptReducer, emptyTranscript);
  const [pendingFor, setPendingFor] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const current = useRef<string | null>(null);

  const open = useCallback(async (sessionId: string, nextMode: ConversationMode) => {
    current.current = sessionId;
    setLoadError(null);
    try {
      const snapshot = await api.openSession(sessionId);
      if (current.current !== sessionId) return;
      setView(snapshot);
      setMode(nextMode);
      dispatch({ type: "load", transcript: fromRecords(snapshot.records, snapshot.threshold) });
    } catch (error) {
      setLoadError(toCommandFailure(error).message);
    }
  }, []);

  const close = useCallback(() => {
    current.current = null;
    setView(null);
    dispatch({ type: "load", transcript: emptyTranscript });
  }, []);

  const send = useCallback(
    async (text: string) => {
      const sessionId = view?.summary.id;
      if (!sessionId) return;
      setMode("live");
      setPendingFor(sessionId);
      const onEvent = (envelope: Parameters<Parameters<typeof api.sendMessage>[2]>[0]) => {
        if (current.current === sessionId) dispatch({ type: "event", envelope });
      };
      try {
        const compact = parseCompactCommand(text);
        if (compact) {
          const outcome = await api.compactNow(sessionId, compact.focus, onEvent);
          if (outcome.skipped) dispatch({ type: "notice", text: outcome.skipped });
        } else {
          await api.sendMessage(sessionId, text, onEvent);
        }
      } catch (error) {
        if (current.current === sessionId) dispatch({ type: "error", message: toCommandFailure(error).message });
      } finally {
        setPendingFor((current) => (current === sessionId ? null : current));
        onChanged();
      }
    },
    [view, onChanged],
  );

  const stop = useCallback(async () => {
    if (view) await api.stopTurn(view.summary.id).catch(() => false);
  }, [view]);

  const decide = useCallback(
    async (callId: string, decision: ApprovalDecision) => {
      if (!view) return;
      try {
        await api.answerApproval(view.summary.id, callId, decision);
      } catch (error) {
        dispatch({ type: "error", message: toCommandFailure(error).message });
      }
    },
    [view],
  );

  const running = (pendingFor !== null && pendingFor === view?.summary.id) || transcript.runningTurn !== null;
  return { view, setView, mode, setMode, transcript, running, loadError, open, close, send, stop, decide };
}
