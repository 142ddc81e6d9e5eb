//! Records into the transcript: the same fold, fed by a session file's
//! records (the whole file, or a tail from a turn's start), and what a read
//! left out of the file as recovery notices.

use super::*;

/// A session's whole transcript as read: its records', then what the read
/// left out of the file (lines that are not records, an unfinished last
/// line), each as a recovery notice.
pub fn from_read(read: &SessionRead) -> Vec<TranscriptEntry> {
    let mut entries = from_records(&read.records);
    for skipped in &read.report.skipped {
        entries.push(recovery(
            format!("read:skipped:{}", skipped.line),
            RecoveryNotice::SkippedRecord {
                line: u64::try_from(skipped.line).unwrap_or(u64::MAX),
                message: skipped.message.clone(),
            },
        ));
    }
    if let Some(torn) = read.report.torn_tail {
        entries.push(recovery(
            "read:torn_tail".to_owned(),
            RecoveryNotice::TornTailIgnored { bytes: torn.bytes },
        ));
    }
    entries
}

/// A recovery notice's entry, with its sentence.
fn recovery(id: String, notice: RecoveryNotice) -> TranscriptEntry {
    TranscriptEntry::Recovery {
        id,
        text: recovery_text(&notice),
        notice,
    }
}

impl TranscriptFold {
    /// Applies the record at `index` of a session file.
    pub fn apply_record(&mut self, index: usize, body: &RecordBody) {
        let id = || format!("record:{index}");
        match body {
            RecordBody::ResponseItem(item) => self.add_item(item),
            RecordBody::TurnStarted(started) => self.start_turn(started.turn_id),
            RecordBody::TurnFinished(finished) => {
                self.finish_turn(finished.turn_id, finished.outcome, finished.rounds);
            }
            RecordBody::ApprovalDecision(decision) => {
                self.decide(&decision.call_id, &decision.tool, decision.decision, false);
            }
            RecordBody::FullToolOutput(full) => {
                self.card_expected(&full.call_id);
                self.upsert_tool(&full.call_id, |tool| {
                    tool.output = Some(preview(&full.output));
                    tool.capped = true;
                });
            }
            RecordBody::SessionRepaired(repaired) => self.repaired(repaired, &id()),
            RecordBody::Error(error) => {
                self.push(TranscriptEntry::Error {
                    id: id(),
                    message: error.message.clone(),
                    failure: error.model_error.as_ref().map(ProviderFailure::of),
                    model_error: error.model_error.clone(),
                });
            }
            RecordBody::Retry(retry) => {
                self.push_retry(TranscriptEntry::Retry {
                    id: id(),
                    attempt: retry.attempt,
                    of: retry.of,
                    delay_ms: retry.delay_ms,
                    cause: retry.cause.clone(),
                    settled: true,
                });
            }
            RecordBody::ProfileSet(profile) => {
                self.model = Some(profile.model.clone());
                // What the session was created on is one of its facts (the
                // header's info, `sessions show`'s header); a switch changes
                // who answers from here on, so the conversation says it.
                if profile.change == ProfileChange::Switched {
                    self.push(TranscriptEntry::Notice {
                        id: id(),
                        text: sentence(&profile_line(profile)),
                    });
                }
            }
            RecordBody::ReasoningSet(set) => {
                self.push(TranscriptEntry::Notice {
                    id: id(),
                    text: format!("Reasoning set to {} from here on.", set.effort),
                });
            }
            RecordBody::SandboxSet(set) => {
                self.push(TranscriptEntry::Notice {
                    id: id(),
                    text: format!("Sandbox {} from here on: {}.", set.mode, set.describe()),
                });
            }
            RecordBody::SessionImported(imported) => {
                self.push(TranscriptEntry::Notice {
                    id: id(),
                    text: crate::transcript::text::imported_note(imported),
                });
            }
            RecordBody::InstructionsSet(set) => {
                self.push(TranscriptEntry::Notice {
                    id: id(),
                    text: crate::transcript::text::instructions_note(set),
                });
            }
            RecordBody::ToolOutputsEvicted(eviction) => {
                self.push(TranscriptEntry::Eviction {
                    id: id(),
                    eviction: eviction.clone(),
                });
            }
            RecordBody::LayeredCompaction(layered) => {
                self.add_compaction(
                    &layered.summary,
                    Some(&layered.state_sheet.text),
                    &layered.kept,
                );
            }
            RecordBody::SessionMeta(meta) => self.model = Some(meta.model.clone()),
            RecordBody::Round(round) => self.model = Some(round.model.clone()),
            // The pinned item shows it (a badge), not a line of its own.
            RecordBody::ItemPin(pin) => self.pin(pin.item_id, pin.pinned),
            RecordBody::CompactionUndone(undone) => {
                self.mark_undone(undone.summary_item_id);
                self.push(TranscriptEntry::Notice {
                    id: id(),
                    text: sentence(&undone_note(undone)),
                });
            }
            RecordBody::SessionForked(forked) => {
                self.push(TranscriptEntry::Fork {
                    id: id(),
                    origin: ForkOrigin {
                        parent_session_id: forked.parent_session_id,
                        point: forked.point.clone(),
                    },
                    text: sentence(&fork_note(&forked.point)),
                });
            }
            // Shown as the live `compaction_refused` event is.
            RecordBody::CompactionRefused(refused) => {
                self.push(TranscriptEntry::CompactionProblem {
                    id: id(),
                    problem: CompactionProblem::Refused,
                    message: sentence(&refused.message),
                    trigger: Some(refused.trigger),
                });
            }
            // Shown as the live `summary_failed` event is.
            RecordBody::CompactionGuard(CompactionGuardRecord::SummaryFailed {
                trigger,
                attempts,
                message,
                ..
            }) => {
                self.push(TranscriptEntry::CompactionProblem {
                    id: id(),
                    problem: CompactionProblem::SummaryFailed,
                    message: summary_failed(*attempts, message),
                    trigger: Some(*trigger),
                });
            }
            // The refusal itself was shown at its `compaction_refused`; a
            // checkpoint repeats the history the transcript already shows.
            RecordBody::CompactionGuard(
                CompactionGuardRecord::CircuitReset | CompactionGuardRecord::SummaryRefused { .. },
            )
            // The policy is the session's state (the header's info, the
            // console's switch and log), not a line of the conversation.
            | RecordBody::CompactionPolicy(_)
            // File changes are listed by `strata changes`, not in the
            // conversation (the tool card already says what it wrote).
            | RecordBody::FileChange(_)
            // Which server offered which tool is the console's to show.
            | RecordBody::McpCatalog(_)
            | RecordBody::Checkpoint(_)
            | RecordBody::TokenUsage(_)
            | RecordBody::TitleSet(_)
            | RecordBody::Unknown(_) => {}
        }
    }

    /// The notices of a reopened session's repairs, at the record saying so.
    fn repaired(&mut self, repaired: &SessionRepaired, id: &str) {
        for (n, notice) in recovery_notices(repaired).into_iter().enumerate() {
            self.push(recovery(format!("{id}:{n}"), notice));
        }
    }
}

/// The model answers come from after `records`, as the fold of the whole
/// file would have it; `None` when they do not say.
pub(crate) fn model_after(records: &[Record]) -> Option<String> {
    records.iter().rev().find_map(|record| match &record.body {
        RecordBody::SessionMeta(meta) => Some(meta.model.clone()),
        RecordBody::ProfileSet(profile) => Some(profile.model.clone()),
        RecordBody::Round(round) => Some(round.model.clone()),
        RecordBody::Checkpoint(checkpoint) => {
            let state = &checkpoint.state;
            let profile = state.profile.as_ref().map(|profile| profile.model.clone());
            if state.switched_since_round {
                profile
            } else {
                state.last_round_model.clone().or(profile)
            }
        }
        _ => None,
    })
}

/// What a `session_repaired` record tells a person, in order.
pub fn recovery_notices(repaired: &SessionRepaired) -> Vec<RecoveryNotice> {
    let torn = repaired
        .torn_tail
        .as_ref()
        .map(|torn| RecoveryNotice::TornTailMovedAside { bytes: torn.bytes });
    let aborted = (!repaired.aborted_calls.is_empty()).then(|| RecoveryNotice::AbortedCalls {
        calls: u32::try_from(repaired.aborted_calls.len()).unwrap_or(u32::MAX),
    });
    torn.into_iter().chain(aborted).collect()
}
