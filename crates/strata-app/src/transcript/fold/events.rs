//! Live events into the transcript: the same fold, fed by the agent's
//! mainline and debug events instead of records.

use super::*;

impl TranscriptFold {
    /// Applies one live event; its updates wait in [`Self::take_updates`].
    pub fn apply_event(&mut self, envelope: &EventEnvelope) {
        let id = format!("{}:{}", self.live_prefix, envelope.seq);
        match &envelope.event {
            AgentEvent::Mainline(event) => self.apply_mainline(event, id),
            AgentEvent::Debug(event) => self.apply_debug(event, id),
        }
    }

    fn apply_mainline(&mut self, event: &MainlineEvent, id: String) {
        match event {
            MainlineEvent::TurnStarted {
                turn_id,
                user_message,
            } => {
                self.start_turn(*turn_id);
                self.add_item(user_message);
            }
            MainlineEvent::TextDelta {
                turn_id,
                round_id,
                delta,
            } => {
                self.settle_retries();
                match self.streaming.and_then(|i| self.entries.get_mut(i)) {
                    Some(TranscriptEntry::Assistant { id, text, .. }) => {
                        text.push_str(delta);
                        self.updates.push(TranscriptUpdate::AppendText {
                            id: id.clone(),
                            delta: delta.clone(),
                        });
                    }
                    _ => {
                        let index = self.push(TranscriptEntry::Assistant {
                            id: format!("stream:{round_id}"),
                            text: delta.clone(),
                            streaming: true,
                            unsaved: None,
                            model: self.model.clone(),
                            turn_id: Some(*turn_id),
                            pinned: false,
                        });
                        self.streaming = Some(index);
                    }
                }
            }
            MainlineEvent::ReasoningDelta {
                turn_id,
                round_id,
                delta,
            } => {
                self.settle_retries();
                match self.thinking.and_then(|i| self.entries.get_mut(i)) {
                    Some(TranscriptEntry::Thinking { id, text, .. }) => {
                        text.push_str(delta);
                        self.updates.push(TranscriptUpdate::AppendText {
                            id: id.clone(),
                            delta: delta.clone(),
                        });
                    }
                    _ => {
                        let index = self.push(TranscriptEntry::Thinking {
                            id: format!("thinking:{round_id}"),
                            text: delta.clone(),
                            streaming: true,
                            turn_id: Some(*turn_id),
                        });
                        self.thinking = Some(index);
                    }
                }
            }
            MainlineEvent::MessageCommitted { item, .. } => {
                self.settle_retries();
                self.add_item(item);
            }
            MainlineEvent::ToolCallStarted {
                turn_id,
                call_id,
                name,
                arguments,
            } => {
                self.settle_retries();
                self.upsert_tool(call_id, |tool| {
                    tool.name.clone_from(name);
                    tool.arguments.clone_from(arguments);
                    if tool.status != ToolState::AwaitingApproval {
                        tool.status = ToolState::Running;
                    }
                    tool.turn_id = Some(*turn_id);
                });
            }
            MainlineEvent::ToolCallFinished {
                call_id,
                name,
                status,
                output,
                duration_ms,
                ..
            } => self.upsert_tool(call_id, |tool| {
                tool.name.clone_from(name);
                tool.output = Some(preview(output));
                tool.status = (*status).into();
                tool.duration_ms = Some(*duration_ms);
            }),
            MainlineEvent::ApprovalRequested {
                call_id,
                tool: name,
                summary,
                detail,
                proposed_rules,
                ..
            } => self.upsert_tool(call_id, |tool| {
                if tool.name == "tool" {
                    tool.name.clone_from(name);
                }
                tool.status = ToolState::AwaitingApproval;
                tool.approval = Some(ApprovalView {
                    summary: summary.clone(),
                    detail: detail.clone(),
                    proposed_rules: proposed_rules.clone(),
                    decision: None,
                });
            }),
            MainlineEvent::ApprovalResolved {
                call_id, decision, ..
            } => self.decide(call_id, "tool", *decision, true),
            MainlineEvent::TurnFinished {
                turn_id,
                outcome,
                rounds,
            } => self.finish_turn(*turn_id, *outcome, *rounds),
            MainlineEvent::Error {
                message,
                model_error,
                ..
            } => {
                self.settle_retries();
                self.push(TranscriptEntry::Error {
                    id,
                    message: message.clone(),
                    failure: model_error.as_ref().map(ProviderFailure::of),
                    model_error: model_error.clone(),
                });
            }
            MainlineEvent::CompactionCircuitOpen { message, .. } => {
                self.push(TranscriptEntry::Error {
                    id,
                    message: message.clone(),
                    model_error: None,
                    failure: None,
                });
            }
        }
    }

    fn apply_debug(&mut self, event: &DebugEvent, id: String) {
        match event {
            DebugEvent::Retrying {
                attempt,
                of,
                delay_ms,
                cause,
                ..
            } => {
                self.settle_retries();
                let index = self.push_retry(TranscriptEntry::Retry {
                    id,
                    attempt: *attempt,
                    of: *of,
                    delay_ms: *delay_ms,
                    cause: cause.clone(),
                    settled: false,
                });
                self.unsettled_retries.push(index);
            }
            DebugEvent::HistoryCompacted { summary, .. } => {
                self.add_compaction(summary, None, &[]);
            }
            DebugEvent::LayeredCompacted { compaction, .. } => {
                self.add_compaction(
                    &compaction.summary,
                    Some(&compaction.state_sheet.text),
                    &compaction.kept,
                );
            }
            DebugEvent::ToolOutputsEvicted { eviction, .. } => {
                self.push(TranscriptEntry::Eviction {
                    id,
                    eviction: eviction.clone(),
                });
            }
            DebugEvent::SummaryFailed {
                attempts, message, ..
            } => {
                self.push(TranscriptEntry::CompactionProblem {
                    id,
                    problem: CompactionProblem::SummaryFailed,
                    message: summary_failed(*attempts, message),
                    trigger: None,
                });
            }
            DebugEvent::CompactionRefused { message, .. } => {
                self.push(TranscriptEntry::CompactionProblem {
                    id,
                    problem: CompactionProblem::Refused,
                    message: sentence(message),
                    trigger: None,
                });
            }
            DebugEvent::RoundStarted { request, .. } => {
                self.model = Some(request.model.clone());
            }
            DebugEvent::UsageReported { .. } | DebugEvent::CompactionIneffective { .. } => {}
        }
    }
}
