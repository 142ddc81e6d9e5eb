//! Other agents' session files through strata-import's readers: any bytes
//! read without a panic, every line is counted, items and compactions point
//! inside the file, and a garbage line appended after a whole last line
//! takes nothing away.

use strata_import::{ImportedSession, ItemKind, Tool, read_from_capped};

use super::{Shape, shape_of};

/// A small line cap, so inputs reach the too-long path too.
const FUZZ_LINE_CAP: usize = 4096;

pub const DICTIONARY: &[&[u8]] = &[
    b"{\"timestamp\":\"2026-06-26T12:00:00.000Z\",\"type\":\"",
    b"\"type\":\"response_item\"",
    b"\"type\":\"event_msg\"",
    b"\"type\":\"compacted\"",
    b"\"type\":\"token_count\"",
    b"\"type\":\"context_compacted\"",
    b"\"type\":\"task_started\"",
    b"\"replacement_history\":[",
    b"\"last_token_usage\":{\"input_tokens\":0,\"output_tokens\":0,\"total_tokens\":9}",
    b"\"type\":\"user\"",
    b"\"type\":\"assistant\"",
    b"\"subtype\":\"compact_boundary\"",
    b"\"subtype\":\"microcompact_boundary\"",
    b"\"isCompactSummary\":true",
    b"\"compactMetadata\":{\"trigger\":\"auto\",\"preTokens\":18446744073709551615}",
    b"\"type\":\"assistant.message\"",
    b"\"type\":\"tool.execution_complete\"",
    b"\"toolRequests\":[{\"toolCallId\":\"t\",\"name\":\"bash\",\"arguments\":{}}]",
    b"\xEF\xBB\xBF",
    b"\r\n",
    b"\\ud800",
    b"\n",
    b"}\n",
];

/// One small session of `tool`'s format, and the real ones beside the
/// repository when they are there.
pub fn seeds(tool: Tool) -> Vec<Vec<u8>> {
    let (inline, folder): (&[&str], &str) = match tool {
        Tool::Codex => (
            &[
                r#"{"timestamp":"2026-06-26T12:00:00.000Z","type":"session_meta","payload":{"id":"t","cwd":"/w","cli_version":"0.142.2"}}"#,
                r#"{"timestamp":"2026-06-26T12:00:00.000Z","type":"event_msg","payload":{"type":"task_started"}}"#,
                r#"{"timestamp":"2026-06-26T12:00:00.000Z","type":"response_item","payload":{"type":"function_call","name":"exec","arguments":"{}","call_id":"c"}}"#,
                r#"{"timestamp":"2026-06-26T12:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":9,"output_tokens":1,"total_tokens":10}}}}"#,
                r#"{"timestamp":"2026-06-26T12:00:00.000Z","type":"compacted","payload":{"message":"","replacement_history":[{"type":"compaction","encrypted_content":"x"}]}}"#,
                r#"{"timestamp":"2026-06-26T12:00:00.000Z","type":"event_msg","payload":{"type":"context_compacted"}}"#,
            ],
            "codex",
        ),
        Tool::ClaudeCode => (
            &[
                r#"{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}"#,
                r#"{"type":"assistant","uuid":"u2","requestId":"r","message":{"id":"m","model":"claude","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}],"usage":{"input_tokens":1,"output_tokens":2}}}"#,
                r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual","preTokens":3}}"#,
                r#"{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"}}"#,
            ],
            "claude",
        ),
        Tool::CopilotCli => (
            &[
                r#"{"type":"session.start","data":{"sessionId":"s","copilotVersion":"1.0.64","context":{"cwd":"/w"}}}"#,
                r#"{"type":"assistant.message","data":{"content":"ok","toolRequests":[{"toolCallId":"t","name":"bash","arguments":{}}],"outputTokens":4}}"#,
                r#"{"type":"tool.execution_complete","data":{"toolCallId":"t","success":false,"error":{"message":"no"}}}"#,
            ],
            "copilot",
        ),
    };
    let mut seeds = vec![format!("{}\n", inline.join("\n")).into_bytes()];
    let real = strata_testkit::shared_dir()
        .join(strata_testkit::SESSIONS)
        .join(folder);
    if let Ok(entries) = std::fs::read_dir(real) {
        let mut files: Vec<_> = entries
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
            .collect();
        files.sort();
        seeds.extend(files.iter().filter_map(|path| std::fs::read(path).ok()));
    }
    seeds
}

fn read(tool: Tool, data: &[u8]) -> ImportedSession {
    read_from_capped(tool, data, FUZZ_LINE_CAP)
}

pub fn run(tool: Tool, data: &[u8]) -> Shape {
    let session = read(tool, data);
    let warnings = &session.warnings;
    let lines = data.split(|byte| *byte == b'\n').count() as u64
        - u64::from(data.is_empty() || data.ends_with(b"\n"));
    assert_eq!(warnings.lines, lines, "every line is counted");
    assert!(warnings.unreadable_lines + warnings.too_long_lines <= lines);
    assert!(
        session
            .items
            .windows(2)
            .all(|pair| pair[0].line <= pair[1].line)
    );
    assert!(
        session
            .items
            .iter()
            .all(|item| item.line >= 1 && item.line <= lines)
    );
    for compaction in &session.compactions {
        assert!(compaction.at_item <= session.items.len(), "{compaction:?}");
        assert!(compaction.line >= 1 && compaction.line <= lines);
    }
    if data.is_empty() || data.ends_with(b"\n") {
        let mut more = data.to_vec();
        more.extend_from_slice(b"#not a record\n");
        let longer = read(tool, &more);
        assert_eq!(
            longer.items, session.items,
            "a garbage line took items away"
        );
        assert_eq!(longer.compactions, session.compactions);
        assert_eq!(
            longer.warnings.unreadable_lines,
            warnings.unreadable_lines + 1
        );
    }
    let kinds: Vec<u8> = session
        .items
        .iter()
        .map(|item| match item.kind {
            ItemKind::User { .. } => 0,
            ItemKind::Assistant { .. } => 1,
            ItemKind::Reasoning { .. } => 2,
            ItemKind::ToolCall { .. } => 3,
            ItemKind::ToolOutput { .. } => 4,
        })
        .collect();
    shape_of((
        kinds,
        session.compactions.len(),
        session.rounds.len(),
        warnings.unreadable_lines > 0,
        warnings.too_long_lines > 0,
        warnings.unknown_types.len(),
    ))
}
