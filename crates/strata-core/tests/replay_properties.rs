//! Live equals replay: whatever a live session is driven through, the history
//! replayed from its file is, item for item, the history it held; and so is
//! the one a resume reads from the file's tail (its last checkpoint on).

// Helpers outside #[test] fns unwrap too: in a test a panic is the report.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use proptest::prelude::*;
use strata_core::compaction::{
    Calibration, CharEstimator, CompactionPlan, Estimate, STATE_SHEET_BUDGET_TOKENS, SheetContext,
    build_state_sheet, extract, loss_audit, pinned_with_partners, plan_eviction, plan_layered_with,
    span_originals,
};
use strata_core::context_ops::decide_undo;
use strata_core::recall;
use strata_core::store::{ReadMode, SessionStore, read_session_tail, verify_checkpoints};
use strata_core::{ABORTED_TOOL_OUTPUT, Applied, LiveSession};
use strata_protocol::{
    ApprovalDecision, ApprovalDecisionRecord, CompactionGuardRecord, CompactionMetadata,
    CompactionPolicy, CompactionPolicyRecord, CompactionSummary, CompactionTrigger, ErrorRecord,
    ForkPoint, FullToolOutput, ItemId, ItemPin, LayeredCompaction, ReasoningItem, RecordBody,
    ResponseItem, RetryRecord, Role, RoundId, RoundRecord, ThresholdSetting, TitleSet, TokenUsage,
    ToolOutputsEvicted, TurnFinished, TurnId, TurnOutcome, TurnStarted, UnknownRecord,
};

#[derive(Clone, Debug)]
enum NonHistory {
    TurnStarted,
    TurnFinished,
    Round,
    Retry,
    Error,
    Approval,
    Title,
    Unknown,
}

#[derive(Clone, Debug)]
enum Action {
    /// A message; `repeat` makes some long enough to exhaust the summary's
    /// user-message budget.
    Message {
        role: Role,
        text: String,
        repeat: usize,
    },
    /// A function call, answered (with a capped output and its full text)
    /// or left running.
    Call {
        answered: bool,
        capped: bool,
    },
    Reasoning,
    Usage {
        input: Option<u64>,
        output: u64,
    },
    NonHistory(NonHistory),
    Compaction,
    /// A `compaction_policy` record.
    Policy(CompactionPolicy),
    /// A `tool_outputs_evicted` record, planned on the history as it is.
    Eviction {
        low_water: u64,
    },
    /// A `layered_compaction` record with a state sheet.
    LayeredCompaction,
    /// A `compaction_guard` record: a failed summary that left the
    /// estimate at `estimated_tokens` (threshold 8,000), or a reset.
    Guard {
        failed: bool,
        estimated_tokens: u64,
    },
    /// An `item_pin` record on the item at `pick` (modulo the history).
    Pin {
        pick: usize,
        pinned: bool,
    },
    /// A partial layered compaction keeping everything from `pick` on.
    PartialCompaction {
        pick: usize,
    },
    /// A `compaction_undone` record, when there is a compaction to undo.
    Undo,
    /// A recall call and its answer, read from the file as the tool does.
    Recall {
        by_id: bool,
        pick: usize,
    },
    /// A checkpoint asked for explicitly (as undo and fork will).
    Checkpoint,
}

fn role() -> impl Strategy<Value = Role> {
    prop_oneof![
        1 => Just(Role::System),
        1 => Just(Role::Developer),
        6 => Just(Role::User),
        4 => Just(Role::Assistant),
    ]
}

fn action() -> impl Strategy<Value = Action> {
    let non_history = prop_oneof![
        Just(NonHistory::TurnStarted),
        Just(NonHistory::TurnFinished),
        Just(NonHistory::Round),
        Just(NonHistory::Retry),
        Just(NonHistory::Error),
        Just(NonHistory::Approval),
        Just(NonHistory::Title),
        Just(NonHistory::Unknown),
    ];
    prop_oneof![
        8 => (role(), "[a-z é]{0,30}", prop_oneof![9 => Just(1usize), 1 => 100usize..900])
            .prop_map(|(role, text, repeat)| Action::Message { role, text, repeat }),
        4 => (any::<bool>(), any::<bool>())
            .prop_map(|(answered, capped)| Action::Call { answered, capped }),
        1 => Just(Action::Reasoning),
        3 => (proptest::option::of(0u64..20_000), 0u64..2_000)
            .prop_map(|(input, output)| Action::Usage { input, output }),
        3 => non_history.prop_map(Action::NonHistory),
        2 => Just(Action::Compaction),
        1 => prop_oneof![
            Just(CompactionPolicy::Off),
            Just(CompactionPolicy::Base),
            Just(CompactionPolicy::Layered),
        ]
        .prop_map(Action::Policy),
        2 => (0u64..200).prop_map(|low_water| Action::Eviction { low_water }),
        2 => Just(Action::LayeredCompaction),
        1 => (any::<bool>(), 0u64..10_000)
            .prop_map(|(failed, estimated_tokens)| Action::Guard { failed, estimated_tokens }),
        2 => (any::<usize>(), any::<bool>()).prop_map(|(pick, pinned)| Action::Pin { pick, pinned }),
        1 => any::<usize>().prop_map(|pick| Action::PartialCompaction { pick }),
        1 => Just(Action::Undo),
        1 => (any::<bool>(), any::<usize>()).prop_map(|(by_id, pick)| Action::Recall { by_id, pick }),
        1 => Just(Action::Checkpoint),
    ]
}

fn non_history_body(kind: &NonHistory, session: &LiveSession, step: usize) -> RecordBody {
    let turn_id = TurnId::new();
    match kind {
        NonHistory::TurnStarted => RecordBody::TurnStarted(TurnStarted { turn_id }),
        NonHistory::TurnFinished => RecordBody::TurnFinished(TurnFinished {
            turn_id,
            outcome: TurnOutcome::Completed,
            rounds: 1,
        }),
        NonHistory::Round => RecordBody::Round(RoundRecord {
            turn_id,
            round_id: RoundId::new(),
            provider_kind: "openai-responses".into(),
            model: "gpt-5.4".into(),
            tools: Vec::new(),
            tool_choice: None,
            max_output_tokens: None,
            input_items: session.history().len() as u32,
            estimated_input_tokens: None,
            reasoning: None,
            cache_anchors: Vec::new(),
        }),
        NonHistory::Retry => RecordBody::Retry(RetryRecord {
            round_id: None,
            attempt: 1,
            of: 4,
            delay_ms: 10,
            cause: "overloaded".into(),
        }),
        NonHistory::Error => RecordBody::Error(ErrorRecord {
            turn_id: Some(turn_id),
            message: "failed".into(),
            model_error: None,
        }),
        NonHistory::Approval => RecordBody::ApprovalDecision(ApprovalDecisionRecord {
            call_id: format!("call_{step}"),
            tool: "shell".into(),
            decision: ApprovalDecision::Deny,
            by: Default::default(),
            rules: Vec::new(),
        }),
        NonHistory::Title => RecordBody::TitleSet(TitleSet {
            title: format!("title {step}"),
        }),
        NonHistory::Unknown => RecordBody::Unknown(UnknownRecord {
            record_type: "from_the_future".into(),
            payload: serde_json::json!({ "step": step }),
        }),
    }
}

/// A summary whose metadata counts come from the plan, as the live loop's do.
fn summary_for(session: &LiveSession, step: usize) -> CompactionSummary {
    let plan = CompactionPlan::for_history(session.history().items());
    CompactionSummary {
        id: ItemId::new(),
        summary: format!("summary at step {step}"),
        metadata: CompactionMetadata {
            trigger: CompactionTrigger::Auto,
            reason: "threshold".into(),
            context_tokens: session
                .history()
                .last_usage()
                .and_then(TokenUsage::context_tokens),
            threshold: Some(8000),
            removed: plan.removed() as u32,
            kept: plan.kept() as u32,
            summarizer_model: "gpt-5.4-mini".into(),
            summarizer_usage: None,
            summarizer_cost: None,
            duration_ms: 1,
        },
    }
}

fn drive(session: &mut LiveSession, actions: &[Action]) {
    for (step, action) in actions.iter().enumerate() {
        match action {
            Action::Message { role, text, repeat } => {
                let content = text.repeat(*repeat);
                session
                    .commit_item(ResponseItem::message(*role, content))
                    .unwrap();
            }
            Action::Call { answered, capped } => {
                let call_id = format!("call_{step}");
                session
                    .commit_item(ResponseItem::function_call(
                        call_id.as_str(),
                        "shell",
                        r#"{"command":"ls"}"#,
                    ))
                    .unwrap();
                if *answered {
                    let text = if step % 3 == 0 {
                        "a\nb".repeat(200)
                    } else {
                        "a\nb".to_owned()
                    };
                    let output = ResponseItem::function_call_output(call_id.as_str(), text);
                    let item_id = output.id();
                    session.commit_item(output).unwrap();
                    if *capped {
                        session
                            .append(RecordBody::FullToolOutput(FullToolOutput {
                                call_id,
                                item_id,
                                output: "a\nb\nc\n".into(),
                            }))
                            .unwrap();
                    }
                }
            }
            Action::Reasoning => {
                session
                    .commit_item(ResponseItem::Reasoning(ReasoningItem {
                        id: ItemId::new(),
                        provider: "openai-responses".into(),
                        payload: serde_json::json!({ "encrypted_content": step.to_string() }),
                    }))
                    .unwrap();
            }
            Action::Usage { input, output } => {
                let usage = TokenUsage {
                    input_tokens: *input,
                    output_tokens: Some(*output),
                    ..TokenUsage::default()
                };
                session
                    .record_usage(usage, Some(RoundId::new()), None)
                    .unwrap();
            }
            Action::NonHistory(kind) => {
                let body = non_history_body(kind, session, step);
                let applied = session.append(body).unwrap();
                assert!(matches!(applied, Applied::NotHistory | Applied::Unknown));
            }
            Action::Compaction => {
                let summary = summary_for(session, step);
                let (removed, kept) = (summary.metadata.removed, summary.metadata.kept);
                let applied = session.commit_compaction(summary).unwrap();
                assert_eq!(
                    applied,
                    Applied::Compacted {
                        removed: removed as usize,
                        kept: kept as usize
                    }
                );
                assert_eq!(session.history().last_usage(), None);
            }
            Action::Policy(policy) => {
                let applied = session
                    .append(RecordBody::CompactionPolicy(CompactionPolicyRecord {
                        policy: *policy,
                        threshold: Some(ThresholdSetting::Percent(80)),
                    }))
                    .unwrap();
                assert_eq!(applied, Applied::NotHistory);
                assert_eq!(session.state().policy(), *policy);
            }
            Action::Eviction { low_water } => {
                let estimate = Estimate::new(&CharEstimator, Calibration::default());
                let plan = plan_eviction(session.history().items(), estimate, *low_water);
                let outputs = plan.evicted.len();
                let applied = session
                    .append(RecordBody::ToolOutputsEvicted(ToolOutputsEvicted {
                        trigger: CompactionTrigger::Auto,
                        context_tokens: None,
                        threshold: 8_000,
                        low_water: *low_water,
                        estimated_before: plan.estimated_before,
                        estimated_after: plan.estimated_after,
                        evicted: plan.evicted,
                    }))
                    .unwrap();
                assert_eq!(applied, Applied::Evicted { outputs });
                assert_eq!(
                    estimate.items(session.history().items()),
                    plan.estimated_after
                );
            }
            Action::Pin { pick, pinned } => {
                let items = session.history().items();
                if items.is_empty() {
                    continue;
                }
                let item_id = items[pick % items.len()].id();
                let applied = session
                    .append(RecordBody::ItemPin(ItemPin {
                        item_id,
                        pinned: *pinned,
                    }))
                    .unwrap();
                assert_eq!(applied, Applied::Pinned);
                assert_eq!(session.history().is_pinned(item_id), *pinned);
            }
            Action::PartialCompaction { pick } => {
                let len = session.history().len();
                if len == 0 {
                    continue;
                }
                let record = layered_record_from(session, step, Some(pick % len));
                session
                    .append(RecordBody::LayeredCompaction(Box::new(record)))
                    .unwrap();
            }
            Action::Undo => {
                let estimate = Estimate::new(&CharEstimator, Calibration::default());
                if let Ok(undone) = decide_undo(session.history(), estimate, 0, u64::MAX) {
                    let expected = undone.restored.clone();
                    session
                        .append(RecordBody::CompactionUndone(undone))
                        .unwrap();
                    // As `context_ops::undo_compaction` does.
                    session.append_checkpoint().unwrap();
                    let now: Vec<ItemId> = session
                        .history()
                        .items()
                        .iter()
                        .map(ResponseItem::id)
                        .collect();
                    assert_eq!(now, expected);
                }
            }
            Action::Recall { by_id, pick } => {
                let records = session.read_records().unwrap();
                let arguments = if *by_id {
                    let items = recall::recorded_originals(&records);
                    match items.get(pick % items.len().max(1)) {
                        Some(item) => serde_json::json!({ "id": item.id().to_string() }),
                        None => continue,
                    }
                } else {
                    serde_json::json!({ "query": "a", "regex": pick % 2 == 0 })
                };
                let answer = recall::recall(&records, session.history(), &arguments.to_string());
                let call_id = format!("recall_{step}");
                session
                    .commit_item(ResponseItem::function_call(
                        call_id.as_str(),
                        recall::RECALL,
                        arguments.to_string(),
                    ))
                    .unwrap();
                session
                    .commit_item(ResponseItem::function_call_output(call_id.as_str(), answer))
                    .unwrap();
            }
            Action::Checkpoint => {
                let before = session.state().clone();
                session.append_checkpoint().unwrap();
                assert_eq!(session.history(), before.history());
            }
            Action::LayeredCompaction => {
                let record = layered_record(session, step);
                let kept = record.leading.len() + record.kept.len();
                session
                    .append(RecordBody::LayeredCompaction(Box::new(record.clone())))
                    .unwrap();
                let items = session.history().items();
                assert_eq!(items.len(), kept + 2);
                assert_eq!(
                    items[record.leading.len()],
                    ResponseItem::CompactionSummary(record.summary)
                );
                assert_eq!(session.history().last_usage(), None);
                assert_eq!(session.state().compaction_guards().failures_in_a_row(), 0);
            }
            Action::Guard {
                failed,
                estimated_tokens,
            } => {
                let before = session.state().compaction_guards().failures_in_a_row();
                let body = if *failed {
                    CompactionGuardRecord::SummaryFailed {
                        trigger: CompactionTrigger::Auto,
                        attempts: 4,
                        message: format!("failure {step}"),
                        estimated_tokens: *estimated_tokens,
                        threshold: 8_000,
                    }
                } else {
                    CompactionGuardRecord::CircuitReset
                };
                let applied = session.append(RecordBody::CompactionGuard(body)).unwrap();
                assert_eq!(applied, Applied::NotHistory);
                let guards = session.state().compaction_guards();
                let last = session.history().items().last().map(ResponseItem::id);
                if *failed {
                    assert_eq!(guards.failures_in_a_row(), before + 1);
                    assert_eq!(
                        guards.holds_ineffective(last),
                        last.is_some() && *estimated_tokens >= 7_200
                    );
                } else {
                    assert_eq!(guards.failures_in_a_row(), 0);
                }
            }
        }
    }
}

/// A layered compaction decided the way the live loop decides it.
fn layered_record(session: &LiveSession, step: usize) -> LayeredCompaction {
    layered_record_from(session, step, None)
}

/// A layered compaction sparing the pinned items, whole or (`keep_from`)
/// partial.
fn layered_record_from(
    session: &LiveSession,
    step: usize,
    keep_from: Option<usize>,
) -> LayeredCompaction {
    let items = session.history().items();
    let pinned = pinned_with_partners(items, session.history().pinned());
    let plan = plan_layered_with(items, &pinned, keep_from);
    let span: Vec<ResponseItem> = plan.span.iter().map(|&i| items[i].clone()).collect();
    let estimate = Estimate::new(&CharEstimator, Calibration::default());
    let facts = extract(&span_originals(span));
    let sheet = build_state_sheet(
        session.state().last_state_sheet(),
        &facts,
        &SheetContext::default(),
        estimate,
        STATE_SHEET_BUDGET_TOKENS,
    );
    let ResponseItem::Message(sheet_message) = ResponseItem::user(sheet.text.clone()) else {
        unreachable!()
    };
    LayeredCompaction {
        summary: summary_for(session, step),
        sheet_message,
        loss_audit: loss_audit(&facts, "", &sheet),
        state_sheet: sheet,
        leading: plan.leading.iter().map(|&i| items[i].id()).collect(),
        kept: plan.kept.iter().map(|&i| items[i].id()).collect(),
        folded_out: 0,
        estimated_before: estimate.items(items),
        estimated_after: 0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn replaying_the_file_reproduces_the_history_the_live_session_held(
        actions in proptest::collection::vec(action(), 0..40),
        fork_pick in any::<usize>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let mut session = store
            .create(Path::new("/work"), "openai-responses", "gpt-5.4")
            .unwrap();
        drive(&mut session, &actions);
        let live = session.history().clone();
        let live_state = session.state().clone();
        let id = session.id();

        let read = store.open_reader(id, ReadMode::Strict).unwrap();
        prop_assert!(read.report.is_clean());
        let replayed = read.replay();
        prop_assert_eq!(replayed.history().items(), live.items());
        prop_assert_eq!(replayed.history().last_usage(), live.last_usage());
        prop_assert_eq!(&replayed, &live_state);
        // Every checkpoint agrees with the records before it, and the tail
        // read (from the last one) replays to the same state.
        let checked = verify_checkpoints(&read);
        prop_assert!(checked.divergences.is_empty(), "{:?}", checked.divergences);
        let compacted = live_state.compactions() > 0;
        prop_assert!(checked.checkpoints >= usize::from(compacted));
        let tail = read_session_tail(session.path()).unwrap();
        prop_assert_eq!(tail.from_checkpoint(), checked.checkpoints > 0);
        prop_assert_eq!(&tail.replay(), &live_state);
        drop(session);

        // Reopening adds exactly one aborted output per call left running.
        let pending = live.pending_call_ids();
        let reopened = store.open_writer(id).unwrap();
        prop_assert_eq!(&reopened.recovery().aborted_calls, &pending);
        let items = reopened.history().items();
        prop_assert_eq!(&items[..live.len()], live.items());
        let appended: Vec<(&str, &str)> = items[live.len()..]
            .iter()
            .filter_map(|item| match item {
                ResponseItem::FunctionCallOutput(output) => {
                    Some((output.call_id.as_str(), output.output.as_str()))
                }
                _ => None,
            })
            .collect();
        let expected: Vec<(&str, &str)> = pending
            .iter()
            .map(|call_id| (call_id.as_str(), ABORTED_TOOL_OUTPUT))
            .collect();
        prop_assert_eq!(items.len() - live.len(), pending.len());
        prop_assert_eq!(appended, expected);
        prop_assert_eq!(reopened.history().last_usage(), live.last_usage());
        prop_assert!(reopened.history().pending_call_ids().is_empty());
        let whole = store.open_reader(id, ReadMode::Strict).unwrap().replay();
        prop_assert_eq!(reopened.state(), &whole);
        drop(reopened);

        // A fork right after any recorded item holds exactly the parent's
        // history at that point, and replays to it.
        let read = store.open_reader(id, ReadMode::Strict).unwrap();
        let items = recall::recorded_originals(&read.records);
        if !items.is_empty() {
            let item_id = items[fork_pick % items.len()].id();
            let point = ForkPoint::AtItem { item_id };
            let cut = strata_core::context_ops::fork_cut(&read.records, &point).unwrap();
            let expected = strata_core::store::replay(&read.meta, &read.records[..cut]);
            let fork = store.fork(id, point).unwrap();
            prop_assert_eq!(fork.history().items(), expected.history().items());
            let fork_id = fork.id();
            let fork_live = fork.history().clone();
            drop(fork);
            let fork_read = store.open_reader(fork_id, ReadMode::Strict).unwrap();
            let fork_replayed = fork_read.replay();
            prop_assert_eq!(fork_replayed.history(), &fork_live);
            // The parent's checkpoints it copied and its own agree with it,
            // and its resume starts from its own.
            let checked = verify_checkpoints(&fork_read);
            prop_assert!(checked.divergences.is_empty(), "{:?}", checked.divergences);
            let tail = read_session_tail(&fork_read.path).unwrap();
            prop_assert!(tail.from_checkpoint());
            prop_assert_eq!(&tail.replay(), &fork_replayed);
        }
    }
}
