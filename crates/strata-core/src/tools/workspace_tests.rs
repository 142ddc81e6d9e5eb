use std::os::unix::fs::symlink;

use super::*;

fn workspace() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src/nested")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "x").unwrap();
    let ws = Workspace::open(dir.path(), SecretGuard::default()).unwrap();
    (dir, ws)
}

fn both(ws: &Workspace) -> [Workspace; 2] {
    [
        ws.clone().with_strategy(OpenStrategy::Kernel),
        ws.clone().with_strategy(OpenStrategy::Walk),
    ]
}

#[test]
fn relative_absolute_and_empty_paths_resolve_inside() {
    let (_dir, ws) = workspace();
    assert_eq!(ws.resolve("src/lib.rs").unwrap().display, "src/lib.rs");
    assert_eq!(ws.resolve("").unwrap().display, ".");
    assert_eq!(ws.resolve("./src/../src").unwrap().display, "src");
    let absolute = ws.root().join("src/lib.rs");
    let resolved = ws.resolve(absolute.to_str().unwrap()).unwrap();
    assert_eq!(ws.abs(&resolved), absolute);
    assert!(resolved.exists);
}

#[test]
fn missing_paths_resolve_with_their_missing_tail() {
    let (_dir, ws) = workspace();
    let resolved = ws.resolve("src/new/deeper/file.txt").unwrap();
    assert_eq!(resolved.display, "src/new/deeper/file.txt");
    assert!(!resolved.exists);
}

#[test]
fn dot_dot_out_of_the_root_is_refused_even_through_missing_folders() {
    let (_dir, ws) = workspace();
    for raw in [
        "..",
        "../x",
        "src/../../x",
        "missing/../../x",
        "/etc/passwd",
    ] {
        match ws.resolve(raw) {
            Err(ToolError::PathEscape { path }) => assert_eq!(path, raw),
            other => panic!("{raw}: expected an escape, got {other:?}"),
        }
    }
}

#[test]
fn dot_dot_after_a_missing_folder_is_not_found_instead_of_skipping_it() {
    let (dir, ws) = workspace();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "s").unwrap();
    symlink(outside.path(), dir.path().join("link")).unwrap();
    assert_eq!(
        ws.resolve("missing/../link/secret.txt"),
        Err(ToolError::NotFound {
            path: "missing".into()
        })
    );
}

#[test]
fn symlinks_are_followed_inside_and_refused_when_they_leave() {
    let (dir, ws) = workspace();
    let outside = tempfile::tempdir().unwrap();
    symlink("src/nested", dir.path().join("rel")).unwrap();
    symlink(dir.path().join("src"), dir.path().join("abs")).unwrap();
    symlink(outside.path(), dir.path().join("out")).unwrap();
    symlink("../..", dir.path().join("src/up")).unwrap();
    symlink("loop_b", dir.path().join("loop_a")).unwrap();
    symlink("loop_a", dir.path().join("loop_b")).unwrap();

    assert_eq!(ws.resolve("rel/../lib.rs").unwrap().display, "src/lib.rs");
    assert_eq!(ws.resolve("abs/lib.rs").unwrap().display, "src/lib.rs");
    for raw in ["out", "out/x", "src/up", "src/up/etc"] {
        assert!(
            matches!(ws.resolve(raw), Err(ToolError::PathEscape { .. })),
            "{raw}: {:?}",
            ws.resolve(raw)
        );
    }
    assert!(matches!(
        ws.resolve("loop_a"),
        Err(ToolError::SymlinkLoop { .. })
    ));
}

#[test]
fn a_dangling_symlink_is_not_followed() {
    let (dir, ws) = workspace();
    let outside = tempfile::tempdir().unwrap();
    symlink(outside.path().join("nope"), dir.path().join("dangling")).unwrap();
    symlink("nope", dir.path().join("dangling_inside")).unwrap();
    assert!(matches!(
        ws.resolve("dangling"),
        Err(ToolError::PathEscape { .. })
    ));
    assert!(matches!(
        ws.resolve("dangling_inside"),
        Err(ToolError::BrokenSymlink { .. })
    ));
}

#[test]
fn a_folder_swapped_for_a_symlink_after_resolution_is_refused_at_open() {
    let (dir, ws) = workspace();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("lib.rs"), "outside").unwrap();
    let resolved = ws.resolve("src/lib.rs").unwrap();
    std::fs::rename(dir.path().join("src"), dir.path().join("old")).unwrap();
    symlink(outside.path(), dir.path().join("src")).unwrap();
    for ws in both(&ws) {
        assert_eq!(
            ws.read_bytes(&resolved, 100, "read_file"),
            Err(ToolError::PathChanged {
                path: "src/lib.rs".into()
            }),
            "{:?}",
            ws.strategy()
        );
    }
}

#[test]
fn fifos_are_refused_without_blocking_on_both_strategies() {
    let (dir, ws) = workspace();
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    let resolved = ws.resolve("pipe").unwrap();
    for ws in both(&ws) {
        assert_eq!(
            ws.read_bytes(&resolved, 100, "read_file"),
            Err(ToolError::NotRegular {
                path: "pipe".into()
            })
        );
    }
}

#[test]
fn secret_and_strata_files_are_refused_even_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let strata = dir.path().join(".strata/config");
    std::fs::create_dir_all(&strata).unwrap();
    std::fs::write(strata.join("config.toml"), "").unwrap();
    std::fs::write(dir.path().join(".env"), "KEY=1").unwrap();
    symlink(".env", dir.path().join("notes.txt")).unwrap();
    let guard = SecretGuard::new(&[strata], &[]);
    let ws = Workspace::open(dir.path(), guard).unwrap();
    assert_eq!(
        ws.resolve("notes.txt"),
        Err(ToolError::SecretFile {
            path: ".env".into()
        })
    );
    assert!(matches!(
        ws.resolve(".strata/config/config.toml"),
        Err(ToolError::StrataFile { .. })
    ));
}
