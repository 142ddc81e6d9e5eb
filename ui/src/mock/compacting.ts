// A session that compacts several times, with a round record before every
// model response, for the debug console in the browser preview. With
// `stress` it has 5,000 rounds and about 100 compactions.
import type { ResponseItem, SessionListItem, SessionRecord, TokenUsage } from "../api/types";
import type { ToolSpec } from "../bindings/ToolSpec";
import { fakeId } from "./fixtures";
import { applyCompaction, estimateTokens } from "./replay";

const TOOLS: ToolSpec[] = [
  { name: "read_file", description: "Read a UTF-8 file in the workspace.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  { name: "search_text", description: "Search the workspace for a regular expression.", parameters: { type: "object", properties: { pattern: { type: "string" }, path: { type: "string" } }, required: ["pattern"] } },
  { name: "apply_patch", description: "Apply a unified diff to files in the workspace.", parameters: { type: "object", properties: { patch: { type: "string" } }, required: ["patch"] } },
  { name: "run_shell", description: "Run a command in the workspace.", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } },
];

const ASKS = [
  "The nightly invoice run in `billing/` takes 40 minutes now. Profile it and find what got slow.",
  "Good find. Batch the tax lookups per customer instead of per line item.",
  "Run the whole billing test suite and fix whatever breaks.",
  "Now make the retry policy for the payment gateway configurable from `billing.toml`.",
  "Add a metric for how long each invoice batch takes.",
  "The CSV export drops the currency column for EUR invoices. Fix that too.",
  "Write a short migration note for the ops team in docs/billing.md.",
  "Double-check the rounding: totals must use banker's rounding everywhere.",
  "Can the PDF renderer reuse the template cache between batches?",
  "Last thing: bump the crate versions and update the changelog.",
];

const FILES = ["billing/src/run.rs", "billing/src/tax.rs", "billing/src/export/csv.rs", "billing/src/gateway.rs", "billing/tests/nightly.rs", "billing/src/pdf.rs"];

function rng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function codeLines(file: string, count: number, random: () => number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const n = Math.floor(random() * 900);
    lines.push(
      i % 5 === 0
        ? `// ${file}:${i + 1}`
        : `    let batch_${n} = ledger.lines_for(customer_${n % 17}).filter(|l| l.amount_cents > ${n}).collect::<Vec<_>>();`,
    );
  }
  return lines.join("\n");
}

interface Options {
  sessionId: string;
  start: string;
  rounds: number;
  /** Tokens a tool output adds to the context, on average. */
  growth: number;
  threshold: number;
  title: string;
  workspace: string;
}

/** Writes the session record by record, replaying as it goes so every round's `input_items` is right. */
export function compactingSession(options: Options): { summary: SessionListItem; records: SessionRecord[]; context_tokens?: number } {
  const random = rng(options.rounds * 7919 + options.growth);
  const records: SessionRecord[] = [];
  let clock = Date.parse(options.start);
  let history: ResponseItem[] = [];
  let context = 0;
  let last_usage: TokenUsage | null = null;
  const push = (body: Omit<SessionRecord, "v" | "ts">, advanceMs: number) => {
    clock += advanceMs;
    records.push({ v: 1, ts: new Date(clock).toISOString(), ...body } as SessionRecord);
  };
  const item = (next: ResponseItem, advanceMs = 1500) => {
    push({ type: "response_item", payload: next }, advanceMs);
    history = next.type === "compaction_summary" ? applyCompaction(history, next) : [...history, next];
  };
  push(
    {
      type: "session_meta",
      payload: { session_id: options.sessionId, created_at: new Date(clock).toISOString(), workspace: options.workspace, provider_kind: "openai-responses", model: "gpt-5.4", strata_version: "0.1.0" },
    },
    0,
  );
  item({ type: "message", id: fakeId(), role: "system", content: `You are Strata, a careful coding agent working in ${options.workspace}. Use the tools to read and change files; ask before changing anything.` }, 2);
  push({ type: "title_set", payload: { title: options.title } }, 800);

  let round = 0;
  let turnIndex = 0;
  let compactions = 0;
  while (round < options.rounds) {
    const turnId = fakeId();
    push({ type: "turn_started", payload: { turn_id: turnId } }, 45_000);
    const ask = ASKS[turnIndex % ASKS.length] ?? "Continue.";
    item({ type: "message", id: fakeId(), role: "user", content: turnIndex < ASKS.length ? ask : `${ask} (pass ${Math.floor(turnIndex / ASKS.length) + 1})` }, 0);
    turnIndex += 1;
    const roundsThisTurn = Math.min(options.rounds - round, 3 + Math.floor(random() * 6));
    for (let r = 0; r < roundsThisTurn; r += 1) {
      round += 1;
      const roundId = fakeId();
      push(
        {
          type: "round",
          payload: { turn_id: turnId, round_id: roundId, provider_kind: "openai-responses", model: "gpt-5.4", tools: TOOLS, tool_choice: { type: "auto" }, max_output_tokens: 8192, input_items: history.length },
        },
        400,
      );
      const last = r === roundsThisTurn - 1;
      const file = FILES[Math.floor(random() * FILES.length)] ?? "billing/src/run.rs";
      if (round % 97 === 13) {
        push({ type: "retry", payload: { round_id: roundId, attempt: 1, of: 4, delay_ms: 2000, cause: "429 Too Many Requests: rate limited by the provider" } }, 900);
      }
      const output = 60 + Math.floor(random() * 260);
      context = Math.max(context, estimateTokens(history) + 1400) + Math.floor(random() * 120);
      if (last) {
        item({ type: "message", id: fakeId(), role: "assistant", content: `Done with this step: I changed ${file} and the billing tests pass. The nightly batch now groups tax lookups per customer, which removes ${Math.floor(random() * 4000 + 800)} round trips per run.` }, 2600);
      } else {
        const callId = `call_${fakeId().slice(-6)}`;
        const tool = r % 3 === 2 ? "run_shell" : r % 3 === 1 ? "apply_patch" : "read_file";
        const args = tool === "run_shell" ? { command: "cargo test -p billing" } : tool === "apply_patch" ? { patch: `--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-old\n+new\n` } : { path: file };
        item({ type: "function_call", id: fakeId(), call_id: callId, name: tool, arguments: JSON.stringify(args) }, 2100);
        const usage: TokenUsage = { input_tokens: context, cached_input_tokens: Math.floor(context * 0.6), output_tokens: output, total_tokens: context + output };
        push({ type: "token_usage", payload: { round_id: roundId, usage } }, 30);
        last_usage = usage;
        if (tool === "apply_patch") push({ type: "approval_decision", payload: { call_id: callId, tool, decision: round % 11 === 0 ? "deny" : "allow_once" } }, 3500);
        const text = tool === "run_shell" ? `running 48 tests\n${".".repeat(48)}\ntest result: ok. 48 passed; 0 failed` : codeLines(file, Math.max(4, Math.floor((options.growth * (0.5 + random())) / 22)), random);
        item({ type: "function_call_output", id: fakeId(), call_id: callId, output: tool === "apply_patch" ? (round % 11 === 0 ? "The person denied this call." : `Patched ${file} (1 hunk).`) : text }, 600);
        const reported = context + output;
        if (reported >= options.threshold) {
          compactions += 1;
          const plan = applyCompaction(history, { type: "message", id: "probe", role: "assistant", content: "" });
          const kept = plan.length - 1;
          const summary = `Goal: speed up the nightly invoice run in billing/ and tidy what it touches (pass ${compactions}). Done: profiled the run; tax lookups were issued per line item (${Math.floor(random() * 40000 + 9000)} calls a night); batched them per customer in billing/src/tax.rs; the billing suite passes. In progress: ${ask.replace(/`/g, "")} Files touched: ${FILES.slice(0, 2 + (compactions % 4)).join(", ")}. Decisions: keep the public API of billing::run unchanged; retries stay at 4 attempts unless configured. Errors: none outstanding.`;
          item(
            {
              type: "compaction_summary",
              id: fakeId(),
              summary,
              metadata: {
                trigger: compactions % 7 === 0 ? "manual" : "auto",
                reason: compactions % 7 === 0 ? "Compacted on request (/compact)" : `Reported token usage ${reported} reached the compaction threshold ${options.threshold}`,
                context_tokens: reported,
                threshold: options.threshold,
                removed: history.length - kept,
                kept,
                summarizer_model: "gpt-5.4-mini",
                summarizer_usage: { input_tokens: Math.floor(reported * 0.92), output_tokens: 180 + Math.floor(random() * 220) },
                duration_ms: 1400 + Math.floor(random() * 2600),
              },
            },
            3000,
          );
          context = 0;
        }
        continue;
      }
      const usage: TokenUsage = { input_tokens: context, cached_input_tokens: Math.floor(context * 0.6), output_tokens: output, total_tokens: context + output };
      push({ type: "token_usage", payload: { round_id: roundId, usage } }, 30);
      last_usage = usage;
    }
    push({ type: "turn_finished", payload: { turn_id: turnId, outcome: "completed", rounds: roundsThisTurn } }, 300);
  }
  const summary: SessionListItem = {
    id: options.sessionId,
    title: options.title,
    workspace: options.workspace,
    provider_kind: "openai-responses",
    model: "gpt-5.4",
    created_at: records[0]?.ts ?? options.start,
    updated_at: records[records.length - 1]?.ts ?? options.start,
    item_count: records.filter((r) => r.type === "response_item").length,
    compaction_count: records.filter((r) => r.type === "response_item" && r.payload.type === "compaction_summary").length,
  };
  const tokens = last_usage ? (last_usage.input_tokens ?? 0) + (last_usage.output_tokens ?? 0) : undefined;
  return { summary, records, context_tokens: tokens };
}
