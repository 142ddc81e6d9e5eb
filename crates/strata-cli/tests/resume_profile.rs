//! Sessions resume where they were made (issue 9): the endpoint a session
//! was created on is recorded, `strata resume` goes back there without
//! flags, another profile is only chosen with flags (and recorded), and a
//! recorded profile that cannot be used stops the resume with exit 2.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use strata_protocol::{ProfileChange, ProviderKind, RecordBody, SessionStarted};
use support::server::{Reply, ResponsesServer, sse_chat_text};
use support::{Home, announced_id};

fn local_chat_server() -> ResponsesServer {
    ResponsesServer::start(|_, _| Reply::Sse(sse_chat_text("Noted.", 50, 5)))
}

fn start_on(home: &Home, base_url: &str) -> strata_protocol::SessionId {
    let run = home.run(&[
        "run",
        "-p",
        "First question",
        "--provider",
        "openai-chat",
        "--base-url",
        base_url,
        "--model",
        "qwen3-coder",
    ]);
    assert_eq!(run.code, 0, "{run:#?}");
    announced_id(&run.stderr)
}

fn profile_records(
    home: &Home,
    id: strata_protocol::SessionId,
) -> Vec<strata_protocol::ProfileSet> {
    let read = home
        .store()
        .open_reader(id, strata_core::ReadMode::Strict)
        .unwrap();
    read.records
        .into_iter()
        .filter_map(|record| match record.body {
            RecordBody::ProfileSet(profile) => Some(profile),
            _ => None,
        })
        .collect()
}

#[test]
fn a_session_made_on_a_local_server_resumes_there_without_flags() {
    let server = local_chat_server();
    let home = Home::new();
    let id = start_on(&home, &server.base_url);
    let recorded = profile_records(&home, id);
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].provider_kind, ProviderKind::OpenaiChat);
    assert_eq!(
        recorded[0].base_url.as_deref(),
        Some(server.base_url.as_str())
    );
    assert_eq!(recorded[0].change, ProfileChange::Created);

    // No OPENAI_API_KEY and no flags: the resume goes back to the local
    // server, not to the default cloud endpoint.
    let resumed = home.run(&["resume", &id.to_string(), "-p", "Second question", "--json"]);
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    let requests = server.wait_for_requests(2);
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1]["model"], "qwen3-coder");
    let first: SessionStarted =
        serde_json::from_str(resumed.stdout.lines().next().unwrap()).unwrap();
    assert!(first.resumed);
    assert_eq!(first.base_url.as_deref(), Some(server.base_url.as_str()));
    assert_eq!(
        profile_records(&home, id).len(),
        1,
        "no switch was recorded"
    );
}

#[test]
fn flags_on_resume_switch_the_profile_and_the_switch_is_recorded_and_shown() {
    let first = local_chat_server();
    let second = local_chat_server();
    let home = Home::new();
    let id = start_on(&home, &first.base_url);
    let resumed = home.run(&[
        "resume",
        &id.to_string(),
        "-p",
        "Again",
        "--base-url",
        &second.base_url,
        "--model",
        "llama3",
    ]);
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    assert!(
        resumed.stderr.contains("switched to openai-chat · llama3"),
        "{resumed:#?}"
    );
    assert_eq!(second.wait_for_requests(1)[0]["model"], "llama3");
    assert_eq!(first.requests().len(), 1);
    let records = profile_records(&home, id);
    assert_eq!(records.len(), 2);
    assert_eq!(records[1].change, ProfileChange::Switched);
    assert_eq!(
        records[1].base_url.as_deref(),
        Some(second.base_url.as_str())
    );

    let show = home.run(&["sessions", "show", &id.to_string(), "--color", "never"]);
    assert_eq!(show.code, 0, "{show:#?}");
    assert!(
        show.stdout.contains("created on openai-chat · qwen3-coder"),
        "{}",
        show.stdout
    );
    assert!(
        show.stdout.contains("switched to openai-chat · llama3"),
        "{}",
        show.stdout
    );

    // The next resume without flags stays on the switched-to endpoint.
    let again = home.run(&["resume", &id.to_string(), "-p", "Once more"]);
    assert_eq!(again.code, 0, "{again:#?}");
    assert_eq!(second.wait_for_requests(2).len(), 2);
}

#[test]
fn a_recorded_profile_that_is_gone_or_needs_a_missing_key_stops_the_resume_with_exit_2() {
    let server = local_chat_server();
    let home = Home::new();
    let config = home.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        format!(
            "default_profile = \"local\"\n[profiles.local]\nkind = \"openai-chat\"\nmodel = \"qwen3-coder\"\nbase_url = \"{}\"\n",
            server.base_url
        ),
    )
    .unwrap();
    let run = home.run(&["run", "-p", "Hello"]);
    assert_eq!(run.code, 0, "{run:#?}");
    let id = announced_id(&run.stderr);
    assert_eq!(
        profile_records(&home, id)[0].profile.as_deref(),
        Some("local")
    );

    // The profile goes away: no silent fall back to another one.
    std::fs::write(config.join("config.toml"), "").unwrap();
    let gone = home.run(&["resume", &id.to_string(), "-p", "Again"]);
    assert_eq!(gone.code, 2, "{gone:#?}");
    assert!(gone.stderr.contains("\"local\""), "{gone:#?}");
    assert!(gone.stderr.contains("no longer exists"), "{gone:#?}");
    assert!(gone.stderr.contains("--provider"), "{gone:#?}");
    assert_eq!(server.requests().len(), 1);

    // A session on a cloud endpoint whose key is not set says so.
    let cloud = home.run(&["run", "-p", "Hi", "--provider", "demo"]);
    assert_eq!(cloud.code, 0, "{cloud:#?}");
    let cloud_id = announced_id(&cloud.stderr);
    let mut session = home.store().open_writer(cloud_id).unwrap();
    session
        .append(RecordBody::ProfileSet(strata_protocol::ProfileSet {
            provider_kind: ProviderKind::Anthropic,
            base_url: Some("https://api.anthropic.com/v1".into()),
            model: "claude-sonnet-4-5".into(),
            profile: None,
            change: ProfileChange::Switched,
            approval: None,
        }))
        .unwrap();
    drop(session);
    let keyless = home.run(&["resume", &cloud_id.to_string(), "-p", "Again"]);
    assert_eq!(keyless.code, 2, "{keyless:#?}");
    assert!(keyless.stderr.contains("ANTHROPIC_API_KEY"), "{keyless:#?}");
    assert!(keyless.stderr.contains("--base-url"), "{keyless:#?}");
}

#[test]
fn a_session_from_before_recorded_profiles_resumes_on_its_kind_and_model_and_says_so() {
    let home = Home::new();
    let mut session = home
        .store()
        .create(home.path(), "demo", strata_providers::DEMO_MODEL)
        .unwrap();
    session
        .commit_item(strata_protocol::ResponseItem::system("You are Strata."))
        .unwrap();
    let id = session.id();
    drop(session);
    let resumed = home.run(&["resume", &id.to_string(), "-p", "Hello"]);
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    assert!(
        resumed.stderr.contains("predates recorded profiles"),
        "{resumed:#?}"
    );
}

#[test]
fn a_session_run_with_approval_auto_resumes_as_auto_unless_a_flag_chooses_another() {
    use support::server::{sse_call, sse_text};
    // The run answers; each resume's first round writes a file, then answers.
    let write = |n: usize, path: &str| {
        Reply::Sse(sse_call(
            &format!("call_{n}"),
            "write_file",
            &serde_json::json!({"path": path, "content": "auto"}),
            100,
            10,
        ))
    };
    let server = ResponsesServer::start(move |n, _| match n {
        1 => write(n, "kept.txt"),
        3 => write(n, "refused.txt"),
        _ => Reply::Sse(sse_text("Done.", 100, 5)),
    });
    let home = Home::new();
    let run = home.run(&support::responses_run(
        "Start",
        &server.base_url,
        &["--approval", "auto"],
    ));
    assert_eq!(run.code, 0, "{run:#?}");
    let id = announced_id(&run.stderr).to_string();

    // No --approval: the recorded `auto`, so the write runs with no one to ask.
    let resumed = home.run(&["resume", &id, "-p", "Write it", "--json"]);
    assert_eq!(resumed.code, 0, "{resumed:#?}");
    let first: SessionStarted =
        serde_json::from_str(resumed.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first.approval, strata_protocol::ApprovalPolicy::Auto);
    assert!(resumed.stderr.contains("approval auto"), "{resumed:#?}");
    assert_eq!(
        std::fs::read_to_string(home.workspace.path().join("kept.txt")).unwrap(),
        "auto"
    );

    // A flag wins for its run, and the session keeps its own policy.
    let flagged = home.run(&[
        "resume",
        &id,
        "-p",
        "Write another",
        "--approval",
        "read-only",
    ]);
    assert_eq!(flagged.code, 0, "{flagged:#?}");
    assert!(!home.workspace.path().join("refused.txt").exists());
    let recorded = profile_records(&home, announced_id(&run.stderr));
    assert_eq!(recorded.len(), 1);
    assert_eq!(
        recorded[0].approval,
        Some(strata_protocol::ApprovalPolicy::Auto)
    );
}
