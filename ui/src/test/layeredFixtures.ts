// Layered context management as Rust records it: an eviction, a layered
// summary with its state sheet and loss audit, and a preview (typed from the
// generated bindings; figures written out by hand).
import type { CompactionPreview } from "../bindings/CompactionPreview";
import type { CompactionStatus } from "../bindings/CompactionStatus";
import type { LayeredCompaction } from "../bindings/LayeredCompaction";
import type { StateSheet } from "../bindings/StateSheet";
import type { ToolOutputsEvicted } from "../bindings/ToolOutputsEvicted";
import { consoleViews, summary2 } from "./consoleFixtures";

export const eviction: ToolOutputsEvicted = {
  trigger: "auto",
  context_tokens: 8_412,
  threshold: 8_000,
  low_water: 4_000,
  estimated_before: 8_350,
  estimated_after: 3_900,
  evicted: [
    { item_id: "i-out-1", call_id: "c1", tool: "read_file", chars: 14_200, placeholder: "[evicted i-out-1: read_file src/parser.rs, 14200 chars — fn parse() {}]" },
    { item_id: "i-out-2", call_id: "c2", tool: "run_shell", chars: 3_800, placeholder: "[evicted i-out-2: run_shell cargo test, 3800 chars — exit 1]" },
  ],
};

export const sheet: StateSheet = {
  first_request: "Fix the parser.",
  latest_request: "Now add tests.",
  rules: ["approval policy: ask", "Never edit vendor/"],
  files: [
    { path: "src/parser.rs", last_action: "edited" },
    { path: "tests/parser.rs", last_action: "written" },
  ],
  commands: [{ command: "cargo test", exit_code: 0 }],
  errors: [{ subject: "run_shell cargo test", message: "1 test failed", fixed: true }],
  next_step: "Next: add a test for empty input.",
  text: "[State sheet]\nFiles: src/parser.rs (edited), tests/parser.rs (written)\nCommands: cargo test (exit 0)",
};

export function layered(overrides: Partial<LayeredCompaction> = {}): LayeredCompaction {
  return {
    summary: summary2,
    sheet_message: { id: "i-sheet", role: "user", content: sheet.text },
    state_sheet: sheet,
    leading: ["i-system"],
    kept: ["i-user-1", "i-user-2"],
    folded_out: 0,
    estimated_before: 9_050,
    estimated_after: 2_100,
    loss_audit: { paths: [], commands: [], errors: [] },
    ...overrides,
  };
}

/** The second console view as a layered summary. */
export const layeredView = { ...consoleViews[1]!, next_context_tokens: 2_430 };

export const preview: CompactionPreview = {
  policy: "layered",
  threshold: 8_000,
  reported_tokens: 8_412,
  cached_tokens_given_up: 6_144,
  estimated_before: 8_350,
  estimated_after_eviction: 3_900,
  estimated_after_summary: 1_200,
  evicted: eviction.evicted,
  summary_needed: false,
  summarized: ["i-call-1", "i-out-1", "i-answer-1"],
  kept: ["i-system", "i-user-1", "i-user-2"],
  state_sheet: sheet,
};

export const status: CompactionStatus = {
  policy: "layered",
  threshold_setting: "80%",
  threshold: 25_600,
  context_window: 32_000,
  reported_tokens: 8_412,
  circuit_open: false,
};
