import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from "react";
import { isSandboxed, networkSummary } from "../lib/sandbox";
import type { SessionListItem } from "../api/types";
import { useApprovalKeys } from "../hooks/useApprovalKeys";
import { approvalAction } from "../lib/approvalWords";
import { isRunning } from "../state/store";
import { useActions, useAppState } from "../state/StoreProvider";
import { currentPlan, lastUserMessage, pendingApprovals } from "../state/transcript";
import type { Recovery } from "../bindings/Recovery";
import { sessionProfile } from "../lib/profiles";
import { sessionTitle } from "../lib/lineage";
import { Composer } from "./Composer";
import { withAppCommands } from "./appCommands";
import { commandOf } from "./SlashPalette";
import { useSlashCommands } from "../hooks/useSlashCommands";
import { useSessionCommands } from "../commands/sessionCommands";
import { useOpenPalette } from "../commands/palette";
import { findWorkspaceFiles } from "../api/commands";
import { ConversationHeader, HELD_SHORT } from "./ConversationHeader";
import { ReasoningControl } from "./ReasoningControl";
import { MessageList, type HistoryHandlers, type MessageListHandle } from "./MessageList";
import { PlanPanel } from "./PlanPanel";
import { ChangesPanel } from "./changes/ChangesPanel";
import { ChangesContext, useSessionChanges, type RestoreControl } from "./changes/changesData";
import { CHANGING_TOOLS } from "./changes/ToolChanges";
import { TranscriptFind, type TranscriptFindHandle } from "./TranscriptFind";
import { isFindShortcut } from "../hooks/useShortcuts";

interface ConversationProps {
  /** The session's freshest list row (its title and model may have changed since it opened). */
  summary: SessionListItem;
  listRef: RefObject<MessageListHandle | null>;
  composerRef: RefObject<HTMLTextAreaElement | null>;
  /** The summary of the compaction an Undo would undo now (`compaction_status`), if any. */
  undoableCompaction?: string | null;
}

/** The open session: title bar, transcript and composer, selected from the store. */
export function Conversation({ summary, listRef, composerRef, undoableCompaction = null }: ConversationProps) {
  const actions = useActions();
  const mode = useAppState((s) => s.mode);
  const transcript = useAppState((s) => s.transcript);
  const running = useAppState(isRunning);
  const [draft, setDraft] = useState("");
  const live = mode === "live";
  const { entries, pagePlan } = transcript;
  const plan = useMemo(() => currentPlan({ entries, pagePlan }), [entries, pagePlan]);
  // The changes are read again each time a call that may change files finishes, and when a turn ends.
  const finishedCalls = useMemo(
    () => entries.filter((e) => e.kind === "tool" && CHANGING_TOOLS.has(e.name) && e.status !== "running" && e.status !== "awaiting_approval").length,
    [entries],
  );
  const changes = useSessionChanges(summary.id, `${finishedCalls}:${running}`);
  const changesOpen = useAppState((s) => s.changesOpen);
  const reloadChanges = changes.reload;
  const restoreControl = useMemo<RestoreControl>(
    () => ({
      allowed: live && !running,
      offReason: live ? "Wait until the turn has finished" : HELD_SHORT,
      onRestored: (report) => {
        reloadChanges();
        const count = report.files.length;
        actions.toast({ tone: "ok", text: `Restored ${count} ${count === 1 ? "file" : "files"}. Undo it from the Changes view.` });
      },
    }),
    [live, running, reloadChanges, actions],
  );
  const changesValue = useMemo(() => ({ ...changes, restore: restoreControl }), [changes, restoreControl]);
  const waiting = live ? pendingApprovals(transcript)[0] : undefined;
  const reviewApproval = () => {
    if (!waiting) return;
    listRef.current?.focusApproval(waiting.id);
  };
  const focusComposer = useCallback(() => composerRef.current?.focus(), [composerRef]);
  const editLast = useCallback(
    (text: string) => {
      setDraft(text);
      focusComposer();
    },
    [focusComposer],
  );
  const send = useCallback((text: string) => void actions.send(text), [actions]);
  const settings = useAppState((s) => s.settings);
  const profileSet = useAppState((s) => s.view?.profile ?? null);
  const reasoning = useAppState((s) => s.view?.reasoning ?? null);
  const canReason = useAppState((s) => s.view?.can_reason ?? false);
  const sandbox = useAppState((s) => s.view?.sandbox ?? null);
  const networkChoice = useAppState((s) => s.view?.sandbox_network ?? "off");
  const allowDomains = useAppState((s) => s.view?.sandbox_allow_domains);
  const network = useMemo(() => (isSandboxed(sandbox) ? networkSummary(networkChoice, allowDomains ?? []) : null), [sandbox, networkChoice, allowDomains]);
  const profileId = settings ? sessionProfile(settings.profiles, summary, profileSet)?.id : undefined;
  const lastUserText = lastUserMessage(transcript);
  // The ways out of a provider failure, each at its cause: send the last message again
  // (compacting first for an overflow), fix the profile, or move the session to another.
  const recover = useCallback(
    (recovery: Recovery) => {
      switch (recovery) {
        case "retry":
          if (lastUserText !== null) send(lastUserText);
          return;
        case "compact_and_retry":
          void actions.send("/compact").then(() => {
            if (lastUserText !== null) return actions.send(lastUserText);
          });
          return;
        case "open_profile_settings":
          actions.setSettingsOpen(true, profileId ?? null);
          return;
        case "switch_profile":
          actions.setSwitchingProfile(true);
          return;
      }
    },
    [actions, send, lastUserText, profileId],
  );
  const decide = useCallback((callId: string, decision: Parameters<typeof actions.decide>[1]) => void actions.decide(callId, decision), [actions]);
  const loadOlder = useCallback(() => void actions.loadOlder(), [actions]);
  const expandOutput = useCallback((callId: string) => void actions.expandOutput(callId), [actions]);
  const alwaysOffered = (waiting?.approval?.proposed_rules?.length ?? 0) > 0;
  useApprovalKeys(waiting?.call_id ?? null, decide, composerRef, alwaysOffered);
  // Ctrl+F: the find bar over the transcript (again: back to its field).
  const [finding, setFinding] = useState(false);
  const findBar = useRef<TranscriptFindHandle>(null);
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!isFindShortcut(event) || document.querySelector("[aria-modal=true]")) return;
      event.preventDefault();
      if (findBar.current) findBar.current.focus();
      else setFinding(true);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  const inspect = actions.inspectCompaction;
  // A fork's notice links to its parent by the title the library lists.
  const sessions = useAppState((s) => s.sessions);
  const policy = useAppState((s) => (s.console.sessionId === summary.id ? (s.console.view?.gauge.policy ?? null) : null));
  const sessionTitles = useMemo(() => new Map(sessions.map((row) => [row.id, sessionTitle(row)])), [sessions]);
  const openSession = useCallback((sessionId: string) => void actions.open(sessionId), [actions]);
  // Pins, partial compactions and undos write to the session: live and idle only. A fork
  // only reads it, so a session another process holds can be forked too.
  const history = useMemo<HistoryHandlers | undefined>(() => {
    if (running) return undefined;
    const fork = {
      onFork: (itemId: string) => actions.askFork({ kind: "at_item", item_id: itemId }, "up to and including this item"),
      onForkBeforeCompaction: (summaryId: string) => void actions.askForkBeforeCompaction(summaryId),
    };
    if (!live) return fork;
    return {
      ...fork,
      onPin: (itemId: string, pinned: boolean) => void actions.pin(itemId, pinned),
      onCompactUpTo: actions.askCompactUpTo,
      undoCompaction: undoableCompaction ? { summaryId: undoableCompaction, onUndo: actions.undoCompaction } : undefined,
    };
  }, [actions, live, running, undoableCompaction]);
  // The slash commands: the app's listing (/compact, prompt files) and the actions of this view.
  const slash = useSlashCommands(summary.workspace);
  const findFiles = useCallback(
    (query: string) => findWorkspaceFiles(summary.workspace, query, 20).then((found) => found.files),
    [summary.workspace],
  );
  const openPalette = useOpenPalette();
  const sessionCommands = useSessionCommands(undoableCompaction, openPalette);
  const palette = useMemo(() => withAppCommands(slash.commands, sessionCommands), [slash.commands, sessionCommands]);
  const transcriptView =
    transcript.entries.length === 0 ? (
      <div className="empty-state conversation-empty">
        <div className="empty-icon" aria-hidden="true">
          ✦
        </div>
        <h2>What should Strata work on?</h2>
        <p>
          The agent reads, searches and edits files in <strong>{summary.workspace}</strong> and runs commands
          there, asking before anything changes.
        </p>
      </div>
    ) : (
      <MessageList
        ref={listRef}
        entries={transcript.entries}
        targetId={transcript.target}
        hasOlder={transcript.older !== null}
        onLoadOlder={loadOlder}
        outputs={transcript.outputs}
        onExpandOutput={expandOutput}
        onDecide={live ? decide : undefined}
        onInspectCompaction={inspect}
        history={history}
        sessionTitles={sessionTitles}
        onOpenSession={openSession}
        sandbox={sandbox}
        network={network}
        onEditLast={live && !running ? editLast : undefined}
        onRetryLast={live && !running ? send : undefined}
        onRecover={live && !running ? recover : undefined}
      />
    );
  return (
    <ChangesContext.Provider value={changesValue}>
    <main ref={main} className="conversation" aria-label="Conversation">
      <ConversationHeader
        summary={summary}
        live={live}
        running={running}
        onSwitchProfile={() => actions.setSwitchingProfile(true)}
        onReload={() => void actions.open(summary.id)}
        info={{
          profile: profileSet,
          profileName: settings ? (sessionProfile(settings.profiles, summary, profileSet)?.label ?? null) : null,
          policy,
          approval: settings?.approval_policy ?? null,
          sandbox,
          network,
          parentTitle: summary.forked_from ? sessionTitles.get(summary.forked_from.parent_session_id) : undefined,
          onOpenParent: openSession,
        }}
      />
      {finding && (
        <TranscriptFind
          ref={findBar}
          entries={transcript.entries}
          list={listRef}
          scope={main}
          hasOlder={transcript.older !== null}
          onClose={() => setFinding(false)}
        />
      )}
      {plan || changesOpen ? (
        // Beside the transcript where the conversation is wide, above the composer where not.
        <div className="conversation-body">
          <div className="conversation-columns">
            {transcriptView}
            {plan && <PlanPanel plan={plan} />}
            {changesOpen && (
              <ChangesPanel
                data={changes}
                canRestore={restoreControl.allowed}
                restoreOffReason={restoreControl.offReason}
                onClose={() => actions.setChangesOpen(false)}
                onRestored={restoreControl.onRestored}
              />
            )}
          </div>
        </div>
      ) : (
        transcriptView
      )}
      <ReasoningControl value={reasoning} canReason={canReason} running={running} heldReason={live ? undefined : HELD_SHORT} onChange={(effort) => void actions.setReasoning(effort)} />
      <Composer
        value={draft}
        onChange={setDraft}
        textareaRef={composerRef}
        running={running}
        disabled={!live}
        disabledReason={HELD_SHORT}
        commands={palette.commands}
        unavailable={palette.unavailable}
        onPaletteOpen={slash.refresh}
        findFiles={findFiles}
        onSend={(text) => {
          const named = commandOf(text);
          const action = palette.run.get(named?.name ?? "");
          setDraft("");
          if (action) return action(named?.args ?? "");
          // Their own message is where the person looks next, however far up they were.
          listRef.current?.scrollToLatest();
          send(text);
        }}
        onStop={() => void actions.stop()}
        waitingApproval={
          waiting
            ? {
                summary: waiting.approval ? approvalAction(waiting.name, waiting.approval.summary, waiting.approval.detail).action : waiting.name,
                alwaysOffered,
                onReview: reviewApproval,
              }
            : undefined
        }
      />
    </main>
    </ChangesContext.Provider>
  );
}
