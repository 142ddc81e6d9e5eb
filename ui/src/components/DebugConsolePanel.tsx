import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import type { EventEnvelope, SessionView } from "../api/types";
import { clampConsoleWidth, CONSOLE_MAX_WIDTH, CONSOLE_MIN_WIDTH } from "../hooks/useLayout";
import { useReturnFocus } from "../hooks/useReturnFocus";
import type { SessionCompaction } from "../console/useCompactionStatus";
import type { Transcript } from "../state/transcript";

/**
 * Everything a console section can read. Only the actions below change the
 * session, each through its own contract command.
 */
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
  /** The session's compaction policy, threshold and gauge figure, and the policy control. */
  compaction?: SessionCompaction;
  /** Undoes the latest compaction; rejects with the refusal's message, changing nothing. */
  undoCompaction?: () => Promise<void>;
  /** Opens the fork dialog for "just before compaction `number`" (a new session; this one is unchanged). */
  forkBeforeCompaction?: (number: number) => void;
  /** Compacts now (`/compact`), the circuit breaker's Retry; absent while a turn runs or the session is read-only. */
  retryCompaction?: () => void;
}

/** One part of the console (tiles, compaction cards, chart, log), plugged in by issue 6. */
export interface ConsoleSection {
  id: string;
  title: string;
  render: (context: ConsoleContext) => ReactNode;
  /** Shown when the transcript asks to inspect a compaction. */
  showsCompactions?: boolean;
}

interface DebugConsolePanelProps {
  context: ConsoleContext;
  sections: ConsoleSection[];
  /** The width the person chose; shown narrower when the window leaves less than that (`maxWidth`). */
  width: number;
  /** The widest the window allows now (the chat keeps its minimum beside a docked console). */
  maxWidth?: number;
  /** Over the chat (a narrow window) rather than beside it: takes focus, and Escape closes it. */
  drawer?: boolean;
  onResize: (width: number) => void;
  onClose: () => void;
}

/** One arrow-key step of the splitter, in pixels. */
const KEY_STEP = 24;

/**
 * The panel that hosts the debug console: docked beside the conversation with a splitter on its
 * left edge (dragged, or arrow keys), or in a narrow window a drawer over it.
 */
export function DebugConsolePanel({ context, sections, width: chosen, maxWidth = CONSOLE_MAX_WIDTH, drawer = false, onResize, onClose }: DebugConsolePanelProps) {
  const width = clampConsoleWidth(chosen, maxWidth);
  const clampWidth = useCallback((next: number) => clampConsoleWidth(next, maxWidth), [maxWidth]);
  const panel = useRef<HTMLElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  // Closing gives focus back to what opened the console, when focus was in it.
  useReturnFocus(panel);
  // A drawer covers the chat: the person is taken into it.
  useEffect(() => {
    if (drawer) closeButton.current?.focus();
  }, [drawer]);
  const dragging = useRef<{ startX: number; startWidth: number } | null>(null);
  // The tab buttons by section id, for arrow-key focus (no DOM queries).
  const tabs = useRef(new Map<string, HTMLButtonElement>());
  const onMove = useCallback(
    (event: PointerEvent) => {
      if (!dragging.current) return;
      onResize(clampWidth(dragging.current.startWidth + dragging.current.startX - event.clientX));
    },
    [onResize, clampWidth],
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

  const [activeId, setActiveId] = useState<string | null>(null);
  const active = sections.find((section) => section.id === activeId) ?? sections[0];
  // A tab opens at its top, not where the previous one was scrolled to.
  const body = useRef<HTMLDivElement>(null);
  const activeSection = active?.id;
  useEffect(() => {
    body.current?.scrollTo?.({ top: 0 });
  }, [activeSection]);
  // The transcript's "Inspect in console" opens the section that shows compactions.
  const { focusedCompaction } = context;
  useEffect(() => {
    if (!focusedCompaction) return;
    const target = sections.find((section) => section.showsCompactions);
    if (target) setActiveId(target.id);
  }, [focusedCompaction, sections]);

  return (
    <aside
      ref={panel}
      className={`console${drawer ? " console-drawer" : ""}`}
      style={{ width }}
      aria-label="Debug console"
      onKeyDown={(event) => {
        // Escape belongs to a dialog or menu inside first; they stop it there.
        if (drawer && event.key === "Escape") {
          event.stopPropagation();
          onClose();
        }
      }}
    >
      <div
        className="console-resizer"
        role="separator"
        aria-orientation="vertical"
        aria-label="Resize debug console"
        aria-valuemin={CONSOLE_MIN_WIDTH}
        aria-valuemax={maxWidth}
        aria-valuenow={width}
        aria-valuetext={`${width} pixels wide`}
        tabIndex={0}
        onPointerDown={(event) => {
          // A drag resizes; it must not also select the transcript's text under the pointer.
          event.preventDefault();
          dragging.current = { startX: event.clientX, startWidth: width };
          document.body.classList.add("resizing");
        }}
        onKeyDown={(event) => {
          // The splitter is the console's left edge: left widens it, right gives the chat room.
          const next =
            event.key === "ArrowLeft" ? width + KEY_STEP
            : event.key === "ArrowRight" ? width - KEY_STEP
            : event.key === "Home" ? CONSOLE_MIN_WIDTH
            : event.key === "End" ? maxWidth
            : null;
          if (next === null) return;
          event.preventDefault();
          onResize(clampWidth(next));
        }}
      />
      <header className="console-header">
        <h2>Debug console</h2>
        <button ref={closeButton} type="button" className="icon-button" aria-label="Close debug console (Ctrl+Shift+D)" onClick={onClose}>
          ✕
        </button>
      </header>
      {sections.length > 1 && context.session && (
        <div className="console-tabs" role="tablist" aria-label="Debug console sections">
          {sections.map((section, index) => (
            <button
              key={section.id}
              type="button"
              role="tab"
              ref={(node) => {
                if (node) tabs.current.set(section.id, node);
                else tabs.current.delete(section.id);
              }}
              id={`console-tab-${section.id}`}
              aria-controls={`console-panel-${section.id}`}
              aria-selected={section.id === active?.id}
              tabIndex={section.id === active?.id ? 0 : -1}
              className={`console-tab${section.id === active?.id ? " active" : ""}`}
              onClick={() => setActiveId(section.id)}
              onKeyDown={(event) => {
                const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
                if (!step) return;
                event.preventDefault();
                const next = sections[(index + step + sections.length) % sections.length];
                if (!next) return;
                setActiveId(next.id);
                tabs.current.get(next.id)?.focus();
              }}
            >
              {section.title}
            </button>
          ))}
        </div>
      )}
      <div className="console-body" ref={body}>
        {active && context.session ? (
          <div
            key={active.id}
            role={sections.length > 1 ? "tabpanel" : undefined}
            id={`console-panel-${active.id}`}
            aria-labelledby={sections.length > 1 ? `console-tab-${active.id}` : undefined}
            className="console-panel"
          >
            <section className="console-section" aria-label={active.title}>
              {sections.length === 1 && <h3>{active.title}</h3>}
              {active.render(context)}
            </section>
          </div>
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
