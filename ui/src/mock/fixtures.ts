// Sample sessions for the browser preview (`--mode mock`) and the tests.
import type {
  CompactionMetadata,
  ResponseItem,
  SessionListItem,
  SessionRecord,
  TokenUsage,
} from "../api/types";
import { compactingSession } from "./compacting";

let counter = 0;
/** A UUID-shaped id; deterministic so screenshots and tests are stable. */
export function fakeId(): string {
  counter += 1;
  const hex = counter.toString(16).padStart(12, "0");
  return `0193a1b2-c3d4-7e5f-8a9b-${hex}`;
}

export class RecordWriter {
  records: SessionRecord[] = [];
  private clock: number;

  constructor(start: string) {
    this.clock = Date.parse(start);
  }

  private push(body: Omit<SessionRecord, "v" | "ts">, advanceMs = 4000): void {
    this.clock += advanceMs;
    this.records.push({ v: 1, ts: new Date(this.clock).toISOString(), ...body } as SessionRecord);
  }

  get now(): string {
    return new Date(this.clock).toISOString();
  }

  meta(sessionId: string, workspace: string, model: string) {
    this.push({
      type: "session_meta",
      payload: {
        session_id: sessionId,
        created_at: this.now,
        workspace,
        provider_kind: "openai-responses",
        model,
        strata_version: "0.1.0",
      },
    }, 0);
    this.item({ type: "message", id: fakeId(), role: "system", content: "You are Strata, a careful coding agent." });
  }

  item(item: ResponseItem, advanceMs = 4000) {
    this.push({ type: "response_item", payload: item }, advanceMs);
  }

  user(text: string) {
    const turnId = fakeId();
    this.push({ type: "turn_started", payload: { turn_id: turnId } }, 60_000);
    this.item({ type: "message", id: fakeId(), role: "user", content: text }, 0);
    return turnId;
  }

  assistant(text: string) {
    this.item({ type: "message", id: fakeId(), role: "assistant", content: text });
  }

  tool(name: string, args: object, output: string, decision?: "allow_once" | "allow_for_session" | "deny") {
    const callId = `call_${fakeId().slice(-6)}`;
    this.item({ type: "function_call", id: fakeId(), call_id: callId, name, arguments: JSON.stringify(args) });
    if (decision) this.push({ type: "approval_decision", payload: { call_id: callId, tool: name, decision } });
    this.item({ type: "function_call_output", id: fakeId(), call_id: callId, output });
  }

  usage(usage: TokenUsage) {
    this.push({ type: "token_usage", payload: { usage } }, 100);
  }

  retry(attempt: number, of: number, delayMs: number, cause: string) {
    this.push({ type: "retry", payload: { attempt, of, delay_ms: delayMs, cause } });
  }

  compaction(summary: string, metadata: CompactionMetadata) {
    this.item({ type: "compaction_summary", id: fakeId(), summary, metadata }, 9000);
  }

  finish(turnId: string, rounds: number, outcome: "completed" | "cancelled" | "failed" = "completed") {
    this.push({ type: "turn_finished", payload: { turn_id: turnId, outcome, rounds } }, 500);
  }

  title(title: string) {
    this.push({ type: "title_set", payload: { title } }, 100);
  }
}

export interface MockSession {
  summary: SessionListItem;
  records: SessionRecord[];
  context_tokens?: number;
}

function summarize(id: string, writer: RecordWriter, workspace: string, model: string, title: string): SessionListItem {
  const records = writer.records;
  return {
    id,
    title,
    workspace,
    provider_kind: "openai-responses",
    model,
    created_at: records[0]?.ts ?? writer.now,
    updated_at: records[records.length - 1]?.ts ?? writer.now,
    item_count: records.filter((r) => r.type === "response_item").length,
    compaction_count: records.filter((r) => r.type === "response_item" && r.payload.type === "compaction_summary").length,
  };
}

const PARSER_CODE = `pub fn parse_value(&mut self) -> Result<Value, ParseError> {
    match self.peek()? {
        b'{' => self.parse_object(),
        b'[' => self.parse_array(),
        b'"' => self.parse_string().map(Value::String),
        b't' | b'f' => self.parse_bool(),
        _ => self.parse_number(),
    }
}`;

/** A session with 5,000 rounds and about 100 compactions, for checking the console stays usable. */
export function stressSession(now = new Date()): MockSession {
  return compactingSession({
    sessionId: fakeId(),
    start: new Date(now.getTime() - 30 * 86_400_000).toISOString(),
    rounds: 5000,
    growth: 120,
    threshold: 8000,
    title: "Soak test: 5,000 rounds",
    workspace: "/home/ana/projects/ledger",
  });
}

/** The sample sessions, newest first. */
export function sampleSessions(now = new Date()): MockSession[] {
  counter = 0;
  const base = (hoursAgo: number) => new Date(now.getTime() - hoursAgo * 3_600_000).toISOString();

  // 1. A long session with a tool approval, a retry and a compaction.
  const parserId = fakeId();
  const parser = new RecordWriter(base(0.6));
  const workspace = "/home/ana/projects/tidewater";
  parser.meta(parserId, workspace, "gpt-5.4");
  let turn = parser.user("Add a streaming JSON parser to the `ingest` crate. It should handle partial input and report byte offsets on errors.");
  parser.tool("list_directory", { path: "crates/ingest/src" }, "lib.rs\nreader.rs\nerror.rs\nformats/");
  parser.tool("read_file", { path: "crates/ingest/src/reader.rs", start_line: 1, end_line: 60 }, "use std::io::Read;\n\npub struct ChunkReader<R> {\n    inner: R,\n    buf: Vec<u8>,\n}\n…");
  parser.usage({ input_tokens: 3120, output_tokens: 410 });
  parser.assistant(
    "The crate already buffers input in `ChunkReader`, so the parser can borrow from its buffer. I'll add a `StreamParser` that keeps a byte offset and resumes when more input arrives.",
  );
  parser.finish(turn, 3);
  turn = parser.user("Sounds good, go ahead. Keep the public API small.");
  parser.retry(1, 4, 2000, "429 Too Many Requests from the provider");
  parser.tool(
    "write_file",
    { path: "crates/ingest/src/stream.rs", content: "pub struct StreamParser { … }" },
    "Wrote crates/ingest/src/stream.rs (142 lines)",
    "allow_once",
  );
  parser.tool("run_shell", { command: "cargo test -p ingest" }, "running 18 tests\n..................\ntest result: ok. 18 passed; 0 failed", "allow_for_session");
  parser.usage({ input_tokens: 7240, output_tokens: 1380 });
  parser.compaction(
    "The user asked for a streaming JSON parser in crates/ingest with partial-input support and byte offsets in errors. StreamParser was written in crates/ingest/src/stream.rs and all 18 tests pass.",
    {
      trigger: "auto",
      reason: "Reported token usage 8620 reached the compaction threshold 8000",
      context_tokens: 8620,
      threshold: 8000,
      removed: 11,
      kept: 3,
      summarizer_model: "gpt-5.4",
      summarizer_usage: { input_tokens: 6400, output_tokens: 212 },
      duration_ms: 2140,
    },
  );
  parser.assistant(
    [
      "Done. `StreamParser` lives in `crates/ingest/src/stream.rs` and the whole test suite passes.",
      "",
      "The entry point dispatches on the next byte:",
      "",
      "```rust",
      PARSER_CODE,
      "```",
      "",
      "| Case | Behaviour |",
      "| --- | --- |",
      "| Partial input | returns `NeedMore` and keeps its state |",
      "| Bad byte | `ParseError { offset, expected }` |",
    ].join("\n"),
  );
  parser.usage({ input_tokens: 2410, output_tokens: 520 });
  parser.finish(turn, 4);
  const billingId = fakeId();
  const billing = compactingSession({
    sessionId: billingId,
    start: base(1.2),
    rounds: 110,
    growth: 1100,
    threshold: 8000,
    title: "Speed up the nightly invoice run",
    workspace: "/home/ana/projects/ledger",
  });
  const sessions: MockSession[] = [
    { summary: summarize(parserId, parser, workspace, "gpt-5.4", "Streaming JSON parser for ingest"), records: parser.records, context_tokens: 2930 },
    billing,
  ];

  // 2. A shorter, older session.
  const ciId = fakeId();
  const ci = new RecordWriter(base(5));
  ci.meta(ciId, "/home/ana/projects/harbor-api", "gpt-5.4");
  turn = ci.user("The `orders_e2e` test fails about one run in ten on CI. Find out why.");
  ci.tool("search_text", { pattern: "orders_e2e", path: "tests" }, "tests/orders_e2e.rs:12: async fn orders_e2e() {");
  ci.tool("read_file", { path: "tests/orders_e2e.rs" }, "…\n    tokio::time::sleep(Duration::from_millis(50)).await;\n…");
  ci.assistant("The test waits a fixed 50 ms for the queue worker. Under CI load the worker can take longer. Waiting on the worker's `ready` channel instead removes the race.");
  ci.usage({ input_tokens: 4180, output_tokens: 260 });
  ci.finish(turn, 3);
  sessions.push({ summary: summarize(ciId, ci, "/home/ana/projects/harbor-api", "gpt-5.4", "Flaky orders_e2e test on CI"), records: ci.records, context_tokens: 4440 });

  // 3. Yesterday's session that stopped on an error.
  const docsId = fakeId();
  const docs = new RecordWriter(base(27));
  docs.meta(docsId, "/home/ana/projects/strata", "gpt-5.4");
  turn = docs.user("Explain how the session store's lock works.");
  docs.assistant("Each session file has a sibling `.lock` file taken with an exclusive advisory lock while a writer is open; readers never take it.");
  docs.finish(turn, 1);
  sessions.push({ summary: summarize(docsId, docs, "/home/ana/projects/strata", "gpt-5.4", "How the session store locks files"), records: docs.records });

  // 4. An old one.
  const tomlId = fakeId();
  const toml = new RecordWriter(base(24 * 6));
  toml.meta(tomlId, "/home/ana/projects/harbor-api", "gpt-5.4");
  turn = toml.user("Migrate the config loader from YAML to TOML.");
  toml.assistant("Migrated `config.rs` to the `toml` crate and converted the three sample files.");
  toml.finish(turn, 5);
  sessions.push({ summary: summarize(tomlId, toml, "/home/ana/projects/harbor-api", "gpt-5.4", "Config loader: YAML to TOML"), records: toml.records });
  return sessions;
}
