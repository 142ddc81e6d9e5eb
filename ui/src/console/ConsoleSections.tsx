import type { ReactNode } from "react";
import type { ConsoleView } from "../bindings/ConsoleView";
import type { ConsoleContext } from "../components/DebugConsolePanel";
import { useAppState } from "../state/StoreProvider";
import { CompactionList, CompactionsTile } from "./Compactions";
import { ContextChart } from "./ContextChart";
import { CostView } from "./CostView";
import { ContextControls, IneffectiveWarnings } from "./ContextControls";
import { DriftTable } from "./DriftTable";
import { EventLog } from "./EventLog";
import { chartOf } from "./model";
import { ModelView } from "./ModelView";

/** The console's data for the open session (the app store's, folded in Rust); loading and failure, the same in every section. */
function Loaded({ sessionId, children }: { sessionId: string | null; children: (view: ConsoleView) => ReactNode }) {
  const held = useAppState((s) => s.console);
  const view = sessionId && held.sessionId === sessionId ? held.view : null;
  if (view) {
    return (
      <>
        {held.error && (
          <p className="console-error" role="alert">
            Could not refresh: {held.error}
          </p>
        )}
        {children(view)}
      </>
    );
  }
  if (held.error && held.sessionId === sessionId) {
    return (
      <p className="console-error" role="alert">
        The session file could not be read: {held.error}
      </p>
    );
  }
  return (
    <div className="console-loading" role="status" aria-label="Loading">
      <span className="skeleton" />
      <span className="skeleton" />
      <span className="skeleton short" />
    </div>
  );
}

const idOf = (context: ConsoleContext) => context.session?.summary.id ?? null;

/** The tile, the context chart and a card per compaction. */
export function CompactionsSection({ context }: { context: ConsoleContext }) {
  return (
    <Loaded sessionId={idOf(context)}>
      {(view) => (
        <div className="overview">
          {context.compaction && <ContextControls compaction={context.compaction} running={context.transcript.runningTurn !== null} onRetry={context.retryCompaction} />}
          <IneffectiveWarnings debugEvents={context.debugEvents} />
          <CompactionsTile steps={view.steps} onShowLast={context.revealInTranscript} />
          <h4 className="subheading">Context per model call</h4>
          <ContextChart data={chartOf(view)} onMarker={context.revealInTranscript} />
          <h4 className="subheading">
            Compaction steps <span className="muted">· newest first</span>
          </h4>
          <CompactionList
            steps={view.steps}
            undo={view.undo}
            focused={context.focusedCompaction}
            onReveal={context.revealInTranscript}
            onUndo={context.undoCompaction}
            running={context.transcript.runningTurn !== null}
            onFork={context.forkBeforeCompaction}
            money={view.gauge.cost.steps}
          />
        </div>
      )}
    </Loaded>
  );
}

export function ModelSection({ context }: { context: ConsoleContext }) {
  return <Loaded sessionId={idOf(context)}>{(view) => <ModelView view={view} />}</Loaded>;
}

export function LogSection({ context }: { context: ConsoleContext }) {
  return (
    <Loaded sessionId={idOf(context)}>
      {(view) => (
        <>
          <DriftTable points={view.chart} />
          <EventLog sessionId={view.session_id} view={view} onReveal={context.revealInTranscript} />
        </>
      )}
    </Loaded>
  );
}

export function CostSection({ context }: { context: ConsoleContext }) {
  return <Loaded sessionId={idOf(context)}>{(view) => <CostView view={view} />}</Loaded>;
}
