//! A round the provider rejected as too long for the model's context
//! window: the history is shrunk once under the session's policy and the
//! round sent again; a second rejection fails the turn with an error that
//! names what was tried. At most [`MAX_OVERFLOW_RECOVERIES`] recoveries per
//! turn, so a model whose window the history can never fit cannot keep a
//! turn summarising.

use strata_protocol::{CompactionPolicy, CompactionTrigger, ModelError, TokenUsage, TurnId};

use super::compact::CompactionCause;
use super::evict::Evicted;
use super::{Agent, CompactOutcome};
use crate::compaction::{needs_summary, overflow_recovery_threshold};
use crate::error::Result;
use crate::tools::CancellationToken;

/// Overflow recoveries one turn may make before it fails.
pub const MAX_OVERFLOW_RECOVERIES: u32 = 3;

/// What an overflow recovery did.
pub(super) enum Recovery {
    /// The history shrank: send the round again. `tried` says how, for the
    /// error should the provider refuse it again.
    Retry {
        tried: String,
        compacted: bool,
    },
    Cancelled,
    /// Nothing could shrink it: the turn fails with this error.
    Failed(ModelError),
}

impl Agent {
    /// Shrinks the history after the provider rejected a round whose
    /// request was estimated at `rejected` tokens (when the policy
    /// estimates requests). `base` summarises; `layered` evicts towards
    /// [`overflow_recovery_threshold`] and summarises (with its state sheet)
    /// only if eviction is not enough; `off` fails with a hint.
    pub(super) async fn recover_from_overflow(
        &mut self,
        turn_id: TurnId,
        message: &str,
        rejected: Option<u64>,
        cancel: &CancellationToken,
    ) -> Result<Recovery> {
        let policy = self.policy();
        let threshold = match policy {
            CompactionPolicy::Layered => overflow_recovery_threshold(self.threshold(), rejected),
            CompactionPolicy::Base | CompactionPolicy::Off => self.threshold(),
        };
        let mut reason = format!(
            "The provider rejected the round as too long for the model's context window: \
             {message}"
        );
        if let (CompactionPolicy::Layered, Some(rejected)) = (policy, rejected) {
            reason.push_str(&format!(
                " (the request was about {rejected} tokens, estimated; Strata aims below \
                 {threshold})"
            ));
        }
        let reported = self
            .session
            .history()
            .last_usage()
            .and_then(TokenUsage::context_tokens);
        let cause = CompactionCause::automatic(
            CompactionTrigger::ContextOverflow,
            reason,
            reported,
            threshold,
            turn_id,
        );
        match policy {
            CompactionPolicy::Off => Ok(Recovery::Failed(self.overflow_error(message, None))),
            CompactionPolicy::Base => {
                let outcome = self.base_compact(cause, cancel).await?;
                Ok(self.recovery_from(message, outcome, None))
            }
            CompactionPolicy::Layered => {
                self.layered_recovery(message, cause, rejected, cancel)
                    .await
            }
        }
    }

    /// Layered's recovery: evict first; summarise when the request is still
    /// expected at or over the recovery's threshold. The ineffective guard
    /// does not hold it back (the alternative is a failed turn); the circuit
    /// and a refused plan do, with an error that says so.
    async fn layered_recovery(
        &mut self,
        message: &str,
        cause: CompactionCause<'_>,
        rejected: Option<u64>,
        cancel: &CancellationToken,
    ) -> Result<Recovery> {
        let evicted = self.evict(&cause)?;
        let after_request = evicted.after + self.request_overhead();
        let freed = evicted.before.saturating_sub(evicted.after);
        let expected = rejected.map_or(after_request, |rejected| {
            after_request.max(rejected.saturating_sub(freed))
        });
        let evicted_note = (evicted.outputs > 0).then(|| evicted_text(&evicted));
        // Eviction brought the request under the recovery's threshold.
        if !needs_summary(expected, cause.threshold)
            && let Some(tried) = evicted_note
        {
            return Ok(Recovery::Retry {
                tried,
                compacted: false,
            });
        }
        let held = if self.compaction_circuit_open() {
            Some("automatic compaction is paused after repeated failed summaries")
        } else if self.plan_was_refused() {
            Some("the rule check refused this same compaction before")
        } else {
            None
        };
        if let Some(held) = held {
            let tried = match evicted_note {
                Some(evicted) => format!("{evicted}; no summary was made: {held}"),
                None => format!("no summary was made: {held}"),
            };
            return Ok(Recovery::Failed(self.overflow_error(message, Some(&tried))));
        }
        let outcome = self.layered_summary(&cause, cancel).await?;
        self.record_summary_failure(&cause, &outcome)?;
        Ok(self.recovery_from(message, outcome, evicted_note))
    }

    /// The recovery a compaction's outcome amounts to.
    fn recovery_from(
        &self,
        message: &str,
        outcome: CompactOutcome,
        evicted: Option<String>,
    ) -> Recovery {
        let done = |what: String| match &evicted {
            Some(evicted) => format!("{evicted}, then {what}"),
            None => what,
        };
        match outcome {
            CompactOutcome::Compacted(summary) => Recovery::Retry {
                tried: done(format!(
                    "summarised {} items into one summary",
                    summary.metadata.removed
                )),
                compacted: true,
            },
            CompactOutcome::Cancelled => Recovery::Cancelled,
            // Eviction alone made the history smaller: worth one more try.
            CompactOutcome::NothingToCompact { .. } if evicted.is_some() => Recovery::Retry {
                tried: done("found nothing more to summarise".to_owned()),
                compacted: false,
            },
            CompactOutcome::NothingToCompact { .. } => Recovery::Failed(self.overflow_error(
                message,
                Some("found nothing to compact: the history is only the system prompt and your messages"),
            )),
            CompactOutcome::SummaryFailed { attempts, message: why } => {
                let tried = done(format!("tried to summarise the history ({attempts} attempts), but {why}"));
                Recovery::Failed(self.overflow_error(message, Some(&tried)))
            }
            CompactOutcome::Refused { message: why, .. } => {
                let tried = done(format!("summarised the history, but {why}"));
                Recovery::Failed(self.overflow_error(message, Some(&tried)))
            }
        }
    }

    /// The overflow error the turn fails with: what the provider said, what
    /// Strata tried (when it tried anything), and what the person can do.
    pub(super) fn overflow_error(&self, message: &str, tried: Option<&str>) -> ModelError {
        let mut text = message.to_owned();
        if let Some(tried) = tried {
            text.push_str(&format!(" (Strata {tried})"));
        }
        let hint = match self.policy() {
            CompactionPolicy::Off => {
                "automatic compaction is off for this session: run /compact, or `strata compact \
                 SESSION`, then try again"
            }
            CompactionPolicy::Base | CompactionPolicy::Layered => {
                "shorten the message, run /compact with a focus, or switch to a model with a \
                 larger context window"
            }
        };
        text.push_str(&format!("; {hint}"));
        ModelError::ContextOverflow { message: text }
    }

    /// The error when the round, sent again after `tried`, overflowed too.
    pub(super) fn overflow_after_retry(&self, message: &str, tried: &str) -> ModelError {
        self.overflow_error(
            message,
            Some(&format!(
                "{tried} and sent the round again, but it was still too long"
            )),
        )
    }
}

fn evicted_text(evicted: &Evicted) -> String {
    format!(
        "evicted {} older tool output{} (about {} to {} tokens, estimated)",
        evicted.outputs,
        if evicted.outputs == 1 { "" } else { "s" },
        evicted.before,
        evicted.after
    )
}
