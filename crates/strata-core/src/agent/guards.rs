//! The layered policy's guards in the live loop: failed and refused
//! summaries are recorded (`compaction_guard`), three in a row open the
//! auto-compaction circuit, and a plan the rule check refused is not
//! summarised again automatically. Everything is folded from the records,
//! so a resumed session has the guards the live one had.

use strata_protocol::{CompactionGuardRecord, CompactionSpan, MainlineEvent, RecordBody};

use super::compact::CompactionCause;
use super::layered::{CIRCUIT_BREAKER_FAILURES, span_of};
use super::{Agent, CompactOutcome};
use crate::compaction::{pinned_with_partners, plan_layered_with};
use crate::error::Result;

impl Agent {
    /// Whether automatic compaction is held off after repeated failed or
    /// refused summaries (derived from the records, so it survives a resume).
    pub fn compaction_circuit_open(&self) -> bool {
        self.session.state().compaction_guards().failures_in_a_row() >= CIRCUIT_BREAKER_FAILURES
    }

    /// The person retries: automatic compaction may run again. Recorded
    /// (`compaction_guard`, `circuit_reset`) so a resume sees it too;
    /// nothing is written when the circuit is closed and no refusal holds.
    pub fn reset_compaction_circuit(&mut self) -> Result<()> {
        let guards = self.session.state().compaction_guards();
        if guards.failures_in_a_row() == 0 && guards.refused_span().is_none() {
            return Ok(());
        }
        self.session.append(RecordBody::CompactionGuard(
            CompactionGuardRecord::CircuitReset,
        ))?;
        self.session.sync()
    }

    /// Whether the layered plan for the history as it is now is the one the
    /// rule check refused last: summarising it again would cost a summary
    /// call for the same refusal.
    pub(super) fn plan_was_refused(&self) -> bool {
        let Some(refused) = self.session.state().compaction_guards().refused_span() else {
            return false;
        };
        self.current_plan_span() == Some(refused)
    }

    /// The span an automatic layered summary would replace now.
    fn current_plan_span(&self) -> Option<CompactionSpan> {
        let history = self.session.history();
        let items = history.items();
        let pinned = pinned_with_partners(items, history.pinned());
        span_of(items, &plan_layered_with(items, &pinned, None).span)
    }

    /// Records a failed summary (`summary_failed`) so the guards survive a
    /// resume, and announces the circuit when this failure opened it.
    /// Nothing happens for any other outcome.
    pub(super) fn record_summary_failure(
        &mut self,
        cause: &CompactionCause<'_>,
        outcome: &CompactOutcome,
    ) -> Result<()> {
        let CompactOutcome::SummaryFailed { attempts, message } = outcome else {
            return Ok(());
        };
        let was_open = self.compaction_circuit_open();
        self.session.append(RecordBody::CompactionGuard(
            CompactionGuardRecord::SummaryFailed {
                trigger: cause.trigger,
                attempts: *attempts,
                message: message.clone(),
                estimated_tokens: self.estimated_context_tokens(),
                threshold: cause.threshold,
            },
        ))?;
        self.session.sync()?;
        self.announce_if_opened(was_open, message);
        Ok(())
    }

    /// Records a summary the rule check refused (`summary_refused`, after
    /// its `compaction_refused`): it counts toward the circuit as a failure.
    pub(super) fn record_refusal(
        &mut self,
        cause: &CompactionCause<'_>,
        message: &str,
        span: CompactionSpan,
    ) -> Result<()> {
        let was_open = self.compaction_circuit_open();
        self.session.append(RecordBody::CompactionGuard(
            CompactionGuardRecord::SummaryRefused {
                trigger: cause.trigger,
                message: message.to_owned(),
                span,
                estimated_tokens: self.estimated_context_tokens(),
                threshold: cause.threshold,
            },
        ))?;
        self.announce_if_opened(was_open, message);
        Ok(())
    }

    fn announce_if_opened(&mut self, was_open: bool, message: &str) {
        if was_open || !self.compaction_circuit_open() {
            return;
        }
        let failures = self.session.state().compaction_guards().failures_in_a_row();
        self.events.mainline(MainlineEvent::CompactionCircuitOpen {
            failures,
            message: format!(
                "automatic compaction is paused after {failures} compactions in a row whose \
                 summary failed or was refused (last: {message}); compact by hand to resume it"
            ),
        });
    }
}
