//! What the transcript leaves to the session's header (its creation, its
//! policy), the one divider of a boundary that evicted and then summarised,
//! and notices that name no ids (issue 27, items 4 and 5).

use strata_protocol::{
    AgentEvent, CompactionPolicy, CompactionPolicyRecord, CompactionUndone, DebugEvent,
    EvictedOutput, ForkPoint, MainlineEvent, ProfileChange, ProfileSet, ProviderKind, RecordBody,
    ResponseItem, SessionForked, SessionId, ToolOutputsEvicted, TranscriptEntry, TranscriptUpdate,
};

use super::fold::TranscriptFold;
use super::fold_tests::{Live, kinds, layered};

fn profile(change: ProfileChange, model: &str) -> RecordBody {
    RecordBody::ProfileSet(ProfileSet {
        provider_kind: ProviderKind::Demo,
        base_url: None,
        model: model.into(),
        profile: Some("Demo".into()),
        change,
        approval: None,
    })
}

fn policy(policy: CompactionPolicy) -> RecordBody {
    RecordBody::CompactionPolicy(CompactionPolicyRecord {
        policy,
        threshold: None,
    })
}

fn eviction(output: &ResponseItem) -> ToolOutputsEvicted {
    ToolOutputsEvicted {
        trigger: strata_protocol::CompactionTrigger::Auto,
        context_tokens: Some(9_000),
        threshold: 8_000,
        low_water: 6_000,
        estimated_before: 9_000,
        estimated_after: 8_500,
        evicted: vec![EvictedOutput {
            item_id: output.id(),
            call_id: "c1".into(),
            tool: "read_file".into(),
            chars: 1_840,
            placeholder: "[evicted]".into(),
        }],
    }
}

fn read(records: &[RecordBody]) -> Vec<TranscriptEntry> {
    let mut fold = TranscriptFold::default();
    for (index, record) in records.iter().enumerate() {
        fold.apply_record(index, record);
    }
    fold.into_entries()
}

#[test]
fn a_session_s_creation_and_policy_are_not_lines_of_its_transcript_but_a_profile_switch_is() {
    let entries = read(&[
        policy(CompactionPolicy::Layered),
        profile(ProfileChange::Created, "strata-demo"),
        RecordBody::ResponseItem(ResponseItem::user("Hi")),
        policy(CompactionPolicy::Base),
        profile(ProfileChange::Switched, "other-model"),
        policy(CompactionPolicy::Off),
    ]);
    assert_eq!(kinds(&entries), ["user", "notice"]);
    let TranscriptEntry::Notice { text, .. } = &entries[1] else {
        unreachable!("checked above")
    };
    assert!(text.starts_with("Switched to demo · other-model"), "{text}");
}

/// The records and events of one boundary: an answer and a tool card, an
/// eviction, then the summary that kept the answer.
struct Boundary {
    question: ResponseItem,
    call: ResponseItem,
    output: ResponseItem,
    answer: ResponseItem,
    eviction: ToolOutputsEvicted,
    compaction: strata_protocol::LayeredCompaction,
}

impl Boundary {
    fn new() -> Self {
        let output = ResponseItem::function_call_output("c1", "a long file");
        let answer = ResponseItem::assistant("Read it.");
        Self {
            question: ResponseItem::user("Read the file"),
            call: ResponseItem::function_call("c1", "read_file", "{}"),
            eviction: eviction(&output),
            compaction: layered(vec![answer.id()]),
            output,
            answer,
        }
    }
}

#[test]
fn an_eviction_and_a_summary_at_the_same_boundary_show_one_divider_saying_both_live_and_read_back()
{
    let b = Boundary::new();
    let mut live = Live::new();
    live.start("Read the file");
    let turn_id = live.turn;
    for item in [&b.call, &b.output, &b.answer] {
        live.main(MainlineEvent::MessageCommitted {
            turn_id,
            item: item.clone(),
        });
    }
    let evicted = live.send(AgentEvent::Debug(DebugEvent::ToolOutputsEvicted {
        turn_id: Some(turn_id),
        eviction: b.eviction.clone(),
        history_items: 4,
    }));
    let eviction_id = match &evicted[..] {
        [
            TranscriptUpdate::Append {
                entry: TranscriptEntry::Eviction { id, .. },
            },
        ] => id.clone(),
        other => panic!("{other:?}"),
    };
    let compacted = live.send(AgentEvent::Debug(DebugEvent::LayeredCompacted {
        turn_id: Some(turn_id),
        compaction: Box::new(b.compaction.clone()),
    }));
    assert!(
        matches!(&compacted[..], [
            TranscriptUpdate::Remove { id },
            TranscriptUpdate::Insert { entry: TranscriptEntry::Compaction { eviction: Some(e), .. }, .. },
        ] if *id == eviction_id && *e == b.eviction),
        "{compacted:?}"
    );
    assert_eq!(
        kinds(live.entries()),
        ["user", "tool", "compaction", "assistant"]
    );

    // Read back from the records: the same entries.
    let records = [
        RecordBody::ResponseItem(b.question.clone()),
        RecordBody::ResponseItem(b.call.clone()),
        RecordBody::ResponseItem(b.output.clone()),
        RecordBody::ResponseItem(b.answer.clone()),
        RecordBody::ToolOutputsEvicted(b.eviction.clone()),
        RecordBody::LayeredCompaction(Box::new(b.compaction.clone())),
    ];
    let entries = read(&records);
    assert_eq!(kinds(&entries), kinds(live.entries()));
    assert_eq!(entries[2], live.entries()[2]);
}

#[test]
fn an_eviction_with_something_after_it_or_no_summary_keeps_its_own_line() {
    let b = Boundary::new();
    let alone = read(&[
        RecordBody::ResponseItem(b.question.clone()),
        RecordBody::ResponseItem(b.call.clone()),
        RecordBody::ResponseItem(b.output.clone()),
        RecordBody::ToolOutputsEvicted(b.eviction.clone()),
    ]);
    assert_eq!(kinds(&alone), ["user", "tool", "eviction"]);
    // An answer between them: two boundaries, two lines.
    let apart = read(&[
        RecordBody::ResponseItem(b.question),
        RecordBody::ResponseItem(b.call),
        RecordBody::ResponseItem(b.output),
        RecordBody::ToolOutputsEvicted(b.eviction),
        RecordBody::ResponseItem(b.answer),
        RecordBody::LayeredCompaction(Box::new(layered(Vec::new()))),
    ]);
    assert_eq!(
        kinds(&apart),
        ["user", "tool", "eviction", "assistant", "compaction"]
    );
    assert!(matches!(
        &apart[4],
        TranscriptEntry::Compaction { eviction: None, .. }
    ));
}

#[test]
fn an_undo_s_and_a_fork_s_lines_name_no_ids_and_a_fork_links_to_its_parent() {
    let question = ResponseItem::user("Rename parse_value");
    let compaction = layered(Vec::new());
    let summary_id = compaction.summary.id;
    let parent = SessionId::new();
    let entries = read(&[
        RecordBody::ResponseItem(question.clone()),
        RecordBody::SessionForked(SessionForked {
            parent_session_id: parent,
            parent_records: 3,
            point: ForkPoint::BeforeCompaction { number: 2 },
        }),
        RecordBody::LayeredCompaction(Box::new(compaction)),
        RecordBody::CompactionUndone(CompactionUndone {
            summary_item_id: summary_id,
            restored: vec![question.id()],
            estimated_tokens: 40,
            threshold: 1_000,
        }),
    ]);
    assert_eq!(kinds(&entries), ["user", "fork", "compaction", "notice"]);
    let TranscriptEntry::Fork { origin, text, .. } = &entries[1] else {
        unreachable!("checked above")
    };
    assert_eq!(origin.parent_session_id, parent);
    assert_eq!(
        text,
        "Forked from another session just before its compaction #2: everything above is copied \
         from it"
    );
    let TranscriptEntry::Notice { text: undone, .. } = &entries[3] else {
        unreachable!("checked above")
    };
    assert!(undone.starts_with("Compaction undone: "), "{undone}");
    assert!(undone.contains("(1 item, about 40 tokens"), "{undone}");
    for text in [text, undone] {
        for id in [
            parent.to_string(),
            summary_id.to_string(),
            question.id().to_string(),
        ] {
            assert!(!text.contains(&id), "{text}");
        }
    }
}

#[test]
fn a_session_continued_from_another_tool_opens_with_a_notice_naming_it_and_what_was_left_out() {
    let entries = read(&[RecordBody::SessionImported(
        strata_protocol::SessionImported {
            source: strata_protocol::ImportSource::ClaudeCode,
            source_path: "/home/p/.claude/projects/w/s.jsonl".into(),
            source_session_id: None,
            source_items: 7,
            dropped_items: 2,
        },
    )]);
    let [TranscriptEntry::Notice { text, .. }] = entries.as_slice() else {
        panic!("one notice: {entries:?}");
    };
    assert!(
        text.starts_with("Continued from a Claude Code session"),
        "{text}"
    );
    assert!(
        text.contains("/home/p/.claude/projects/w/s.jsonl"),
        "{text}"
    );
    assert!(text.contains("7 of its items"), "{text}");
    assert!(text.contains("2 items were left out"), "{text}");
}
