//! Compaction in the live loop: the check after each round, the summary
//! call (folding the oldest items out of its input when it fails), and the
//! commit through [`LiveSession::commit_compaction`](crate::LiveSession::commit_compaction).

use std::time::Instant;

use strata_protocol::{
    CompactionMetadata, CompactionPolicy, CompactionSummary, CompactionTrigger, DebugEvent, ItemId,
    ModelError, ModelRequest, ResponseItem, Role, TokenUsage, TurnId,
};

use super::{Agent, CompactOutcome};
use crate::compaction::{
    Calibration, CompactionDecision, CompactionPlan, Estimate, build_compaction_summary_request,
    decide_compaction, estimate_after_compaction,
};
use crate::error::Result;
use crate::tools::CancellationToken;

/// Summary requests per compaction: the whole history, then with the oldest
/// half of what remains folded out, and so on.
pub const MAX_SUMMARY_ATTEMPTS: u32 = 4;

/// Why and with what figures a compaction is attempted.
pub(super) struct CompactionCause<'a> {
    pub trigger: CompactionTrigger,
    pub reason: String,
    pub context_tokens: Option<u64>,
    pub threshold: u64,
    pub focus: Option<&'a str>,
    pub turn_id: Option<TurnId>,
    /// Tokens (estimated) the next request adds to the history: the
    /// person's message a pre-turn compaction makes room for.
    pub pending: u64,
    /// A partial compaction: keep everything from this item on verbatim.
    pub keep_from: Option<ItemId>,
}

impl CompactionCause<'_> {
    /// An automatic compaction of the whole history in turn `turn_id`.
    pub fn automatic(
        trigger: CompactionTrigger,
        reason: String,
        context_tokens: Option<u64>,
        threshold: u64,
        turn_id: TurnId,
    ) -> Self {
        Self {
            trigger,
            reason,
            context_tokens,
            threshold,
            focus: None,
            turn_id: Some(turn_id),
            pending: 0,
            keep_from: None,
        }
    }
}

/// A summary the model wrote.
pub(super) struct Done {
    pub text: String,
    pub model: String,
    pub usage: Option<TokenUsage>,
    /// Oldest items left out of the summary's input.
    pub left_out: usize,
    /// Asked for in the session's own context (its cached prefix), not
    /// over the originals.
    pub in_context: bool,
}

pub(super) enum Summarized {
    Done(Done),
    Failed { attempts: u32, message: String },
    Cancelled,
}

impl Agent {
    /// Compacts now, outside a turn (trigger `manual`), e.g. for `/compact
    /// [focus]`. `focus` steers what the summary stresses.
    pub async fn compact_now(
        &mut self,
        focus: Option<String>,
        cancel: CancellationToken,
    ) -> Result<CompactOutcome> {
        let focus = focus.as_deref().map(str::trim).filter(|f| !f.is_empty());
        let reason = match focus {
            Some(focus) => format!("Compaction requested by the user, focusing on: {focus}"),
            None => "Compaction requested by the user".to_owned(),
        };
        let cause = self.manual_cause(reason, focus, None);
        let outcome = self.compact(cause, &cancel).await?;
        Ok(outcome.unwrap_or(CompactOutcome::NothingToCompact {
            items: self.session.history().len(),
        }))
    }

    /// The cause of a compaction a person asked for, on the last usage.
    pub(super) fn manual_cause<'a>(
        &self,
        reason: String,
        focus: Option<&'a str>,
        keep_from: Option<ItemId>,
    ) -> CompactionCause<'a> {
        CompactionCause {
            trigger: CompactionTrigger::Manual,
            reason,
            context_tokens: self
                .session
                .history()
                .last_usage()
                .and_then(TokenUsage::context_tokens),
            threshold: self.threshold(),
            focus,
            turn_id: None,
            pending: 0,
            keep_from,
        }
    }

    /// The check after a round: compacts when `usage`, what that round
    /// reported, reached the threshold. A round that reported none never
    /// compacts on an earlier round's figure, which predates its items (and
    /// would retry a failed summary after every round). `None` when no
    /// compaction was due.
    pub(super) async fn compaction_check(
        &mut self,
        turn_id: TurnId,
        usage: Option<&TokenUsage>,
        cancel: &CancellationToken,
    ) -> Result<Option<CompactOutcome>> {
        let policy = self.policy();
        if policy == CompactionPolicy::Off {
            return Ok(None);
        }
        let items = self.session.history().items();
        // Both policies act at the threshold (each policy's own, see
        // `resolve_threshold`): base summarizes, layered evicts first.
        let threshold = self.threshold();
        let decision = decide_compaction(usage, threshold, items);
        let CompactionDecision::Compact {
            context_tokens,
            reason,
            ..
        } = decision
        else {
            return Ok(None);
        };
        let cause = CompactionCause::automatic(
            CompactionTrigger::Auto,
            reason,
            Some(context_tokens),
            threshold,
            turn_id,
        );
        match policy {
            CompactionPolicy::Layered => self.layered_compact(cause, false, cancel).await,
            CompactionPolicy::Off | CompactionPolicy::Base => {
                self.base_compact(cause, cancel).await.map(Some)
            }
        }
    }

    /// Compacts under the session's policy: `layered` evicts first and
    /// summarizes with a state sheet (always, when asked for by a person);
    /// `off` compacts only when asked for; `base` summarizes. `Ok(None)`
    /// after a layered step that evicted outputs but wrote no summary, or
    /// skipped because a guard held it back.
    pub(super) async fn compact(
        &mut self,
        cause: CompactionCause<'_>,
        cancel: &CancellationToken,
    ) -> Result<Option<CompactOutcome>> {
        let manual = cause.trigger == CompactionTrigger::Manual;
        match self.policy() {
            CompactionPolicy::Layered => self.layered_compact(cause, manual, cancel).await,
            CompactionPolicy::Off if !manual => Ok(None),
            CompactionPolicy::Off | CompactionPolicy::Base => {
                self.base_compact(cause, cancel).await.map(Some)
            }
        }
    }

    /// The base design's compaction: one summary, recorded as a
    /// `compaction_summary` item.
    pub(super) async fn base_compact(
        &mut self,
        cause: CompactionCause<'_>,
        cancel: &CancellationToken,
    ) -> Result<CompactOutcome> {
        let started = Instant::now();
        let items = self.session.history().items().to_vec();
        let plan = CompactionPlan::for_history(&items);
        if plan.removed() == 0 {
            return Ok(CompactOutcome::NothingToCompact { items: items.len() });
        }
        let leading = items
            .iter()
            .take_while(|item| {
                item.is_message_with_role(Role::System)
                    || item.is_message_with_role(Role::Developer)
            })
            .count();
        let model = self.config.model.clone();
        let focus = cause.focus;
        let request_for = |left_out: usize| {
            build_compaction_summary_request(
                &summary_input(&items, leading, left_out),
                focus,
                &model,
            )
        };
        let summarized = self
            .summarize(items.len() - leading, &request_for, cancel)
            .await;
        let Done {
            text,
            model,
            usage,
            left_out,
            in_context: _,
        } = match self.summary_done(summarized, cause.turn_id) {
            Ok(done) => done,
            Err(outcome) => return Ok(*outcome),
        };
        let mut reason = cause.reason;
        if left_out > 0 {
            reason.push_str(&format!(
                " (the {left_out} oldest items were left out of the summary: the whole \
                 history was too long to summarize)"
            ));
        }
        let summarizer_cost = self.config.summary_cost(&model, usage.as_ref());
        let summary = CompactionSummary {
            id: ItemId::new(),
            summary: text,
            metadata: CompactionMetadata {
                trigger: cause.trigger,
                reason,
                context_tokens: cause.context_tokens,
                threshold: Some(cause.threshold),
                removed: u32::try_from(plan.removed()).unwrap_or(u32::MAX),
                kept: u32::try_from(plan.kept()).unwrap_or(u32::MAX),
                summarizer_model: model,
                summarizer_cost,
                summarizer_usage: usage.map(Box::new),
                duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            },
        };
        self.session.commit_compaction(summary.clone())?;
        let history_items = self.session.history().len();
        self.events.debug(DebugEvent::HistoryCompacted {
            turn_id: cause.turn_id,
            summary: summary.clone(),
            history_items: u32::try_from(history_items).unwrap_or(u32::MAX),
        });
        // The figure the gauge shows until the next report, as a reopened
        // session's status computes it (not a characters/4 of its own).
        let estimate = Estimate::new(self.estimator.as_ref(), Calibration::default());
        let history = self.session.history().items();
        let estimated_tokens =
            estimate_after_compaction(self.session.state(), |items| estimate.items(items))
                .unwrap_or_else(|| estimate.items(history));
        if estimated_tokens >= cause.threshold {
            self.events.debug(DebugEvent::CompactionIneffective {
                summary_item_id: summary.id,
                estimated_tokens,
                threshold: cause.threshold,
            });
        }
        Ok(CompactOutcome::Compacted(summary))
    }

    /// The summary, or the outcome to report when there is none (a failure
    /// is announced as a debug event).
    pub(super) fn summary_done(
        &mut self,
        summarized: Summarized,
        turn_id: Option<TurnId>,
    ) -> std::result::Result<Done, Box<CompactOutcome>> {
        match summarized {
            Summarized::Done(done) => Ok(done),
            Summarized::Failed { attempts, message } => {
                self.events.debug(DebugEvent::SummaryFailed {
                    turn_id,
                    attempts,
                    message: message.clone(),
                });
                Err(Box::new(CompactOutcome::SummaryFailed {
                    attempts,
                    message,
                }))
            }
            Summarized::Cancelled => Err(Box::new(CompactOutcome::Cancelled)),
        }
    }

    /// Asks the model for a summary; `request_for(left_out)` builds the
    /// request with the oldest `left_out` of the `foldable` items folded out.
    /// A failed attempt is retried with the oldest half of what remains
    /// folded out, up to [`MAX_SUMMARY_ATTEMPTS`] attempts; errors no smaller
    /// input can fix (credentials, quota) stop at once.
    pub(super) async fn summarize(
        &self,
        foldable: usize,
        request_for: &(dyn Fn(usize) -> ModelRequest + Sync),
        cancel: &CancellationToken,
    ) -> Summarized {
        let mut left_out = 0usize;
        let mut attempts = 0u32;
        let message = loop {
            attempts += 1;
            let request = request_for(left_out);
            let response = tokio::select! {
                biased;
                () = cancel.cancelled() => return Summarized::Cancelled,
                response = self.gateway.create_response(request) => response,
            };
            let (message, fatal) = match response {
                Ok(response) => {
                    let text = response.text().trim().to_owned();
                    if !text.is_empty() {
                        let model = if response.model.is_empty() {
                            self.config.model.clone()
                        } else {
                            response.model
                        };
                        return Summarized::Done(Done {
                            text,
                            model,
                            usage: response.usage,
                            left_out,
                            in_context: false,
                        });
                    }
                    ("the summarizer returned no text".to_owned(), false)
                }
                Err(error) => (error.to_string(), no_smaller_input_fixes(&error)),
            };
            let remaining = foldable.saturating_sub(left_out);
            if fatal || attempts >= MAX_SUMMARY_ATTEMPTS || remaining <= 1 {
                break message;
            }
            left_out += remaining / 2;
        };
        Summarized::Failed { attempts, message }
    }
}

/// Errors a summary request with less input cannot get past (credentials,
/// quota): a summary stops trying at once.
pub(super) fn no_smaller_input_fixes(error: &ModelError) -> bool {
    match error {
        ModelError::Auth { .. } | ModelError::QuotaExhausted { .. } => true,
        ModelError::ContextOverflow { .. }
        | ModelError::RateLimited { .. }
        | ModelError::InvalidRequest { .. }
        | ModelError::Transient { .. }
        | ModelError::Unreachable { .. }
        | ModelError::StreamInterrupted { .. } => false,
    }
}

/// The leading messages, a note when items were left out, then the rest.
fn summary_input(items: &[ResponseItem], leading: usize, left_out: usize) -> Vec<ResponseItem> {
    let mut input = items[..leading].to_vec();
    if left_out > 0 {
        input.push(ResponseItem::message(
            Role::Developer,
            format!(
                "({left_out} earlier items of this conversation are not shown: the whole \
                 transcript was too long to summarize.)"
            ),
        ));
    }
    input.extend_from_slice(&items[leading + left_out..]);
    input
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_input_keeps_the_leading_messages_and_notes_what_was_left_out() {
        let items = vec![
            ResponseItem::system("sys"),
            ResponseItem::user("one"),
            ResponseItem::assistant("two"),
            ResponseItem::user("three"),
        ];
        assert_eq!(summary_input(&items, 1, 0), items);
        let folded = summary_input(&items, 1, 2);
        assert_eq!(folded.len(), 3);
        assert_eq!(folded[0], items[0]);
        assert!(folded[1].is_message_with_role(Role::Developer));
        assert_eq!(folded[2], items[3]);
    }
}
