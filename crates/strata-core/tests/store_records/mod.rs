//! A body of every record type, for the store's round-trip tests.

use strata_protocol::{
    ApprovalDecision, ApprovalDecisionRecord, CompactionMetadata, CompactionSummary,
    CompactionTrigger, ErrorRecord, FullToolOutput, ItemId, ModelError, ProfileChange, ProfileSet,
    ProviderKind, ReasoningItem, RecordBody, ResponseItem, RetryRecord, Role, RoundId, RoundRecord,
    TitleSet, TokenUsage, TokenUsageRecord, ToolChoice, ToolSpec, TurnFinished, TurnId,
    TurnOutcome, TurnStarted, UnknownRecord,
};

/// One body of every record type (and every item kind), the unknown included.
pub fn one_of_each_record_type() -> Vec<RecordBody> {
    let turn_id = TurnId::new();
    let round_id = RoundId::new();
    let output_id = ItemId::new();
    let tool = ToolSpec {
        name: "read_file".into(),
        description: "Read a file.".into(),
        parameters: serde_json::json!({"type":"object","properties":{"path":{"type":"string"}}}),
    };
    let bodies = vec![
        RecordBody::TitleSet(TitleSet {
            title: "Parser".into(),
        }),
        // Not after a compaction: the store writes its own checkpoint there.
        RecordBody::Checkpoint(Box::new(strata_protocol::Checkpoint {
            history: vec![ResponseItem::user("Read a.rs")],
            last_usage: Some(strata_protocol::CheckpointUsage {
                usage: TokenUsage {
                    input_tokens: Some(1200),
                    ..TokenUsage::default()
                },
                items: 1,
            }),
            state: strata_protocol::CheckpointState {
                records: 12,
                explicit_title: Some("Parser".into()),
                ..Default::default()
            },
        })),
        RecordBody::TurnStarted(TurnStarted { turn_id }),
        RecordBody::ResponseItem(ResponseItem::message(Role::Developer, "Be terse.")),
        RecordBody::ResponseItem(ResponseItem::user("Read a.rs")),
        RecordBody::Round(RoundRecord {
            turn_id,
            round_id,
            provider_kind: "anthropic".into(),
            model: "claude-sonnet-4-5".into(),
            tools: vec![tool],
            tool_choice: Some(ToolChoice::Tool {
                name: "read_file".into(),
            }),
            max_output_tokens: Some(4096),
            input_items: 2,
            estimated_input_tokens: None,
            reasoning: None,
            cache_anchors: Vec::new(),
        }),
        RecordBody::Retry(RetryRecord {
            round_id: Some(round_id),
            attempt: 1,
            of: 4,
            delay_ms: 500,
            cause: "overloaded".into(),
        }),
        RecordBody::ResponseItem(ResponseItem::Reasoning(ReasoningItem {
            id: ItemId::new(),
            provider: "anthropic".into(),
            payload: serde_json::json!({"type":"thinking","thinking":"…","signature":"sig"}),
        })),
        RecordBody::ResponseItem(ResponseItem::function_call(
            "toolu_1",
            "read_file",
            r#"{"path":"a.rs"}"#,
        )),
        RecordBody::TokenUsage(TokenUsageRecord {
            round_id: Some(round_id),
            cost: None,
            price: None,
            usage: TokenUsage {
                input_tokens: Some(1200),
                cached_input_tokens: Some(1000),
                cache_write_input_tokens: None,
                cache_write_5m_input_tokens: None,
                cache_write_1h_input_tokens: None,
                output_tokens: Some(40),
                reasoning_output_tokens: Some(12),
                total_tokens: Some(1240),
            },
        }),
        RecordBody::ApprovalDecision(ApprovalDecisionRecord {
            call_id: "toolu_1".into(),
            tool: "read_file".into(),
            decision: ApprovalDecision::AllowOnce,
            by: strata_protocol::DecidedBy::Rule,
            rules: vec![strata_protocol::RuleRef {
                source: strata_protocol::RuleSource::Workspace,
                list: strata_protocol::RuleList::Allow,
                kind: strata_protocol::RuleKind::Command,
                pattern: "cargo test*".into(),
            }],
        }),
        RecordBody::ResponseItem(ResponseItem::FunctionCallOutput(
            strata_protocol::FunctionCallOutput {
                id: output_id,
                call_id: "toolu_1".into(),
                output: "fn a() {}\n[capped]".into(),
            },
        )),
        RecordBody::FullToolOutput(FullToolOutput {
            call_id: "toolu_1".into(),
            item_id: output_id,
            output: "fn a() {}\nfn b() {}\n".into(),
        }),
        RecordBody::ResponseItem(ResponseItem::assistant("Done.")),
        RecordBody::Error(ErrorRecord {
            turn_id: Some(turn_id),
            message: "the round failed".into(),
            model_error: Some(ModelError::RateLimited {
                retry_after_ms: Some(2000),
                message: "slow down".into(),
            }),
        }),
        RecordBody::TurnFinished(TurnFinished {
            turn_id,
            outcome: TurnOutcome::RoundLimit,
            rounds: 1,
        }),
        RecordBody::ResponseItem(ResponseItem::CompactionSummary(CompactionSummary {
            id: ItemId::new(),
            summary: "Read a.rs.".into(),
            metadata: CompactionMetadata {
                trigger: CompactionTrigger::Manual,
                reason: "asked for".into(),
                context_tokens: None,
                threshold: None,
                removed: 4,
                kept: 2,
                summarizer_model: "m".into(),
                summarizer_usage: None,
                summarizer_cost: None,
                duration_ms: 9,
            },
        })),
        RecordBody::ProfileSet(ProfileSet {
            provider_kind: ProviderKind::OpenaiChat,
            base_url: Some("http://127.0.0.1:9/v1".into()),
            model: "qwen3".into(),
            profile: Some("local".into()),
            change: ProfileChange::Created,
            approval: None,
        }),
        RecordBody::CompactionPolicy(strata_protocol::CompactionPolicyRecord {
            policy: strata_protocol::CompactionPolicy::Layered,
            threshold: Some(strata_protocol::ThresholdSetting::Left(20_000)),
        }),
        RecordBody::ToolOutputsEvicted(strata_protocol::ToolOutputsEvicted {
            trigger: strata_protocol::CompactionTrigger::Auto,
            context_tokens: Some(9_000),
            threshold: 8_000,
            low_water: 4_000,
            estimated_before: 9_100,
            estimated_after: 3_900,
            evicted: vec![strata_protocol::EvictedOutput {
                item_id: output_id,
                call_id: "toolu_1".into(),
                tool: "read_file".into(),
                chars: 18,
                placeholder: "[tool output evicted: read_file]".into(),
            }],
        }),
        RecordBody::LayeredCompaction(Box::new(strata_protocol::LayeredCompaction {
            summary: CompactionSummary {
                id: ItemId::new(),
                summary: "Read a.rs.".into(),
                metadata: CompactionMetadata {
                    trigger: strata_protocol::CompactionTrigger::PreTurn,
                    reason: "before the message".into(),
                    context_tokens: None,
                    threshold: Some(8_000),
                    removed: 4,
                    kept: 2,
                    summarizer_model: "m".into(),
                    summarizer_usage: None,
                    summarizer_cost: None,
                    duration_ms: 9,
                },
            },
            sheet_message: strata_protocol::Message {
                id: ItemId::new(),
                role: strata_protocol::Role::User,
                content: "[State sheet] Files: src/a.rs".into(),
            },
            state_sheet: strata_protocol::StateSheet {
                files: vec![strata_protocol::SheetFile {
                    path: "src/a.rs".into(),
                    last_action: "read".into(),
                }],
                text: "[State sheet] Files: src/a.rs".into(),
                ..Default::default()
            },
            leading: Vec::new(),
            kept: Vec::new(),
            folded_out: 1,
            estimated_before: 3_900,
            estimated_after: 600,
            loss_audit: strata_protocol::LossAudit::default(),
        })),
        RecordBody::CompactionGuard(strata_protocol::CompactionGuardRecord::SummaryFailed {
            trigger: strata_protocol::CompactionTrigger::Auto,
            attempts: 4,
            message: "the summarizer returned no text".into(),
            estimated_tokens: 7_500,
            threshold: 8_000,
        }),
        RecordBody::CompactionGuard(strata_protocol::CompactionGuardRecord::CircuitReset),
        RecordBody::ItemPin(strata_protocol::ItemPin {
            item_id: output_id,
            pinned: true,
        }),
        RecordBody::CompactionUndone(strata_protocol::CompactionUndone {
            summary_item_id: ItemId::new(),
            restored: vec![output_id],
            estimated_tokens: 120,
            threshold: 8_000,
        }),
        RecordBody::SessionForked(strata_protocol::SessionForked {
            parent_session_id: strata_protocol::SessionId::new(),
            parent_records: 4,
            point: strata_protocol::ForkPoint::AtItem { item_id: output_id },
        }),
        RecordBody::SessionImported(strata_protocol::SessionImported {
            source: strata_protocol::ImportSource::Codex,
            source_path: "/home/p/.codex/sessions/rollout.jsonl".into(),
            source_session_id: None,
            source_items: 9,
            dropped_items: 2,
        }),
        RecordBody::CompactionRefused(strata_protocol::CompactionRefused {
            trigger: strata_protocol::CompactionTrigger::Manual,
            dropped: vec!["the latest user request (verbatim)".into()],
            message: "the compaction was refused".into(),
            summarizer_usage: Some(TokenUsage {
                input_tokens: Some(900),
                ..TokenUsage::default()
            }),
        }),
        RecordBody::SessionRepaired(strata_protocol::SessionRepaired {
            torn_tail: Some(strata_protocol::TornTailMoved {
                bytes: 17,
                sidecar: "session.jsonl.torn-1".into(),
            }),
            aborted_calls: vec!["call_9".into()],
        }),
        RecordBody::ReasoningSet(strata_protocol::ReasoningSet {
            effort: strata_protocol::ReasoningEffort::High,
        }),
        RecordBody::SandboxSet(strata_protocol::SandboxSet {
            mode: strata_protocol::SandboxMode::ReadOnly,
            network: strata_protocol::SandboxNetwork::AllowList,
            allow_domains: vec!["crates.io".into()],
        }),
        RecordBody::FileChange(strata_protocol::FileChange {
            path: "src/lib.rs".into(),
            before: Some(strata_protocol::FileState {
                size: 4,
                sha256: Some("0".repeat(64)),
                stored: true,
            }),
            after: None,
            cause: strata_protocol::ChangeCause::RunShell,
            call_id: "call_7".into(),
            turn_id: None,
        }),
        RecordBody::McpCatalog(strata_protocol::McpCatalog {
            tools: vec![ToolSpec {
                name: "mcp__everything__echo".into(),
                description: "Echoes \u{1b}[31m back".into(),
                parameters: serde_json::json!({"type": "object", "properties": {"message": {"type": "string"}}}),
            }],
            servers: vec![strata_protocol::McpCatalogServer {
                name: "everything".into(),
                fingerprint: format!("sha256:{}", "0".repeat(64)),
                tools: vec![strata_protocol::McpCatalogTool {
                    name: "mcp__everything__echo".into(),
                    tool: "echo".into(),
                    definition: format!("sha256:{}", "1".repeat(64)),
                }],
            }],
        }),
        RecordBody::InstructionsSet(strata_protocol::InstructionsSet {
            item: Some(ResponseItem::message(Role::Developer, "Use spaces.")),
            sources: vec![strata_protocol::InstructionSource {
                label: "AGENTS.md".into(),
                bytes: 12,
                omitted: 0,
            }],
        }),
        RecordBody::Unknown(UnknownRecord {
            record_type: "hologram".into(),
            payload: serde_json::json!({"frames":[1,2,3],"nested":{"ok":true}}),
        }),
    ];
    // Adding a record type makes this match fail to compile until the list
    // above covers it too.
    for body in &bodies {
        match body {
            RecordBody::SessionMeta(_)
            | RecordBody::ResponseItem(_)
            | RecordBody::Round(_)
            | RecordBody::TokenUsage(_)
            | RecordBody::TurnStarted(_)
            | RecordBody::TurnFinished(_)
            | RecordBody::Retry(_)
            | RecordBody::Error(_)
            | RecordBody::ApprovalDecision(_)
            | RecordBody::TitleSet(_)
            | RecordBody::FullToolOutput(_)
            | RecordBody::ProfileSet(_)
            | RecordBody::CompactionPolicy(_)
            | RecordBody::ToolOutputsEvicted(_)
            | RecordBody::LayeredCompaction(_)
            | RecordBody::CompactionGuard(_)
            | RecordBody::ItemPin(_)
            | RecordBody::CompactionUndone(_)
            | RecordBody::SessionForked(_)
            | RecordBody::Checkpoint(_)
            | RecordBody::CompactionRefused(_)
            | RecordBody::SessionRepaired(_)
            | RecordBody::ReasoningSet(_)
            | RecordBody::SandboxSet(_)
            | RecordBody::FileChange(_)
            | RecordBody::McpCatalog(_)
            | RecordBody::InstructionsSet(_)
            | RecordBody::SessionImported(_)
            | RecordBody::Unknown(_) => {}
        }
    }
    bodies
}
