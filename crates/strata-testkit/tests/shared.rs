//! Finding `../shared`, and a test that needs it: given when there, skipped
//! by name when not, a failure under CI. The cases run `probe` (below) in a
//! child process with the environment each one needs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::process::{Command, Output};

use strata_testkit::{SHARED_DIR_VAR, SKIP_LOG_VAR, needs_shared, shared_dir, workspace_root};

const PROBED: &str = "probe-material";

#[test]
#[ignore = "run by the tests beside it, in a child process"]
fn probe() {
    println!("shared dir: {}", shared_dir().display());
    match needs_shared(PROBED) {
        Some(dir) => println!("found: {}", dir.display()),
        None => println!("skipped"),
    }
}

/// Runs `probe` with the shared folder at `shared` (or the default), `CI`
/// as given, and a fresh skip log; its output and the log's text.
fn run_probe(shared: Option<&Path>, ci: Option<&str>) -> (Output, String) {
    let scratch = tempfile::tempdir().unwrap();
    let log = scratch.path().join("skipped.txt");
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "probe",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SKIP_LOG_VAR, &log)
        .env_remove("CI")
        .env_remove(SHARED_DIR_VAR);
    if let Some(shared) = shared {
        command.env(SHARED_DIR_VAR, shared);
    }
    if let Some(ci) = ci {
        command.env("CI", ci);
    }
    let output = command.output().unwrap();
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    (output, logged)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_shared_folder_is_beside_the_workspace_root_unless_the_variable_moves_it() {
    assert!(
        workspace_root()
            .join("crates/strata-testkit/Cargo.toml")
            .is_file()
    );
    let (output, _) = run_probe(None, None);
    let beside = workspace_root().parent().unwrap().join("shared");
    assert!(
        text(&output.stdout).contains(&format!("shared dir: {}\n", beside.display())),
        "{}",
        text(&output.stdout)
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let (output, _) = run_probe(Some(elsewhere.path()), None);
    assert!(
        text(&output.stdout).contains(&format!("shared dir: {}\n", elsewhere.path().display()))
    );
}

#[test]
fn a_test_gets_the_folder_when_it_is_there_and_nothing_is_skipped() {
    let shared = tempfile::tempdir().unwrap();
    std::fs::create_dir(shared.path().join(PROBED)).unwrap();
    let (output, logged) = run_probe(Some(shared.path()), Some("true"));
    assert!(output.status.success(), "{output:?}");
    let found = format!("found: {}\n", shared.path().join(PROBED).display());
    assert!(text(&output.stdout).contains(&found), "{output:?}");
    assert_eq!(logged, "");
    assert!(!text(&output.stderr).contains("SKIPPED"), "{output:?}");
}

#[test]
fn without_the_folder_a_test_is_skipped_by_name_and_passes() {
    let shared = tempfile::tempdir().unwrap();
    let (output, logged) = run_probe(Some(&shared.path().join("absent")), None);
    assert!(output.status.success(), "{output:?}");
    assert!(text(&output.stdout).contains("skipped\n"), "{output:?}");
    assert_eq!(logged, "SKIPPED (no ../shared): shared::probe\n");
    assert!(
        text(&output.stderr).contains("SKIPPED (no ../shared): shared::probe\n"),
        "{output:?}"
    );
}

#[test]
fn without_the_folder_under_ci_the_test_fails_naming_what_is_missing() {
    let shared = tempfile::tempdir().unwrap();
    let missing = shared.path().join("absent");
    let (output, logged) = run_probe(Some(&missing), Some("true"));
    assert!(!output.status.success(), "{output:?}");
    let said = format!("{}{}", text(&output.stdout), text(&output.stderr));
    assert!(
        said.contains(&format!(
            "shared::probe needs {}",
            missing.join(PROBED).display()
        )),
        "{said}"
    );
    assert!(!said.contains("skipped\n"), "{said}");
    assert_eq!(logged, "");
}
