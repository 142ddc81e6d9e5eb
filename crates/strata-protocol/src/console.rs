//! The debug console's data, folded in Rust (strata-app's `ConsoleFold`)
//! from a session's records and a turn's live events: the log rows, the
//! context chart, the compaction steps with their figures, the model view
//! and one gauge reading. `open_console` serves a snapshot whose rows are a
//! page (newest first, older pages on request); a turn's [`crate::LiveBatch`]
//! carries a [`ConsoleUpdate`] with what each event changed.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::{
    CompactionPolicy, CompactionTrigger, CompactionUndone, CompactionView, Cost, ItemId,
    LayeredCompaction, ResponseItem, SessionId, ToolOutputsEvicted, Usd,
};

/// `open_console`: the console's snapshot of a session; its log rows cut to
/// the `limit` rows before row `before` (the newest without it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct OpenConsole {
    pub session_id: SessionId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub before: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub limit: Option<u32>,
}

/// Which of the two event families a log row belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum LogFamily {
    Mainline,
    Debug,
}

/// What a log row is about; the log's filters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum LogKind {
    Turn,
    Message,
    Tool,
    Approval,
    Round,
    Usage,
    Retry,
    Compaction,
    Error,
    Title,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum LogTone {
    Neutral,
    Ok,
    Warn,
    Bad,
    Accent,
}

/// One row of the rounds log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LogRow {
    /// Its position in the whole log, the row's key and paging cursor.
    pub index: u32,
    /// The record it shows; none for a live event the file does not keep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub record_index: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub ts: Option<DateTime<Utc>>,
    pub family: LogFamily,
    pub kind: LogKind,
    pub tone: LogTone,
    pub title: String,
    pub detail: String,
    /// For a round: its 1-based number, to fetch its exact request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub round_number: Option<u32>,
    /// For a compaction: the summary item's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub summary_id: Option<ItemId>,
}

/// A token figure and whether it is an estimate (shown with "≈").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TokenFigure {
    pub tokens: u64,
    pub estimated: bool,
}

/// One round on the context chart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ChartPoint {
    /// 1-based round number, the chart's x.
    pub round: u32,
    pub ts: DateTime<Utc>,
    /// Input + output tokens the round reported, the figure the threshold
    /// is compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub context_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cached_tokens: Option<u64>,
    /// The estimate of the request's input the agent made when it sent it
    /// (its round record's), against `input_tokens`: the log's drift table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub estimated_input_tokens: Option<u64>,
    /// Input written to the provider's cache this round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cache_write_tokens: Option<u64>,
    /// What the round cost (as recorded, else at today's table; none without
    /// a price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost: Option<Cost>,
    /// 1-based turn the round belongs to.
    #[serde(default)]
    pub turn: u32,
    /// Where this round's request stopped repeating the previous round's,
    /// and why: what the provider's prompt cache could no longer serve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cache_break: Option<CacheBreak>,
}

/// Why a round's request no longer began with the previous round's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CacheBreakCause {
    Compaction,
    Eviction,
    Pin,
    Undo,
    ToolList,
    SystemPrompt,
    ModelSwitch,
    /// The history changed in a way no record between the rounds explains.
    Other,
}

/// The first item of a round's request that differs from the previous
/// round's request at the same position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CacheBreak {
    /// 0-based position in the request's input.
    pub index: u32,
    /// The item now at that position (none when the request got shorter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub item_id: Option<ItemId>,
    pub cause: CacheBreakCause,
}

/// One turn's cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TurnCost {
    /// 1-based.
    pub turn: u32,
    pub rounds: u32,
    /// Its priced rounds' sum; none when no round of it had a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost: Option<Cost>,
}

/// What the session cost so far: its rounds and its summary calls.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionCost {
    /// Rounds and summaries together; none when nothing had a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub total: Option<Cost>,
    /// The summary calls' part of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub summaries: Option<Cost>,
    /// Rounds that reported usage but had no price (shown as "no price").
    pub unpriced_rounds: u32,
    pub turns: Vec<TurnCost>,
    /// Each compaction step's cost against its savings (by the step's
    /// `record_index`), when the rounds around it had a price. Kept here,
    /// beside the totals, so it grows with every round without resending
    /// the steps.
    pub steps: Vec<StepMoney>,
}

/// What a compaction cost against what it saved, at the rounds' prices.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StepMoney {
    /// The step's record, as in [`ConsoleStep`].
    pub record_index: u32,
    /// The summary call (none for an eviction, or without a price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub summary: Option<Usd>,
    /// The next round's input the cache no longer served (up to what the
    /// round before had sent), at the input rate less the cached rate.
    pub cache_given_up: Usd,
    /// The freed tokens not resent by the rounds after it (until the next
    /// step), at each round's cached rate.
    pub saved: Usd,
    pub rounds_after: u32,
    pub price_as_of: String,
}

/// Where a compaction happened on the chart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ChartMarker {
    /// The round whose usage led to it (0 before any round).
    pub round: u32,
    pub summary_id: ItemId,
    /// 1-based among summaries.
    pub number: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub context_tokens: Option<u64>,
    pub trigger: CompactionTrigger,
}

/// The figures of one compaction step, each computed once: the history
/// before and after (the step's own estimates, from one estimator), what it
/// freed (their difference), and what the next round then reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StepFigures {
    pub before: TokenFigure,
    pub after: TokenFigure,
    pub freed: TokenFigure,
    /// Context tokens the first round after the step reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub next_reported: Option<u64>,
}

/// One compaction step of the session, for the console's cards.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ConsoleStep {
    Summary {
        record_index: u32,
        ts: DateTime<Utc>,
        /// 1-based among summaries.
        number: u32,
        policy: CompactionPolicy,
        view: Box<CompactionView>,
        /// The layered record (state sheet, loss audit), if it was one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        layered: Option<Box<LayeredCompaction>>,
        figures: StepFigures,
        /// A later `compaction_undone` undid it.
        undone: bool,
    },
    Eviction {
        record_index: u32,
        ts: DateTime<Utc>,
        /// 1-based among evictions.
        number: u32,
        policy: CompactionPolicy,
        eviction: ToolOutputsEvicted,
        figures: StepFigures,
    },
    Undo {
        record_index: u32,
        ts: DateTime<Utc>,
        undone: CompactionUndone,
        /// The 1-based number of the summary it undid, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        undid: Option<u32>,
    },
    /// A compaction the rule check refused in this run of the app (the
    /// live event; the file keeps its record only for layered refusals).
    Refused {
        /// After every record folded when it was seen.
        record_index: u32,
        seq: u64,
        dropped: Vec<String>,
        message: String,
    },
}

/// A group of the model view: the history the model sees now, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ModelGroupId {
    Instructions,
    Summary,
    Kept,
    Later,
    Conversation,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct ModelViewGroup {
    pub id: ModelGroupId,
    pub title: String,
    pub hint: String,
    pub items: Vec<ResponseItem>,
}

/// What the gauge shows: the latest figure (a report, or an estimate after
/// a compaction changed the history since), against the threshold; and
/// the session's compaction policy and circuit, as its records leave them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct GaugeReading {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tokens: Option<u64>,
    pub estimated: bool,
    pub threshold: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub context_window: Option<u64>,
    pub policy: CompactionPolicy,
    /// The threshold override the session recorded, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub threshold_setting: Option<crate::ThresholdSetting>,
    /// While automatic compaction is paused after repeated failed
    /// summaries: what the last one reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub circuit_reason: Option<String>,
    /// What the session cost so far.
    #[serde(default)]
    pub cost: SessionCost,
}

/// The summary `undo_compaction` would undo now, or why none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UndoState {
    Available { summary_id: ItemId },
    Refused { reason: String },
}

/// `open_console`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct ConsoleView {
    pub v: u32,
    pub session_id: SessionId,
    /// Records folded: a live update for this count or fewer is already in.
    pub records: u32,
    /// The page of log rows, oldest first.
    pub rows: Vec<LogRow>,
    /// Rows in the whole log.
    pub rows_total: u32,
    pub chart: Vec<ChartPoint>,
    pub markers: Vec<ChartMarker>,
    pub steps: Vec<ConsoleStep>,
    pub model_view: Vec<ModelViewGroup>,
    pub gauge: GaugeReading,
    pub undo: UndoState,
}

/// What one live event changed in the console (none: nothing).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct ConsoleUpdate {
    /// Records folded after the event.
    pub records: u32,
    /// Rows appended to the log.
    pub rows: Vec<LogRow>,
    /// Chart points added or changed (by round).
    pub chart: Vec<ChartPoint>,
    pub markers: Vec<ChartMarker>,
    /// Every step, when any changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub steps: Option<Vec<ConsoleStep>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model_view: Option<Vec<ModelViewGroup>>,
    pub gauge: GaugeReading,
    pub undo: UndoState,
}
