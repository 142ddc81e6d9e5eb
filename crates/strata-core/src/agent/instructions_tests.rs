#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use super::*;

#[test]
fn agents_md_becomes_instructions_and_a_missing_or_blank_one_nothing() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(agents_instructions(dir.path()).unwrap(), None);
    std::fs::write(dir.path().join(AGENTS_FILE), "  \n").unwrap();
    assert_eq!(agents_instructions(dir.path()).unwrap(), None);
    std::fs::write(dir.path().join(AGENTS_FILE), "Use tabs.\n").unwrap();
    let text = agents_instructions(dir.path()).unwrap().unwrap();
    assert!(text.starts_with("Instructions from AGENTS.md"));
    assert!(text.ends_with("Use tabs."));
}

#[test]
fn a_huge_agents_md_is_cut_on_a_char_boundary_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(AGENTS_FILE),
        "é".repeat(AGENTS_FILE_MAX_BYTES),
    )
    .unwrap();
    let text = agents_instructions(dir.path()).unwrap().unwrap();
    assert!(text.len() < AGENTS_FILE_MAX_BYTES + 200);
    assert!(text.ends_with(&format!(
        "[{AGENTS_FILE} continues: {} more bytes not included]",
        AGENTS_FILE_MAX_BYTES
    )));
}

#[test]
fn an_unreadable_agents_md_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(AGENTS_FILE)).unwrap();
    assert!(agents_instructions(dir.path()).is_err());
}

fn refusal(dir: &Path) -> String {
    match agents_instructions(dir) {
        Err(CoreError::AgentsFileRefused { reason }) => reason,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn an_agents_md_linked_outside_or_to_a_secret_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("id_rsa"), "PRIVATE KEY").unwrap();
    std::os::unix::fs::symlink(outside.path().join("id_rsa"), dir.path().join(AGENTS_FILE))
        .unwrap();
    assert!(refusal(dir.path()).contains("escapes the workspace"));

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".env"), "TOKEN=1").unwrap();
    std::os::unix::fs::symlink(".env", dir.path().join(AGENTS_FILE)).unwrap();
    assert!(refusal(dir.path()).contains("secret file"));
}

#[test]
fn a_fifo_or_a_device_named_agents_md_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join(AGENTS_FILE))
        .status()
        .unwrap();
    assert!(status.success());
    assert!(refusal(dir.path()).contains("not a regular file"));

    // A character device (as root, the real /dev/zero's numbers).
    let dir = tempfile::tempdir().unwrap();
    let made = std::process::Command::new("mknod")
        .arg(dir.path().join(AGENTS_FILE))
        .args(["c", "1", "5"])
        .status()
        .is_ok_and(|status| status.success());
    if made {
        assert!(refusal(dir.path()).contains("not a regular file"));
    }
}

#[test]
fn a_huge_agents_md_is_read_only_up_to_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::File::create(dir.path().join(AGENTS_FILE)).unwrap();
    // Sparse: 4 GiB of zero bytes that must never be read whole.
    file.set_len(4 << 30).unwrap();
    let text = agents_instructions(dir.path()).unwrap().unwrap();
    assert!(text.len() < AGENTS_FILE_MAX_BYTES + 200);
    assert!(text.ends_with(&format!(
        "[{AGENTS_FILE} continues: {} more bytes not included]",
        (4u64 << 30) - AGENTS_FILE_MAX_BYTES as u64
    )));
}

/// A repository in a temp folder: `.git` at its root, the given files
/// written (parents made), and the path of `workspace` inside it.
fn repository(files: &[(&str, &str)], workspace: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let workspace = dir.path().join(workspace);
    std::fs::create_dir_all(&workspace).unwrap();
    (dir, workspace)
}

#[test]
fn a_repository_gives_its_files_from_the_root_down_to_the_workspace_nearest_last() {
    let (_dir, workspace) = repository(
        &[
            ("AGENTS.md", "Root rule."),
            ("services/CLAUDE.md", "Services rule."),
            ("services/api/AGENTS.md", "Workspace rule."),
        ],
        "services/api",
    );
    let text = agents_instructions(&workspace).unwrap().unwrap();
    let order = [
        "## AGENTS.md\n\nRoot rule.",
        "## services/CLAUDE.md\n\nServices rule.",
        "## services/api/AGENTS.md\n\nWorkspace rule.",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|part| {
            text.find(part)
                .unwrap_or_else(|| panic!("{part:?} in {text}"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert!(text.starts_with("Instructions from the repository's instruction files"));
    // The folder above the repository is not part of it.
    assert!(!text.contains(&_dir.path().display().to_string()));
}

#[test]
fn claude_md_is_read_only_where_a_folder_has_no_agents_md() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(CLAUDE_FILE), "Claude rule.").unwrap();
    assert_eq!(
        agents_instructions(dir.path()).unwrap().unwrap(),
        "Instructions from CLAUDE.md in the workspace:\n\nClaude rule."
    );
    std::fs::write(dir.path().join(AGENTS_FILE), "Agents rule.").unwrap();
    assert_eq!(
        agents_instructions(dir.path()).unwrap().unwrap(),
        "Instructions from AGENTS.md in the workspace:\n\nAgents rule."
    );
    // A blank AGENTS.md still stands for its folder: no fallback.
    std::fs::write(dir.path().join(AGENTS_FILE), "\n").unwrap();
    assert_eq!(agents_instructions(dir.path()).unwrap(), None);
}

#[test]
fn the_size_budget_is_shared_and_a_cut_falls_on_the_outermost_file_with_a_note() {
    let big = "r".repeat(AGENTS_FILE_MAX_BYTES + 8_000);
    let (_dir, workspace) = repository(
        &[("AGENTS.md", &big), ("app/AGENTS.md", "Workspace rule.")],
        "app",
    );
    let text = agents_instructions(&workspace).unwrap().unwrap();
    assert!(
        text.ends_with("## app/AGENTS.md\n\nWorkspace rule."),
        "{}",
        &text[text.len() - 200..]
    );
    let omitted = big.len() - (AGENTS_FILE_MAX_BYTES - "Workspace rule.".len());
    assert!(
        text.contains(&format!(
            "[AGENTS.md continues: {omitted} more bytes not included]"
        )),
        "the root's cut is noted"
    );
    assert!(text.len() < AGENTS_FILE_MAX_BYTES + 500);
}

#[test]
fn outside_a_repository_only_the_workspace_counts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(AGENTS_FILE), "Not for the child.").unwrap();
    let workspace = dir.path().join("child");
    std::fs::create_dir(&workspace).unwrap();
    assert_eq!(agents_instructions(&workspace).unwrap(), None);
}

#[test]
fn a_link_in_a_folder_above_the_workspace_is_refused_naming_the_file() {
    let (dir, workspace) = repository(&[("app/AGENTS.md", "Workspace rule.")], "app");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("notes"), "elsewhere").unwrap();
    std::os::unix::fs::symlink(outside.path().join("notes"), dir.path().join(AGENTS_FILE)).unwrap();
    let reason = refusal(&workspace);
    assert!(
        reason.starts_with("AGENTS.md (above the workspace): "),
        "{reason}"
    );
    assert!(reason.contains("escapes"), "{reason}");
}

#[test]
fn the_persons_own_file_alone_is_named_as_theirs_with_its_source() {
    let own = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(own.path().join(AGENTS_FILE), "Answer briefly.\n").unwrap();
    let read = read_instructions(workspace.path(), Some(own.path()))
        .unwrap()
        .unwrap();
    assert!(
        read.text
            .starts_with("Instructions from your own AGENTS.md (")
    );
    assert!(read.text.ends_with("Answer briefly."));
    assert_eq!(read.sources.len(), 1);
    assert_eq!(read.sources[0].bytes, 16);
    assert_eq!(read.sources[0].omitted, 0);
    assert!(read.sources[0].label.ends_with("AGENTS.md"));
}

#[test]
fn over_the_budget_the_persons_own_file_is_cut_first_and_a_link_out_of_its_folder_refused() {
    let own = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(own.path().join(AGENTS_FILE), "x".repeat(4_000)).unwrap();
    std::fs::write(
        workspace.path().join(AGENTS_FILE),
        "y".repeat(AGENTS_FILE_MAX_BYTES - 1_000),
    )
    .unwrap();
    let read = read_instructions(workspace.path(), Some(own.path()))
        .unwrap()
        .unwrap();
    assert_eq!(read.sources.len(), 2);
    assert_eq!(read.sources[0].omitted, 3_000);
    assert_eq!(read.sources[1].omitted, 0);

    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("notes"), "secret plans").unwrap();
    std::fs::remove_file(own.path().join(AGENTS_FILE)).unwrap();
    std::os::unix::fs::symlink(outside.path().join("notes"), own.path().join(AGENTS_FILE)).unwrap();
    match read_instructions(workspace.path(), Some(own.path())) {
        Err(CoreError::AgentsFileRefused { reason }) => {
            assert!(reason.contains("your own instructions"), "{reason}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_config_folder_not_made_yet_leaves_the_repositorys_instructions_alone() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join(AGENTS_FILE), "Use tabs.\n").unwrap();
    let read = read_instructions(workspace.path(), Some(&home.path().join("config")))
        .unwrap()
        .unwrap();
    assert!(
        read.text
            .starts_with("Instructions from AGENTS.md in the workspace")
    );
    assert_eq!(read.sources.len(), 1);
}
