// A small session with two compactions, as the shell returns it. Its records
// (and the live events of some scenarios) are in console/scenarios.json; what
// the Rust folds make of them (open_console, compaction_views,
// open_transcript) is in console/views.json, written by
// crates/strata-app/tests/console_fixtures (which fails when a fold changes).
// Nothing here folds records.
import type { ResponseItem, SessionRecord, SessionView } from "../api/types";
import type { CompactionView } from "../bindings/CompactionView";
import type { ConsoleView } from "../bindings/ConsoleView";
import type { LogRow } from "../bindings/LogRow";
import type { RoundPage } from "../bindings/RoundPage";
import type { TranscriptEntry } from "../bindings/TranscriptEntry";
import type { TranscriptPage } from "../bindings/TranscriptPage";
import scenarios from "./console/scenarios.json";
import folds from "./console/views.json";

/** The scenarios of console/scenarios.json. */
export type ConsoleScenario = "two_compactions" | "undone" | "refused" | "empty";

interface Folded {
  console: ConsoleView;
  compaction_views: CompactionView[];
  transcript: TranscriptEntry[];
}

/** A fresh copy of what the Rust folds answer for `scenario` (callers may change theirs). */
export function folded(scenario: ConsoleScenario = "two_compactions"): Folded {
  const all = folds as unknown as Record<ConsoleScenario, Folded>;
  return JSON.parse(JSON.stringify(all[scenario])) as Folded;
}

/** The records of `scenario`. */
export function scenarioRecords(scenario: ConsoleScenario): SessionRecord[] {
  const found = scenarios.scenarios.find((s) => s.name === scenario);
  if (!found) throw new Error(`no console scenario ${scenario}`);
  return JSON.parse(JSON.stringify(found.records)) as SessionRecord[];
}

export const consoleRecords: SessionRecord[] = scenarioRecords("two_compactions");
export const CONSOLE_SESSION = (consoleRecords[0] as Extract<SessionRecord, { type: "session_meta" }>).payload.session_id;

function item<T extends ResponseItem = ResponseItem>(id: string): T {
  for (const record of consoleRecords) {
    if (record.type === "response_item" && record.payload.id === id) return record.payload as T;
  }
  throw new Error(`no item ${id} in the console fixture`);
}

export const system = item("0193a1b2-c3d4-7e5f-8a9b-0000000d0007");
export const user1 = item("0193a1b2-c3d4-7e5f-8a9b-0000000d0008");
export const answer1 = item("0193a1b2-c3d4-7e5f-8a9b-0000000d0001");
export const user2 = item("0193a1b2-c3d4-7e5f-8a9b-0000000d0009");
export const summary1 = item<Extract<ResponseItem, { type: "compaction_summary" }>>("0193a1b2-c3d4-7e5f-8a9b-0000000d0005");
export const summary2 = item<Extract<ResponseItem, { type: "compaction_summary" }>>("0193a1b2-c3d4-7e5f-8a9b-0000000d0006");
const TURN_2 = (consoleRecords.filter((r) => r.type === "turn_started")[1] as Extract<SessionRecord, { type: "turn_started" }>).payload.turn_id;
const round = (n: number) => `0193a1b2-c3d4-7e5f-8a9b-0000000c0b0${n}`;
const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output });

/** `compaction_views`' answer for the fixture's session. */
export const consoleViews: CompactionView[] = folded().compaction_views;

export const consoleContext: ResponseItem[] = [system, summary2, user1, user2];

export function consoleView(overrides: Partial<SessionView> = {}): SessionView {
  return {
    summary: {
      id: CONSOLE_SESSION,
      title: "Parser work",
      workspace: "/w",
      provider_kind: "openai-responses",
      model: "gpt-5.4",
      created_at: consoleRecords[0]?.ts ?? "",
      updated_at: consoleRecords[consoleRecords.length - 1]?.ts ?? "",
      item_count: 8,
      compaction_count: 2,
    },
    records: consoleRecords,
    context: consoleContext,
    threshold: 8000,
    context_window: 32000,
    live: false,
    held_elsewhere: false,
    record_count: consoleRecords.length,
    ...overrides,
  };
}

/** What `open_console` answers for `scenario` (by default the fixture's session). */
export function consoleConsole(scenario: ConsoleScenario = "two_compactions"): ConsoleView {
  return folded(scenario).console;
}

/**
 * `open_console`'s answer for a session of `count` rounds, for paging and virtualisation: the
 * fixture's round and usage rows repeated (the rows as the Rust fold writes them).
 */
export function manyRoundsConsole(count: number): ConsoleView {
  const view = consoleConsole("empty");
  const template = consoleConsole();
  const roundRow = template.rows.find((row) => row.kind === "round");
  const usageRow = template.rows.find((row) => row.kind === "usage");
  const point = template.chart[0];
  if (!roundRow || !usageRow || !point) throw new Error("the fixture has a round, its usage and its chart point");
  const rows: LogRow[] = [...view.rows];
  const chart = [];
  for (let i = 0; i < count; i += 1) {
    rows.push({ ...roundRow, index: rows.length, record_index: rows.length, round_number: i + 1, title: `Round ${i + 1} sent` });
    rows.push({ ...usageRow, index: rows.length, record_index: rows.length });
    chart.push({ ...point, round: i + 1 });
  }
  return { ...view, rows, chart, rows_total: rows.length, records: rows.length };
}

export function roundPage(number: number): RoundPage {
  return {
    total: 4,
    offset: number - 1,
    rounds: [
      {
        number,
        record_index: 15,
        ts: consoleRecords[15]?.ts ?? "",
        estimated_input_tokens: 2_100,
        round: { turn_id: TURN_2, round_id: round(number), provider_kind: "openai-responses", model: "gpt-5.4", tools: [{ name: "read_file", description: "Read a file.", parameters: { type: "object" } }], tool_choice: { type: "auto" }, max_output_tokens: 8192, input_items: 4, estimated_input_tokens: 2_100 },
        request: {
          model: "gpt-5.4",
          input: [system, summary1, user1, user2],
          tools: [{ name: "read_file", description: "Read a file.", parameters: { type: "object" } }],
          tool_choice: { type: "auto" },
          max_output_tokens: 8192,
        },
        usage: usage(1900, 312),
        context_tokens: 2212,
        input_consistent: true,
      },
    ],
  };
}

/** What `open_transcript` answers for `consoleRecords`. */
export const consoleTranscript: TranscriptEntry[] = folded().transcript;

/** `open_transcript`'s page holding all of `consoleTranscript`. */
export function consoleTranscriptPage(): TranscriptPage {
  return { v: 1, session_id: CONSOLE_SESSION, entries: consoleTranscript, total: consoleTranscript.length, start: 0 };
}

const demoProfile = { id: "demo", kind: "demo", label: "Offline demo", model: "strata-demo", has_key: false, context_window: 32000, compact_threshold: 8000 };

/**
 * The shell's answers for the app showing this session (for `mockShell`);
 * `overrides` answer other commands, or these differently.
 */
export function consoleApp(overrides: Record<string, () => unknown> = {}) {
  return (cmd: string): unknown => {
    const answer = overrides[cmd];
    if (answer) return answer();
    switch (cmd) {
      case "app_info":
        return { version: "0.1.0", strata_home: "/h", active_profile: demoProfile, is_demo: true };
      case "get_settings":
        return { profiles: [demoProfile], active_profile: "demo", approval_policy: "ask", theme: "light" };
      case "list_sessions":
        return { v: 1, sessions: [consoleView().summary], total: 1 };
      case "open_session":
        return consoleView();
      case "compaction_views":
        return consoleViews;
      case "open_console":
        return consoleConsole();
      case "open_transcript":
        return consoleTranscriptPage();
      case "watch_library":
        return null;
      default:
        throw { kind: "internal", message: `unexpected ${cmd}` };
    }
  };
}
