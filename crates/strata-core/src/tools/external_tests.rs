use std::sync::Mutex;

use serde_json::json;
use strata_protocol::{ApprovalDecision, ApprovalPolicy};

use super::*;
use crate::mcp::approval::{McpApprovalMode, McpServerSettings, McpToolSettings};
use crate::mcp::fingerprint::{ServerLaunch, tool_definition_hash};
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
    ServerLaunch {
        command,
        args: &[],
        cwd: None,
        env_names: Default::default(),
    }
    .fingerprint()
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
