// Real sessions for the browser preview and the tests: recorded from the
// offline demo model, with everything the app's commands answered for them
// (the snapshot, the transcript, compaction views, rounds) and one live turn
// as send_message's channel delivered it, and what the context commands
// that write (undo, fork) answered, with the session after them. Written by
// Rust (crates/strata-app/tests/preview/mod.rs, which fails when the
// conversion changes); nothing here folds records or repeats Rust's rules.
import type { SessionView } from "../api/types";
import type { CommandError } from "../bindings/CommandError";
import type { CompactionUndoneView } from "../bindings/CompactionUndoneView";
import type { CompactionView } from "../bindings/CompactionView";
import type { ConsoleView } from "../bindings/ConsoleView";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { ForkPoint } from "../bindings/ForkPoint";
import type { RoundPage } from "../bindings/RoundPage";
import type { SessionForkView } from "../bindings/SessionForkView";
import type { SessionItems } from "../bindings/SessionItems";
import type { ToolOutputText } from "../bindings/ToolOutputText";
import type { TranscriptEntry } from "../bindings/TranscriptEntry";
import recorded from "./library.json";

export interface PreviewSession {
  view: SessionView;
  transcript: TranscriptEntry[];
  compaction_views: CompactionView[];
  rounds: RoundPage;
  /** `open_console`'s answer, every log row. */
  console: ConsoleView;
  /** `session_items`' answer. */
  items: SessionItems;
  /** `tool_output`'s answer for each tool card, by call id. */
  tool_outputs: Record<string, ToolOutputText>;
  /** What `fork_session` answered at each point it was asked, with the fork's own answers. */
  forks?: RecordedFork[];
  /** What `undo_compaction` answered, with the session after it and how a second undo was refused. */
  undo?: RecordedUndo;
}

export interface RecordedFork {
  point: ForkPoint;
  answer: SessionForkView;
  fork: PreviewSession;
}

export interface RecordedUndo {
  answer: CompactionUndoneView;
  after: PreviewSession;
  refusal: CommandError;
}

export interface PreviewLibrary {
  about: string;
  sessions: PreviewSession[];
  live_turn: LiveEvent[];
}

/** A fresh copy of the recorded library (callers may change theirs). */
export function previewLibrary(): PreviewLibrary {
  return JSON.parse(JSON.stringify(recorded)) as PreviewLibrary;
}
