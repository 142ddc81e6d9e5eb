//! Seeded generators of sessions of realistic shape (user turns, rounds,
//! tool calls with 0.5–20 KB outputs, token usage, compactions each followed
//! by its checkpoint, as the live session writes them) and of a library of them, for benchmarks anyone can rerun. Records are streamed
//! to disk one at a time; memory stays bounded by the model-visible history,
//! which compactions keep short.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, TimeZone, Utc};
use strata_core::{Applied, History, Replay};
use strata_protocol::{
    CompactionMetadata, CompactionSummary, CompactionTrigger, FunctionCall, FunctionCallOutput,
    ItemId, Message, Record, RecordBody, ResponseItem, Role, RoundId, RoundRecord, SessionId,
    SessionMeta, TokenUsage, TokenUsageRecord, TurnFinished, TurnId, TurnOutcome, TurnStarted,
};
use uuid::Uuid;

use crate::error::{IndexError, Result};

/// How a generated session is shaped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Records to write (at least; the last turn is finished).
    pub records: u64,
    pub max_rounds_per_turn: u32,
    pub max_calls_per_round: u32,
    /// Tool output sizes, drawn log-uniformly between these.
    pub output_bytes: (usize, usize),
    /// A compaction follows once this many records were written since the
    /// last one.
    pub compaction_every: u64,
}

impl Shape {
    /// A long session of about `records` records.
    pub fn long(records: u64) -> Self {
        Self {
            records,
            max_rounds_per_turn: 6,
            max_calls_per_round: 2,
            output_bytes: (512, 20 * 1024),
            compaction_every: 400,
        }
    }
}

/// What a generated session holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub id: SessionId,
    pub path: PathBuf,
    pub records: u64,
    pub bytes: u64,
}

const WORDS: &[&str] = &[
    "parser",
    "token",
    "buffer",
    "index",
    "cache",
    "session",
    "request",
    "stream",
    "layout",
    "config",
    "retry",
    "deadline",
    "schema",
    "migration",
    "render",
    "widget",
    "column",
    "row",
    "build",
    "test",
    "failure",
    "panic",
    "offset",
    "length",
    "encode",
    "decode",
    "handler",
    "router",
    "client",
    "server",
    "latency",
    "queue",
    "worker",
    "thread",
    "lock",
    "mutex",
];
const IDENTS: &[&str] = &[
    "parse_csv_line",
    "HttpClient::send",
    "RetryPolicy",
    "fn main()",
    "impl Display for Row",
    "src/lib.rs",
    "crates/core/src/store.rs",
    "tests/fixtures/input.csv",
    "Cargo.toml",
    "useEffect(() => {",
    "SELECT * FROM users",
    "ERROR: connection refused",
    "0x7ffd_3a2c",
];
const TOOLS: &[&str] = &["read_file", "run_shell", "search", "edit_file", "list_dir"];
const WORKSPACES: usize = 24;
const MODELS: &[(&str, &str)] = &[
    ("openai-responses", "gpt-5.4"),
    ("openai-responses", "gpt-5.4-mini"),
    ("anthropic", "claude-sonnet-4.5"),
    ("openai-chat", "qwen3-coder"),
];

struct Writer {
    out: BufWriter<File>,
    path: PathBuf,
    records: u64,
    bytes: u64,
    now: DateTime<Utc>,
    /// The replay of what was written: the history the rounds count, and
    /// the state each checkpoint stores.
    state: Replay,
    /// Draws the gaps between records, apart from the content's draws.
    clock: fastrand::Rng,
}

impl Writer {
    fn write(&mut self, body: RecordBody) -> Result<()> {
        self.now += Duration::milliseconds(self.clock.i64(50..4_000));
        let record = Record {
            v: body.format_version(),
            ts: self.now,
            body,
        };
        let applied = self.state.fold(&record);
        let mut line = serde_json::to_vec(&record).map_err(|error| IndexError::Io {
            action: "encode record",
            path: self.path.clone(),
            source: error.into(),
        })?;
        line.push(b'\n');
        self.out
            .write_all(&line)
            .map_err(IndexError::io("write session", &self.path))?;
        self.records += 1;
        self.bytes += line.len() as u64;
        // As the live session does: a compaction is followed by a checkpoint.
        if matches!(applied, Applied::Compacted { .. }) {
            let checkpoint = RecordBody::Checkpoint(Box::new(self.state.checkpoint()));
            self.write(checkpoint)?;
        }
        Ok(())
    }

    fn history(&self) -> &History {
        self.state.history()
    }
}

fn id(rng: &mut fastrand::Rng) -> Uuid {
    Uuid::from_u128(rng.u128(..))
}

fn sentence(rng: &mut fastrand::Rng, words: usize) -> String {
    let mut text = String::new();
    for index in 0..words {
        if index > 0 {
            text.push(' ');
        }
        if rng.u8(..10) == 0 {
            text.push_str(IDENTS[rng.usize(..IDENTS.len())]);
        } else {
            text.push_str(WORDS[rng.usize(..WORDS.len())]);
        }
    }
    text
}

/// Tool output of about `bytes` bytes: lines of log- and code-like text.
fn output(rng: &mut fastrand::Rng, bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 80);
    let mut line = 1;
    while text.len() < bytes {
        text.push_str(&format!("{line:>5}: {}\n", sentence(rng, 8)));
        line += 1;
    }
    text
}

fn log_uniform(rng: &mut fastrand::Rng, (low, high): (usize, usize)) -> usize {
    let (low, high) = (low.max(1) as f64, high.max(low.max(1)) as f64);
    (low * (high / low).powf(rng.f64())) as usize
}

/// Writes one session of `shape` into `dir`, named for its id, with every
/// choice drawn from `seed`.
pub fn write_session(
    dir: &Path,
    seed: u64,
    created: DateTime<Utc>,
    shape: &Shape,
) -> Result<Written> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let session_id = SessionId::from_uuid(id(&mut rng));
    let path = dir.join(format!("{session_id}.jsonl"));
    let file = strata_core::private::file_options()
        .create(true)
        .write(true)
        .truncate(true)
        .open(&path)
        .map_err(IndexError::io("create session", &path))?;
    let (provider_kind, model) = MODELS[rng.usize(..MODELS.len())];
    let meta = SessionMeta {
        session_id,
        created_at: created,
        workspace: format!("/home/dev/src/project-{:02}", rng.usize(..WORKSPACES)),
        provider_kind: provider_kind.to_owned(),
        model: model.to_owned(),
        strata_version: "0.1.0".to_owned(),
    };
    let mut writer = Writer {
        out: BufWriter::with_capacity(256 * 1024, file),
        path: path.clone(),
        records: 0,
        bytes: 0,
        now: created,
        state: Replay::new(meta.clone()),
        clock: fastrand::Rng::with_seed(seed ^ 0x5eed),
    };
    writer.write(RecordBody::SessionMeta(meta))?;
    writer.write(RecordBody::ResponseItem(ResponseItem::Message(Message {
        id: ItemId::from_uuid(id(&mut rng)),
        role: Role::System,
        content: "You are Strata, a coding agent working in the user's folder.".to_owned(),
    })))?;
    let mut since_compaction = 0;
    while writer.records < shape.records {
        let before = writer.records;
        turn(&mut writer, &mut rng, shape, model)?;
        since_compaction += writer.records - before;
        if since_compaction >= shape.compaction_every && writer.history().len() >= 4 {
            since_compaction = 0;
            compact(&mut writer, &mut rng)?;
        }
    }
    writer
        .out
        .flush()
        .map_err(IndexError::io("write session", &path))?;
    // As a live session's file: modified when its last record was written.
    writer
        .out
        .get_ref()
        .set_modified(writer.now.into())
        .map_err(IndexError::io("set session mtime", &path))?;
    Ok(Written {
        id: session_id,
        path,
        records: writer.records,
        bytes: writer.bytes,
    })
}

fn turn(writer: &mut Writer, rng: &mut fastrand::Rng, shape: &Shape, model: &str) -> Result<()> {
    let turn_id = TurnId::from_uuid(id(rng));
    writer.write(RecordBody::TurnStarted(TurnStarted { turn_id }))?;
    let words = rng.usize(6..40);
    writer.write(RecordBody::ResponseItem(ResponseItem::Message(Message {
        id: ItemId::from_uuid(id(rng)),
        role: Role::User,
        content: sentence(rng, words),
    })))?;
    let rounds = rng.u32(1..=shape.max_rounds_per_turn.max(1));
    for round in 0..rounds {
        let round_id = RoundId::from_uuid(id(rng));
        let input_items = u32::try_from(writer.history().len()).unwrap_or(u32::MAX);
        writer.write(RecordBody::Round(RoundRecord {
            turn_id,
            round_id,
            provider_kind: "openai-responses".to_owned(),
            model: model.to_owned(),
            tools: Vec::new(),
            tool_choice: None,
            max_output_tokens: None,
            input_items,
            estimated_input_tokens: None,
            reasoning: None,
            cache_anchors: Vec::new(),
        }))?;
        let last = round + 1 == rounds;
        let words = rng.usize(10..80);
        writer.write(RecordBody::ResponseItem(ResponseItem::Message(Message {
            id: ItemId::from_uuid(id(rng)),
            role: Role::Assistant,
            content: sentence(rng, words),
        })))?;
        let calls = if last {
            0
        } else {
            rng.u32(1..=shape.max_calls_per_round.max(1))
        };
        let mut call_ids = Vec::new();
        for _ in 0..calls {
            let call_id = format!("call_{:016x}", rng.u64(..));
            let name = TOOLS[rng.usize(..TOOLS.len())];
            let argument = IDENTS[rng.usize(..IDENTS.len())];
            writer.write(RecordBody::ResponseItem(ResponseItem::FunctionCall(
                FunctionCall {
                    id: ItemId::from_uuid(id(rng)),
                    call_id: call_id.clone(),
                    name: name.to_owned(),
                    arguments: serde_json::json!({ "path": argument }).to_string(),
                },
            )))?;
            call_ids.push(call_id);
        }
        let input = 2_000 + 400 * u64::from(input_items);
        writer.write(RecordBody::TokenUsage(TokenUsageRecord {
            round_id: Some(round_id),
            cost: None,
            price: None,
            usage: TokenUsage {
                input_tokens: Some(input),
                cached_input_tokens: Some(input / 2),
                cache_write_input_tokens: None,
                cache_write_5m_input_tokens: None,
                cache_write_1h_input_tokens: None,
                output_tokens: Some(rng.u64(50..900)),
                reasoning_output_tokens: None,
                total_tokens: None,
            },
        }))?;
        for call_id in call_ids {
            let bytes = log_uniform(rng, shape.output_bytes);
            writer.write(RecordBody::ResponseItem(ResponseItem::FunctionCallOutput(
                FunctionCallOutput {
                    id: ItemId::from_uuid(id(rng)),
                    call_id,
                    output: output(rng, bytes),
                },
            )))?;
        }
    }
    writer.write(RecordBody::TurnFinished(TurnFinished {
        turn_id,
        outcome: TurnOutcome::Completed,
        rounds,
    }))
}

fn compact(writer: &mut Writer, rng: &mut fastrand::Rng) -> Result<()> {
    let words = rng.usize(150..400);
    writer.write(RecordBody::ResponseItem(ResponseItem::CompactionSummary(
        CompactionSummary {
            id: ItemId::from_uuid(id(rng)),
            summary: sentence(rng, words),
            metadata: CompactionMetadata {
                trigger: CompactionTrigger::Auto,
                reason: "context reached the threshold".to_owned(),
                context_tokens: Some(180_000),
                threshold: Some(160_000),
                removed: 0,
                kept: 0,
                summarizer_model: "gpt-5.4-mini".to_owned(),
                summarizer_usage: None,
                summarizer_cost: None,
                duration_ms: rng.u64(800..6_000),
            },
        },
    )))
}

/// The shape of one session of a generated library: a few turns, some tool
/// calls with 0.5–20 KB outputs, now and then a compaction.
pub fn library_shape(rng: &mut fastrand::Rng) -> Shape {
    Shape {
        records: rng.u64(8..=60),
        max_rounds_per_turn: 3,
        max_calls_per_round: 2,
        output_bytes: (512, 20 * 1024),
        compaction_every: 60,
    }
}

/// Writes `sessions` sessions of [`library_shape`] into `dir`, created over
/// the year before 2026-11-01, every choice drawn from `seed`.
pub fn write_library(dir: &Path, sessions: usize, seed: u64) -> Result<u64> {
    strata_core::private::ensure_dir(dir).map_err(IndexError::io("create sessions folder", dir))?;
    let mut rng = fastrand::Rng::with_seed(seed);
    let end = Utc
        .with_ymd_and_hms(2026, 11, 1, 0, 0, 0)
        .single()
        .unwrap_or_default();
    let mut bytes = 0;
    for _ in 0..sessions {
        let created = end - Duration::seconds(rng.i64(0..365 * 24 * 3600));
        let shape = library_shape(&mut rng);
        bytes += write_session(dir, rng.u64(..), created, &shape)?.bytes;
    }
    Ok(bytes)
}
