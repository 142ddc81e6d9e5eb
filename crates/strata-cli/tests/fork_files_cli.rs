//! `strata fork --with-files` against the built binary: a local Responses
//! server plays a model that writes a file in one turn, then rewrites it
//! and makes another with a shell command in the next; a fork at the end
//! of the first turn previews (`--dry-run --json`), then returns the
//! workspace to that point, and is refused over a person's own edit.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::fs;

use serde_json::{Value, json};
use strata_protocol::{ForkPreview, RestoreStep, SessionForkView, SessionItems};
use support::server::model_calling;
use support::{Home, announced_id, responses_run};

const AUTO: &[&str] = &["--approval", "auto", "--sandbox", "off"];

/// Two turns; the session's id and the id of the first turn's last item.
fn two_turns(home: &Home) -> (String, String) {
    let server = model_calling(vec![(
        "write_file",
        json!({"path": "a.txt", "content": "first\n"}),
    )]);
    let run = home.run(&responses_run("go", &server.base_url, AUTO));
    assert_eq!(run.code, 0, "{run:#?}");
    let session = announced_id(&run.stderr).to_string();
    let server = model_calling(vec![
        (
            "write_file",
            json!({"path": "a.txt", "content": "second\n"}),
        ),
        ("run_shell", json!({"command": "echo x > b.txt"})),
    ]);
    let mut args = vec![
        "resume",
        &session,
        "-p",
        "more",
        "--base-url",
        &server.base_url,
    ];
    args.extend_from_slice(AUTO);
    assert_eq!(home.run(&args).code, 0);
    let shown = home.run(&["sessions", "show", &session, "--json"]).ok();
    let items: SessionItems = serde_json::from_str(&shown).unwrap();
    let second = items
        .items
        .iter()
        .position(|item| item.role.as_deref() == Some("user") && item.preview == "more")
        .unwrap();
    (session, items.items[second - 1].id.to_string())
}

fn read(home: &Home, name: &str) -> Option<String> {
    fs::read_to_string(home.workspace.path().join(name)).ok()
}

fn sessions(home: &Home) -> usize {
    let listed: Value =
        serde_json::from_str(&home.run(&["sessions", "list", "--json"]).ok()).unwrap();
    listed["sessions"].as_array().unwrap().len()
}

#[test]
fn a_dry_run_previews_the_fork_with_files_and_the_fork_returns_the_workspace_to_its_point() {
    let home = Home::new();
    let (session, item) = two_turns(&home);
    let fork = ["fork", &session, "--at", &item, "--with-files"];
    let dry = home.run(&[&fork[..], &["in-place", "--dry-run", "--json"]].concat());
    let preview: ForkPreview = serde_json::from_str(&dry.ok()).unwrap();
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
    assert!(preview.refused.is_empty() && preview.worktree.is_none());
    assert_eq!(sessions(&home), 1, "a dry run makes no session");
    assert_eq!(read(&home, "a.txt").as_deref(), Some("second\n"));

    let text = home
        .run(&[&fork[..], &["in-place", "--dry-run"]].concat())
        .ok();
    assert!(
        text.contains("would restore a.txt") && text.contains("would delete b.txt"),
        "{text}"
    );
    home.run(&[&fork[..], &["worktree", "--dry-run"]].concat())
        .fails_with(1, "not in a git repository");

    let done = home.run(&[&fork[..], &["in-place", "--json"]].concat());
    let view: SessionForkView = serde_json::from_str(&done.ok()).unwrap();
    assert_eq!(read(&home, "a.txt").as_deref(), Some("first\n"));
    assert_eq!(read(&home, "b.txt"), None);
    let restore_id = view.files.unwrap().restore.restore_id.unwrap();
    // The fork lists its inherited change and its restore, and undoes it.
    let changes = home.run(&["changes", &view.session_id.to_string()]).ok();
    assert!(
        changes.contains("── turn 1 ──") && changes.contains(&restore_id),
        "{changes}"
    );
    let fork_id = view.session_id.to_string();
    home.run(&["restore", &fork_id, "--before-item", &restore_id])
        .ok();
    assert_eq!(read(&home, "a.txt").as_deref(), Some("second\n"));
}

#[test]
fn a_fork_with_files_over_the_persons_own_edit_is_refused_with_exit_5_and_makes_nothing() {
    let home = Home::new();
    let (session, item) = two_turns(&home);
    fs::write(home.workspace.path().join("a.txt"), "mine\n").unwrap();
    let run = home.run(&["fork", &session, "--at", &item, "--with-files", "in-place"]);
    assert_eq!(run.code, 5, "{run:#?}");
    assert!(
        run.stdout.contains("a.txt: changed outside Strata"),
        "{run:#?}"
    );
    assert_eq!(sessions(&home), 1);
    assert_eq!(read(&home, "a.txt").as_deref(), Some("mine\n"));
    assert_eq!(read(&home, "b.txt").as_deref(), Some("x\n"));
}

#[test]
fn in_a_git_repository_a_worktree_dry_run_names_the_folder_beside_it_and_makes_nothing() {
    let home = Home::new();
    let repo = home.workspace.path();
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .arg("-C")
            .arg(repo)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .output()
            .unwrap();
        assert!(status.status.success(), "{status:?}");
    };
    git(&["init", "--quiet"]);
    fs::write(repo.join("README.md"), "readme\n").unwrap();
    git(&["add", "."]);
    git(&["commit", "--quiet", "-m", "base"]);
    let (session, item) = two_turns(&home);
    let args = ["fork", &session, "--at", &item, "--with-files", "worktree"];
    let dry = home.run(&[&args[..], &["--dry-run", "--json"]].concat());
    let preview: ForkPreview = serde_json::from_str(&dry.ok()).unwrap();
    let worktree = std::path::PathBuf::from(preview.worktree.unwrap());
    let name = repo.file_name().unwrap().to_string_lossy();
    assert_eq!(worktree.parent(), repo.parent());
    assert!(
        worktree
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(&format!("{name}-fork-")),
        "{worktree:?}"
    );
    assert!(!worktree.exists(), "a dry run makes no worktree");
    assert_eq!(preview.files.len(), 2);
    assert_eq!(sessions(&home), 1);
}
