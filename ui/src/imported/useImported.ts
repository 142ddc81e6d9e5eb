import { useCallback, useEffect, useState } from "react";
import type { ImportSettings } from "../bindings/ImportSettings";
import type { ImportSettingsView } from "../bindings/ImportSettingsView";
import type { ImportedSearchHit } from "../bindings/ImportedSearchHit";
import type { ImportedSessionItem } from "../bindings/ImportedSessionItem";
import type { ImportedSessionView } from "../bindings/ImportedSessionView";
import * as api from "./api";
import type { SourceFilter } from "./api";

/** The imported session shown in place of a conversation, and the entry to scroll to. */
export interface OpenImported {
  view: ImportedSessionView;
  target: string | null;
}

export interface ImportedState {
  sessions: ImportedSessionItem[];
  settings: ImportSettingsView | null;
  open: OpenImported | null;
  hits: ImportedSearchHit[];
  filter: SourceFilter;
  setFilter: (filter: SourceFilter) => void;
  refresh: () => Promise<void>;
  openSession: (id: string, target?: string | null) => Promise<void>;
  close: () => void;
  hide: (id: string) => Promise<void>;
  /** "Open file…": the native picker, then `import_sessions`; the first session found opens. */
  pickAndImport: () => Promise<void>;
  saveSettings: (settings: ImportSettings) => Promise<void>;
}

/**
 * Other agents' sessions in the window: their rows, the person's choice of which to show, the
 * one open read-only, and the search box's hits in them. `query` is the sidebar's search text.
 */
export function useImported(query: string, fail: (error: unknown) => void): ImportedState {
  const [sessions, setSessions] = useState<ImportedSessionItem[]>([]);
  const [settings, setSettings] = useState<ImportSettingsView | null>(null);
  const [open, setOpen] = useState<OpenImported | null>(null);
  const [hits, setHits] = useState<ImportedSearchHit[]>([]);
  const [filter, setFilter] = useState<SourceFilter>("all");

  const refresh = useCallback(async () => {
    try {
      const [page, view] = await Promise.all([api.listImported(), api.importSettings()]);
      setSessions(page.sessions);
      setSettings(view);
    } catch (error) {
      fail(error);
    }
  }, [fail]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  useEffect(() => {
    const text = query.trim();
    let stale = false;
    const timer = window.setTimeout(() => {
      if (!text) {
        setHits([]);
        return;
      }
      api
        .searchImported(text)
        .then((found) => {
          if (!stale) setHits(found.hits);
        })
        .catch(fail);
    }, 200);
    return () => {
      stale = true;
      window.clearTimeout(timer);
    };
  }, [query, fail, sessions]);

  const openSession = useCallback(
    async (id: string, target: string | null = null) => {
      try {
        setOpen({ view: await api.openImported(id), target });
      } catch (error) {
        fail(error);
      }
    },
    [fail],
  );

  const close = useCallback(() => setOpen(null), []);

  const hide = useCallback(
    async (id: string) => {
      try {
        await api.hideImported(id);
        setOpen((current) => (current?.view.summary.id === id ? null : current));
        await refresh();
      } catch (error) {
        fail(error);
      }
    },
    [fail, refresh],
  );

  const pickAndImport = useCallback(async () => {
    try {
      const paths = await api.pickImportPaths();
      if (paths.length === 0) return;
      const report = await api.importSessions(paths);
      await refresh();
      const first = report.sessions[0];
      if (first) setOpen({ view: await api.openImported(first.id), target: null });
      else fail(new Error("No Codex, Claude Code or Copilot session was found in that file."));
    } catch (error) {
      fail(error);
    }
  }, [fail, refresh]);

  const saveSettings = useCallback(
    async (next: ImportSettings) => {
      try {
        setSettings(await api.saveImportSettings(next));
        const page = await api.listImported();
        setSessions(page.sessions);
      } catch (error) {
        fail(error);
      }
    },
    [fail],
  );

  return { sessions, settings, open, hits, filter, setFilter, refresh, openSession, close, hide, pickAndImport, saveSettings };
}
