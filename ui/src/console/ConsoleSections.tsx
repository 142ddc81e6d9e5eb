import type { ReactNode } from "react";
import type { SessionView } from "../api/types";
import type { CompactionView } from "../bindings/CompactionView";
import type { ConsoleContext } from "../components/DebugConsolePanel";
import { CompactionList, CompactionsTile } from "./Compactions";
import { ContextChart } from "./ContextChart";
import { ContextControls, IneffectiveWarnings } from "./ContextControls";
import { DriftTable } from "./DriftTable";
import { compactionSteps } from "./steps";
import { EventLog } from "./EventLog";
import { chartData } from "./model";
import { ModelView } from "./ModelView";
import { useConsoleData, type ConsoleSnapshot } from "./useConsoleData";

/** Loading and failure, the same in every section. */
function Loaded({ snapshot, children }: { snapshot: ConsoleSnapshot; children: (data: { view: SessionView; compactions: CompactionView[] }) => ReactNode }) {
  const { view, compactions } = snapshot;
  if (view && compactions) {
    return (
      <>
        {snapshot.error && (
          <p className="console-error" role="alert">
            Could not refresh: {snapshot.error}
          </p>
        )}
        {children({ view, compactions })}
      </>
    );
  }
  if (snapshot.error) {
    return (
      <p className="console-error" role="alert">
        The session file could not be read: {snapshot.error}
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

/** The tile, the context chart and a card per compaction. */
export function CompactionsSection({ context }: { context: ConsoleContext }) {
  const snapshot = useConsoleData(context);
  return (
    <Loaded snapshot={snapshot}>
      {({ view, compactions }) => (
        <div className="overview">
          {context.compaction && <ContextControls compaction={context.compaction} running={context.transcript.runningTurn !== null} onRetry={context.retryCompaction} />}
          <IneffectiveWarnings debugEvents={context.debugEvents} />
          <CompactionsTile views={compactions} onShowLast={context.revealInTranscript} />
          <h4 className="subheading">Context per round</h4>
          <ContextChart data={chartData(view.records, view.threshold, view.context_window ?? null)} onMarker={context.revealInTranscript} />
          <h4 className="subheading">
            Compaction steps <span className="muted">· newest first</span>
          </h4>
          <CompactionList
            steps={compactionSteps(view.records, compactions, context.debugEvents)}
            focused={context.focusedCompaction}
            onReveal={context.revealInTranscript}
            onUndo={context.undoCompaction}
            running={context.transcript.runningTurn !== null}
            onFork={context.forkBeforeCompaction}
          />
        </div>
      )}
    </Loaded>
  );
}

export function ModelSection({ context }: { context: ConsoleContext }) {
  const snapshot = useConsoleData(context);
  return <Loaded snapshot={snapshot}>{({ view, compactions }) => <ModelView view={view} compactions={compactions} />}</Loaded>;
}

export function LogSection({ context }: { context: ConsoleContext }) {
  const snapshot = useConsoleData(context);
  return (
    <Loaded snapshot={snapshot}>
      {({ view }) => (
        <>
          <DriftTable sessionId={view.summary.id} revision={String(view.record_count)} />
          <EventLog
            sessionId={view.summary.id}
            records={view.records}
            debugEvents={context.debugEvents}
            onReveal={context.revealInTranscript}
          />
        </>
      )}
    </Loaded>
  );
}
