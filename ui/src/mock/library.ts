// Real sessions for the browser preview and the tests: recorded from the
// offline demo model, with everything the app's commands answered for them
// (the snapshot, the transcript, compaction views, rounds) and one live turn
// as send_message's channel delivered it. Written by Rust
// (crates/strata-app/tests/preview/mod.rs, which fails when the
// conversion changes); nothing here folds records.
import type { SessionView } from "../api/types";
import type { CompactionView } from "../bindings/CompactionView";
import type { ConsoleView } from "../bindings/ConsoleView";
import type { LiveEvent } from "../bindings/LiveEvent";
import type { RoundPage } from "../bindings/RoundPage";
import type { TranscriptEntry } from "../bindings/TranscriptEntry";
import recorded from "./library.json";

export interface PreviewSession {
  view: SessionView;
  transcript: TranscriptEntry[];
  compaction_views: CompactionView[];
  rounds: RoundPage;
  /** `open_console`'s answer, every log row. */
  console: ConsoleView;
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
