use strata_protocol::{
    ChangeCause, FileChange, FileState, Record, RecordBody, TurnId, TurnStarted,
};

use super::*;

fn state(content: &str) -> FileState {
    FileState {
        size: content.len() as u64,
        sha256: Some(crate::changes::sha256_hex(content.as_bytes())),
        stored: true,
    }
}

fn turn(id: TurnId) -> Record {
    Record::now(RecordBody::TurnStarted(TurnStarted { turn_id: id }))
}

fn change(
    path: &str,
    before: Option<&str>,
    after: Option<&str>,
    call: &str,
    turn: Option<TurnId>,
) -> Record {
    Record::now(RecordBody::FileChange(FileChange {
        path: path.into(),
        before: before.map(state),
        after: after.map(state),
        cause: ChangeCause::WriteFile,
        call_id: call.into(),
        turn_id: turn,
    }))
}

/// Two turns: the first creates a.txt, the second changes it and creates b.txt.
fn two_turns() -> Vec<Record> {
    let (one, two) = (TurnId::new(), TurnId::new());
    vec![
        turn(one),
        change("a.txt", None, Some("one"), "c1", Some(one)),
        turn(two),
        change("a.txt", Some("one"), Some("two"), "c2", Some(two)),
        change("b.txt", None, Some("bee"), "c3", Some(two)),
    ]
}

#[test]
fn the_change_log_numbers_each_change_with_its_turn() {
    let log = change_log(&two_turns());
    let turns: Vec<_> = log
        .iter()
        .map(|e| (e.change.path.as_str(), e.turn))
        .collect();
    assert_eq!(
        turns,
        [("a.txt", Some(1)), ("a.txt", Some(2)), ("b.txt", Some(2))]
    );
}

#[test]
fn restoring_before_a_turn_returns_each_file_to_its_state_before_the_first_change_since() {
    let records = two_turns();
    let plan = plan_restore(&records, &RestorePoint::BeforeTurn(2)).unwrap();
    assert_eq!(
        plan.actions,
        vec![
            RestoreAction {
                path: "a.txt".into(),
                expected: Some(state("two")),
                target: Some(state("one")),
            },
            RestoreAction {
                path: "b.txt".into(),
                expected: Some(state("bee")),
                target: None,
            },
        ]
    );
    let all = plan_restore(&records, &RestorePoint::BeforeTurn(1)).unwrap();
    assert_eq!(all.actions[0].target, None);
    let by_call = plan_restore(&records, &RestorePoint::BeforeItem("c3".into())).unwrap();
    assert_eq!(by_call.actions.len(), 1);
    assert_eq!(by_call.actions[0].path, "b.txt");
    assert!(
        plan_restore(&records, &RestorePoint::BeforeTurn(3))
            .unwrap_err()
            .contains("2 turns")
    );
    assert!(plan_restore(&records, &RestorePoint::BeforeItem("nope".into())).is_err());
}

#[test]
fn a_file_changed_and_changed_back_since_the_point_is_left_alone() {
    let id = TurnId::new();
    let records = vec![
        turn(id),
        change("a.txt", Some("x"), Some("y"), "c1", Some(id)),
        change("a.txt", Some("y"), Some("x"), "c2", Some(id)),
    ];
    assert!(
        plan_restore(&records, &RestorePoint::BeforeTurn(1))
            .unwrap()
            .actions
            .is_empty()
    );
}

#[test]
fn a_file_edited_outside_strata_or_whose_content_is_gone_refuses_the_restore() {
    let plan = plan_restore(&two_turns(), &RestorePoint::BeforeTurn(2)).unwrap();
    let untouched = |path: &str| match path {
        "a.txt" => Some(state("two")),
        _ => Some(state("bee")),
    };
    assert_eq!(check_restore(&plan, untouched, |_| true), vec![]);
    let edited = |path: &str| match path {
        "a.txt" => Some(state("two, edited by hand")),
        _ => Some(state("bee")),
    };
    assert_eq!(
        check_restore(&plan, edited, |_| true),
        vec![RestoreConflict::ChangedOutside {
            path: "a.txt".into()
        }]
    );
    // The person deleted a.txt, which the restore would write back.
    let deleted = |path: &str| (path == "b.txt").then(|| state("bee"));
    assert_eq!(
        check_restore(&plan, deleted, |_| true),
        vec![RestoreConflict::ChangedOutside {
            path: "a.txt".into()
        }]
    );
    let pruned = check_restore(&plan, untouched, |_| false);
    assert!(
        matches!(&pruned[..], [RestoreConflict::NotRestorable { path, reason }]
        if path == "a.txt" && reason.contains("pruned"))
    );
}

#[test]
fn a_restore_is_undone_by_restoring_to_before_it() {
    let mut records = two_turns();
    // The restore to before turn 2, as its records say.
    records.push(change("a.txt", Some("two"), Some("one"), "restore-1", None));
    records.push(change("b.txt", Some("bee"), None, "restore-1", None));
    let plan = plan_restore(&records, &RestorePoint::BeforeItem("restore-1".into())).unwrap();
    let targets: Vec<_> = plan
        .actions
        .iter()
        .map(|a| (a.path.as_str(), a.target.clone()))
        .collect();
    assert_eq!(
        targets,
        [("a.txt", Some(state("two"))), ("b.txt", Some(state("bee")))]
    );
}

#[test]
fn a_file_already_holding_what_the_restore_wants_is_not_a_conflict() {
    let plan = plan_restore(&two_turns(), &RestorePoint::BeforeTurn(2)).unwrap();
    // a.txt was written back and b.txt deleted by a restore killed before
    // it could record them.
    let restored = |path: &str| (path == "a.txt").then(|| state("one"));
    assert_eq!(check_restore(&plan, restored, |_| false), vec![]);
}
