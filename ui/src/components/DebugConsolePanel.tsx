import { useCallback, useEffect, useRef, type ReactNode } from "react";
import type { EventEnvelope, SessionView } from "../api/types";
import type { Transcript } from "../state/transcript";

/** Everything a console section can read; nothing in it can change the session. */
export interface ConsoleContext {
  /** The open session's snapshot (records, model-visible context), if any. */
  session: SessionView | null;
  transcript: Transcript;
  /** Debug-family events of the live stream, in order. */
  debugEvents: EventEnvelope[];
  /** The compaction the transcript asked to inspect. */
  focusedCompaction: string | null;
  /** Scrolls the transcript to a compaction's divider. */
  revealInTranscript: (summaryId: string) => void;
}

/** One part of the console (tiles, compaction cards, chart, log), plugged in by issue 6. */
export interface ConsoleSection {
  id: string;
  title: string;
  render: (context: ConsoleContext) => ReactNode;
}

interface DebugConsolePanelProps {
  context: ConsoleContext;
  sections: ConsoleSection[];
  width: number;
  onResize: (width: number) => void;
  onClose: () => void;
}

export const CONSOLE_MIN_WIDTH = 280;
export const CONSOLE_MAX_WIDTH = 900;

function clampWidth(width: number) {
  return Math.max(CONSOLE_MIN_WIDTH, Math.min(CONSOLE_MAX_WIDTH, Math.round(width)));
}

/** The resizable panel beside the conversation that hosts the debug console. */
export function DebugConsolePanel({ context, sections, width, onResize, onClose }: DebugConsolePanelProps) {
  const dragging = useRef<{ startX: number; startWidth: number } | null>(null);
  const onMove = useCallback(
    (event: PointerEvent) => {
      if (!dragging.current) return;
      onResize(clampWidth(dragging.current.startWidth + dragging.current.startX - event.clientX));
    },
    [onResize],
  );
  useEffect(() => {
    const stop = () => {
      dragging.current = null;
      document.body.classList.remove("resizing");
    };
    window.addEventListener("pointermove", onMove);
    window.addEventListener("pointerup", stop);
    return () => {
      window.removeEventListener("pointermove", onMove);
      window.removeEventListener("pointerup", stop);
    };
  }, [onMove]);

  return (
    <aside className="console" style={{ width }} aria-label="Debug console">
      <div
        className="console-resizer"
        role="separator"
        aria-orientation="vertical"
        aria-label="Resize debug console"
        aria-valuemin={CONSOLE_MIN_WIDTH}
        aria-valuemax={CONSOLE_MAX_WIDTH}
        aria-valuenow={width}
        tabIndex={0}
        onPointerDown={(event) => {
          dragging.current = { startX: event.clientX, startWidth: width };
          document.body.classList.add("resizing");
        }}
        onKeyDown={(event) => {
          if (event.key === "ArrowLeft") onResize(clampWidth(width + 24));
          if (event.key === "ArrowRight") onResize(clampWidth(width - 24));
        }}
      />
      <header className="console-header">
        <h2>Debug console</h2>
        <button type="button" className="icon-button" aria-label="Close debug console (Ctrl+Shift+D)" onClick={onClose}>
          ✕
        </button>
      </header>
      <div className="console-body">
        {sections.length > 0 && context.session ? (
          sections.map((section) => (
            <section key={section.id} className="console-section" aria-label={section.title}>
              <h3>{section.title}</h3>
              {section.render(context)}
            </section>
          ))
        ) : (
          <ConsoleEmptyState hasSession={Boolean(context.session)} />
        )}
      </div>
    </aside>
  );
}

function ConsoleEmptyState({ hasSession }: { hasSession: boolean }) {
  return (
    <div className="empty-state console-empty">
      <div className="empty-icon" aria-hidden="true">
        ◔
      </div>
      <h3>{hasSession ? "Nothing to inspect yet" : "No session open"}</h3>
      <p>
        {hasSession
          ? "This panel shows what happens to the model's context: every compaction with what it removed, kept and cost, the context chart and each round's exact request."
          : "Open a session from the sidebar or start a new one to see what happens to its context."}
      </p>
      <p className="muted">Toggle this panel with Ctrl+Shift+D.</p>
    </div>
  );
}
