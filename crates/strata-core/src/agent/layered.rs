//! The layered policy in the live loop: eviction first (no model call), a
//! summary with a state sheet only when eviction was not enough, the
//! summary made from the span's original items, and the guards (an
//! ineffective compaction is not repeated until new content arrives; three
//! failed compactions in a row open the auto-compaction circuit).

use std::collections::HashMap;
use std::time::Instant;

use strata_protocol::{
    CompactionMetadata, CompactionPolicy, CompactionRefused, CompactionSpan, CompactionSummary,
    CompactionTrigger, DebugEvent, ItemId, LayeredCompaction, Message, RecordBody, ResponseItem,
    Role, TokenUsage, TurnId,
};

use super::compact::{CompactionCause, Done};
use super::{Agent, CompactOutcome};
use crate::compaction::{
    EVICTED_PREFIX, Estimate, STATE_SHEET_BUDGET_TOKENS, SheetContext,
    build_layered_summary_request, build_state_sheet, extract, ineffective_level, item_text,
    loss_audit, previous_summary_text, restore_originals, span_originals,
};
use crate::compaction::{
    MIN_HISTORY_ITEMS, needs_summary, pinned_with_partners, plan_layered_with, rule_violations,
};
use crate::error::{CoreError, Result};
use crate::tools::CancellationToken;

/// Compactions in a row whose summary failed before the circuit opens.
pub const CIRCUIT_BREAKER_FAILURES: u32 = 3;

impl Agent {
    /// The estimator with its calibration.
    pub fn estimate(&self) -> Estimate<'_> {
        Estimate::new(self.estimator.as_ref(), self.calibration)
    }

    /// An estimate of the history as it is now, for the gauge right after a
    /// compaction, until the next round reports (label it as an estimate).
    pub fn estimated_context_tokens(&self) -> u64 {
        self.estimate().items(self.session.history().items()) + self.request_overhead()
    }

    /// The estimate of what every request carries besides the history (the
    /// tool specs), calibrated as the history's items are.
    pub(super) fn request_overhead(&self) -> u64 {
        self.calibration.apply(self.tool_specs_raw())
    }

    /// The raw estimate of the tool specs every request carries besides the
    /// history: reported usage counts them, item estimates do not.
    fn tool_specs_raw(&self) -> u64 {
        serde_json::to_string(&self.round_tool_specs())
            .map_or(0, |specs| self.estimator.count(&specs))
    }

    /// Re-calibrates estimates against a reported context size, taken when
    /// the history is exactly what the report describes.
    pub(super) fn calibrate(&mut self, reported: u64) {
        // The tool specs count too, or the ratio would absorb them and
        // inflate every estimate of an item (most with small thresholds).
        let raw = Estimate::new(self.estimator.as_ref(), Default::default())
            .items(self.session.history().items())
            + self.tool_specs_raw();
        self.calibration = crate::compaction::Calibration::from_report(reported, raw);
    }

    /// Before a new user message is sent (`layered` and `off`): a message
    /// that alone reaches the threshold is refused; under `layered`, when
    /// the last reported usage plus the estimate of everything added since
    /// (the message included) would reach it, compacts first (trigger
    /// `model_switch` when the session moved to another model or profile
    /// since its last round and the history alone no longer fits, else
    /// `pre_turn`). `base` does nothing here.
    pub(super) async fn pre_turn_check(
        &mut self,
        turn_id: TurnId,
        user_text: &str,
        cancel: &CancellationToken,
    ) -> Result<()> {
        let policy = self.policy();
        if policy == CompactionPolicy::Base {
            return Ok(());
        }
        let threshold = self.threshold();
        let estimate = self.estimate();
        let added = estimate.text(user_text);
        if added >= threshold {
            return Err(CoreError::MessageTooLong {
                estimated_tokens: added,
                threshold,
            });
        }
        let history = self.session.history();
        if policy == CompactionPolicy::Off || history.len() < MIN_HISTORY_ITEMS {
            return Ok(());
        }
        let reported = history.last_usage().and_then(TokenUsage::context_tokens);
        let current = match reported {
            Some(reported) => reported + estimate.items(history.items_since_last_usage()),
            None => estimate.items(history.items()),
        };
        if current + added < threshold {
            return Ok(());
        }
        // The history alone no longer fits after a move to another model or
        // profile (a smaller window, a lower threshold): that is the switch's
        // doing, not the new message's.
        let switched = self
            .session
            .state()
            .switched_since_last_round(&self.config.model);
        let (trigger, reason) = if switched && current >= threshold {
            (
                CompactionTrigger::ModelSwitch,
                format!(
                    "The session moved to {}; the history (about {current} tokens, estimated) \
                     no longer fits its threshold {threshold}",
                    self.config.model
                ),
            )
        } else {
            (
                CompactionTrigger::PreTurn,
                format!(
                    "Before sending the new message: about {} tokens (last reported usage plus \
                     an estimate of what was added) would reach the threshold {threshold}",
                    current + added
                ),
            )
        };
        let cause = CompactionCause {
            trigger,
            reason,
            context_tokens: reported,
            threshold,
            focus: None,
            turn_id: Some(turn_id),
            pending: added,
            keep_from: None,
        };
        self.layered_compact(cause, false, cancel).await?;
        Ok(())
    }

    /// The layered step at the threshold: evict older tool outputs down to
    /// the low-water mark, then summarize only if the next request is still
    /// expected at or over the threshold, or `force_summary` (a person
    /// asked). `None` when no summary was attempted.
    pub(super) async fn layered_compact(
        &mut self,
        cause: CompactionCause<'_>,
        force_summary: bool,
        cancel: &CancellationToken,
    ) -> Result<Option<CompactOutcome>> {
        let automatic = cause.trigger != CompactionTrigger::Manual;
        let last = self.session.history().items().last().map(ResponseItem::id);
        if automatic
            && self
                .session
                .state()
                .compaction_guards()
                .holds_ineffective(last)
        {
            return Ok(None);
        }
        let plan = self.plan_eviction(&cause);
        let (before, after) = (plan.estimated_before, plan.estimated_after);
        // Where the next request will stand: the estimate after eviction,
        // or the reported size (when the trigger had one) less what
        // eviction freed, whichever is larger. The estimate alone can miss
        // what it does not count (tool specs, provider framing), and
        // trusting it would skip a needed summary round after round.
        let after_request = after + self.request_overhead();
        let expected = cause.context_tokens.map_or(after_request, |reported| {
            after_request.max(reported.saturating_sub(before.saturating_sub(after)))
        }) + cause.pending;
        let summarize = force_summary
            || needs_summary(expected, cause.threshold)
                && !(automatic && (self.compaction_circuit_open() || self.plan_was_refused()));
        if !summarize {
            self.commit_eviction(&cause, plan)?;
            return Ok(None);
        }
        // A summary replaces the evicted outputs too, so it is asked for over
        // the history as the last round sent it (what the provider cached);
        // the eviction is kept only when no summary came of it.
        let outcome = self.layered_summary(&cause, cancel).await?;
        if !matches!(outcome, CompactOutcome::Compacted(_)) {
            self.commit_eviction(&cause, plan)?;
        }
        self.record_summary_failure(&cause, &outcome)?;
        Ok(Some(outcome))
    }

    /// A partial compaction (trigger `manual`): summarizes everything before
    /// `item` (an id or unique prefix of one in the current context) and
    /// keeps everything from it on verbatim, a call never split from its
    /// output. Recorded as a layered compaction whatever the policy.
    pub async fn compact_up_to(
        &mut self,
        item: &str,
        focus: Option<String>,
        cancel: CancellationToken,
    ) -> Result<CompactOutcome> {
        let items = self.session.history().items();
        let keep_from = crate::recall::resolve_item(items.iter().map(ResponseItem::id), item)?;
        let focus = focus.as_deref().map(str::trim).filter(|f| !f.is_empty());
        let mut reason = format!("Compaction up to item {keep_from} requested by the user");
        if let Some(focus) = focus {
            reason.push_str(&format!(", focusing on: {focus}"));
        }
        let cause = self.manual_cause(reason, focus, Some(keep_from));
        // A summary's record resets the guards by itself.
        self.layered_summary(&cause, &cancel).await
    }

    /// A summary of the span's original items, with the state sheet.
    pub(super) async fn layered_summary(
        &mut self,
        cause: &CompactionCause<'_>,
        cancel: &CancellationToken,
    ) -> Result<CompactOutcome> {
        let started = Instant::now();
        let items = self.session.history().items().to_vec();
        let pinned = pinned_with_partners(&items, self.session.history().pinned());
        let keep_from =
            match cause.keep_from {
                Some(id) => Some(items.iter().position(|item| item.id() == id).ok_or_else(
                    || CoreError::ContextRefused {
                        message: format!(
                            "item {id} is not in what the model sees now; compact up to an item of \
                         the current context"
                        ),
                    },
                )?),
                None => None,
            };
        let plan = plan_layered_with(&items, &pinned, keep_from);
        if plan.span.is_empty() {
            return Ok(CompactOutcome::NothingToCompact { items: items.len() });
        }
        let span: Vec<ResponseItem> = plan.span.iter().map(|&i| items[i].clone()).collect();
        let previous_summary = previous_summary_text(&span).map(str::to_owned);
        let previous_sheet = self.session.state().last_state_sheet().cloned();
        let evicted = span.iter().any(|item| {
            matches!(item, ResponseItem::FunctionCallOutput(o) if o.output.starts_with(EVICTED_PREFIX))
        });
        let file_items = if evicted {
            self.session.original_items()?
        } else {
            HashMap::new()
        };
        // Everything after the leading messages, evicted outputs put back
        // and earlier summaries and sheets left out: the span's originals
        // with the person's kept messages in place, so the summary reads
        // the requests it serves.
        let originals =
            span_originals(restore_originals(&items[plan.leading.len()..], &file_items));
        let folded = self.fold_to_fit(
            &originals,
            previous_summary.as_deref(),
            previous_sheet.as_ref(),
        );
        let model = self.config.model.clone();
        let request_for = |left_out: usize| {
            build_layered_summary_request(
                previous_summary.as_deref(),
                previous_sheet.as_ref(),
                &originals[folded + left_out..],
                folded + left_out,
                cause.focus,
                &model,
            )
        };
        // A summary of the whole history is asked for in the session's own
        // context first (its cached prefix); a partial one reads the span.
        let in_context = match cause.keep_from {
            None => self.summarize_in_context(cause.focus, cancel).await,
            Some(_) => None,
        };
        let summarized = match in_context {
            Some(summarized) => summarized,
            None => {
                self.summarize(originals.len() - folded, &request_for, cancel)
                    .await
            }
        };
        let Done {
            text,
            model: summarizer_model,
            usage,
            left_out,
            in_context,
        } = match self.summary_done(summarized, cause.turn_id) {
            Ok(done) => done,
            Err(outcome) => return Ok(*outcome),
        };
        let folded_out = folded + left_out;
        // The summary names the ids recall accepts for what it replaces.
        let text = format!("{text}{}", recall_note(&items, &plan.span));
        // The sheet reads every original, folded ones too: it never loses
        // what the summarizer could not read.
        let facts = extract(&originals);
        let context = SheetContext {
            approval_policy: self.approvals.policy().as_str().to_owned(),
            has_agents_file: plan
                .leading
                .iter()
                .any(|&i| items[i].is_message_with_role(Role::Developer)),
            ..SheetContext::default()
        }
        .with_history(&items);
        let estimate = self.estimate();
        let sheet = build_state_sheet(
            previous_sheet.as_ref(),
            &facts,
            &context,
            estimate,
            STATE_SHEET_BUDGET_TOKENS,
        );
        let audit = loss_audit(&facts, &text, &sheet);
        let mut reason = cause.reason.clone();
        if in_context {
            reason.push_str(
                " (summarized in the session's own context, its cached prompt read back)",
            );
        }
        if folded_out > 0 && !in_context {
            reason.push_str(&format!(
                " ({folded_out} of the oldest original items were left out of the summarizer's \
                 input: they did not fit; the state sheet still lists their files and commands)"
            ));
        }
        let kept_count = plan.leading.len() + plan.kept.len();
        let summarizer_cost = self.config.summary_cost(&summarizer_model, usage.as_ref());
        let summary = CompactionSummary {
            id: ItemId::new(),
            summary: text,
            metadata: CompactionMetadata {
                trigger: cause.trigger,
                reason,
                context_tokens: cause.context_tokens,
                threshold: Some(cause.threshold),
                removed: u32::try_from(items.len() - kept_count).unwrap_or(u32::MAX),
                kept: u32::try_from(kept_count).unwrap_or(u32::MAX),
                summarizer_model,
                summarizer_cost,
                summarizer_usage: usage.map(Box::new),
                duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            },
        };
        let sheet_message = Message {
            id: ItemId::new(),
            role: Role::User,
            content: sheet.text.clone(),
        };
        let kept_items: Vec<ResponseItem> = plan
            .leading
            .iter()
            .chain(&plan.kept)
            .map(|&i| items[i].clone())
            .collect();
        let estimated_after = estimate.items(&kept_items)
            + estimate.text(&summary.model_text())
            + estimate.text(&sheet_message.content);
        let record = LayeredCompaction {
            summary: summary.clone(),
            sheet_message,
            state_sheet: sheet,
            leading: plan.leading.iter().map(|&i| items[i].id()).collect(),
            kept: plan.kept.iter().map(|&i| items[i].id()).collect(),
            folded_out: u32::try_from(folded_out).unwrap_or(u32::MAX),
            estimated_before: estimate.items(&items),
            estimated_after,
            loss_audit: audit,
        };
        // The rule check: a result that drops a rule is not committed.
        let dropped = rule_violations(&items, &record, &pinned, self.approvals.policy().as_str());
        if !dropped.is_empty() {
            let message = format!(
                "the compaction was refused: it would have dropped {}",
                dropped.join("; ")
            );
            // Recorded, so the audit trail keeps the refusal and the
            // summary call it cost; the history is left as it was.
            self.session
                .append(RecordBody::CompactionRefused(CompactionRefused {
                    trigger: cause.trigger,
                    dropped: dropped.clone(),
                    message: message.clone(),
                    summarizer_usage: record.summary.metadata.summarizer_usage.as_deref().cloned(),
                }))?;
            // Counted toward the circuit like a failed summary, and the
            // span named, so the same plan is not paid for again.
            if let Some(span) = span_of(&items, &plan.span) {
                self.record_refusal(cause, &message, span)?;
            }
            self.session.sync()?;
            self.events.debug(DebugEvent::CompactionRefused {
                turn_id: cause.turn_id,
                dropped: dropped.clone(),
                message: message.clone(),
            });
            return Ok(CompactOutcome::Refused { dropped, message });
        }
        self.session
            .append(RecordBody::LayeredCompaction(Box::new(record.clone())))?;
        let history_items = u32::try_from(self.session.history().len()).unwrap_or(u32::MAX);
        self.events.debug(DebugEvent::HistoryCompacted {
            turn_id: cause.turn_id,
            summary: summary.clone(),
            history_items,
        });
        self.events.debug(DebugEvent::LayeredCompacted {
            turn_id: cause.turn_id,
            compaction: Box::new(record),
        });
        if estimated_after >= ineffective_level(cause.threshold) {
            self.events.debug(DebugEvent::CompactionIneffective {
                summary_item_id: summary.id,
                estimated_tokens: estimated_after,
                threshold: cause.threshold,
            });
        }
        Ok(CompactOutcome::Compacted(summary))
    }

    /// How many of the oldest originals to leave out so the summarizer's
    /// input fits the model's window less its output budget (the threshold
    /// when the window is unknown) with the previous summary and sheet; at
    /// least one original always stays.
    fn fold_to_fit(
        &self,
        originals: &[ResponseItem],
        previous_summary: Option<&str>,
        previous_sheet: Option<&strata_protocol::StateSheet>,
    ) -> usize {
        let estimate = self.estimate();
        let budget = self.config.context_window.map_or_else(
            || self.threshold(),
            |window| window.saturating_sub(self.config.max_output_tokens.map_or(0, u64::from)),
        );
        let context = previous_summary.map_or(0, |s| estimate.text(s))
            + previous_sheet.map_or(0, |s| estimate.text(&s.text));
        let costs: Vec<u64> = originals
            .iter()
            .map(|item| estimate.text(&item_text(item)))
            .collect();
        let mut total: u64 = context + costs.iter().sum::<u64>();
        let mut folded = 0;
        while total > budget && folded + 1 < originals.len() {
            total -= costs[folded];
            folded += 1;
        }
        folded
    }
}

/// The span a layered plan replaces, by its first and last item and count.
pub(super) fn span_of(items: &[ResponseItem], span: &[usize]) -> Option<CompactionSpan> {
    let (&first, &last) = (span.first()?, span.last()?);
    Some(CompactionSpan {
        first: items[first].id(),
        last: items[last].id(),
        items: u32::try_from(span.len()).unwrap_or(u32::MAX),
    })
}

/// The line a layered summary ends with: the ids of the first and last item
/// it replaces (ids sort by time, so every removed item lies between them),
/// which the recall tool returns.
fn recall_note(items: &[ResponseItem], span: &[usize]) -> String {
    match (span.first(), span.last()) {
        (Some(&first), Some(&last)) => format!(
            "\n\n[Strata: this summary replaces {} items, ids {} to {}; the recall tool \
             returns any of them by id, or searches them.]",
            span.len(),
            items[first].id(),
            items[last].id()
        ),
        _ => String::new(),
    }
}
