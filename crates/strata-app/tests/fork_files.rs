//! Forks and the change store, through the app: a fork's own store holds
//! the contents its records name (so the parent's pruning cannot break
//! it), and a fork "with files" returns the workspace to the fork point, in
//! place or in a new git worktree, recorded in the fork and undoable; it
//! is refused, making nothing, over a file the person edited since.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use strata_app::App;
use strata_core::StrataPaths;
use strata_core::changes::BlobStore;
use strata_core::store::ReadMode;
use strata_protocol::{
    ChangeCause, CommandErrorKind, FileChange, ForkFiles, ForkPoint, ForkSession, ItemId,
    ListChanges, ListSessions, PreviewFork, PreviewRestore, RecordBody, ResponseItem, RestoreFiles,
    RestoreStep, RestoreTarget, SessionForkView, SessionId, TurnId, TurnStarted,
};

mod support;
use support::{create, runtime};

struct Fixture {
    _home: tempfile::TempDir,
    workspace: PathBuf,
    app: Arc<App>,
    id: SessionId,
    rt: tokio::runtime::Runtime,
}

impl Fixture {
    fn new(workspace: &Path) -> Self {
        let home = tempfile::tempdir().unwrap();
        let app = Arc::new(App::new(StrataPaths::under(home.path()), |_| None));
        let rt = runtime();
        let id = rt.block_on(async {
            let id = create(&app, workspace).await;
            app.close(id).await.unwrap();
            id
        });
        Self {
            _home: home,
            workspace: workspace.to_owned(),
            app,
            id,
            rt,
        }
    }

    fn file(&self, root: &Path, path: &str) -> Option<String> {
        fs::read_to_string(root.join(path)).ok()
    }

    /// One tool call that writes `files` (`None`: deletes), recorded as the
    /// agent records it; returns the call item's id.
    fn call(&self, call_id: &str, cause: ChangeCause, files: &[(&str, Option<&str>)]) -> ItemId {
        let path = self.app.store().session_path(self.id);
        let blobs = BlobStore::beside(&path);
        let mut session = self.app.store().open_writer(self.id).unwrap();
        let turn_id = TurnId::new();
        session
            .append(RecordBody::TurnStarted(TurnStarted { turn_id }))
            .unwrap();
        let call = ResponseItem::function_call(call_id, "write_file", "{}");
        session.commit_item(call.clone()).unwrap();
        for (name, after) in files {
            let on_disk = self.workspace.join(name);
            let before = fs::read(&on_disk).ok().map(|b| blobs.put(&b).unwrap());
            match after {
                Some(text) => fs::write(&on_disk, text).unwrap(),
                None => fs::remove_file(&on_disk).unwrap(),
            }
            let after = after.map(|t| blobs.put(t.as_bytes()).unwrap());
            session
                .append(RecordBody::FileChange(FileChange {
                    path: (*name).into(),
                    before,
                    after,
                    cause,
                    call_id: call_id.into(),
                    turn_id: Some(turn_id),
                }))
                .unwrap();
        }
        session
            .commit_item(ResponseItem::function_call_output(call_id, "ok"))
            .unwrap();
        session.sync().unwrap();
        call.id()
    }

    /// A write, then (after the returned fork point) an edit and a file a
    /// shell command made.
    fn write_edit_shell(&self) -> ForkPoint {
        let first = self.call("c1", ChangeCause::WriteFile, &[("a.txt", Some("one\n"))]);
        self.call("c2", ChangeCause::ApplyEdit, &[("a.txt", Some("two\n"))]);
        self.call("c3", ChangeCause::RunShell, &[("b.txt", Some("bee\n"))]);
        ForkPoint::AtItem { item_id: first }
    }

    fn fork(
        &self,
        point: &ForkPoint,
        files: ForkFiles,
    ) -> Result<SessionForkView, CommandErrorKind> {
        self.rt
            .block_on(self.app.fork_session(ForkSession {
                session_id: self.id,
                point: point.clone(),
                files: Some(files),
            }))
            .map_err(|error| error.kind)
    }

    fn preview(&self, point: &ForkPoint) -> strata_protocol::ForkPreview {
        self.rt
            .block_on(self.app.preview_fork(PreviewFork {
                session_id: self.id,
                point: point.clone(),
            }))
            .unwrap()
    }

    fn sessions(&self) -> usize {
        self.rt
            .block_on(self.app.list_sessions(ListSessions::default()))
            .unwrap()
            .sessions
            .len()
    }
}

#[test]
fn a_forks_changes_stay_restorable_after_the_parent_loses_its_store() {
    let ws = tempfile::tempdir().unwrap();
    let fx = Fixture::new(ws.path());
    fx.write_edit_shell();
    let last = fx.call("c4", ChangeCause::WriteFile, &[("a.txt", Some("four\n"))]);
    let fork = fx
        .fork(&ForkPoint::AtItem { item_id: last }, ForkFiles::Keep)
        .unwrap();
    // The parent's pruning (or deletion) takes its store away.
    fs::remove_dir_all(BlobStore::beside(&fx.app.store().session_path(fx.id)).dir()).unwrap();
    let changes = fx
        .rt
        .block_on(fx.app.list_changes(ListChanges {
            session_id: fork.session_id,
        }))
        .unwrap();
    let files: Vec<_> = changes
        .groups
        .iter()
        .flat_map(|g| &g.calls)
        .flat_map(|c| &c.files)
        .collect();
    assert_eq!(files.len(), 4);
    assert!(
        files
            .iter()
            .all(|file| file.restorable && file.added.is_some())
    );
    let preview = fx
        .rt
        .block_on(fx.app.preview_restore(PreviewRestore {
            session_id: fork.session_id,
            target: RestoreTarget::BeforeTurn { turn: 2 },
        }))
        .unwrap();
    assert!(
        preview.restored && preview.refused.is_empty(),
        "{preview:?}"
    );
}

#[test]
fn a_fork_in_place_takes_back_the_later_edit_and_shell_file_and_its_restore_undoes() {
    let ws = tempfile::tempdir().unwrap();
    let fx = Fixture::new(ws.path());
    let point = fx.write_edit_shell();
    let preview = fx.preview(&point);
    let steps: Vec<_> = preview
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.step))
        .collect();
    assert_eq!(
        steps,
        [
            ("a.txt", RestoreStep::Write),
            ("b.txt", RestoreStep::Delete)
        ]
    );
    assert!(preview.refused.is_empty());
    assert!(preview.worktree.is_none() && preview.worktree_unavailable.is_some());

    let fork = fx.fork(&point, ForkFiles::InPlace).unwrap();
    let done = fork.files.clone().unwrap();
    assert_eq!(fx.file(ws.path(), "a.txt").as_deref(), Some("one\n"));
    assert_eq!(fx.file(ws.path(), "b.txt"), None);
    assert_eq!(done.workspace, ws.path().to_string_lossy());
    let restore_id = done.restore.restore_id.unwrap();
    // Recorded in the fork, not the parent.
    let read = fx
        .app
        .store()
        .open_reader(fork.session_id, ReadMode::Strict)
        .unwrap();
    let restored: Vec<_> = read
        .records
        .iter()
        .filter_map(|r| match &r.body {
            RecordBody::FileChange(c) if c.cause == ChangeCause::Restore => Some(c.path.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(restored, ["a.txt", "b.txt"]);

    let undone = fx
        .rt
        .block_on(fx.app.restore_files(RestoreFiles {
            session_id: fork.session_id,
            target: RestoreTarget::BeforeItem { item: restore_id },
        }))
        .unwrap();
    assert!(undone.restored, "{undone:?}");
    assert_eq!(fx.file(ws.path(), "a.txt").as_deref(), Some("two\n"));
    assert_eq!(fx.file(ws.path(), "b.txt").as_deref(), Some("bee\n"));
}

#[test]
fn a_fork_with_files_is_refused_making_nothing_over_a_file_the_person_edited() {
    let ws = tempfile::tempdir().unwrap();
    let fx = Fixture::new(ws.path());
    let point = fx.write_edit_shell();
    fs::write(ws.path().join("a.txt"), "mine\n").unwrap();
    let preview = fx.preview(&point);
    let refused: Vec<_> = preview.refused.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(refused, ["a.txt"]);
    assert!(preview.refused[0].reason.contains("changed outside Strata"));
    let before = fx.sessions();
    assert_eq!(
        fx.fork(&point, ForkFiles::InPlace).unwrap_err(),
        CommandErrorKind::InvalidInput
    );
    assert_eq!(fx.sessions(), before, "no fork was made");
    assert_eq!(fx.file(ws.path(), "a.txt").as_deref(), Some("mine\n"));
    assert_eq!(fx.file(ws.path(), "b.txt").as_deref(), Some("bee\n"));
}

#[test]
fn a_fork_in_place_is_refused_while_another_writer_holds_the_parent() {
    let ws = tempfile::tempdir().unwrap();
    let fx = Fixture::new(ws.path());
    let point = fx.write_edit_shell();
    let held = fx.app.store().open_writer(fx.id).unwrap();
    assert_eq!(
        fx.fork(&point, ForkFiles::InPlace).unwrap_err(),
        CommandErrorKind::Busy
    );
    assert_eq!(fx.file(ws.path(), "a.txt").as_deref(), Some("two\n"));
    drop(held);
    assert!(fx.fork(&point, ForkFiles::InPlace).is_ok());
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn a_fork_into_a_worktree_leaves_the_checkout_alone_and_holds_the_files_at_the_point() {
    let parent = tempfile::tempdir().unwrap();
    let repo = parent.path().join("repo");
    fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "--quiet", "-b", "main"]);
    fs::write(repo.join("README.md"), "readme\n").unwrap();
    fs::write(repo.join("a.txt"), "committed\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "base"]);
    let fx = Fixture::new(&repo);
    let point = fx.write_edit_shell();
    fs::write(repo.join("notes.txt"), "the person's own\n").unwrap();
    let (head, status, branch) = (
        git(&repo, &["rev-parse", "HEAD"]),
        git(&repo, &["status", "--porcelain"]),
        git(&repo, &["symbolic-ref", "HEAD"]),
    );
    let preview = fx.preview(&point);
    let shown = preview.worktree.clone().unwrap();

    let fork = fx.fork(&point, ForkFiles::Worktree).unwrap();
    let done = fork.files.clone().unwrap();
    assert_eq!(done.worktree.as_deref(), Some(shown.as_str()));
    let worktree = PathBuf::from(&shown);
    assert_eq!(worktree.parent(), Some(parent.path()));
    assert!(
        worktree
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("repo-fork-")
    );
    // The original checkout: same HEAD, branch, status and files.
    assert_eq!(git(&repo, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(&repo, &["status", "--porcelain"]), status);
    assert_eq!(git(&repo, &["symbolic-ref", "HEAD"]), branch);
    assert_eq!(fx.file(&repo, "a.txt").as_deref(), Some("two\n"));
    assert_eq!(fx.file(&repo, "b.txt").as_deref(), Some("bee\n"));
    // The worktree: the files at the point, the rest as committed.
    assert_eq!(fx.file(&worktree, "a.txt").as_deref(), Some("one\n"));
    assert_eq!(fx.file(&worktree, "b.txt"), None);
    assert_eq!(fx.file(&worktree, "README.md").as_deref(), Some("readme\n"));
    assert_eq!(
        fx.file(&worktree, "notes.txt"),
        None,
        "only what Strata tracked"
    );
    let read = fx
        .app
        .store()
        .open_reader(fork.session_id, ReadMode::Strict)
        .unwrap();
    assert_eq!(read.meta.workspace, shown, "recorded as shown");
    assert_eq!(done.workspace, shown);
    // Its restore is undone in the worktree, not the checkout.
    fx.rt
        .block_on(fx.app.restore_files(RestoreFiles {
            session_id: fork.session_id,
            target: RestoreTarget::BeforeItem {
                item: done.restore.restore_id.unwrap(),
            },
        }))
        .unwrap();
    assert_eq!(fx.file(&worktree, "a.txt").as_deref(), Some("two\n"));
    assert_eq!(git(&repo, &["status", "--porcelain"]), status);
}

#[test]
fn a_fork_into_a_worktree_outside_a_git_repository_is_refused_with_why() {
    let ws = tempfile::tempdir().unwrap();
    let fx = Fixture::new(ws.path());
    let point = fx.write_edit_shell();
    let before = fx.sessions();
    let error = fx
        .rt
        .block_on(fx.app.fork_session(ForkSession {
            session_id: fx.id,
            point,
            files: Some(ForkFiles::Worktree),
        }))
        .unwrap_err();
    assert_eq!(error.kind, CommandErrorKind::InvalidInput);
    assert!(
        error.message.contains("not in a git repository"),
        "{}",
        error.message
    );
    assert_eq!(fx.sessions(), before);
    assert_eq!(fx.file(ws.path(), "a.txt").as_deref(), Some("two\n"));
}
