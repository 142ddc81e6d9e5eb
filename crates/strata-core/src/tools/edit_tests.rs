use std::os::unix::fs::PermissionsExt;

use super::*;
use crate::tools::beneath::OpenStrategy;

fn ws(dir: &tempfile::TempDir) -> Workspace {
    Workspace::open(dir.path(), Default::default()).unwrap()
}

fn read(dir: &tempfile::TempDir, name: &str) -> String {
    std::fs::read_to_string(dir.path().join(name)).unwrap()
}

#[test]
fn a_new_file_diffs_against_dev_null_and_creates_its_folders() {
    let dir = tempfile::tempdir().unwrap();
    for strategy in [OpenStrategy::Kernel, OpenStrategy::Walk] {
        let ws = ws(&dir).with_strategy(strategy);
        let path = format!("{strategy:?}/b/new.txt");
        let plan = prepare_write(&ws, &path, "one\ntwo\n".into()).unwrap();
        assert_eq!(
            plan.diff,
            format!("--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,2 @@\n+one\n+two\n")
        );
        assert_eq!(
            execute_write(&ws, &plan).unwrap(),
            format!("Created {path} (2 lines, 8 bytes).")
        );
        assert_eq!(read(&dir, &path), "one\ntwo\n");
    }
}

#[test]
fn an_edit_must_match_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), "a\nb\na\n").unwrap();
    let ws = ws(&dir);
    assert_eq!(
        prepare_edit(&ws, "f", "a\n".into(), "c\n".into())
            .unwrap_err()
            .to_string(),
        "old_text occurs 2 times in f; include more surrounding lines so it matches exactly once"
    );
    assert!(matches!(
        prepare_edit(&ws, "f", "zzz".into(), "c".into()),
        Err(ToolError::EditNotFound { .. })
    ));
    let plan = prepare_edit(&ws, "f", "b\n".into(), "B\n".into()).unwrap();
    assert!(plan.diff.contains("-b\n+B\n"), "{}", plan.diff);
    execute_edit(&ws, &plan).unwrap();
    assert_eq!(read(&dir, "f"), "a\nB\na\n");
}

#[test]
fn a_file_changed_after_approval_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), "x = 1\n").unwrap();
    let ws = ws(&dir);
    let edit = prepare_edit(&ws, "f", "x = 1".into(), "x = 2".into()).unwrap();
    let write = prepare_write(&ws, "f", "y\n".into()).unwrap();
    let create = prepare_write(&ws, "g", "new\n".into()).unwrap();
    std::fs::write(dir.path().join("f"), "x = 1\n# more\n").unwrap();
    std::fs::write(dir.path().join("g"), "appeared\n").unwrap();
    for error in [
        execute_edit(&ws, &edit).unwrap_err(),
        execute_write(&ws, &write).unwrap_err(),
    ] {
        assert_eq!(error, ToolError::ChangedSinceApproval { path: "f".into() });
    }
    assert!(matches!(
        execute_write(&ws, &create),
        Err(ToolError::ChangedSinceApproval { .. })
    ));
    assert_eq!(read(&dir, "f"), "x = 1\n# more\n");
    assert_eq!(read(&dir, "g"), "appeared\n");
}

#[test]
fn a_link_retargeted_after_approval_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("a")).unwrap();
    std::fs::create_dir_all(dir.path().join("b")).unwrap();
    std::os::unix::fs::symlink("a", dir.path().join("cur")).unwrap();
    let ws = ws(&dir);
    let plan = prepare_write(&ws, "cur/f", "x".into()).unwrap();
    assert_eq!(plan.path.display, "a/f");
    std::fs::remove_file(dir.path().join("cur")).unwrap();
    std::os::unix::fs::symlink("b", dir.path().join("cur")).unwrap();
    assert!(matches!(
        execute_write(&ws, &plan),
        Err(ToolError::ChangedSinceApproval { .. })
    ));
    assert!(!dir.path().join("b/f").exists() && !dir.path().join("a/f").exists());
}

#[test]
fn writes_are_atomic_keep_the_mode_and_leave_no_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.sh");
    std::fs::write(&path, "echo 1\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o751)).unwrap();
    let before = std::fs::metadata(&path).unwrap();
    let ws = ws(&dir);
    let plan = prepare_edit(&ws, "run.sh", "1".into(), "2".into()).unwrap();
    execute_edit(&ws, &plan).unwrap();
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!(read(&dir, "run.sh"), "echo 2\n");
    assert_eq!(after.permissions().mode() & 0o7777, 0o751);
    // Renamed over, not rewritten in place.
    assert_ne!(
        std::os::unix::fs::MetadataExt::ino(&before),
        std::os::unix::fs::MetadataExt::ino(&after)
    );
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn editing_a_non_utf8_file_is_refused_and_leaves_every_byte() {
    let dir = tempfile::tempdir().unwrap();
    let latin1 = b"caf\xe9 = 1\n".to_vec();
    std::fs::write(dir.path().join("l1.txt"), &latin1).unwrap();
    let error = prepare_edit(&ws(&dir), "l1.txt", "1".into(), "2".into()).unwrap_err();
    assert_eq!(
        error,
        ToolError::EditNotText {
            path: "l1.txt".into()
        }
    );
    assert!(error.to_string().contains("not UTF-8"), "{error}");
    assert_eq!(std::fs::read(dir.path().join("l1.txt")).unwrap(), latin1);
}

#[test]
fn writing_over_a_directory_or_a_fifo_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    let ws = ws(&dir);
    assert_eq!(
        prepare_write(&ws, "d", String::new())
            .unwrap_err()
            .to_string(),
        "d is a directory, not a file"
    );
    assert_eq!(
        prepare_write(&ws, "pipe", String::new()).unwrap_err(),
        ToolError::NotRegular {
            path: "pipe".into()
        }
    );
}

#[test]
fn a_file_over_the_edit_limit_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::File::create(dir.path().join("big")).unwrap();
    file.set_len(EDIT_MAX_FILE_BYTES + 1).unwrap();
    assert!(matches!(
        prepare_edit(&ws(&dir), "big", "a".into(), "b".into()),
        Err(ToolError::TooLarge { .. })
    ));
}

#[test]
fn a_write_replaces_a_hard_link_instead_of_writing_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir_in(dir.path().parent().unwrap()).unwrap();
    std::fs::write(outside.path().join("shared"), "outside\n").unwrap();
    if std::fs::hard_link(outside.path().join("shared"), dir.path().join("f")).is_err() {
        return; // Another filesystem: no hard link can cross into the workspace.
    }
    let ws = ws(&dir);
    let plan = prepare_write(&ws, "f", "inside\n".into()).unwrap();
    execute_write(&ws, &plan).unwrap();
    assert_eq!(read(&dir, "f"), "inside\n");
    assert_eq!(
        std::fs::read_to_string(outside.path().join("shared")).unwrap(),
        "outside\n"
    );
}
