//! Running a round's function calls in order: prepare, approve, execute,
//! commit the output. Every call gets exactly one output, cancelled or not.

use std::time::Duration;

use strata_protocol::{
    ApprovalDecision, ApprovalDecisionRecord, ApprovalRequest, DecidedBy, FullToolOutput,
    FunctionCall, FunctionCallOutput, ItemId, MainlineEvent, RecordBody, ResponseItem, RuleList,
    RuleRef, RuleSource, ToolCallStatus, TurnId,
};

use super::Agent;
use super::approvals::ProposedRules;
use crate::error::Result;
use crate::tools::{ApprovalCheck, CancellationToken, ToolOutcome};

/// How a wait for approval ended.
enum Answer {
    Decided(ApprovalDecision),
    /// The broker is non-interactive, or the request vanished unanswered.
    NoOneToAsk,
    Cancelled,
}

impl Agent {
    /// Runs `calls` in order. Returns whether the turn was cancelled; then
    /// the call that was running and every later one have cancelled outputs.
    pub(super) async fn run_calls(
        &mut self,
        turn_id: TurnId,
        calls: &[FunctionCall],
        cancel: &CancellationToken,
    ) -> Result<bool> {
        let mut cancelled = false;
        for call in calls {
            self.events.mainline(MainlineEvent::ToolCallStarted {
                turn_id,
                call_id: call.call_id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
            let outcome = if cancelled || cancel.is_cancelled() {
                cancelled = true;
                plain_outcome(
                    format!(
                        "{} before this {} call ran; it was not run.",
                        self.stop_cause(),
                        call.name
                    ),
                    ToolCallStatus::Cancelled,
                )
            } else {
                let outcome = self.run_call(turn_id, call, cancel).await?;
                // A call that ignores cancellation (a write) still reports
                // what it did; the calls after it do not run.
                cancelled = outcome.status == ToolCallStatus::Cancelled || cancel.is_cancelled();
                outcome
            };
            self.commit_output(turn_id, call, outcome)?;
        }
        Ok(cancelled)
    }

    async fn run_call(
        &mut self,
        turn_id: TurnId,
        call: &FunctionCall,
        cancel: &CancellationToken,
    ) -> Result<ToolOutcome> {
        // Recall reads only this session's own records: no workspace, no
        // approval, whatever the policy.
        if call.name == crate::recall::RECALL && self.offers_recall() {
            return self.run_recall(&call.arguments);
        }
        // The plan touches nothing: no approval, whatever the policy.
        if call.name == strata_protocol::tool_names::UPDATE_PLAN {
            return Ok(update_plan_outcome(&call.arguments));
        }
        // Policy first: a refused call is never prepared (no open, no read).
        if let Some(error) = self.approvals.refuse_unprepared(&call.name) {
            return Ok(self.tools.error_outcome(&error));
        }
        let prepared = match self.tools.prepare_call(&call.name, &call.arguments) {
            Ok(prepared) => prepared,
            Err(error) => return Ok(self.tools.error_outcome(&error)),
        };
        let settings = self.tools.external_settings();
        let checked = self
            .approvals
            .check_call_with_rules(&prepared, settings, &call.call_id);
        if checked.by_rule {
            let decision = match checked.check {
                ApprovalCheck::Run => ApprovalDecision::AllowOnce,
                ApprovalCheck::Refuse(_) | ApprovalCheck::Ask(_) => ApprovalDecision::Deny,
            };
            self.record_rule_decision(call, decision, checked.rules.clone())?;
        }
        let rules = checked.rules;
        match checked.check {
            ApprovalCheck::Run => {}
            ApprovalCheck::Refuse(error) => return Ok(self.tools.error_outcome(&error)),
            ApprovalCheck::Ask(request) => match self.ask(turn_id, &request, cancel).await {
                Answer::Decided(decision) => {
                    // "Always allow" is recorded with the rules it saved.
                    let rules = match decision {
                        ApprovalDecision::AlwaysAllow => saved_rules(&request),
                        ApprovalDecision::AllowOnce
                        | ApprovalDecision::AllowForSession
                        | ApprovalDecision::Deny => rules,
                    };
                    self.record_decision(turn_id, &request, decision, rules)?;
                    if let Err(error) = self.approvals.resolve_call(&prepared, decision) {
                        return Ok(self.tools.error_outcome(&error));
                    }
                }
                Answer::NoOneToAsk => {
                    self.record_decision(turn_id, &request, ApprovalDecision::Deny, rules)?;
                    return Ok(plain_outcome(
                        format!(
                            "Not run: this call needs the user's approval (approval policy \
                             ask), but no one can answer approval requests in this session (it \
                             is not interactive). The call: {}. Do not retry it; tell the user \
                             what you wanted to do so they can do it or change the approval \
                             policy.",
                            request.summary()
                        ),
                        ToolCallStatus::Denied,
                    ));
                }
                Answer::Cancelled => {
                    return Ok(plain_outcome(
                        format!(
                            "{} while this {} call waited for approval; it was not run.",
                            self.stop_cause(),
                            call.name
                        ),
                        ToolCallStatus::Cancelled,
                    ));
                }
            },
        }
        let before = self.before_call(&prepared);
        let mut outcome = self.tools.execute_call(&prepared, cancel).await;
        self.after_call(turn_id, &call.call_id, before, outcome.status)?;
        if outcome.status == ToolCallStatus::Cancelled {
            // The tool says it stopped; the model should also know why.
            let note = format!("\n[{} while this call ran.]", self.stop_cause());
            outcome.output.push_str(&note);
            if let Some(full) = outcome.full_output.as_mut() {
                full.push_str(&note);
            }
        }
        Ok(outcome)
    }

    /// Why calls are being stopped: told to the model, which must not be
    /// told the person cancelled when the turn's deadline did.
    fn stop_cause(&self) -> &'static str {
        let deadline_passed = self
            .turn_deadline_at
            .is_some_and(|at| tokio::time::Instant::now() >= at);
        if deadline_passed {
            "The turn reached its time limit (network.turn_deadline_ms) and was stopped"
        } else {
            "The user cancelled the turn"
        }
    }

    /// The recall tool: answered from the session file, read back through
    /// the writer (never a path the model names), within the output cap.
    fn run_recall(&self, arguments: &str) -> Result<ToolOutcome> {
        let started = std::time::Instant::now();
        let records = self.session.read_records()?;
        let text = crate::recall::recall(&records, self.session.history(), arguments);
        let (output, cut) = self.tools.config().output_cap.apply(text);
        let output = match cut {
            Some(_) => format!(
                "{output}\n[recall: the answer was cut to the tool output cap; search with a \
                 narrower query for the part you need]"
            ),
            None => output,
        };
        let status = if output.starts_with("recall:") && !output.contains("matching line") {
            ToolCallStatus::Error
        } else {
            ToolCallStatus::Success
        };
        Ok(ToolOutcome {
            output,
            full_output: None,
            status,
            exit_code: None,
            duration: started.elapsed(),
        })
    }

    /// Registers the request, announces it, and waits for the answer or the
    /// cancellation.
    async fn ask(
        &mut self,
        turn_id: TurnId,
        request: &ApprovalRequest,
        cancel: &CancellationToken,
    ) -> Answer {
        let pending = self.broker.register(
            &request.call_id,
            ProposedRules {
                kind: request.proposed_rule_kind(),
                patterns: request.proposed_rules.clone(),
            },
        );
        // Announced even with no one to ask, so a front end (and a --json
        // log) shows what was refused and why.
        self.events.mainline(MainlineEvent::ApprovalRequested {
            turn_id,
            call_id: request.call_id.clone(),
            tool: request.tool.clone(),
            summary: request.summary(),
            detail: request.detail().to_owned(),
            proposed_rules: request.proposed_rules.clone(),
        });
        let Some(mut pending) = pending else {
            return Answer::NoOneToAsk;
        };
        tokio::select! {
            biased;
            () = cancel.cancelled() => Answer::Cancelled,
            decision = pending.decision() => decision.map_or(Answer::NoOneToAsk, Answer::Decided),
        }
    }

    /// A decision a rule made without asking: recorded, not announced as
    /// an approval (nothing was asked).
    fn record_rule_decision(
        &mut self,
        call: &FunctionCall,
        decision: ApprovalDecision,
        rules: Vec<RuleRef>,
    ) -> Result<()> {
        self.append_decision(&call.call_id, &call.name, decision, DecidedBy::Rule, rules)
    }

    fn append_decision(
        &mut self,
        call_id: &str,
        tool: &str,
        decision: ApprovalDecision,
        by: DecidedBy,
        rules: Vec<RuleRef>,
    ) -> Result<()> {
        self.session
            .append(RecordBody::ApprovalDecision(ApprovalDecisionRecord {
                call_id: call_id.to_owned(),
                tool: tool.to_owned(),
                decision,
                by,
                rules,
            }))?;
        Ok(())
    }

    fn record_decision(
        &mut self,
        turn_id: TurnId,
        request: &ApprovalRequest,
        decision: ApprovalDecision,
        rules: Vec<RuleRef>,
    ) -> Result<()> {
        self.append_decision(
            &request.call_id,
            &request.tool,
            decision,
            DecidedBy::Person,
            rules,
        )?;
        self.events.mainline(MainlineEvent::ApprovalResolved {
            turn_id,
            call_id: request.call_id.clone(),
            decision,
        });
        Ok(())
    }

    /// Commits the call's output (and its full text when it was capped).
    fn commit_output(
        &mut self,
        turn_id: TurnId,
        call: &FunctionCall,
        outcome: ToolOutcome,
    ) -> Result<()> {
        let item_id = ItemId::new();
        let item = ResponseItem::FunctionCallOutput(FunctionCallOutput {
            id: item_id,
            call_id: call.call_id.clone(),
            output: outcome.output.clone(),
        });
        self.session.commit_item(item.clone())?;
        if let Some(full) = outcome.full_output {
            self.session
                .append(RecordBody::FullToolOutput(FullToolOutput {
                    call_id: call.call_id.clone(),
                    item_id,
                    output: full,
                }))?;
        }
        self.events
            .mainline(MainlineEvent::MessageCommitted { turn_id, item });
        self.events.mainline(MainlineEvent::ToolCallFinished {
            turn_id,
            call_id: call.call_id.clone(),
            name: call.name.clone(),
            status: outcome.status,
            output: outcome.output,
            duration_ms: u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX),
        });
        Ok(())
    }
}

/// The workspace allow rules "always allow" saved for `request`.
fn saved_rules(request: &ApprovalRequest) -> Vec<RuleRef> {
    request
        .proposed_rules
        .iter()
        .map(|pattern| RuleRef {
            source: RuleSource::Workspace,
            list: RuleList::Allow,
            kind: request.proposed_rule_kind(),
            pattern: pattern.clone(),
        })
        .collect()
}

/// An outcome for a call that did not run. The texts are ours and short,
/// and what they quote (an approval summary) is already redacted.
fn plain_outcome(output: String, status: ToolCallStatus) -> ToolOutcome {
    ToolOutcome {
        output,
        full_output: None,
        status,
        exit_code: None,
        duration: Duration::ZERO,
    }
}

/// `update_plan`'s output: the plan set, or why none was (the plan stays as
/// it was; [`crate::plan::latest_plan`] skips the call the same way).
fn update_plan_outcome(arguments: &str) -> ToolOutcome {
    match crate::plan::parse_plan(arguments) {
        Ok(plan) => plain_outcome(crate::plan::plan_set_output(&plan), ToolCallStatus::Success),
        Err(message) => plain_outcome(message, ToolCallStatus::Error),
    }
}
