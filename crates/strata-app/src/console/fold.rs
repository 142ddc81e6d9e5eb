//! [`ConsoleFold`]: the one conversion of a session into what the debug
//! console shows. Records (an opened session, or the ones a running turn
//! appends, read from the file's tail) and the live events the file does not
//! keep go through it; it keeps the whole console and, since the last
//! [`ConsoleFold::take_update`], what changed.

use std::collections::{BTreeSet, HashMap};

use strata_core::Replay;
use strata_core::compaction::{Calibration, Estimate};
use strata_protocol::{
    AgentEvent, CacheBreakCause, ChartMarker, ChartPoint, CompactionPolicy, ConsoleStep,
    ConsoleUpdate, Cost, DebugEvent, EventEnvelope, GaugeReading, LogRow, ModelViewGroup,
    PriceQuote, Record, RecordBody, ResponseItem, RoundId, SessionCost, UndoState,
};

use super::cache::{self, RequestShape};
use super::cost::{self, RoundFacts};
use super::rows::{self, Row};
use super::{model_view, steps, to_u32};

/// The whole console of one session, as folded so far.
pub struct ConsoleFold {
    records: Vec<Record>,
    replay: Option<Replay>,
    rows: Vec<LogRow>,
    chart: Vec<ChartPoint>,
    round_at: HashMap<RoundId, usize>,
    markers: Vec<ChartMarker>,
    steps: Vec<ConsoleStep>,
    /// Live refusals, which leave no record.
    refused: Vec<ConsoleStep>,
    model_view: Vec<ModelViewGroup>,
    gauge: GaugeReading,
    undo: UndoState,
    // What changed since the last update was taken.
    rows_from: usize,
    markers_from: usize,
    points_changed: BTreeSet<usize>,
    steps_changed: bool,
    history_changed: bool,
    /// A step still waiting for the first usage reported after it.
    awaiting_usage: bool,
    /// Per chart point: its round record's index and model.
    round_records: Vec<usize>,
    round_models: Vec<String>,
    /// Per chart point: the price its usage record says it was billed at.
    round_prices: HashMap<usize, PriceQuote>,
    /// The last round's request, and the steps recorded since.
    last_request: Option<RequestShape>,
    steps_since_round: Vec<CacheBreakCause>,
    turns: u32,
    summary_costs: Vec<Cost>,
}

impl ConsoleFold {
    /// An empty fold whose gauge compares against `threshold`.
    pub fn new(threshold: u64, context_window: Option<u64>) -> Self {
        Self {
            records: Vec::new(),
            replay: None,
            rows: Vec::new(),
            chart: Vec::new(),
            round_at: HashMap::new(),
            markers: Vec::new(),
            steps: Vec::new(),
            refused: Vec::new(),
            model_view: Vec::new(),
            gauge: GaugeReading {
                tokens: None,
                estimated: false,
                threshold,
                context_window,
                policy: CompactionPolicy::Base,
                threshold_setting: None,
                circuit_reason: None,
                cost: SessionCost::default(),
            },
            undo: UndoState::Refused {
                reason: NOTHING_TO_UNDO.to_owned(),
            },
            rows_from: 0,
            markers_from: 0,
            points_changed: BTreeSet::new(),
            steps_changed: false,
            history_changed: false,
            awaiting_usage: false,
            round_records: Vec::new(),
            round_models: Vec::new(),
            round_prices: HashMap::new(),
            last_request: None,
            steps_since_round: Vec::new(),
            turns: 0,
            summary_costs: Vec::new(),
        }
    }

    /// A fold of `records`, in write order.
    pub fn of_records(records: &[Record], threshold: u64, context_window: Option<u64>) -> Self {
        let mut fold = Self::new(threshold, context_window);
        for record in records {
            fold.push_record(record.clone());
        }
        fold.settle();
        fold.take_update();
        fold
    }

    pub fn records(&self) -> usize {
        self.records.len()
    }

    pub fn rows(&self) -> &[LogRow] {
        &self.rows
    }

    pub fn chart(&self) -> &[ChartPoint] {
        &self.chart
    }

    pub fn markers(&self) -> &[ChartMarker] {
        &self.markers
    }

    /// Every compaction step, in file order (live refusals where they were seen).
    pub fn steps(&self) -> Vec<ConsoleStep> {
        let mut all = self.steps.clone();
        for refused in &self.refused {
            let at = match refused {
                ConsoleStep::Refused { record_index, .. } => *record_index,
                _ => u32::MAX,
            };
            let position = all
                .iter()
                .position(|step| steps::record_index(step) > at)
                .unwrap_or(all.len());
            all.insert(position, refused.clone());
        }
        all
    }

    pub fn model_view(&self) -> &[ModelViewGroup] {
        &self.model_view
    }

    pub fn gauge(&self) -> &GaugeReading {
        &self.gauge
    }

    pub fn undo(&self) -> &UndoState {
        &self.undo
    }

    /// Folds records a running turn appended, then brings the steps, the
    /// model view and Undo up to date.
    pub fn apply_records(&mut self, records: impl IntoIterator<Item = Record>) {
        for record in records {
            self.push_record(record);
        }
        self.settle();
    }

    /// A live event: the threshold the agent compares with, and what the
    /// file does not keep (an ineffective compaction, a rule-check refusal).
    pub fn apply_event(&mut self, envelope: &EventEnvelope) {
        let AgentEvent::Debug(event) = &envelope.event else {
            return;
        };
        match event {
            DebugEvent::UsageReported { threshold, .. } => self.gauge.threshold = *threshold,
            DebugEvent::CompactionIneffective {
                summary_item_id,
                estimated_tokens,
                threshold,
            } => {
                self.gauge.tokens = Some(*estimated_tokens);
                self.gauge.estimated = true;
                self.push_row(
                    rows::ineffective_row(*summary_item_id, *estimated_tokens, *threshold),
                    None,
                );
            }
            DebugEvent::CompactionRefused {
                dropped, message, ..
            } => {
                self.push_row(rows::refused_row(dropped, message), None);
                self.refused.push(ConsoleStep::Refused {
                    record_index: to_u32(self.records.len()),
                    seq: envelope.seq,
                    dropped: dropped.clone(),
                    message: message.clone(),
                });
                self.steps_changed = true;
            }
            DebugEvent::RoundStarted { .. }
            | DebugEvent::Retrying { .. }
            | DebugEvent::HistoryCompacted { .. }
            | DebugEvent::SummaryFailed { .. }
            | DebugEvent::ToolOutputsEvicted { .. }
            | DebugEvent::LayeredCompacted { .. } => {}
        }
    }

    /// What changed since the last call; `None` when nothing did.
    pub fn take_update(&mut self) -> Option<ConsoleUpdate> {
        let changed = self.rows_from < self.rows.len()
            || self.markers_from < self.markers.len()
            || !self.points_changed.is_empty()
            || self.steps_changed
            || self.history_changed;
        let update = changed.then(|| ConsoleUpdate {
            records: to_u32(self.records.len()),
            rows: self.rows[self.rows_from..].to_vec(),
            chart: self
                .points_changed
                .iter()
                .filter_map(|&i| self.chart.get(i).cloned())
                .collect(),
            markers: self.markers[self.markers_from..].to_vec(),
            steps: self.steps_changed.then(|| self.steps()),
            model_view: self.history_changed.then(|| self.model_view.clone()),
            gauge: self.gauge.clone(),
            undo: self.undo.clone(),
        });
        self.rows_from = self.rows.len();
        self.markers_from = self.markers.len();
        self.points_changed.clear();
        self.steps_changed = false;
        self.history_changed = false;
        update
    }

    fn push_row(&mut self, row: Row, record_index: Option<usize>) {
        let record = record_index.and_then(|i| self.records.get(i));
        let row = row.at(self.rows.len(), record_index, record);
        self.rows.push(row);
    }

    fn push_record(&mut self, record: Record) {
        let index = self.records.len();
        match &record.body {
            RecordBody::SessionMeta(meta) if self.replay.is_none() => {
                self.replay = Some(Replay::new(meta.clone()));
            }
            _ => {}
        }
        if let Some(replay) = &mut self.replay {
            replay.fold(&record);
        }
        let round = to_u32(self.chart.len() + 1);
        let row = rows::record_row(&record.body, round);
        self.costs_and_cache(&record.body, index);
        self.chart_and_gauge(&record);
        self.records.push(record);
        if let Some(row) = row {
            self.push_row(row, Some(index));
        }
    }

    fn chart_and_gauge(&mut self, record: &Record) {
        match &record.body {
            RecordBody::Round(round) => {
                let cache_break = self.request_sent(round);
                self.chart.push(ChartPoint {
                    round: to_u32(self.chart.len() + 1),
                    ts: record.ts,
                    context_tokens: None,
                    input_tokens: None,
                    output_tokens: None,
                    cached_tokens: None,
                    estimated_input_tokens: round.estimated_input_tokens,
                    cache_write_tokens: None,
                    cost: None,
                    turn: self.turns.max(1),
                    cache_break,
                });
                self.round_at.insert(round.round_id, self.chart.len() - 1);
                self.points_changed.insert(self.chart.len() - 1);
            }
            RecordBody::TokenUsage(usage) => {
                let at = match usage.round_id {
                    Some(id) => self.round_at.get(&id).copied(),
                    None => self.chart.len().checked_sub(1),
                };
                if let Some(point) = at.and_then(|i| self.chart.get_mut(i))
                    && point.context_tokens.is_none()
                {
                    point.context_tokens = usage.usage.context_tokens();
                    point.input_tokens = usage.usage.input_tokens;
                    point.output_tokens = usage.usage.output_tokens;
                    point.cached_tokens = usage.usage.cached_input_tokens;
                    point.cache_write_tokens = usage.usage.cache_write_input_tokens;
                    let model = at.and_then(|i| self.round_models.get(i));
                    point.cost = cost::round_cost(usage, model.map_or("", String::as_str));
                    if let Some(i) = at {
                        self.points_changed.insert(i);
                        if let (Some(price), Some(cost)) = (usage.price, &usage.cost) {
                            let as_of = cost.price_as_of.clone();
                            self.round_prices.insert(i, PriceQuote { price, as_of });
                        }
                    }
                }
                if let Some(tokens) = usage.usage.context_tokens() {
                    self.gauge.tokens = Some(tokens);
                    self.gauge.estimated = false;
                }
                if std::mem::take(&mut self.awaiting_usage) {
                    self.steps_changed = true;
                }
            }
            RecordBody::ResponseItem(ResponseItem::CompactionSummary(summary)) => {
                self.marker(summary.id, &summary.metadata);
                // A base summary keeps no estimate: the history's now, by the
                // recorded model's estimator (the steps' figure too).
                if let Some(replay) = &self.replay {
                    let after = crate::context::recorded_estimate(replay, replay.history().items());
                    self.estimated(after);
                }
                self.step_recorded();
            }
            RecordBody::LayeredCompaction(layered) => {
                self.marker(layered.summary.id, &layered.summary.metadata);
                self.estimated(layered.estimated_after);
                self.step_recorded();
            }
            RecordBody::ToolOutputsEvicted(eviction) => {
                self.estimated(eviction.estimated_after);
                self.step_recorded();
            }
            RecordBody::CompactionUndone(undone) => {
                self.estimated(undone.estimated_tokens);
                self.step_recorded();
            }
            RecordBody::CompactionPolicy(_) => self.steps_changed = true,
            // The next round's request carries it; the round says so.
            RecordBody::ReasoningSet(_) => return,
            // The tools' description in the next round's request says so.
            RecordBody::SandboxSet(_) => return,
            // Files, not context: the Changes view shows them.
            RecordBody::FileChange(_) => return,
            // The next round's tools array carries it.
            RecordBody::McpCatalog(_) => return,
            RecordBody::ResponseItem(_)
            | RecordBody::ItemPin(_)
            | RecordBody::Checkpoint(_)
            | RecordBody::InstructionsSet(_) => {}
            RecordBody::SessionMeta(_)
            | RecordBody::TurnStarted(_)
            | RecordBody::TurnFinished(_)
            | RecordBody::Retry(_)
            | RecordBody::Error(_)
            | RecordBody::ApprovalDecision(_)
            | RecordBody::TitleSet(_)
            | RecordBody::FullToolOutput(_)
            | RecordBody::ProfileSet(_)
            | RecordBody::CompactionGuard(_)
            | RecordBody::SessionForked(_)
            // The converted items are records of their own.
            | RecordBody::SessionImported(_)
            | RecordBody::CompactionRefused(_)
            // The aborted outputs it stands for are records of their own.
            | RecordBody::SessionRepaired(_)
            | RecordBody::Unknown(_) => return,
        }
        self.history_changed = true;
    }

    /// What the cache view and the costs keep of a record before it is
    /// folded into the chart.
    fn costs_and_cache(&mut self, body: &RecordBody, index: usize) {
        if let Some(cause) = cache::step_cause(body) {
            self.steps_since_round.push(cause);
        }
        match body {
            RecordBody::TurnStarted(_) => self.turns += 1,
            RecordBody::Round(round) => {
                self.round_records.push(index);
                self.round_models.push(round.model.clone());
            }
            RecordBody::ResponseItem(ResponseItem::CompactionSummary(summary)) => {
                self.summary_costs
                    .extend(summary.metadata.summarizer_cost.clone());
            }
            RecordBody::LayeredCompaction(layered) => {
                self.summary_costs
                    .extend(layered.summary.metadata.summarizer_cost.clone());
            }
            _ => {}
        }
    }

    /// The round's request as the history stands when it is recorded, and
    /// where it stopped repeating the previous one.
    fn request_sent(
        &mut self,
        round: &strata_protocol::RoundRecord,
    ) -> Option<strata_protocol::CacheBreak> {
        let replay = self.replay.as_ref()?;
        let items = replay.history().items();
        let sent = usize::try_from(round.input_items)
            .unwrap_or(usize::MAX)
            .min(items.len());
        let shape = RequestShape::new(&round.model, &round.tools, &items[..sent]);
        let between = std::mem::take(&mut self.steps_since_round);
        let found = self
            .last_request
            .as_ref()
            .and_then(|prev| cache::cache_break(prev, &shape, &between));
        self.last_request = Some(shape);
        found
    }

    fn marker(
        &mut self,
        summary_id: strata_protocol::ItemId,
        m: &strata_protocol::CompactionMetadata,
    ) {
        let last = self.chart.last();
        self.markers.push(ChartMarker {
            round: last.map_or(0, |point| point.round),
            summary_id,
            number: to_u32(self.markers.len() + 1),
            context_tokens: m.context_tokens.or(last.and_then(|p| p.context_tokens)),
            trigger: m.trigger,
        });
    }

    fn estimated(&mut self, tokens: u64) {
        self.gauge.tokens = Some(tokens);
        self.gauge.estimated = true;
    }

    fn step_recorded(&mut self) {
        self.steps_changed = true;
        self.awaiting_usage = true;
    }

    /// Brings what is computed over the whole session up to date after
    /// records were folded: the steps (when a step or its next report came),
    /// the model view and Undo (when the history changed).
    fn settle(&mut self) {
        let Some(replay) = &self.replay else {
            return;
        };
        self.gauge.policy = replay.policy();
        self.gauge.threshold_setting = replay.policy_record().and_then(|record| record.threshold);
        self.gauge.circuit_reason = crate::context::circuit_reason(replay);
        if self.steps_changed {
            self.steps = steps::steps(replay.meta(), &self.records);
        }
        if self.history_changed {
            self.model_view =
                model_view::groups(replay.history().items(), self.last_summary_after());
            self.undo = undo_state(replay, &self.records, self.gauge.threshold);
        }
        self.gauge.cost = cost::session_cost(&self.chart, &self.summary_costs);
        self.gauge.cost.steps = self.priced_steps();
    }

    /// Each compaction step's money, from the rounds on either side of it.
    fn priced_steps(&self) -> Vec<strata_protocol::StepMoney> {
        let facts = |i: usize| RoundFacts {
            input: self.chart[i].input_tokens,
            cached: self.chart[i].cached_tokens,
            // As billed; files from before rates were recorded: today's table.
            price: self.round_prices.get(&i).cloned().or_else(|| {
                self.round_models
                    .get(i)
                    .and_then(|model| PriceQuote::builtin(model))
            }),
        };
        let at: Vec<u32> = self.steps.iter().map(steps::record_index).collect();
        let rounds = &self.round_records[..self.chart.len().min(self.round_records.len())];
        let mut priced = Vec::new();
        for (n, step) in self.steps.iter().enumerate() {
            let (figures, summary) = match step {
                ConsoleStep::Summary { figures, view, .. } => {
                    (figures, view.summary.metadata.summarizer_cost.as_ref())
                }
                ConsoleStep::Eviction { figures, .. } => (figures, None),
                ConsoleStep::Undo { .. } | ConsoleStep::Refused { .. } => continue,
            };
            let from = usize::try_from(at[n]).unwrap_or(usize::MAX);
            let until = at.get(n + 1).map_or(usize::MAX, |&next| {
                usize::try_from(next).unwrap_or(usize::MAX)
            });
            let before = rounds.iter().rposition(|&record| record < from).map(facts);
            let after: Vec<RoundFacts> = rounds
                .iter()
                .enumerate()
                .filter(|&(_, &record)| record > from && record < until)
                .map(|(i, _)| facts(i))
                .collect();
            priced.extend(cost::step_money(
                at[n],
                figures.freed.tokens,
                summary,
                before.as_ref(),
                &after,
            ));
        }
        priced
    }

    fn last_summary_after(&self) -> Option<Vec<strata_protocol::ItemId>> {
        self.steps.iter().rev().find_map(|step| match step {
            ConsoleStep::Summary { view, .. } => {
                Some(view.after.iter().map(ResponseItem::id).collect())
            }
            _ => None,
        })
    }
}

const NOTHING_TO_UNDO: &str = "Nothing to undo: the session has no compaction.";

/// Whether `undo_compaction` would go through now, by the core's own check
/// with the recorded model's estimator (uncalibrated) and the last round's
/// tool specs as the request's overhead.
fn undo_state(replay: &Replay, records: &[Record], threshold: u64) -> UndoState {
    let history = replay.history();
    if history.undo_point().is_none() {
        let compacted = replay.compactions() > 0 || replay.evictions() > 0;
        let reason = if compacted && replay.undos() > 0 {
            "The latest compaction was already undone; an older one cannot be."
        } else if compacted {
            "Only a summary can be undone, and the latest compaction has none to undo."
        } else {
            NOTHING_TO_UNDO
        };
        return UndoState::Refused {
            reason: reason.to_owned(),
        };
    }
    let estimator = crate::context::recorded_estimator(replay);
    let tools = records.iter().rev().find_map(|record| match &record.body {
        RecordBody::Round(round) => Some(&round.tools),
        _ => None,
    });
    let overhead = tools
        .and_then(|tools| serde_json::to_string(tools).ok())
        .map_or(0, |specs| estimator.count(&specs));
    let estimate = Estimate::new(estimator.as_ref(), Calibration::default());
    match strata_core::context_ops::decide_undo(history, estimate, overhead, threshold) {
        Ok(undone) => UndoState::Available {
            summary_id: undone.summary_item_id,
        },
        Err(error) => UndoState::Refused {
            reason: capitalised(&error.to_string()),
        },
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The policy each record was written under (sessions without a policy
/// record replay as base).
pub fn policies(records: &[Record]) -> Vec<CompactionPolicy> {
    let mut policy = CompactionPolicy::Base;
    records
        .iter()
        .map(|record| {
            if let RecordBody::CompactionPolicy(set) = &record.body {
                policy = set.policy;
            }
            policy
        })
        .collect()
}
