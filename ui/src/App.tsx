import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import * as api from "./api/commands";
import { pickExportPath, pickWorkspace } from "./api/dialogs";
import { toCommandFailure } from "./api/ipc";
import type { AppInfo, ExportFormat, SessionListItem, Settings } from "./api/types";
import { AppHeader, DemoBanner } from "./components/AppHeader";
import { BroadWorkspaceDialog } from "./components/BroadWorkspaceDialog";
import { ContextGauge } from "./components/ContextGauge";
import { Conversation } from "./components/Conversation";
import { consoleSections } from "./console/sections";
import { DebugConsolePanel } from "./components/DebugConsolePanel";
import { ExternalLinks } from "./components/ExternalLinks";
import type { MessageListHandle } from "./components/MessageList";
import { SessionSidebar, sessionTitle } from "./components/SessionSidebar";
import { SettingsDialog } from "./components/SettingsDialog";
import { Toast, type ToastMessage } from "./components/Toast";
import { useConversation } from "./hooks/useConversation";
import { useShortcuts } from "./hooks/useShortcuts";
import { useTheme } from "./hooks/useTheme";


export function App() {
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [settings, setSettings] = useState<Settings | null>(null);
  const [sessions, setSessions] = useState<SessionListItem[]>([]);
  const [query, setQuery] = useState("");
  const [loadingSessions, setLoadingSessions] = useState(true);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [consoleOpen, setConsoleOpen] = useState(false);
  const [consoleWidth, setConsoleWidth] = useState(460);
  const [focusedCompaction, setFocusedCompaction] = useState<string | null>(null);
  const [toast, setToast] = useState<ToastMessage | null>(null);
  const [broadWorkspace, setBroadWorkspace] = useState<string | null>(null);
  const listRef = useRef<MessageListHandle>(null);
  const composerRef = useRef<HTMLTextAreaElement>(null);
  useTheme(settings?.theme ?? "system");

  const fail = useCallback((error: unknown) => setToast({ tone: "error", text: toCommandFailure(error).message }), []);

  const refreshSessions = useCallback(
    async (search = query) => {
      try {
        setSessions(await api.listSessions(search.trim() || undefined));
      } catch (error) {
        fail(error);
      } finally {
        setLoadingSessions(false);
      }
    },
    [query, fail],
  );

  const conversation = useConversation(() => void refreshSessions());
  const { view } = conversation;

  useEffect(() => {
    Promise.all([api.appInfo(), api.getSettings()])
      .then(([appInfo, loaded]) => {
        setInfo(appInfo);
        setSettings(loaded);
      })
      .catch(fail);
  }, [fail]);

  useEffect(() => {
    const timer = window.setTimeout(() => void refreshSessions(query), 200);
    return () => window.clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [query]);

  const createIn = useCallback(
    async (workspace: string, allowBroad: boolean) => {
      try {
        const created = await api.createSession(workspace, allowBroad);
        await refreshSessions();
        await conversation.open(created.id, "live");
        composerRef.current?.focus();
      } catch (error) {
        // `/` or the home folder: ask the person rather than show an error.
        if (!allowBroad && toCommandFailure(error).kind === "broad_workspace") setBroadWorkspace(workspace);
        else fail(error);
      }
    },
    [conversation, refreshSessions, fail],
  );

  const newSession = useCallback(async () => {
    try {
      const workspace = await pickWorkspace();
      if (workspace) await createIn(workspace, false);
    } catch (error) {
      fail(error);
    }
  }, [createIn, fail]);

  const exportSession = useCallback(
    async (id: string, format: ExportFormat) => {
      const session = sessions.find((s) => s.id === id);
      try {
        const path = await pickExportPath(session ? sessionTitle(session) : "session", format);
        if (!path) return;
        await api.exportSession(id, format, path);
        setToast({ tone: "ok", text: `Exported to ${path}` });
      } catch (error) {
        fail(error);
      }
    },
    [sessions, fail],
  );

  const inspectCompaction = useCallback((summaryId: string) => {
    setConsoleOpen(true);
    setFocusedCompaction(summaryId);
  }, []);

  useShortcuts({
    newSession: () => void newSession(),
    focusComposer: () => composerRef.current?.focus(),
    toggleConsole: () => setConsoleOpen((open) => !open),
    openSettings: () => setSettingsOpen(true),
    stop: () => {
      if (conversation.running) void conversation.stop();
    },
  });

  const consoleContext = useMemo(
    () => ({
      session: view,
      transcript: conversation.transcript,
      debugEvents: conversation.transcript.debugEvents,
      focusedCompaction,
      revealInTranscript: (summaryId: string) => listRef.current?.scrollToCompaction(summaryId),
    }),
    [view, conversation.transcript, focusedCompaction],
  );

  // The sidebar's row is refreshed after every turn (a first message gives the session its
  // title, a switch its model); the snapshot the conversation opened with is not.
  const summary = view ? (sessions.find((s) => s.id === view.summary.id) ?? view.summary) : null;
  const context_window = view?.context_window ?? info?.active_profile.context_window ?? null;
  const threshold = conversation.transcript.threshold ?? view?.threshold ?? info?.active_profile.compact_threshold ?? null;
  const context_tokens = conversation.transcript.context_tokens ?? view?.context_tokens ?? null;

  return (
    <ExternalLinks open={api.openExternalLink} onError={fail}>
    <div className={`app${consoleOpen ? " with-console" : ""}`}>
      <AppHeader
        info={info}
        session={summary}
        consoleOpen={consoleOpen}
        onToggleConsole={() => setConsoleOpen((open) => !open)}
        onOpenSettings={() => setSettingsOpen(true)}
      />
      {info?.is_demo && <DemoBanner onOpenSettings={() => setSettingsOpen(true)} />}
      <div className="workspace-area">
        <SessionSidebar
          sessions={sessions}
          activeId={view?.summary.id ?? null}
          query={query}
          loading={loadingSessions}
          onQueryChange={setQuery}
          onNew={() => void newSession()}
          onOpen={(id) => void conversation.open(id, "browse")}
          onResume={(id) => void conversation.open(id, "live")}
          onRename={async (id, title) => {
            try {
              const renamed = await api.renameSession(id, title);
              setSessions((list) => list.map((s) => (s.id === id ? renamed : s)));
              if (view?.summary.id === id) conversation.setView({ ...view, summary: renamed });
            } catch (error) {
              fail(error);
            }
          }}
          onDelete={async (id) => {
            try {
              await api.deleteSession(id);
              if (view?.summary.id === id) conversation.close();
              await refreshSessions();
              setToast({ tone: "ok", text: "Session deleted." });
            } catch (error) {
              fail(error);
            }
          }}
          onExport={(id, format) => void exportSession(id, format)}
        />
        {view ? (
          <Conversation
            key={view.summary.id}
            view={view}
            summary={summary ?? view.summary}
            mode={conversation.mode}
            transcript={conversation.transcript}
            running={conversation.running}
            listRef={listRef}
            composerRef={composerRef}
            onSend={(text) => void conversation.send(text)}
            onStop={() => void conversation.stop()}
            onResume={() => {
              conversation.setMode("live");
              window.setTimeout(() => composerRef.current?.focus(), 0);
            }}
            onDecide={(callId, decision) => void conversation.decide(callId, decision)}
            onInspectCompaction={inspectCompaction}
          />
        ) : (
          <WelcomeScreen
            error={conversation.loadError}
            hasSessions={sessions.length > 0}
            onNew={() => void newSession()}
          />
        )}
        {consoleOpen && (
          <DebugConsolePanel
            context={consoleContext}
            sections={consoleSections}
            width={consoleWidth}
            onResize={setConsoleWidth}
            onClose={() => setConsoleOpen(false)}
          />
        )}
      </div>
      <footer className="app-footer">
        {view ? (
          <ContextGauge context_tokens={context_tokens} threshold={threshold} context_window={context_window} />
        ) : (
          <span className="gauge gauge-empty">No session open</span>
        )}
        <span className="footer-status" role="status">
          {conversation.running ? "Working…" : view ? (conversation.mode === "live" ? "Ready" : "Read-only") : ""}
        </span>
        <span className="footer-version">{info ? `Strata ${info.version}` : ""}</span>
      </footer>
      {settingsOpen && settings && (
        <SettingsDialog
          settings={settings}
          onClose={() => setSettingsOpen(false)}
          onSave={async (next) => {
            const saved = await api.saveSettings(next);
            setSettings(saved);
            setInfo(await api.appInfo());
            setToast({ tone: "ok", text: "Settings saved." });
          }}
        />
      )}
      {broadWorkspace && (
        <BroadWorkspaceDialog
          workspace={broadWorkspace}
          onCancel={() => setBroadWorkspace(null)}
          onConfirm={() => {
            setBroadWorkspace(null);
            void createIn(broadWorkspace, true);
          }}
        />
      )}
      {toast && <Toast message={toast} onDismiss={() => setToast(null)} />}
    </div>
    </ExternalLinks>
  );
}

function WelcomeScreen({ error, hasSessions, onNew }: { error: string | null; hasSessions: boolean; onNew: () => void }) {
  return (
    <main className="conversation welcome" aria-label="Welcome">
      <div className="empty-state">
        <div className="empty-icon" aria-hidden="true">
          ✦
        </div>
        <h2>{error ? "That session could not be opened" : "Start working with Strata"}</h2>
        <p>
          {error ??
            (hasSessions
              ? "Pick a session on the left to browse or resume it, or start a new one in a folder of your choice."
              : "Start a session in a folder of your choice. Strata reads, searches and edits files there and asks before it changes anything.")}
        </p>
        <button type="button" className="button primary" onClick={onNew}>
          New session <kbd>Ctrl</kbd>
          <kbd>N</kbd>
        </button>
      </div>
    </main>
  );
}
