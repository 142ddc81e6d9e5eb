//! The Changes view's commands through the app: a session's changes by
//! turn and call, their diffs (text, and by hash and size only when a side
//! was not kept or the path looks secret), a restore's preview, the
//! restore itself (recorded, and undone by restoring to before it) and its
//! refusal over a file the person edited since.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::sync::Arc;

use strata_app::App;
use strata_core::StrataPaths;
use strata_core::changes::BlobStore;
use strata_protocol::{
    ChangeCause, ChangeCause::RunShell, ChangeKind, CommandErrorKind, DiffBody, DiffTag,
    DiffTarget, DiffWithheld, FileChange, FileState, GetChangeDiff, ListChanges, OpenSession,
    PreviewRestore, RecordBody, RestoreFiles, RestoreReport, RestoreStep, RestoreTarget,
    SessionChanges, SessionId, TurnId, TurnStarted,
};

mod support;
use support::{create, runtime};

struct Fixture {
    _home: tempfile::TempDir,
    workspace: tempfile::TempDir,
    app: Arc<App>,
    id: SessionId,
}

/// One recorded change: the workspace file written (or removed) and a
/// `file_change` record naming the contents kept in the session's store.
struct Step<'a> {
    path: &'a str,
    after: Option<&'a [u8]>,
    cause: ChangeCause,
    call_id: &'a str,
}

impl Fixture {
    fn new() -> (Self, tokio::runtime::Runtime) {
        let home = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        let app = Arc::new(App::new(StrataPaths::under(home.path()), |_| None));
        let rt = runtime();
        let id = rt.block_on(async {
            let id = create(&app, workspace.path()).await;
            // Let go, so the test can append what an agent's turns record.
            app.close(id).await.unwrap();
            id
        });
        (
            Self {
                _home: home,
                workspace,
                app,
                id,
            },
            rt,
        )
    }

    fn file(&self, path: &str) -> Option<String> {
        fs::read_to_string(self.workspace.path().join(path)).ok()
    }

    fn records(&self) -> usize {
        fs::read_to_string(self.app.store().session_path(self.id))
            .unwrap()
            .lines()
            .count()
    }

    /// A turn of `steps`, as the agent records them.
    fn turn(&self, steps: &[Step]) {
        let path = self.app.store().session_path(self.id);
        let blobs = BlobStore::beside(&path);
        let mut session = self.app.store().open_writer(self.id).unwrap();
        let turn_id = TurnId::new();
        session
            .append(RecordBody::TurnStarted(TurnStarted { turn_id }))
            .unwrap();
        for step in steps {
            let on_disk = self.workspace.path().join(step.path);
            let before = fs::read(&on_disk).ok().map(|b| blobs.put(&b).unwrap());
            match step.after {
                Some(bytes) => {
                    fs::create_dir_all(on_disk.parent().unwrap()).unwrap();
                    fs::write(&on_disk, bytes).unwrap();
                }
                None => fs::remove_file(&on_disk).unwrap(),
            }
            let after = step.after.map(|b| blobs.put(b).unwrap());
            session
                .append(RecordBody::FileChange(FileChange {
                    path: step.path.into(),
                    before,
                    after,
                    cause: step.cause,
                    call_id: step.call_id.into(),
                    turn_id: Some(turn_id),
                }))
                .unwrap();
        }
        session.sync().unwrap();
    }

    /// Two turns: the first creates a.txt, the second edits it and
    /// creates b.txt.
    fn two_turns(&self) {
        self.turn(&[Step {
            path: "a.txt",
            after: Some(b"one\ntwo\nthree\n"),
            cause: ChangeCause::WriteFile,
            call_id: "call-1",
        }]);
        self.turn(&[
            Step {
                path: "a.txt",
                after: Some(b"one\nTWO\nthree\n"),
                cause: ChangeCause::ApplyEdit,
                call_id: "call-2",
            },
            Step {
                path: "b.txt",
                after: Some(b"bee\n"),
                cause: ChangeCause::WriteFile,
                call_id: "call-3",
            },
        ]);
    }

    async fn shown(&self) {
        self.app
            .open_session(OpenSession {
                session_id: self.id,
                from_record: None,
                without_records: true,
                at_item: None,
            })
            .await
            .unwrap();
    }

    async fn changes(&self) -> SessionChanges {
        self.app
            .list_changes(ListChanges {
                session_id: self.id,
            })
            .await
            .unwrap()
    }

    async fn diff(&self, target: DiffTarget) -> DiffBody {
        self.app
            .change_diff(GetChangeDiff {
                session_id: self.id,
                target,
            })
            .await
            .unwrap()
            .body
    }

    async fn preview(&self, target: RestoreTarget) -> RestoreReport {
        self.app
            .preview_restore(PreviewRestore {
                session_id: self.id,
                target,
            })
            .await
            .unwrap()
    }

    async fn restore(&self, target: RestoreTarget) -> RestoreReport {
        self.app
            .restore_files(RestoreFiles {
                session_id: self.id,
                target,
            })
            .await
            .unwrap()
    }
}

fn steps(report: &RestoreReport) -> Vec<(&str, RestoreStep)> {
    report
        .files
        .iter()
        .map(|file| (file.path.as_str(), file.step))
        .collect()
}

fn text_lines(body: &DiffBody) -> Vec<(DiffTag, Option<u32>, Option<u32>, &str)> {
    let DiffBody::Text { hunks, .. } = body else {
        panic!("a text diff: {body:?}");
    };
    hunks
        .iter()
        .flat_map(|hunk| &hunk.lines)
        .map(|line| (line.tag, line.old, line.new, line.text.as_str()))
        .collect()
}

#[test]
fn changes_are_grouped_by_turn_and_call_and_listed_once_per_file_over_the_session() {
    let (fx, rt) = Fixture::new();
    fx.two_turns();
    rt.block_on(async {
        let changes = fx.changes().await;
        let turns: Vec<Option<u32>> = changes.groups.iter().map(|g| g.turn).collect();
        assert_eq!(turns, vec![Some(1), Some(2)]);
        let second: Vec<(&str, ChangeCause, Vec<&str>)> = changes.groups[1]
            .calls
            .iter()
            .map(|call| {
                let paths = call.files.iter().map(|f| f.path.as_str()).collect();
                (call.call_id.as_str(), call.cause, paths)
            })
            .collect();
        assert_eq!(
            second,
            vec![
                ("call-2", ChangeCause::ApplyEdit, vec!["a.txt"]),
                ("call-3", ChangeCause::WriteFile, vec!["b.txt"]),
            ]
        );
        let edit = &changes.groups[1].calls[0].files[0];
        assert_eq!(
            (edit.kind, edit.added, edit.removed, edit.restorable),
            (ChangeKind::Modified, Some(1), Some(1), true)
        );
        let files: Vec<(&str, ChangeKind, u32, Option<u64>)> = changes
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.kind, f.changes, f.added))
            .collect();
        assert_eq!(
            files,
            vec![
                ("a.txt", ChangeKind::Created, 2, Some(3)),
                ("b.txt", ChangeKind::Created, 1, Some(1)),
            ]
        );
    });
}

#[test]
fn a_change_diff_numbers_its_lines_and_a_session_diff_spans_every_change_of_the_file() {
    let (fx, rt) = Fixture::new();
    fx.two_turns();
    rt.block_on(async {
        let changes = fx.changes().await;
        let record = changes.groups[1].calls[0].files[0].record;
        let body = fx.diff(DiffTarget::Change { record }).await;
        assert_eq!(
            text_lines(&body),
            vec![
                (DiffTag::Context, Some(1), Some(1), "one"),
                (DiffTag::Removed, Some(2), None, "two"),
                (DiffTag::Added, None, Some(2), "TWO"),
                (DiffTag::Context, Some(3), Some(3), "three"),
            ]
        );
        let whole = fx
            .diff(DiffTarget::SessionFile {
                path: "a.txt".into(),
            })
            .await;
        assert_eq!(
            text_lines(&whole),
            vec![
                (DiffTag::Added, None, Some(1), "one"),
                (DiffTag::Added, None, Some(2), "TWO"),
                (DiffTag::Added, None, Some(3), "three"),
            ]
        );
        let missing = fx
            .app
            .change_diff(GetChangeDiff {
                session_id: fx.id,
                target: DiffTarget::Change { record: 0 },
            })
            .await
            .unwrap_err();
        assert_eq!(missing.kind, CommandErrorKind::NotFound);
    });
}

#[test]
fn a_binary_content_and_a_secret_looking_path_are_shown_by_hash_and_size_only() {
    let (fx, rt) = Fixture::new();
    fx.turn(&[
        Step {
            path: "logo.bin",
            after: Some(b"\x00\x01binary"),
            cause: RunShell,
            call_id: "call-1",
        },
        Step {
            path: ".env",
            after: Some(b"TOKEN=abc\n"),
            cause: RunShell,
            call_id: "call-1",
        },
    ]);
    rt.block_on(async {
        let changes = fx.changes().await;
        let files = &changes.groups[0].calls[0].files;
        let binary = fx
            .diff(DiffTarget::Change {
                record: files[0].record,
            })
            .await;
        assert_eq!(
            binary,
            DiffBody::Withheld {
                reason: DiffWithheld::NotKept
            }
        );
        assert_eq!(files[0].added, None, "no line counts without the text");
        let secret = fx
            .app
            .change_diff(GetChangeDiff {
                session_id: fx.id,
                target: DiffTarget::Change {
                    record: files[1].record,
                },
            })
            .await
            .unwrap();
        assert_eq!(
            secret.body,
            DiffBody::Withheld {
                reason: DiffWithheld::SecretPath
            }
        );
        assert_eq!(
            secret.after,
            Some(FileState {
                size: 10,
                sha256: Some(strata_core::changes::sha256_hex(b"TOKEN=abc\n")),
                stored: true,
            })
        );
    });
}

#[test]
fn a_restore_is_previewed_carried_out_recorded_and_undone() {
    let (fx, rt) = Fixture::new();
    fx.two_turns();
    rt.block_on(async {
        fx.shown().await;
        // Held live, as the desktop holds an open session: the restore closes it first.
        fx.app.ensure_live(fx.id).await.unwrap();
        let before_two = RestoreTarget::BeforeTurn { turn: 2 };
        let records = fx.records();
        let preview = fx.preview(before_two.clone()).await;
        assert!(preview.dry_run && preview.restored && preview.refused.is_empty());
        assert_eq!(
            steps(&preview),
            vec![
                ("a.txt", RestoreStep::Write),
                ("b.txt", RestoreStep::Delete)
            ]
        );
        assert_eq!(fx.records(), records, "a preview writes nothing");
        assert_eq!(fx.file("a.txt").as_deref(), Some("one\nTWO\nthree\n"));

        let done = fx.restore(before_two).await;
        assert!(done.restored && !done.dry_run);
        assert_eq!(fx.file("a.txt").as_deref(), Some("one\ntwo\nthree\n"));
        assert_eq!(fx.file("b.txt"), None);
        let restore_id = done.restore_id.clone().expect("a restore id");

        let changes = fx.changes().await;
        let last = changes.groups.last().unwrap();
        assert_eq!(last.turn, None);
        assert_eq!(last.calls.len(), 1);
        assert_eq!(last.calls[0].call_id, restore_id);
        assert_eq!(last.calls[0].cause, ChangeCause::Restore);

        let undone = fx
            .restore(RestoreTarget::BeforeItem { item: restore_id })
            .await;
        assert!(undone.restored, "{undone:?}");
        assert_eq!(fx.file("a.txt").as_deref(), Some("one\nTWO\nthree\n"));
        assert_eq!(fx.file("b.txt").as_deref(), Some("bee\n"));
    });
}

#[test]
fn a_file_edited_outside_strata_refuses_the_restore_listing_it_and_nothing_changes() {
    let (fx, rt) = Fixture::new();
    fx.two_turns();
    fs::write(fx.workspace.path().join("a.txt"), "my own edit\n").unwrap();
    rt.block_on(async {
        fx.shown().await;
        let target = RestoreTarget::BeforeTurn { turn: 1 };
        let preview = fx.preview(target.clone()).await;
        assert!(!preview.restored);
        let refused: Vec<&str> = preview.refused.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(refused, vec!["a.txt"]);
        assert!(
            preview.refused[0].reason.contains("changed outside Strata"),
            "{preview:?}"
        );
        let records = fx.records();
        let report = fx.restore(target).await;
        assert!(!report.restored && report.restore_id.is_none());
        assert_eq!(report.refused, preview.refused);
        assert_eq!(fx.file("a.txt").as_deref(), Some("my own edit\n"));
        assert_eq!(fx.file("b.txt").as_deref(), Some("bee\n"));
        assert_eq!(fx.records(), records, "a refused restore records nothing");
    });
}

#[test]
fn a_restore_to_a_turn_the_session_does_not_have_is_invalid_input() {
    let (fx, rt) = Fixture::new();
    fx.two_turns();
    rt.block_on(async {
        let error = fx
            .app
            .preview_restore(PreviewRestore {
                session_id: fx.id,
                target: RestoreTarget::BeforeTurn { turn: 9 },
            })
            .await
            .unwrap_err();
        assert_eq!(error.kind, CommandErrorKind::InvalidInput);
        assert!(error.message.contains("no turn 9"), "{error:?}");
    });
}
