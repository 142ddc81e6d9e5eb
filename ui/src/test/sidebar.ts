import { vi } from "vitest";
import type { SessionListItem } from "../api/types";

/** A sidebar row: a small demo session, a fork when `forked_from` is given. */
export const listedSession = (id: string, title: string, forked_from?: SessionListItem["forked_from"]): SessionListItem => ({
  id,
  title,
  workspace: "/home/ana/harbor",
  provider_kind: "demo",
  model: "strata-demo",
  created_at: "2026-11-28T10:00:00Z",
  updated_at: "2026-11-28T11:00:00Z",
  item_count: 3,
  compaction_count: 0,
  ...(forked_from ? { forked_from } : {}),
});

/** Every callback the sidebar takes, as mocks. */
export const sidebarHandlers = () => ({
  onNew: vi.fn(),
  onOpen: vi.fn(),
  onRename: vi.fn(),
  onDelete: vi.fn(),
  onExport: vi.fn(),
  onQueryChange: vi.fn(),
});
