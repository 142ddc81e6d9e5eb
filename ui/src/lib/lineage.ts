import type { SessionListItem } from "../api/types";
import type { ForkPoint } from "../bindings/ForkPoint";
import { shortId } from "./format";

export function sessionTitle(session: SessionListItem): string {
  return session.title?.trim() || "Untitled session";
}

/** Where a fork starts, for a person: `after item 0193a1b2` or `before compaction 2`. */
export function forkPointLabel(point: ForkPoint): string {
  return point.kind === "at_item" ? `after item ${shortId(point.item_id)}` : `before compaction ${point.number}`;
}

export interface SessionNode {
  session: SessionListItem;
  /** Forks of it that are listed too, in list order. */
  forks: SessionNode[];
}

/**
 * The list as a forest: a fork whose parent is listed sits under it; every
 * other session (a fork whose parent is not listed included) is a root, in
 * list order.
 */
export function lineageTree(sessions: SessionListItem[]): SessionNode[] {
  const nodes = new Map(sessions.map((session) => [session.id, { session, forks: [] as SessionNode[] }]));
  const roots: SessionNode[] = [];
  for (const session of sessions) {
    const node = nodes.get(session.id);
    if (!node) continue;
    const parentId = session.forked_from?.parent_session_id;
    const parent = parentId && parentId !== session.id ? nodes.get(parentId) : undefined;
    if (parent && !isDescendant(nodes, parent.session, session.id)) parent.forks.push(node);
    else roots.push(node);
  }
  return roots;
}

/** Whether `session` descends from `ancestorId` (so no cycle can hide a row). */
function isDescendant(nodes: Map<string, SessionNode>, session: SessionListItem, ancestorId: string): boolean {
  const seen = new Set<string>();
  let current: SessionListItem | undefined = session;
  while (current?.forked_from && !seen.has(current.id)) {
    seen.add(current.id);
    if (current.forked_from.parent_session_id === ancestorId) return true;
    current = nodes.get(current.forked_from.parent_session_id)?.session;
  }
  return false;
}

/** Whether one of `node`'s forks, at any depth, is the session `id`. */
export function holdsSession(node: SessionNode, id: string | null): boolean {
  return id !== null && node.forks.some((fork) => fork.session.id === id || holdsSession(fork, id));
}

/** Whether `node`'s forks are shown: unless folded, and always when the open session is one of them. */
function forksShown(node: SessionNode, folded: ReadonlySet<string>, activeId: string | null): boolean {
  return !folded.has(node.session.id) || holdsSession(node, activeId);
}

/** A row as the person sees it: a session and the index of the top-level row it is under. */
export interface ShownRow {
  id: string;
  root: number;
}

/** Every row shown, top to bottom: each root, then its shown forks depth first. */
export function shownRows(roots: SessionNode[], folded: ReadonlySet<string>, activeId: string | null): ShownRow[] {
  const rows: ShownRow[] = [];
  const walk = (node: SessionNode, root: number) => {
    rows.push({ id: node.session.id, root });
    if (forksShown(node, folded, activeId)) for (const fork of node.forks) walk(fork, root);
  };
  roots.forEach((node, root) => walk(node, root));
  return rows;
}
