//! The conversion's rules, event by event and record by record.

use strata_protocol::{
    AgentEvent, ApprovalDecision, ApprovalDecisionRecord, DebugEvent, EVENT_FORMAT_VERSION,
    EventEnvelope, FullToolOutput, ItemId, MainlineEvent, OUTPUT_PREVIEW_CHARS, RecordBody,
    ResponseItem, RoundId, SessionId, ToolCallStatus, ToolState, TranscriptEntry, TranscriptUpdate,
    TurnFinished, TurnId, TurnOutcome, TurnStarted, Unsaved,
};

use super::fold::{TranscriptFold, preview};

/// A live fold fed mainline and debug events in order.
pub(super) struct Live {
    pub(super) fold: TranscriptFold,
    seq: u64,
    session: SessionId,
    pub(super) turn: TurnId,
    round: RoundId,
}

impl Live {
    pub(super) fn new() -> Self {
        Self {
            fold: TranscriptFold::live(),
            seq: 0,
            session: SessionId::new(),
            turn: TurnId::new(),
            round: RoundId::new(),
        }
    }

    pub(super) fn send(&mut self, event: AgentEvent) -> Vec<TranscriptUpdate> {
        let envelope = EventEnvelope {
            v: EVENT_FORMAT_VERSION,
            seq: self.seq,
            session_id: self.session,
            event,
        };
        self.seq += 1;
        self.fold.apply_event(&envelope);
        self.fold.take_updates()
    }

    pub(super) fn main(&mut self, event: MainlineEvent) -> Vec<TranscriptUpdate> {
        self.send(AgentEvent::Mainline(event))
    }

    pub(super) fn start(&mut self, text: &str) {
        let turn_id = self.turn;
        self.main(MainlineEvent::TurnStarted {
            turn_id,
            user_message: ResponseItem::user(text),
        });
    }

    fn delta(&mut self, text: &str) -> Vec<TranscriptUpdate> {
        let (turn_id, round_id) = (self.turn, self.round);
        self.main(MainlineEvent::TextDelta {
            turn_id,
            round_id,
            delta: text.into(),
        })
    }

    fn finish(&mut self, outcome: TurnOutcome) -> Vec<TranscriptUpdate> {
        let turn_id = self.turn;
        self.main(MainlineEvent::TurnFinished {
            turn_id,
            outcome,
            rounds: 1,
        })
    }

    pub(super) fn entries(&self) -> &[TranscriptEntry] {
        self.fold.entries()
    }

    pub(super) fn tool(&self, call_id: &str) -> strata_protocol::ToolEntry {
        self.entries()
            .iter()
            .find_map(|e| match e {
                TranscriptEntry::Tool(tool) if tool.call_id == call_id => Some(tool.clone()),
                _ => None,
            })
            .expect("the card")
    }
}

pub(super) fn kinds(entries: &[TranscriptEntry]) -> Vec<&'static str> {
    entries
        .iter()
        .map(|e| match e {
            TranscriptEntry::User { .. } => "user",
            TranscriptEntry::Assistant { .. } => "assistant",
            TranscriptEntry::Thinking { .. } => "thinking",
            TranscriptEntry::Tool(_) => "tool",
            TranscriptEntry::Compaction { .. } => "compaction",
            TranscriptEntry::Eviction { .. } => "eviction",
            TranscriptEntry::Fork { .. } => "fork",
            TranscriptEntry::Error { .. } => "error",
            TranscriptEntry::CompactionProblem { .. } => "compaction_problem",
            TranscriptEntry::Retry { .. } => "retry",
            TranscriptEntry::TurnEnd { .. } => "turn_end",
            TranscriptEntry::Notice { .. } => "notice",
            TranscriptEntry::Recovery { .. } => "recovery",
        })
        .collect()
}

#[test]
fn streamed_text_grows_one_answer_that_takes_its_items_id_when_committed() {
    let mut live = Live::new();
    live.start("Hi");
    let first = live.delta("Hel");
    assert!(matches!(
        &first[..],
        [TranscriptUpdate::Append {
            entry: TranscriptEntry::Assistant {
                streaming: true,
                ..
            }
        }]
    ));
    let more = live.delta("lo");
    let stream_id = live.entries()[1].id().to_owned();
    assert_eq!(
        more,
        [TranscriptUpdate::AppendText {
            id: stream_id.clone(),
            delta: "lo".into()
        }]
    );
    let item = ResponseItem::assistant("Hello!");
    let turn_id = live.turn;
    let committed = live.main(MainlineEvent::MessageCommitted {
        turn_id,
        item: item.clone(),
    });
    assert!(
        matches!(&committed[..], [TranscriptUpdate::Replace { id, entry: TranscriptEntry::Assistant { streaming: false, text, .. } }]
        if *id == stream_id && text == "Hello!")
    );
    assert_eq!(kinds(live.entries()), ["user", "assistant"]);
    assert_eq!(live.entries()[1].id(), item.id().to_string());
    // A completed turn ends in a quiet turn_end (the desktop does not draw
    // it; the printed transcript says how many rounds it took).
    let finished = live.finish(TurnOutcome::Completed);
    assert!(
        matches!(
            &finished[..],
            [TranscriptUpdate::Append {
                entry: TranscriptEntry::TurnEnd {
                    outcome: TurnOutcome::Completed,
                    ..
                }
            }]
        ),
        "{finished:?}"
    );
}

#[test]
fn a_tool_call_goes_through_approval_to_its_result_on_one_card() {
    let mut live = Live::new();
    let turn_id = live.turn;
    live.start("Run the tests");
    live.main(MainlineEvent::ToolCallStarted {
        turn_id,
        call_id: "c1".into(),
        name: "run_shell".into(),
        arguments: r#"{"command":"cargo test"}"#.into(),
    });
    assert_eq!(live.tool("c1").status, ToolState::Running);
    live.main(MainlineEvent::ApprovalRequested {
        turn_id,
        call_id: "c1".into(),
        tool: "run_shell".into(),
        summary: "run `cargo test`".into(),
        detail: "cargo test".into(),
        proposed_rules: vec!["cargo test*".into()],
    });
    assert_eq!(live.tool("c1").status, ToolState::AwaitingApproval);
    // The card offers what "always allow" would save, until it is answered.
    assert_eq!(
        live.tool("c1").approval.as_ref().unwrap().proposed_rules,
        ["cargo test*"]
    );
    live.main(MainlineEvent::ApprovalResolved {
        turn_id,
        call_id: "c1".into(),
        decision: ApprovalDecision::AllowOnce,
    });
    let card = live.tool("c1");
    assert_eq!(card.status, ToolState::Running);
    let approval = card.approval.expect("the approval");
    assert_eq!(approval.summary, "run `cargo test`");
    assert_eq!(approval.decision, Some(ApprovalDecision::AllowOnce));
    assert!(
        approval.proposed_rules.is_empty(),
        "answered: offered no more"
    );
    live.main(MainlineEvent::ToolCallFinished {
        turn_id,
        call_id: "c1".into(),
        name: "run_shell".into(),
        status: ToolCallStatus::Success,
        output: "ok".into(),
        duration_ms: 900,
    });
    live.main(MainlineEvent::MessageCommitted {
        turn_id,
        item: ResponseItem::function_call_output("c1", "ok"),
    });
    let card = live.tool("c1");
    assert_eq!(
        (card.status, card.duration_ms),
        (ToolState::Success, Some(900))
    );
    assert_eq!(card.output, Some(preview("ok")));
    assert_eq!(kinds(live.entries()), ["user", "tool"]);
}

#[test]
fn a_denied_call_shows_denied_live_and_read_back() {
    let mut live = Live::new();
    let turn_id = live.turn;
    live.main(MainlineEvent::ApprovalRequested {
        turn_id,
        call_id: "c2".into(),
        tool: "write_file".into(),
        summary: "write NOTES.md".into(),
        detail: String::new(),
        proposed_rules: Vec::new(),
    });
    live.main(MainlineEvent::ApprovalResolved {
        turn_id,
        call_id: "c2".into(),
        decision: ApprovalDecision::Deny,
    });
    assert_eq!(live.tool("c2").status, ToolState::Denied);

    let mut read = TranscriptFold::default();
    read.apply_record(
        0,
        &RecordBody::ResponseItem(ResponseItem::function_call("c2", "write_file", "{}")),
    );
    read.apply_record(
        1,
        &RecordBody::ApprovalDecision(ApprovalDecisionRecord {
            call_id: "c2".into(),
            tool: "write_file".into(),
            decision: ApprovalDecision::Deny,
            by: Default::default(),
            rules: Vec::new(),
        }),
    );
    assert!(
        matches!(read.entries(), [TranscriptEntry::Tool(tool)] if tool.status == ToolState::Denied && tool.name == "write_file")
    );
    assert!(
        read.take_updates().is_empty(),
        "reading a file keeps no updates"
    );
}

#[test]
fn a_retry_waits_in_place_and_settles_when_the_stream_resumes() {
    let mut live = Live::new();
    live.start("Hi");
    live.send(AgentEvent::Debug(DebugEvent::Retrying {
        turn_id: None,
        round_id: None,
        attempt: 1,
        of: 4,
        delay_ms: 2000,
        cause: "429".into(),
    }));
    assert!(matches!(
        live.entries()[1],
        TranscriptEntry::Retry { settled: false, .. }
    ));
    let updates = live.delta("Back");
    assert!(matches!(
        &updates[0],
        TranscriptUpdate::Replace {
            entry: TranscriptEntry::Retry { settled: true, .. },
            ..
        }
    ));
    assert_eq!(kinds(live.entries()), ["user", "retry", "assistant"]);
}

#[test]
fn a_stopped_turn_keeps_its_partial_answer_unsaved_cancels_running_calls_and_says_so() {
    let mut live = Live::new();
    let turn_id = live.turn;
    live.start("Write an essay");
    live.delta("Once upon a time");
    live.main(MainlineEvent::ToolCallStarted {
        turn_id,
        call_id: "c3".into(),
        name: "read_file".into(),
        arguments: "{}".into(),
    });
    live.finish(TurnOutcome::Cancelled);
    assert!(matches!(
        &live.entries()[1],
        TranscriptEntry::Assistant {
            streaming: false,
            unsaved: Some(Unsaved::Stopped),
            ..
        }
    ));
    assert_eq!(live.tool("c3").status, ToolState::Cancelled);
    assert!(matches!(
        live.entries().last(),
        Some(TranscriptEntry::TurnEnd {
            outcome: TurnOutcome::Cancelled,
            ..
        })
    ));

    // A failed turn read back from the file ends with its notice too.
    let mut read = TranscriptFold::default();
    let turn_id = TurnId::new();
    read.apply_record(0, &RecordBody::TurnStarted(TurnStarted { turn_id }));
    read.apply_record(1, &RecordBody::ResponseItem(ResponseItem::user("Go")));
    read.apply_record(
        2,
        &RecordBody::TurnFinished(TurnFinished {
            turn_id,
            outcome: TurnOutcome::Failed,
            rounds: 2,
        }),
    );
    assert_eq!(kinds(read.entries()), ["user", "turn_end"]);
    assert_eq!(read.entries()[1].id(), format!("turn_end:{turn_id}"));
}

#[test]
fn errors_get_ids_of_their_own_per_live_fold_and_per_record() {
    let mut live = Live::new();
    live.main(MainlineEvent::Error {
        turn_id: None,
        message: "boom".into(),
        model_error: None,
    });
    let mut other = Live::new();
    other.main(MainlineEvent::Error {
        turn_id: None,
        message: "boom".into(),
        model_error: None,
    });
    assert_ne!(live.entries()[0].id(), other.entries()[0].id());
    assert!(live.entries()[0].id().starts_with("live:"));
}

#[test]
fn cards_carry_a_preview_and_the_length_of_the_whole_output() {
    let long = "x".repeat(OUTPUT_PREVIEW_CHARS + 500);
    let mut read = TranscriptFold::default();
    read.apply_record(
        0,
        &RecordBody::ResponseItem(ResponseItem::function_call("c4", "read_file", "{}")),
    );
    read.apply_record(
        1,
        &RecordBody::ResponseItem(ResponseItem::function_call_output("c4", &long[..100])),
    );
    read.apply_record(
        2,
        &RecordBody::FullToolOutput(FullToolOutput {
            call_id: "c4".into(),
            item_id: ItemId::new(),
            output: long.clone(),
        }),
    );
    let TranscriptEntry::Tool(tool) = &read.entries()[0] else {
        panic!("a card")
    };
    let output = tool.output.as_ref().expect("an output");
    assert_eq!(output.chars as usize, long.len());
    assert_eq!(output.preview.chars().count(), OUTPUT_PREVIEW_CHARS);
    // Characters, not bytes.
    assert_eq!(preview("🦀🦀").chars, 2);
}

/// A layered compaction that kept `kept` (the rest of its fields do not
/// place a divider).
pub(super) fn layered(kept: Vec<ItemId>) -> strata_protocol::LayeredCompaction {
    let ResponseItem::Message(sheet_message) = ResponseItem::user("[State sheet]") else {
        unreachable!("a user item is a message")
    };
    strata_protocol::LayeredCompaction {
        summary: strata_protocol::CompactionSummary {
            id: ItemId::new(),
            summary: "Earlier work.".into(),
            metadata: strata_protocol::CompactionMetadata {
                trigger: strata_protocol::CompactionTrigger::Manual,
                reason: "Compaction up to an item requested by the user".into(),
                context_tokens: None,
                threshold: None,
                removed: 1,
                kept: 3,
                summarizer_model: "demo".into(),
                summarizer_usage: None,
                summarizer_cost: None,
                duration_ms: 5,
            },
        },
        sheet_message,
        state_sheet: strata_protocol::StateSheet::default(),
        leading: Vec::new(),
        kept,
        folded_out: 0,
        estimated_before: 100,
        estimated_after: 60,
        loss_audit: strata_protocol::LossAudit::default(),
    }
}

#[test]
fn a_divider_goes_above_the_items_a_compaction_kept_at_the_end_live_and_read_back() {
    let answer = ResponseItem::assistant("Renamed it.");
    let call = ResponseItem::function_call("c7", "read_file", "{}");
    let output = ResponseItem::function_call_output("c7", "docs");
    let kept = vec![answer.id(), call.id(), output.id()];

    let mut live = Live::new();
    live.start("Rename parse_value");
    let turn_id = live.turn;
    for item in [&answer, &call, &output] {
        live.main(MainlineEvent::MessageCommitted {
            turn_id,
            item: item.clone(),
        });
    }
    let updates = live.send(AgentEvent::Debug(DebugEvent::LayeredCompacted {
        turn_id: Some(turn_id),
        compaction: Box::new(layered(kept.clone())),
    }));
    assert!(
        matches!(&updates[..], [TranscriptUpdate::Insert { before, entry: TranscriptEntry::Compaction { .. } }] if *before == answer.id().to_string()),
        "{updates:?}"
    );
    assert_eq!(
        kinds(live.entries()),
        ["user", "compaction", "assistant", "tool"]
    );
    // Items still come after it, and a later change to an entry lands on it.
    let more = live.main(MainlineEvent::MessageCommitted {
        turn_id,
        item: ResponseItem::assistant("Next."),
    });
    assert!(matches!(&more[..], [TranscriptUpdate::Append { .. }]));

    let mut read = TranscriptFold::default();
    let records = [
        RecordBody::ResponseItem(ResponseItem::user("Rename parse_value")),
        RecordBody::ResponseItem(answer),
        RecordBody::ResponseItem(call),
        RecordBody::ResponseItem(output),
        RecordBody::LayeredCompaction(Box::new(layered(kept))),
    ];
    for (index, record) in records.iter().enumerate() {
        read.apply_record(index, record);
    }
    assert_eq!(
        kinds(read.entries()),
        ["user", "compaction", "assistant", "tool"]
    );

    // Nothing kept at the end (a compaction at a round's end): the divider is last.
    let mut plain = Live::new();
    plain.start("Hi");
    let updates = plain.send(AgentEvent::Debug(DebugEvent::LayeredCompacted {
        turn_id: None,
        compaction: Box::new(layered(Vec::new())),
    }));
    assert!(matches!(&updates[..], [TranscriptUpdate::Append { .. }]));
    assert_eq!(kinds(plain.entries()), ["user", "compaction"]);
}

#[test]
fn an_undone_compaction_s_divider_says_so_and_a_later_one_does_not() {
    let question = ResponseItem::user("Rename parse_value");
    let answer = ResponseItem::assistant("Renamed it.");
    let first = layered(vec![answer.id()]);
    let second = layered(vec![answer.id()]);
    let undone = strata_protocol::CompactionUndone {
        summary_item_id: first.summary.id,
        restored: vec![question.id(), answer.id()],
        estimated_tokens: 40,
        threshold: 1_000,
    };
    let undone_of = |entries: &[TranscriptEntry]| -> Vec<bool> {
        entries
            .iter()
            .filter_map(|entry| match entry {
                TranscriptEntry::Compaction { undone, .. } => Some(*undone),
                _ => None,
            })
            .collect()
    };
    let mut read = TranscriptFold::default();
    let records = [
        RecordBody::ResponseItem(question),
        RecordBody::ResponseItem(answer),
        RecordBody::LayeredCompaction(Box::new(first)),
        RecordBody::CompactionUndone(undone),
    ];
    for (index, record) in records.iter().enumerate() {
        read.apply_record(index, record);
    }
    assert_eq!(undone_of(read.entries()), [true]);
    // The undo's notice still follows it.
    assert_eq!(kinds(read.entries()).last(), Some(&"notice"));
    read.apply_record(4, &RecordBody::LayeredCompaction(Box::new(second)));
    assert_eq!(undone_of(read.entries()), [true, false]);
}

#[test]
fn streamed_thinking_grows_one_entry_above_the_answer_that_takes_its_items_id() {
    let mut live = Live::new();
    live.start("Hi");
    let (turn_id, round_id) = (live.turn, live.round);
    for delta in ["Let me ", "look."] {
        live.main(MainlineEvent::ReasoningDelta {
            turn_id,
            round_id,
            delta: delta.into(),
        });
    }
    live.delta("Hello");
    let thinking = ResponseItem::Reasoning(strata_protocol::ReasoningItem {
        id: strata_protocol::ItemId::new(),
        provider: "anthropic".into(),
        payload: serde_json::json!({"type": "thinking", "thinking": "Let me look.", "signature": "s"}),
    });
    for item in [thinking.clone(), ResponseItem::assistant("Hello")] {
        live.main(MainlineEvent::MessageCommitted { turn_id, item });
    }
    live.finish(TurnOutcome::Completed);
    assert_eq!(
        kinds(live.entries()),
        ["user", "thinking", "assistant", "turn_end"]
    );
    assert!(matches!(
        &live.entries()[1],
        TranscriptEntry::Thinking { id, text, streaming: false, .. }
            if *id == thinking.id().to_string() && text == "Let me look."
    ));
}
