import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import * as api from "./api/commands";
import { AppHeader, DemoBanner } from "./components/AppHeader";
import { BroadWorkspaceDialog } from "./components/BroadWorkspaceDialog";
import { CircuitBanner } from "./components/CircuitBanner";
import { ContextGauge } from "./components/ContextGauge";
import { Conversation } from "./components/Conversation";
import type { ConsoleDockProps } from "./console/ConsoleDock";
import { undoableSummary, useSessionCompaction } from "./console/useCompactionStatus";
// Global: some of its classes (.chevron, .modal, .estimate-tag…) style parts outside the console.
import "./console/console.css";
import { ExternalLinks } from "./components/ExternalLinks";
import type { MessageListHandle } from "./components/MessageList";
import { NewSessionSheet } from "./components/NewSessionSheet";
import { SessionSidebar } from "./components/SessionSidebar";
import { SettingsDialog } from "./components/SettingsDialog";
import { DEFAULT_SANDBOX } from "./lib/sandbox";
import { ConnectProviderDialog } from "./components/ConnectProviderDialog";
import { SwitchProfileDialog } from "./components/SwitchProfileDialog";
import { CompactUpToDialog } from "./components/HistoryDialogs";
import { ForkDialog } from "./components/ForkDialog";
import { Toast } from "./components/Toast";
import { useShortcuts } from "./hooks/useShortcuts";
import { CommandPalette } from "./components/CommandPalette";
import { PaletteContext } from "./commands/palette";
import { useCommandPalette } from "./commands/useCommandPalette";
import { consoleMaxWidth, useNarrowWindow, useWindowWidth } from "./hooks/useLayout";
import { useFocusKeeper } from "./hooks/useReturnFocus";
import { SidebarDrawer } from "./components/SidebarDrawer";
import { ShortcutsDialog } from "./components/ShortcutsDialog";
import { useTheme } from "./hooks/useTheme";
import { lazyModule, useLazyModule } from "./lib/lazyModule";
import type { SearchResults } from "./bindings/SearchResults";
import { isRunning } from "./state/store";
import { sessionProviderName } from "./lib/profiles";
import { providerHealth } from "./lib/providerHealth";
import { StoreProvider, useActions, useAppState } from "./state/StoreProvider";
import { ImportConsent, shouldAsk } from "./imported/ImportConsent";
import { ImportedHits, ImportedList, SourceFilterSelect } from "./imported/ImportedList";
import { ImportedSessionPane } from "./imported/ImportedSessionPane";
import { useImported } from "./imported/useImported";

/** The app: one store for everything it shows, provided to every component. */
export function App() {
  return (
    <StoreProvider>
      <AppWindow />
    </StoreProvider>
  );
}

function AppWindow() {
  const actions = useActions();
  const info = useAppState((s) => s.info);
  const settings = useAppState((s) => s.settings);
  const sessions = useAppState((s) => s.sessions);
  const query = useAppState((s) => s.query);
  const loadingSessions = useAppState((s) => s.loadingSessions);
  const view = useAppState((s) => s.view);
  const mode = useAppState((s) => s.mode);
  // Slices of the transcript, not the whole: the window around the conversation must not render
  // again on every frame of a streamed answer.
  const target = useAppState((s) => s.transcript.target);
  const entryCount = useAppState((s) => s.transcript.entries.length);
  const debugEvents = useAppState((s) => s.transcript.debugEvents);
  const health = useAppState((s) => providerHealth(s.transcript.entries));
  const running = useAppState(isRunning);
  const loadError = useAppState((s) => s.loadError);
  const toast = useAppState((s) => s.toast);
  const settingsOpen = useAppState((s) => s.settingsOpen);
  const settingsProfile = useAppState((s) => s.settingsProfile);
  const connectOpen = useAppState((s) => s.connectOpen);
  const consoleOpen = useAppState((s) => s.consoleOpen);
  const changesOpen = useAppState((s) => s.changesOpen);
  const consoleWidth = useAppState((s) => s.consoleWidth);
  const focusedCompaction = useAppState((s) => s.focusedCompaction);
  const broadWorkspace = useAppState((s) => s.broadWorkspace);
  const switchingProfile = useAppState((s) => s.switchingProfile);
  const historyDialog = useAppState((s) => s.historyDialog);
  const newSessionSheet = useAppState((s) => s.newSession);
  const listRef = useRef<MessageListHandle>(null);
  const composerRef = useRef<HTMLTextAreaElement>(null);
  const theme = useTheme(settings?.theme ?? "system");
  useFocusKeeper();
  // Below 1200 px the console overlays the chat and the sidebar is a drawer opened from the header.
  const narrow = useNarrowWindow();
  const windowWidth = useWindowWidth();
  const [sidebarHidden, setSidebarHidden] = useState(false);
  const [sidebarDrawer, setSidebarDrawer] = useState(false);
  useEffect(() => setSidebarDrawer(false), [narrow]);
  const sidebarShown = narrow ? sidebarDrawer : !sidebarHidden;
  const toggleSidebar = useCallback(() => (narrow ? setSidebarDrawer((open) => !open) : setSidebarHidden((hidden) => !hidden)), [narrow]);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  // Picking something in the drawer is done with it.
  const closeDrawer = useCallback(() => setSidebarDrawer(false), []);

  useEffect(() => {
    void actions.loadApp();
    void actions.watchLibrary();
  }, [actions]);

  // The list follows the search box, once the person pauses typing.
  useEffect(() => {
    const timer = window.setTimeout(() => void actions.refreshSessions(), 200);
    return () => window.clearTimeout(timer);
  }, [query, actions]);

  // The same query searched in the sessions' text (the library's index).
  const [found, setFound] = useState<SearchResults | null>(null);
  useEffect(() => {
    const text = query.trim();
    let stale = false;
    const timer = window.setTimeout(() => {
      if (!text) {
        setFound(null);
        return;
      }
      api
        .searchSessions(text)
        .then((results) => {
          if (!stale) setFound(results);
        })
        .catch(actions.fail);
    }, 200);
    return () => {
      stale = true;
      window.clearTimeout(timer);
    };
  }, [query, actions]);

  // A picked hit's entry (the backend names it: a message, a tool card, a
  // divider, loaded with everything after it): scrolled to once per open.
  const scrolledTo = useRef<string | null>(null);
  useEffect(() => {
    if (!target || !view) return;
    const key = `${view.summary.id}:${target}`;
    if (scrolledTo.current === key) return;
    if (listRef.current?.scrollToEntry(target)) scrolledTo.current = key;
  }, [target, entryCount, view]);

  // Other agents' sessions: their rows, the one open read-only (shown instead of a conversation).
  const imported = useImported(query, actions.fail);
  const { close: closeImported } = imported;
  const openOwn = useCallback(
    (id: string, atItem?: string) => {
      closeImported();
      void actions.open(id, atItem);
    },
    [actions, closeImported],
  );

  const focusComposer = useCallback(() => composerRef.current?.focus(), []);
  const newSession = useCallback(() => {
    closeImported();
    void actions.openNewSession();
  }, [actions, closeImported]);

  // What each shortcut runs; the command palette (Ctrl+K) runs the same handlers.
  const shortcuts = {
    newSession,
    focusComposer,
    toggleConsole: actions.toggleConsole,
    toggleChanges: actions.toggleChanges,
    toggleSidebar,
    openSettings: () => actions.setSettingsOpen(true),
    showShortcuts: () => setShortcutsOpen(true),
    stop: () => {
      if (running) void actions.stop();
    },
  };

  // A recorded policy closes the session's agent; its next turn numbers events from 0 again.
  const reloadConversation = useCallback(() => {
    if (view) void actions.open(view.summary.id);
  }, [view, actions]);
  const compaction = useSessionCompaction(view?.summary.id ?? null, reloadConversation, mode === "live");
  const palette = useCommandPalette({ shortcuts, undoable: undoableSummary(compaction.undo), theme, openSession: openOwn });
  useShortcuts({ ...shortcuts, commandPalette: () => palette.open("all") });

  const consoleContext = useMemo(
    () => ({
      session: view,
      debugEvents,
      focusedCompaction,
      revealInTranscript: (summaryId: string) => listRef.current?.scrollToCompaction(summaryId),
      compaction,
      // Held by another process: nothing here writes to it (a fork writes a new session).
      undoCompaction: mode === "live" ? actions.undoCompaction : undefined,
      forkBeforeCompaction: running
        ? undefined
        : (number: number) => actions.askFork({ kind: "before_compaction", number }, `just before compaction ${number}`),
      retryCompaction: running || mode !== "live" ? undefined : () => void actions.send("/compact"),
    }),
    [view, debugEvents, focusedCompaction, compaction, running, actions, mode],
  );

  // The sidebar's row is refreshed after every turn (a first message gives the session its
  // title, a switch its model); the snapshot the conversation opened with is not.
  const summary = view ? (sessions.find((s) => s.id === view.summary.id) ?? view.summary) : null;
  const context_window = view?.context_window ?? info?.active_profile.context_window ?? null;
  // The console fold's one reading (reported, or right after a compaction an estimate, labelled);
  // the session's snapshot until it arrived.
  const { gauge } = compaction;
  const threshold = gauge?.threshold ?? view?.threshold ?? info?.active_profile.compact_threshold ?? null;
  const context_tokens = gauge ? (gauge.tokens ?? null) : (view?.context_tokens ?? null);

  return (
    <ExternalLinks open={api.openExternalLink} onError={actions.fail}>
    <PaletteContext.Provider value={palette.open}>
    <div className={`app${consoleOpen ? " with-console" : ""}${narrow ? " narrow" : ""}`}>
      <AppHeader
        info={info}
        session={summary}
        sidebarOpen={sidebarShown}
        onToggleSidebar={toggleSidebar}
        sessionProvider={summary ? sessionProviderName(settings?.profiles ?? [], summary, view?.profile) : null}
        health={health}
        cost={summary ? gauge?.cost : null}
        consoleOpen={consoleOpen}
        onToggleConsole={actions.toggleConsole}
        changesOpen={changesOpen}
        onToggleChanges={view ? actions.toggleChanges : undefined}
        onOpenSettings={() => actions.setSettingsOpen(true)}
      />
      {info?.is_demo && <DemoBanner onConnect={() => actions.setConnectOpen(true)} />}
      {shouldAsk(imported.settings) && (
        <ImportConsent
          view={imported.settings}
          onShow={(tools) => void imported.saveSettings({ ...imported.settings!.settings, asked: true, tools })}
          onNotNow={() => void imported.saveSettings({ ...imported.settings!.settings, asked: true, tools: [] })}
        />
      )}
      <div className="workspace-area">
        {sidebarShown && (
          <SidebarDrawer drawer={narrow} onClose={closeDrawer}>
            <SessionSidebar
              sessions={sessions}
              activeId={imported.open ? null : (view?.summary.id ?? null)}
              filter={<SourceFilterSelect value={imported.filter} onChange={imported.setFilter} />}
              hideOwn={imported.filter !== "all" && imported.filter !== "strata"}
              imported={
                imported.filter !== "strata" && (
                  <>
                    <ImportedHits
                      hits={imported.hits.filter((hit) => imported.filter === "all" || hit.source === imported.filter)}
                      onPick={(hit) => {
                        closeDrawer();
                        void imported.openSession(hit.session_id, hit.entry_id ?? null);
                      }}
                    />
                    <ImportedList
                      sessions={imported.sessions.filter((session) => imported.filter === "all" || session.source === imported.filter)}
                      activeId={imported.open?.view.summary.id ?? null}
                      onOpen={(id) => {
                        closeDrawer();
                        void imported.openSession(id);
                      }}
                      onHide={(id) => void imported.hide(id)}
                      onOpenFile={() => void imported.pickAndImport()}
                    />
                  </>
                )
              }
              query={query}
              loading={loadingSessions}
              onQueryChange={actions.setQuery}
              onNew={() => {
                closeDrawer();
                newSession();
              }}
              onOpen={(id) => {
                closeDrawer();
                openOwn(id);
              }}
              onRename={(id, title) => actions.rename(id, title)}
              onDelete={(id) => actions.remove(id)}
              onExport={(id, format) => void actions.exportSession(id, format)}
              hits={found?.hits}
              hitsTotal={found?.total}
              hitsTotalCapped={found?.total_capped}
              onPickHit={(hit) => {
                closeDrawer();
                scrolledTo.current = null;
                openOwn(hit.session_id, hit.item_id ?? undefined);
              }}
            />
          </SidebarDrawer>
        )}
        {imported.open ? (
          <ImportedSessionPane key={imported.open.view.summary.path} view={imported.open.view} target={imported.open.target} />
        ) : view && summary ? (
          <Conversation
            key={view.summary.id}
            summary={summary}
            listRef={listRef}
            composerRef={composerRef}
            undoableCompaction={undoableSummary(compaction.undo)}
          />
        ) : (
          <WelcomeScreen error={loadError} hasSessions={sessions.length > 0} onNew={newSession} />
        )}
        {/* An imported session's compactions are beside its transcript; the dock is Strata's sessions'. */}
        {consoleOpen && !imported.open && (
          <ConsoleDock
            context={consoleContext}
            width={consoleWidth}
            maxWidth={consoleMaxWidth(windowWidth, { drawer: narrow, sidebar: sidebarShown })}
            drawer={narrow}
            onResize={actions.setConsoleWidth}
            onClose={() => actions.setConsoleOpen(false)}
          />
        )}
      </div>
      {view && gauge?.circuit_reason != null && mode === "live" && (
        <CircuitBanner busy={running} reason={gauge.circuit_reason} onRetry={() => void actions.send("/compact")} />
      )}
      <footer className="app-footer">
        {view && !imported.open ? (
          <>
            <ContextGauge context_tokens={context_tokens} threshold={threshold} context_window={gauge?.context_window ?? context_window} estimated={gauge?.estimated ?? false} />
          </>
        ) : (
          <span className="gauge gauge-empty">{imported.open ? `${imported.open.view.summary.models.join(", ") || "Model not recorded"}` : "No session open"}</span>
        )}
        <span className="footer-status" role="status">
          {imported.open ? "Read-only: another agent's session" : running ? "Working…" : view ? (mode === "live" ? "Ready" : "Read-only: held by another process") : ""}
        </span>
        <span className="footer-version">{info ? `Strata ${info.version}` : ""}</span>
      </footer>
      {connectOpen && settings && (
        <ConnectProviderDialog settings={settings} onClose={() => actions.setConnectOpen(false)} onSave={actions.saveSettings} />
      )}
      {settingsOpen && settings && (
        <SettingsDialog
          settings={settings}
          initialProfile={settingsProfile}
          workspace={summary?.workspace ?? null}
          sandboxUnavailable={info?.sandbox_unavailable ?? null}
          imports={imported.settings ? { view: imported.settings, onSave: (next) => void imported.saveSettings(next) } : null}
          onClose={() => actions.setSettingsOpen(false)}
          onSave={actions.saveSettings}
        />
      )}
      {switchingProfile && view && summary && (
        <SwitchProfileDialog
          session={summary}
          current={view.profile}
          profiles={settings?.profiles ?? []}
          onCancel={() => actions.setSwitchingProfile(false)}
          onSwitch={(profileId) => void actions.switchProfile(profileId)}
        />
      )}
      {newSessionSheet && settings && (
        <NewSessionSheet
          recent={newSessionSheet.recent}
          profiles={settings.profiles}
          defaultProfile={settings.active_profile}
          defaultApproval={settings.approval_policy}
          defaultSandbox={settings.sandbox ?? DEFAULT_SANDBOX}
          sandboxUnavailable={info?.sandbox_unavailable ?? null}
          defaultNetwork={settings.sandbox_network ?? "off"}
          allowDomains={settings.sandbox_allow_domains ?? []}
          onBrowse={actions.browseWorkspace}
          onCancel={actions.closeNewSession}
          onStart={(choice) => {
            void actions.startSession(choice).then((created) => {
              if (created) focusComposer();
            });
          }}
        />
      )}
      {broadWorkspace && (
        <BroadWorkspaceDialog
          workspace={broadWorkspace}
          onCancel={actions.cancelBroadWorkspace}
          onConfirm={() => {
            void actions.confirmBroadWorkspace().then((created) => {
              if (created) focusComposer();
            });
          }}
        />
      )}
      {historyDialog?.kind === "compact_up_to" && (
        <CompactUpToDialog
          excerpt={historyDialog.excerpt}
          onCancel={actions.closeHistoryDialog}
          onConfirm={(focus) => void actions.compactUpTo(historyDialog.itemId, focus)}
        />
      )}
      {historyDialog?.kind === "fork" && view && (
        <ForkDialog
          sessionId={view.summary.id}
          point={historyDialog.point}
          label={historyDialog.label}
          workspace={view.summary.workspace}
          onCancel={actions.closeHistoryDialog}
          onConfirm={(files) => void actions.fork(historyDialog.point, files)}
        />
      )}
      {shortcutsOpen && <ShortcutsDialog onClose={() => setShortcutsOpen(false)} />}
      {palette.mode && <CommandPalette mode={palette.mode} actions={palette.actions} onClose={palette.close} />}
      {toast && <Toast message={toast} onDismiss={() => actions.toast(null)} />}
    </div>
    </PaletteContext.Provider>
    </ExternalLinks>
  );
}

/** The debug console's code (panel, sections, chart): loaded when the console first opens. */
const consoleDock = lazyModule(() => import("./console/ConsoleDock"));

/** The debug console, once its code has loaded (nothing before: it loads in a moment). */
function ConsoleDock(props: ConsoleDockProps) {
  const loaded = useLazyModule(consoleDock);
  return loaded ? <loaded.ConsoleDock {...props} /> : null;
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
              ? "Pick a session on the left to continue it, or start a new one in a folder of your choice."
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
