//! Replay: fold a session's records, in write order, into the model-visible
//! history and the session's title and counts.
//!
//! The history changes only through [`History::apply`], and the live session
//! folds each record it writes through the same [`Replay::fold`], so what a
//! resumed session holds is, by construction, what the live one held.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use strata_protocol::{
    Checkpoint, CheckpointState, CheckpointUndoPoint, CheckpointUsage, CompactionGuardRecord,
    CompactionPolicy, CompactionPolicyRecord, CompactionSpan, ItemId, McpCatalog, ProfileChange,
    ProfileSet, ReasoningEffort, Record, RecordBody, ResponseItem, Role, SandboxMode, SessionMeta,
    StateSheet,
};

use crate::compaction::ineffective_level;
use crate::history::{Applied, History, UndoPoint};

/// How many characters of the first user message make a derived title.
pub const DERIVED_TITLE_CHARS: usize = 80;

/// A session's state after folding its records.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    meta: SessionMeta,
    history: History,
    explicit_title: Option<String>,
    /// The first user message shortened to a title (kept short, as a
    /// checkpoint stores it).
    derived_title: Option<String>,
    profile: Option<ProfileSet>,
    records: usize,
    response_items: usize,
    compactions: usize,
    unknown_records: usize,
    inconsistent_rounds: usize,
    evictions: usize,
    undos: usize,
    /// The parent, when this session is a fork.
    forked_from: Option<strata_protocol::SessionForked>,
    /// The other tool's session this one continues, when it does.
    imported_from: Option<strata_protocol::SessionImported>,
    /// The last `compaction_policy` record, if any.
    policy: Option<CompactionPolicyRecord>,
    /// The last `reasoning_set` record's setting, if any.
    reasoning: Option<ReasoningEffort>,
    /// The last `sandbox_set` record, if any.
    sandbox: Option<strata_protocol::SandboxSet>,
    /// The last `mcp_catalog` record, if any.
    mcp_catalog: Option<McpCatalog>,
    /// The model of the last `round` record.
    last_round_model: Option<String>,
    /// The last stable prefix the last `round` record announced.
    last_cache_anchor: Option<u32>,
    /// A `profile_set` switching the session to another profile came after
    /// the last `round` record.
    switched_since_round: bool,
    /// The sheet of the last layered compaction: the next one extends it.
    last_state_sheet: Option<StateSheet>,
    /// The layered policy's guards, derived from the records.
    guards: CompactionGuards,
    /// The estimate the last eviction, layered compaction or undo recorded
    /// of the history it left; cleared by the next usage report (and by a
    /// base summary, whose record carries none).
    estimated_tokens: Option<u64>,
    last_record_at: DateTime<Utc>,
}

/// Folds `records` (the session_meta record included, or not) onto an empty
/// history.
pub fn replay(meta: &SessionMeta, records: &[Record]) -> Replay {
    let mut state = Replay::new(meta.clone());
    for record in records {
        state.fold(record);
    }
    state
}

mod checkpoint;

impl Replay {
    /// The state of a session with no records folded yet.
    pub fn new(meta: SessionMeta) -> Self {
        Self {
            last_record_at: meta.created_at,
            meta,
            history: History::new(),
            explicit_title: None,
            derived_title: None,
            profile: None,
            records: 0,
            response_items: 0,
            compactions: 0,
            unknown_records: 0,
            inconsistent_rounds: 0,
            evictions: 0,
            undos: 0,
            forked_from: None,
            imported_from: None,
            policy: None,
            reasoning: None,
            sandbox: None,
            mcp_catalog: None,
            last_round_model: None,
            last_cache_anchor: None,
            switched_since_round: false,
            last_state_sheet: None,
            guards: CompactionGuards::default(),
            estimated_tokens: None,
        }
    }

    /// Folds one record: the history through [`History::apply`], the title
    /// and counts alongside.
    pub fn fold(&mut self, record: &Record) -> Applied {
        self.records += 1;
        self.last_record_at = record.ts;
        match &record.body {
            RecordBody::ResponseItem(item) => {
                self.response_items += 1;
                if let ResponseItem::Message(message) = item
                    && message.role == Role::User
                    && self.derived_title.is_none()
                {
                    self.derived_title = Some(derived_title(&message.content));
                }
            }
            RecordBody::TitleSet(title) => {
                // A blank title clears a rename back to the derived title.
                self.explicit_title =
                    Some(title.title.trim().to_owned()).filter(|title| !title.is_empty());
            }
            RecordBody::ProfileSet(profile) => {
                self.switched_since_round |= profile.change == ProfileChange::Switched;
                self.profile = Some(profile.clone());
            }
            // A round is written before its response items, with how many
            // items it sent; a mismatch means the file and the request
            // disagree.
            RecordBody::Round(round) => {
                if usize::try_from(round.input_items).ok() != Some(self.history.len()) {
                    self.inconsistent_rounds += 1;
                }
                self.last_round_model = Some(round.model.clone());
                self.last_cache_anchor = round.cache_anchors.last().copied();
                self.switched_since_round = false;
            }
            RecordBody::CompactionPolicy(policy) => self.policy = Some(policy.clone()),
            RecordBody::ReasoningSet(set) => self.reasoning = Some(set.effort),
            RecordBody::SandboxSet(set) => self.sandbox = Some(set.clone()),
            RecordBody::McpCatalog(catalog) => self.mcp_catalog = Some(catalog.clone()),
            RecordBody::SessionForked(forked) => self.forked_from = Some(forked.clone()),
            RecordBody::SessionImported(imported) => {
                self.imported_from = Some(imported.clone());
            }
            RecordBody::LayeredCompaction(compaction) => {
                self.last_state_sheet = Some(compaction.state_sheet.clone());
            }
            _ => {}
        }
        let applied = self.history.apply(&record.body);
        self.guards.fold(&record.body, &self.history);
        self.estimated_tokens = match (&applied, &record.body) {
            (Applied::Usage, _) => None,
            (Applied::Evicted { .. }, RecordBody::ToolOutputsEvicted(eviction)) => {
                Some(eviction.estimated_after)
            }
            (Applied::Compacted { .. }, RecordBody::LayeredCompaction(compaction)) => {
                Some(compaction.estimated_after)
            }
            (Applied::Restored { .. }, RecordBody::CompactionUndone(undone)) => {
                Some(undone.estimated_tokens)
            }
            (Applied::Compacted { .. }, _) => None,
            _ => self.estimated_tokens,
        };
        match applied {
            Applied::Compacted { .. } => self.compactions += 1,
            Applied::Unknown => self.unknown_records += 1,
            Applied::Evicted { .. } => self.evictions += 1,
            Applied::Restored { .. } => self.undos += 1,
            Applied::Item
            | Applied::Usage
            | Applied::Pinned
            | Applied::NotHistory
            | Applied::Instructions => {}
        }
        applied
    }

    pub fn meta(&self) -> &SessionMeta {
        &self.meta
    }

    /// The model-visible history (and the last usage reported since the last
    /// compaction).
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Reads the undo point's items back from the session's `records` when
    /// a resume left it by reference (see [`History::resolve_undo_point`]).
    pub(crate) fn resolve_undo_point(&mut self, records: &[Record]) -> Result<(), ItemId> {
        self.history.resolve_undo_point(records)
    }

    /// The undo point item for item, as checkpoints written before
    /// references stored it (`None` while its items are not known).
    pub(crate) fn whole_undo_point(&self) -> Option<CheckpointUndoPoint> {
        let point = self.history.undo_point()?;
        Some(CheckpointUndoPoint {
            summary_item_id: point.summary_item_id,
            before: point.before()?.to_vec(),
            len_after: to_u64(point.len_after),
        })
    }

    pub fn into_history(self) -> History {
        self.history
    }

    /// The last non-blank title_set, else the first user message shortened to
    /// one line of at most [`DERIVED_TITLE_CHARS`] characters.
    pub fn title(&self) -> Option<String> {
        self.explicit_title
            .clone()
            .or_else(|| self.derived_title.clone())
            .filter(|title| !title.is_empty())
    }

    /// The last title_set, if any.
    pub fn explicit_title(&self) -> Option<&str> {
        self.explicit_title.as_deref()
    }

    /// The session's reasoning setting: its last `reasoning_set`'s; `None`
    /// when it never recorded one (the profile's applies).
    pub fn reasoning(&self) -> Option<ReasoningEffort> {
        self.reasoning
    }

    /// The session's sandbox mode: its last `sandbox_set`'s; `None` when it
    /// never recorded one (sessions from before the record existed).
    pub fn sandbox(&self) -> Option<SandboxMode> {
        self.sandbox.as_ref().map(|set| set.mode)
    }

    /// The session's last `sandbox_set` whole: its mode, network and
    /// allowed domains.
    pub fn sandbox_set(&self) -> Option<&strata_protocol::SandboxSet> {
        self.sandbox.as_ref()
    }

    /// The external tool catalog in force: the last `mcp_catalog`'s; `None`
    /// when the session never recorded one.
    pub fn mcp_catalog(&self) -> Option<&McpCatalog> {
        self.mcp_catalog.as_ref()
    }

    /// The last `profile_set`: the provider the session talks to now.
    /// `None` for sessions written before that record existed.
    pub fn profile(&self) -> Option<&ProfileSet> {
        self.profile.as_ref()
    }

    /// The provider kind the session talks to now: its last `profile_set`'s,
    /// else its session_meta's.
    pub fn provider_kind(&self) -> String {
        self.profile.as_ref().map_or_else(
            || self.meta.provider_kind.clone(),
            |p| p.provider_kind.as_str().to_owned(),
        )
    }

    /// The model the session talks to now (see [`Self::provider_kind`]).
    pub fn model(&self) -> String {
        self.profile
            .as_ref()
            .map_or_else(|| self.meta.model.clone(), |p| p.model.clone())
    }

    /// Records folded, session_meta included.
    pub fn records(&self) -> usize {
        self.records
    }

    /// response_item records folded (summaries included), not the length of
    /// the compacted history.
    pub fn response_items(&self) -> usize {
        self.response_items
    }

    /// Summaries (base and layered).
    pub fn compactions(&self) -> usize {
        self.compactions
    }

    /// `tool_outputs_evicted` records folded.
    pub fn evictions(&self) -> usize {
        self.evictions
    }

    /// `compaction_undone` records folded.
    pub fn undos(&self) -> usize {
        self.undos
    }

    /// Where this session was forked from, when it is a fork.
    pub fn forked_from(&self) -> Option<&strata_protocol::SessionForked> {
        self.forked_from.as_ref()
    }

    /// The other tool's session this one continues, when it does.
    pub fn imported_from(&self) -> Option<&strata_protocol::SessionImported> {
        self.imported_from.as_ref()
    }

    /// The session's compaction policy: the last `compaction_policy` record,
    /// else `base` (sessions from before policies existed).
    pub fn policy(&self) -> CompactionPolicy {
        self.policy
            .as_ref()
            .map_or(CompactionPolicy::Base, |record| record.policy)
    }

    /// The last `compaction_policy` record, with its threshold override.
    pub fn policy_record(&self) -> Option<&CompactionPolicyRecord> {
        self.policy.as_ref()
    }

    /// The state sheet of the last layered compaction.
    pub fn last_state_sheet(&self) -> Option<&StateSheet> {
        self.last_state_sheet.as_ref()
    }

    /// The model the last round was sent to.
    pub fn last_round_model(&self) -> Option<&str> {
        self.last_round_model.as_deref()
    }

    /// The last stable prefix the last round announced for caching.
    pub fn last_cache_anchor(&self) -> Option<u32> {
        self.last_cache_anchor
    }

    /// Whether the session moved to another model or profile since its
    /// last round: a `profile_set` switch came after it, or the last round
    /// went to a model other than `model`.
    pub fn switched_since_last_round(&self, model: &str) -> bool {
        self.switched_since_round
            || self
                .last_round_model
                .as_deref()
                .is_some_and(|last| last != model)
    }

    /// The estimate of the history the last eviction, layered compaction or
    /// undo recorded, while no round has reported usage since: the one
    /// figure every front end shows after a compaction (labelled as an
    /// estimate). `None` after a report or a base summary.
    pub fn estimated_tokens(&self) -> Option<u64> {
        self.estimated_tokens
    }

    /// The layered policy's guards as the records leave them.
    pub fn compaction_guards(&self) -> &CompactionGuards {
        &self.guards
    }

    /// Records of types this version does not know: kept in the file, not
    /// folded into anything.
    pub fn unknown_records(&self) -> usize {
        self.unknown_records
    }

    /// Round records whose `input_items` differs from the history replayed up
    /// to them.
    pub fn inconsistent_rounds(&self) -> usize {
        self.inconsistent_rounds
    }

    /// The timestamp of the last record folded (the creation time before any).
    pub fn last_record_at(&self) -> DateTime<Utc> {
        self.last_record_at
    }
}

/// The layered policy's guards, folded from the records: nothing about them
/// lives outside the session file, so a resumed session has the guards the
/// live one had.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompactionGuards {
    /// `summary_failed` records since the last summary or circuit reset.
    failures_in_a_row: u32,
    /// The last item of the history when a compaction left it at the
    /// ineffective level: no automatic compaction until something follows.
    ineffective_at: Option<ItemId>,
    /// What the last of those failed (or refused) summaries reported, for
    /// the banner.
    last_failure: Option<String>,
    /// The span of the last summary the rule check refused: the same plan
    /// is not summarised again automatically.
    refused_span: Option<CompactionSpan>,
}

impl CompactionGuards {
    fn fold(&mut self, body: &RecordBody, history: &History) {
        let last = || history.items().last().map(ResponseItem::id);
        match body {
            RecordBody::CompactionGuard(CompactionGuardRecord::SummaryFailed {
                estimated_tokens,
                threshold,
                message,
                ..
            }) => {
                self.failures_in_a_row += 1;
                self.last_failure = Some(message.clone());
                self.ineffective_at = (*estimated_tokens >= ineffective_level(*threshold))
                    .then(last)
                    .flatten();
            }
            RecordBody::CompactionGuard(CompactionGuardRecord::SummaryRefused {
                estimated_tokens,
                threshold,
                message,
                span,
                ..
            }) => {
                self.failures_in_a_row += 1;
                self.last_failure = Some(message.clone());
                self.refused_span = Some(*span);
                self.ineffective_at = (*estimated_tokens >= ineffective_level(*threshold))
                    .then(last)
                    .flatten();
            }
            RecordBody::CompactionGuard(CompactionGuardRecord::CircuitReset) => {
                self.failures_in_a_row = 0;
                self.last_failure = None;
                self.refused_span = None;
            }
            RecordBody::LayeredCompaction(compaction) => {
                self.failures_in_a_row = 0;
                self.last_failure = None;
                self.refused_span = None;
                let threshold = compaction.summary.metadata.threshold.unwrap_or(u64::MAX);
                self.ineffective_at = (compaction.estimated_after >= ineffective_level(threshold))
                    .then(last)
                    .flatten();
            }
            RecordBody::ResponseItem(ResponseItem::CompactionSummary(_)) => {
                self.failures_in_a_row = 0;
                self.last_failure = None;
                self.refused_span = None;
                self.ineffective_at = None;
            }
            RecordBody::ToolOutputsEvicted(_) => self.ineffective_at = None,
            _ => {}
        }
    }

    /// Summaries that failed in a row (reset by a summary or the person).
    pub fn failures_in_a_row(&self) -> u32 {
        self.failures_in_a_row
    }

    /// The message of the last of those failures (none once reset).
    pub fn last_failure(&self) -> Option<&str> {
        self.last_failure.as_deref()
    }

    /// The span of the last summary the rule check refused, while no
    /// compaction or reset came after it.
    pub fn refused_span(&self) -> Option<CompactionSpan> {
        self.refused_span
    }

    /// Whether automatic compaction of the history ending in `last` is held
    /// off: the last compaction left this very history at the ineffective
    /// level.
    pub fn holds_ineffective(&self, last: Option<ItemId>) -> bool {
        self.ineffective_at.is_some() && self.ineffective_at == last
    }
}

fn to_u64(count: usize) -> u64 {
    u64::try_from(count).unwrap_or(u64::MAX)
}

fn to_usize(count: u64) -> usize {
    usize::try_from(count).unwrap_or(usize::MAX)
}

/// Every `response_item` of `records` as first written, by id (a later
/// record with the same id does not replace it).
pub fn original_items(records: &[Record]) -> HashMap<ItemId, ResponseItem> {
    let mut items = HashMap::new();
    for record in records {
        if let RecordBody::ResponseItem(item) = &record.body {
            items.entry(item.id()).or_insert_with(|| item.clone());
        }
    }
    items
}

/// One line, whitespace runs collapsed, cut to [`DERIVED_TITLE_CHARS`]
/// characters with an ellipsis when cut.
pub fn derived_title(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= DERIVED_TITLE_CHARS {
        return one_line;
    }
    let mut cut: String = one_line.chars().take(DERIVED_TITLE_CHARS - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_title_is_one_line_of_at_most_80_chars() {
        assert_eq!(derived_title("  fix\n the   parser "), "fix the parser");
        let long = "é".repeat(200);
        let title = derived_title(&long);
        assert_eq!(title.chars().count(), DERIVED_TITLE_CHARS);
        assert!(title.ends_with('…'));
        let exact = "a".repeat(DERIVED_TITLE_CHARS);
        assert_eq!(derived_title(&exact), exact);
    }
}
