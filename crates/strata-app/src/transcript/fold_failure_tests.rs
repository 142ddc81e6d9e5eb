//! Provider failures in the transcript: a run of retries is one line that
//! counts up, and an error carries the sentence and recoveries to show.

use strata_protocol::{
    AgentEvent, DebugEvent, EVENT_FORMAT_VERSION, EventEnvelope, FailureKind, MainlineEvent,
    ModelError, RecordBody, Recovery, RetryRecord, SessionId, TranscriptEntry, TranscriptUpdate,
};

use super::fold::TranscriptFold;

fn retrying(attempt: u32) -> AgentEvent {
    AgentEvent::Debug(DebugEvent::Retrying {
        turn_id: None,
        round_id: None,
        attempt,
        of: 5,
        delay_ms: 400,
        cause: "could not connect to 127.0.0.1:9: tcp connect error".into(),
    })
}

fn unreachable() -> ModelError {
    ModelError::Unreachable {
        host: "127.0.0.1:9".into(),
        message: "tcp connect error: Connection refused (os error 111)".into(),
    }
}

fn feed(fold: &mut TranscriptFold, events: Vec<AgentEvent>) -> Vec<TranscriptUpdate> {
    let session_id = SessionId::new();
    for (seq, event) in events.into_iter().enumerate() {
        fold.apply_event(&EventEnvelope {
            v: EVENT_FORMAT_VERSION,
            seq: seq as u64,
            session_id,
            event,
        });
    }
    fold.take_updates()
}

#[test]
fn consecutive_live_retries_replace_one_line_that_counts_up_then_settles_at_the_error() {
    let mut fold = TranscriptFold::live();
    let updates = feed(
        &mut fold,
        vec![
            retrying(2),
            retrying(3),
            retrying(4),
            AgentEvent::Mainline(MainlineEvent::Error {
                turn_id: None,
                message: unreachable().to_string(),
                model_error: Some(unreachable()),
            }),
        ],
    );
    let appends = updates
        .iter()
        .filter(|u| matches!(u, TranscriptUpdate::Append { .. }))
        .count();
    assert_eq!(appends, 2, "one retry line and one error: {updates:?}");
    let [retry, error] = fold.entries() else {
        panic!("{:?}", fold.entries());
    };
    assert!(
        matches!(
            retry,
            TranscriptEntry::Retry {
                attempt: 4,
                settled: true,
                ..
            }
        ),
        "{retry:?}"
    );
    let TranscriptEntry::Error {
        failure: Some(failure),
        ..
    } = error
    else {
        panic!("{error:?}");
    };
    assert_eq!(failure.kind, FailureKind::Unreachable);
    assert_eq!(
        failure.sentence,
        "Can't reach 127.0.0.1:9 — is the server running?"
    );
    assert_eq!(failure.recoveries[0], Recovery::Retry);
    assert!(failure.details.contains("Connection refused"));
}

#[test]
fn recorded_retries_read_back_as_one_line_and_an_error_keeps_its_failure() {
    let mut fold = TranscriptFold::default();
    for (index, attempt) in [2, 3].into_iter().enumerate() {
        fold.apply_record(
            index,
            &RecordBody::Retry(RetryRecord {
                round_id: None,
                attempt,
                of: 5,
                delay_ms: 100,
                cause: "x".into(),
            }),
        );
    }
    fold.apply_record(
        2,
        &RecordBody::Error(strata_protocol::ErrorRecord {
            turn_id: None,
            message: "the turn failed".into(),
            model_error: Some(ModelError::Auth {
                message: "HTTP 401".into(),
            }),
        }),
    );
    match fold.entries() {
        [
            TranscriptEntry::Retry { id, attempt: 3, .. },
            TranscriptEntry::Error {
                failure: Some(failure),
                ..
            },
        ] => {
            assert_eq!(id, "record:0", "the line keeps its first id");
            assert_eq!(failure.kind, FailureKind::KeyRejected);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_retry_after_streamed_text_starts_a_line_of_its_own() {
    let mut fold = TranscriptFold::live();
    let turn_id = strata_protocol::TurnId::new();
    feed(
        &mut fold,
        vec![
            retrying(2),
            AgentEvent::Mainline(MainlineEvent::TextDelta {
                turn_id,
                round_id: strata_protocol::RoundId::new(),
                delta: "Back".into(),
            }),
            retrying(2),
        ],
    );
    let retries = fold
        .entries()
        .iter()
        .filter(|e| matches!(e, TranscriptEntry::Retry { .. }))
        .count();
    assert_eq!(retries, 2);
}
