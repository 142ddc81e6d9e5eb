// One typed wrapper per command of docs/desktop-commands.md. Invoke names are
// snake_case; argument keys are camelCase (Tauri converts them).
import { Channel } from "@tauri-apps/api/core";
import type { AppInfo } from "../bindings/AppInfo";
import type { ApprovalDecision } from "../bindings/ApprovalDecision";
import type { CompactOutcome } from "../bindings/CompactOutcome";
import type { CompactionView } from "../bindings/CompactionView";
import type { EventEnvelope } from "../bindings/EventEnvelope";
import type { ExportFormat } from "../bindings/ExportFormat";
import type { RoundPage } from "../bindings/RoundPage";
import type { SessionId } from "../bindings/SessionId";
import type { SessionListItem } from "../bindings/SessionListItem";
import type { SessionView } from "../bindings/SessionView";
import type { Settings } from "../bindings/Settings";
import type { TurnReport } from "../bindings/TurnReport";
import { call } from "./ipc";

export type EventHandler = (event: EventEnvelope) => void;

function channelFor(onEvent: EventHandler): Channel<EventEnvelope> {
  return new Channel<EventEnvelope>(onEvent);
}

export const appInfo = () => call<AppInfo>("app_info");

export const listSessions = (query?: string) =>
  call<SessionListItem[]>("list_sessions", query ? { query } : {});

export const openSession = (sessionId: SessionId) =>
  call<SessionView>("open_session", { sessionId });

export const createSession = (workspace: string) =>
  call<SessionListItem>("create_session", { workspace });

export const sendMessage = (sessionId: SessionId, text: string, onEvent: EventHandler) =>
  call<TurnReport>("send_message", { sessionId, text, onEvent: channelFor(onEvent) });

export const stopTurn = (sessionId: SessionId) => call<boolean>("stop_turn", { sessionId });

export const answerApproval = (sessionId: SessionId, callId: string, decision: ApprovalDecision) =>
  call<boolean>("answer_approval", { sessionId, callId, decision });

export const compactNow = (sessionId: SessionId, focus: string | undefined, onEvent: EventHandler) =>
  call<CompactOutcome>("compact_now", {
    sessionId,
    ...(focus ? { focus } : {}),
    onEvent: channelFor(onEvent),
  });

export const renameSession = (sessionId: SessionId, title: string) =>
  call<SessionListItem>("rename_session", { sessionId, title });

export const deleteSession = (sessionId: SessionId) => call<void>("delete_session", { sessionId });

export const exportSession = (sessionId: SessionId, format: ExportFormat, path: string) =>
  call<void>("export_session", { sessionId, format, path });

export const getSettings = () => call<Settings>("get_settings");

export const saveSettings = (settings: Settings) => call<Settings>("save_settings", { settings });

export const setApiKey = (profileId: string, key: string) =>
  call<void>("set_api_key", { profileId, key });

/** Every compaction with the history just before and after it (the core's replay). */
export const compactionViews = (sessionId: SessionId) =>
  call<CompactionView[]>("compaction_views", { sessionId });

/** A page of rounds, each with the exact request it sent. */
export const roundRequests = (sessionId: SessionId, offset?: number, limit?: number) =>
  call<RoundPage>("round_requests", {
    sessionId,
    ...(offset !== undefined ? { offset } : {}),
    ...(limit !== undefined ? { limit } : {}),
  });

/** Opens a link the person confirmed in the system browser; the shell checks it again (http, https, mailto only). */
export const openExternalLink = (url: string) => call<void>("open_external_link", { url });
