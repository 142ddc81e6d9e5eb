//! `strata resume` reads the instruction files again: the person's own
//! `AGENTS.md` in the config folder and the workspace's, and when they
//! changed it says so once and the model gets what they say now.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::server::{Reply, ResponsesServer, sse_text};
use support::{Home, announced_id, responses_run};

fn answering() -> ResponsesServer {
    ResponsesServer::start(|_, _| Reply::Sse(sse_text("Noted.", 300, 4)))
}

#[test]
fn a_resume_after_the_instructions_changed_says_which_files_and_sends_what_they_say_now() {
    let home = Home::new();
    let config = home.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("AGENTS.md"), "Answer in French.\n").unwrap();
    std::fs::write(home.workspace.path().join("AGENTS.md"), "Use tabs.\n").unwrap();
    let server = answering();
    let run = home.run(&responses_run("hello", &server.base_url, &[]));
    assert_eq!(run.code, 0, "{run:#?}");
    let first = server.last_round().to_string();
    assert!(
        first.contains("Answer in French.") && first.contains("Use tabs."),
        "{first}"
    );
    assert!(first.find("Answer in French.") < first.find("Use tabs."));
    let id = announced_id(&run.stderr);

    std::fs::write(home.workspace.path().join("AGENTS.md"), "Use spaces.\n").unwrap();
    let again = answering();
    let resumed = home.run(&[
        "resume",
        &id.to_string(),
        "-p",
        "again",
        "--base-url",
        &again.base_url,
    ]);
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    assert!(
        resumed.stderr.contains(
            "The instruction files changed since this session last read them: from here on it follows "
        ) && resumed.stderr.contains("AGENTS.md"),
        "{}",
        resumed.stderr
    );
    let sent = again.last_round().to_string();
    assert!(
        sent.contains("Use spaces.") && !sent.contains("Use tabs."),
        "{sent}"
    );
    assert!(sent.contains("Answer in French."), "{sent}");

    // Unchanged since: nothing said.
    let third = answering();
    let quiet = home.run(&[
        "resume",
        &id.to_string(),
        "-p",
        "once more",
        "--base-url",
        &third.base_url,
    ]);
    assert_eq!(quiet.code, 0, "{quiet:#?}");
    assert!(
        !quiet.stderr.contains("instruction files changed"),
        "{}",
        quiet.stderr
    );
}
