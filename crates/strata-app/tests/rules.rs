//! Approval rules through the app, as both front ends use them: listing,
//! adding and removing the user's and a workspace's rules; "always allow"
//! on an approval saving the request's proposal and the next matching
//! command running by it; "allow for this session" holding after a resume.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};

use strata_app::App;
use strata_core::agent::EventHandler;
use strata_protocol::{
    AddRule, AgentEvent, AnswerApproval, ApprovalDecision, CommandErrorKind, DecidedBy,
    EventEnvelope, ListRules, MainlineEvent, RecordBody, RemoveRule, RuleKind, RuleList, RuleRef,
    RuleSource, SessionId,
};
mod support;
use support::{Fixture, create, read_json_body, runtime, send, write_chat_reply};

/// One scripted reply of the local Chat Completions server.
enum Reply {
    Shell(&'static str),
    /// A call of this tool once a request offers it (until then, a
    /// harmless `list_directory` call that needs no approval).
    Tool(&'static str),
    Text(&'static str),
}

fn offers(body: &serde_json::Value, name: &str) -> bool {
    body["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|tool| tool["function"]["name"] == name))
}

/// A local server answering each request with the next scripted reply.
fn chat_server(script: Vec<Reply>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let script = Arc::new(Mutex::new(VecDeque::from(script)));
    std::thread::spawn(move || {
        for (n, socket) in listener.incoming().enumerate() {
            let Ok(mut socket) = socket else { return };
            let body = read_json_body(&mut socket);
            let reply = {
                let mut script = script.lock().unwrap();
                match script.front() {
                    Some(Reply::Tool(name)) if !offers(&body, name) => {
                        Reply::Tool("list_directory")
                    }
                    _ => script.pop_front().unwrap_or(Reply::Text("Done.")),
                }
            };
            let call = |name: &str, arguments: serde_json::Value| {
                serde_json::json!({"role": "assistant", "tool_calls": [{
                    "index": 0,
                    "id": format!("call_{n}"),
                    "type": "function",
                    "function": {"name": name, "arguments": arguments.to_string()},
                }]})
            };
            let (delta, finish) = match reply {
                Reply::Shell(command) => (
                    call("run_shell", serde_json::json!({"command": command})),
                    "tool_calls",
                ),
                Reply::Tool(name) => (call(name, serde_json::json!({"text": "hi"})), "tool_calls"),
                Reply::Text(text) => (
                    serde_json::json!({"role": "assistant", "content": text}),
                    "stop",
                ),
            };
            write_chat_reply(&mut socket, delta, finish);
        }
    });
    base_url
}

fn local(base_url: &str) -> Fixture {
    Fixture::new(&format!(
        "default_profile = \"local\"\n\
         [profiles.local]\nkind = \"openai-chat\"\nmodel = \"qwen3-coder\"\nbase_url = \"{base_url}\"\n"
    ))
}

fn workspace_of(fixture: &Fixture) -> String {
    fixture.workspace.path().display().to_string()
}

/// Two turns, each running one `git status` command and answering.
fn two_git_turns() -> Vec<Reply> {
    vec![
        Reply::Shell("git status"),
        Reply::Text("Looked."),
        Reply::Shell("git status --short"),
        Reply::Text("Looked again."),
    ]
}

/// Answers every approval request with `decision` and keeps what was
/// asked (its call id and proposed rules).
#[derive(Clone)]
struct Answerer {
    app: Arc<App>,
    session_id: SessionId,
    decision: ApprovalDecision,
    asked: Arc<Mutex<Vec<Asked>>>,
}

/// One approval request: its call id and its proposed rules.
type Asked = (String, Vec<String>);

impl EventHandler for Answerer {
    async fn handle(&mut self, envelope: EventEnvelope) {
        if let AgentEvent::Mainline(MainlineEvent::ApprovalRequested {
            call_id,
            proposed_rules,
            ..
        }) = envelope.event
        {
            self.asked
                .lock()
                .unwrap()
                .push((call_id.clone(), proposed_rules));
            let answered = self
                .app
                .answer_approval(AnswerApproval {
                    session_id: self.session_id,
                    call_id,
                    decision: self.decision,
                })
                .await
                .unwrap();
            assert!(answered);
        }
    }
}

fn answerer(app: &Arc<App>, id: SessionId, decision: ApprovalDecision) -> Answerer {
    Answerer {
        app: Arc::clone(app),
        session_id: id,
        decision,
        asked: Arc::default(),
    }
}

fn rule(source: RuleSource, list: RuleList, kind: RuleKind, pattern: &str) -> RuleRef {
    RuleRef {
        source,
        list,
        kind,
        pattern: pattern.into(),
    }
}

/// The session's approval decisions: (decision, by, rules).
fn decisions(app: &App, id: SessionId) -> Vec<(ApprovalDecision, DecidedBy, Vec<RuleRef>)> {
    let path = app.store().session_path(id);
    strata_core::store::read_session_file(&path, strata_core::store::ReadMode::Strict)
        .unwrap()
        .records
        .into_iter()
        .filter_map(|record| match record.body {
            RecordBody::ApprovalDecision(d) => Some((d.decision, d.by, d.rules)),
            _ => None,
        })
        .collect()
}

/// The session recorded the person's "always allow" saving `rule`, then a
/// run decided by it.
fn assert_always_allowed_then_run_by(app: &App, id: SessionId, rule: RuleRef) {
    assert_eq!(
        decisions(app, id),
        vec![
            (
                ApprovalDecision::AlwaysAllow,
                DecidedBy::Person,
                vec![rule.clone()]
            ),
            (ApprovalDecision::AllowOnce, DecidedBy::Rule, vec![rule]),
        ]
    );
}

fn git_status_rule(source: RuleSource) -> RuleRef {
    rule(source, RuleList::Allow, RuleKind::Command, "git status*")
}

#[test]
fn rules_are_listed_added_and_removed_for_the_user_and_a_workspace() {
    let fixture = Fixture::new("");
    let rt = runtime();
    rt.block_on(async {
        let app = fixture.app();
        let workspace = Some(workspace_of(&fixture));
        let listing = app.list_rules(ListRules::default()).await.unwrap();
        assert!(listing.rules.is_empty() && listing.not_applied.is_empty());

        app.add_rule(AddRule {
            workspace: None,
            kind: RuleKind::Command,
            list: RuleList::Allow,
            pattern: " git status* ".into(),
        })
        .await
        .unwrap();
        let listing = app
            .add_rule(AddRule {
                workspace: workspace.clone(),
                kind: RuleKind::Write,
                list: RuleList::Deny,
                pattern: "secrets/**".into(),
            })
            .await
            .unwrap();
        assert_eq!(
            listing.rules,
            vec![
                git_status_rule(RuleSource::User),
                rule(
                    RuleSource::Workspace,
                    RuleList::Deny,
                    RuleKind::Write,
                    "secrets/**"
                ),
            ]
        );
        // The user's rules alone when no workspace is named.
        let user_only = app.list_rules(ListRules::default()).await.unwrap();
        assert_eq!(user_only.rules, vec![git_status_rule(RuleSource::User)]);
        let config = std::fs::read_to_string(fixture.paths.config_file()).unwrap();
        assert!(config.contains("git status*"), "{config}");

        // A pattern that does not parse, or none, is refused and saves nothing.
        for pattern in ["", "cargo 'test"] {
            let error = app
                .add_rule(AddRule {
                    workspace: workspace.clone(),
                    kind: RuleKind::Command,
                    list: RuleList::Allow,
                    pattern: pattern.into(),
                })
                .await
                .unwrap_err();
            assert!(
                matches!(
                    error.kind,
                    CommandErrorKind::InvalidInput | CommandErrorKind::Io
                ),
                "{pattern}: {error:?}"
            );
        }

        let listing = app
            .remove_rule(RemoveRule {
                workspace: None,
                kind: RuleKind::Command,
                list: RuleList::Allow,
                pattern: "git status*".into(),
            })
            .await
            .unwrap();
        // The listing answered is the request's: the user's alone here.
        assert!(listing.rules.is_empty());
        let listing = app
            .list_rules(ListRules {
                workspace: workspace.clone(),
            })
            .await
            .unwrap();
        assert_eq!(
            listing.rules,
            vec![rule(
                RuleSource::Workspace,
                RuleList::Deny,
                RuleKind::Write,
                "secrets/**"
            )]
        );
    });
}

#[test]
fn a_workspace_file_edited_outside_strata_lists_its_allow_rules_as_not_applied() {
    let fixture = Fixture::new("");
    let rt = runtime();
    rt.block_on(async {
        let app = fixture.app();
        let workspace = Some(workspace_of(&fixture));
        app.add_rule(AddRule {
            workspace: workspace.clone(),
            kind: RuleKind::Command,
            list: RuleList::Allow,
            pattern: "git status*".into(),
        })
        .await
        .unwrap();
        let file = fixture.workspace.path().join(".strata/rules.toml");
        std::fs::write(
            &file,
            "allow = [\"git status*\", \"rm*\"]\ndeny = [\"curl*\"]\n",
        )
        .unwrap();
        let listing = app
            .list_rules(ListRules {
                workspace: workspace.clone(),
            })
            .await
            .unwrap();
        assert_eq!(
            listing.rules,
            vec![rule(
                RuleSource::Workspace,
                RuleList::Deny,
                RuleKind::Command,
                "curl*"
            )]
        );
        assert_eq!(
            listing.not_applied,
            vec![
                git_status_rule(RuleSource::Workspace),
                rule(
                    RuleSource::Workspace,
                    RuleList::Allow,
                    RuleKind::Command,
                    "rm*"
                ),
            ]
        );
        // Trusting one (adding it here) saves the file: that rule applies,
        // the one not confirmed is gone.
        let listing = app
            .add_rule(AddRule {
                workspace,
                kind: RuleKind::Command,
                list: RuleList::Allow,
                pattern: "git status*".into(),
            })
            .await
            .unwrap();
        assert!(listing.not_applied.is_empty());
        assert!(
            listing
                .rules
                .contains(&git_status_rule(RuleSource::Workspace))
        );
        assert!(!std::fs::read_to_string(&file).unwrap().contains("rm*"));
    });
}

#[test]
fn always_allow_saves_the_proposed_rule_and_the_next_matching_command_runs_by_it() {
    let base_url = chat_server(two_git_turns());
    let fixture = local(&base_url);
    let rt = runtime();
    rt.block_on(async {
        let app = fixture.app();
        let id = create(&app, fixture.workspace.path()).await;
        let first = answerer(&app, id, ApprovalDecision::AlwaysAllow);
        send(&app, id, "Look at the repository", first.clone()).await;
        let asked = first.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].1, vec!["git status*".to_owned()]);
        let saved = rules_file(fixture.workspace.path());
        assert!(saved.contains("git status*"), "{saved}");

        let second = answerer(&app, id, ApprovalDecision::Deny);
        send(&app, id, "Look again", second.clone()).await;
        assert!(second.asked.lock().unwrap().is_empty(), "no prompt");
        assert_always_allowed_then_run_by(&app, id, git_status_rule(RuleSource::Workspace));
        // And Settings lists it, trusted.
        let listing = app
            .list_rules(ListRules {
                workspace: Some(workspace_of(&fixture)),
            })
            .await
            .unwrap();
        assert_eq!(listing.rules, vec![git_status_rule(RuleSource::Workspace)]);
        assert!(listing.not_applied.is_empty());
    });
}

#[cfg(unix)]
#[test]
fn always_allow_on_an_mcp_tool_saves_it_bound_to_the_server_and_its_next_call_runs_by_it() {
    let base_url = chat_server(vec![
        Reply::Tool("mcp__fixture__echo"),
        Reply::Text("Echoed."),
        Reply::Tool("mcp__fixture__echo"),
        Reply::Text("Echoed again."),
    ]);
    let server = strata_testkit::mcp_fixture::path();
    let fixture = Fixture::new(&format!(
        "default_profile = \"local\"\n\
         [profiles.local]\nkind = \"openai-chat\"\nmodel = \"qwen3-coder\"\nbase_url = \"{base_url}\"\n\
         [mcp_servers.fixture]\ncommand = {:?}\n",
        server.display().to_string()
    ));
    let rt = runtime();
    rt.block_on(async {
        let app = fixture.app();
        let id = create(&app, fixture.workspace.path()).await;
        let first = answerer(&app, id, ApprovalDecision::AlwaysAllow);
        send(&app, id, "Echo", first.clone()).await;
        let asked = first.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{asked:?}");
        let proposed = asked[0].1.clone();
        assert_eq!(proposed.len(), 1);
        assert!(
            proposed[0].starts_with("fixture/echo@sha256:"),
            "{proposed:?}"
        );
        let saved = rules_file(fixture.workspace.path());
        assert!(
            saved.contains("mcp_allow") && saved.contains(&proposed[0]),
            "{saved}"
        );

        let second = answerer(&app, id, ApprovalDecision::Deny);
        send(&app, id, "Echo again", second.clone()).await;
        assert!(second.asked.lock().unwrap().is_empty(), "no prompt");
        let saved_rule = rule(
            RuleSource::Workspace,
            RuleList::Allow,
            RuleKind::Mcp,
            &proposed[0],
        );
        assert_always_allowed_then_run_by(&app, id, saved_rule);
        let listing = app
            .list_rules(ListRules {
                workspace: Some(workspace_of(&fixture)),
            })
            .await
            .unwrap();
        assert_eq!(listing.rules.len(), 1);
        assert!(listing.no_server.is_empty(), "{listing:?}");
        app.shutdown().await;
    });
}

#[test]
fn always_allow_is_refused_when_nothing_is_proposed_and_no_call_waits() {
    let fixture = Fixture::new("");
    let rt = runtime();
    rt.block_on(async {
        let app = fixture.app();
        let id = create(&app, fixture.workspace.path()).await;
        let answered = app
            .answer_approval(AnswerApproval {
                session_id: id,
                call_id: "call_none".into(),
                decision: ApprovalDecision::AlwaysAllow,
            })
            .await
            .unwrap();
        assert!(!answered);
        assert!(!fixture.workspace.path().join(".strata").exists());
    });
}

#[test]
fn allow_for_session_still_holds_after_the_session_is_resumed() {
    let base_url = chat_server(two_git_turns());
    let fixture = local(&base_url);
    let rt = runtime();
    rt.block_on(async {
        let app = fixture.app();
        let id = create(&app, fixture.workspace.path()).await;
        let first = answerer(&app, id, ApprovalDecision::AllowForSession);
        send(&app, id, "Look at the repository", first.clone()).await;
        assert_eq!(first.asked.lock().unwrap().len(), 1);
        drop(first);
        drop(app);

        // A new app resumes the session from its file.
        let app = fixture.app();
        let second = answerer(&app, id, ApprovalDecision::Deny);
        send(&app, id, "Look again", second.clone()).await;
        assert!(
            second.asked.lock().unwrap().is_empty(),
            "no prompt after the resume"
        );
        let recorded = decisions(&app, id);
        assert_eq!(recorded.len(), 2, "{recorded:?}");
        assert_eq!(
            recorded[1],
            (
                ApprovalDecision::AllowOnce,
                DecidedBy::Rule,
                vec![git_status_rule(RuleSource::Session)]
            )
        );
        assert!(!fixture.workspace.path().join(".strata").exists());
    });
}

fn rules_file(workspace: &Path) -> String {
    std::fs::read_to_string(workspace.join(".strata/rules.toml")).unwrap()
}
