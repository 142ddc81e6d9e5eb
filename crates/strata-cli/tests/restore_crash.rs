//! A restore killed with SIGKILL at any moment leaves every file either as
//! it was or restored, never torn, and the next restore finishes the job.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::fs;
use std::process::Stdio;
use std::time::Duration;

use serde_json::json;
use support::server::model_calling;
use support::{Home, announced_id, responses_run};

const FILES: usize = 300;

fn name(i: usize) -> String {
    format!("f{i:03}.txt")
}

fn old_text(i: usize) -> String {
    format!("the original content of file {i}\n").repeat(400)
}

const NEW_TEXT: &str = "rewritten by the command\n";

/// How many files hold their old content; panics on any other content.
fn restored_count(home: &Home) -> usize {
    (0..FILES)
        .filter(|&i| {
            let text = fs::read_to_string(home.workspace.path().join(name(i))).unwrap();
            if text == old_text(i) {
                true
            } else {
                assert_eq!(text, NEW_TEXT, "{} is torn", name(i));
                false
            }
        })
        .count()
}

#[test]
fn sigkill_mid_restore_leaves_each_file_old_or_new_and_a_second_restore_completes_it() {
    let home = Home::new();
    for i in 0..FILES {
        fs::write(home.workspace.path().join(name(i)), old_text(i)).unwrap();
    }
    let server = model_calling(vec![(
        "run_shell",
        json!({"command": format!("for f in f*.txt; do printf '{}' > \"$f\"; done", NEW_TEXT.trim_end().to_owned() + "\\n")}),
    )]);
    let run = home.run(&responses_run(
        "rewrite",
        &server.base_url,
        &["--approval", "auto", "--sandbox", "off"],
    ));
    assert_eq!(run.code, 0, "{run:#?}");
    let session = announced_id(&run.stderr).to_string();
    assert_eq!(restored_count(&home), 0);

    let mut cut_midway = 0;
    for delay_ms in [10, 25, 50, 100, 200, 400] {
        let mut child = home
            .command()
            .args(["restore", &session, "--before-turn", "1"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let status = child.wait().unwrap();
        let restored = restored_count(&home);
        if status.code().is_none() && restored > 0 && restored < FILES {
            cut_midway += 1;
        }
        if restored == FILES {
            break;
        }
    }
    assert!(
        cut_midway > 0,
        "no kill landed while files were being restored"
    );
    let finish = home.run(&["restore", &session, "--before-turn", "1"]);
    assert_eq!(finish.code, 0, "{finish:#?}");
    assert_eq!(restored_count(&home), FILES);
    let verified = home.run(&["sessions", "verify", &session]);
    assert_eq!(verified.code, 0, "{verified:#?}");
}
