//! Writers-for-tests: small session files of each tool's format, built
//! from the records the format notes describe, so committed tests need no
//! copy of anyone's real session.

// Each test binary that includes this module uses only part of it.
#![allow(dead_code)]

use serde_json::{Value, json};

pub fn jsonl(records: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for record in records {
        out.extend_from_slice(record.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}

fn codex(at: &str, kind: &str, payload: Value) -> Value {
    json!({"timestamp": at, "type": kind, "payload": payload})
}

pub fn codex_usage(input: u64, output: u64, running_total: u64) -> Value {
    json!({"info": {
        "total_token_usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": running_total},
        "last_token_usage": {"input_tokens": input, "cached_input_tokens": 0, "output_tokens": output,
                             "reasoning_output_tokens": 0, "total_tokens": input + output},
        "model_context_window": 200000}, "type": "token_count"})
}

/// A Codex turn that calls one tool, is compacted mid-turn (`compacted`
/// with the given summary-bearing replacement history), and goes on.
/// Shown items: prompt, reasoning, call, output | assistant.
pub fn codex_session(message: &str, replacement: Vec<Value>) -> Vec<Value> {
    let t = "2026-06-26T12:00:00.000Z";
    vec![
        codex(
            t,
            "session_meta",
            json!({"id": "thread-1", "timestamp": t, "cwd": "/work/demo", "cli_version": "0.150.0"}),
        ),
        codex(
            t,
            "event_msg",
            json!({"type": "task_started", "turn_id": "turn-1", "model_context_window": 200000}),
        ),
        codex(
            t,
            "turn_context",
            json!({"turn_id": "turn-1", "cwd": "/work/demo", "model": "gpt-test"}),
        ),
        codex(
            t,
            "response_item",
            json!({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions instructions>"}]}),
        ),
        codex(
            t,
            "response_item",
            json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the bug"}]}),
        ),
        codex(
            t,
            "event_msg",
            json!({"type": "user_message", "message": "fix the bug"}),
        ),
        codex(
            t,
            "response_item",
            json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": "Look first."}], "encrypted_content": "gAAA"}),
        ),
        codex(
            t,
            "response_item",
            json!({"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\":\"ls\"}", "call_id": "call_1"}),
        ),
        codex(
            t,
            "response_item",
            json!({"type": "function_call_output", "call_id": "call_1", "output": "src\n\u{1b}[31mred\u{1b}[0m"}),
        ),
        codex(t, "event_msg", codex_usage(5000, 100, 5100)),
        codex(
            t,
            "compacted",
            json!({"message": message, "replacement_history": replacement}),
        ),
        codex(
            t,
            "turn_context",
            json!({"turn_id": "turn-1", "cwd": "/work/demo", "model": "gpt-test"}),
        ),
        codex(
            t,
            "event_msg",
            json!({"type": "token_count", "info": {"last_token_usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 900}}}),
        ),
        codex(t, "event_msg", json!({"type": "context_compacted"})),
        codex(
            t,
            "response_item",
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}),
        ),
        codex(
            t,
            "event_msg",
            json!({"type": "agent_message", "message": "Done."}),
        ),
        codex(t, "event_msg", codex_usage(1200, 50, 6350)),
        codex(
            t,
            "event_msg",
            json!({"type": "task_complete", "turn_id": "turn-1"}),
        ),
    ]
}

pub fn codex_user_message(text: &str) -> Value {
    json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
}

pub fn claude(kind: &str, uuid: &str, body: Value) -> Value {
    let mut record = json!({"parentUuid": null, "isSidechain": false, "cwd": "/work/demo",
        "sessionId": "claude-1", "version": "2.1.30", "type": kind, "uuid": uuid,
        "timestamp": "2026-01-22T01:40:57.814Z"});
    if let (Value::Object(record), Value::Object(body)) = (&mut record, body) {
        record.extend(body);
    }
    record
}

fn claude_usage(input: u64, created: u64, read: u64, output: u64) -> Value {
    json!({"input_tokens": input, "cache_creation_input_tokens": created,
           "cache_read_input_tokens": read, "output_tokens": output})
}

/// A Claude Code session: a prompt, one streamed message split over two
/// lines (thinking, tool_use), its result, a microcompaction, a manual
/// compaction with its summary, and one request after it.
pub fn claude_session() -> Vec<Value> {
    vec![
        json!({"type": "summary", "summary": "Fixing the bug", "leafUuid": "u5"}),
        claude(
            "user",
            "u1",
            json!({"message": {"role": "user", "content": "fix the bug"}}),
        ),
        claude(
            "assistant",
            "u2",
            json!({"requestId": "req_1", "message": {"model": "claude-test", "id": "msg_1", "role": "assistant",
            "content": [{"type": "thinking", "thinking": "", "signature": "sig"}], "usage": claude_usage(3, 10, 100, 1)}}),
        ),
        claude(
            "assistant",
            "u3",
            json!({"requestId": "req_1", "message": {"model": "claude-test", "id": "msg_1", "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}], "usage": claude_usage(3, 10, 100, 40)}}),
        ),
        claude(
            "user",
            "u4",
            json!({"message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "src"}], "is_error": false}]}}),
        ),
        claude(
            "system",
            "u5",
            json!({"subtype": "microcompact_boundary", "microcompactMetadata": {"trigger": "auto", "preTokens": 1000, "tokensSaved": 300, "compactedToolIds": ["toolu_0"]}}),
        ),
        claude(
            "system",
            "u6",
            json!({"subtype": "compact_boundary", "logicalParentUuid": "u5", "compactMetadata": {"trigger": "manual", "preTokens": 153}}),
        ),
        claude(
            "user",
            "u7",
            json!({"isCompactSummary": true, "message": {"role": "user", "content": "This session is being continued. Summary: the bug is in src."}}),
        ),
        claude(
            "user",
            "u8",
            json!({"isMeta": true, "message": {"role": "user", "content": "<local-command-caveat>Caveat</local-command-caveat>"}}),
        ),
        claude(
            "assistant",
            "u9",
            json!({"requestId": "req_2", "isSidechain": true, "message": {"model": "claude-test", "id": "msg_2", "role": "assistant",
            "content": [{"type": "text", "text": "Fixed."}], "usage": claude_usage(2, 60, 0, 5)}}),
        ),
        json!({"type": "file-history-snapshot", "messageId": "u9", "snapshot": {}}),
    ]
}

fn copilot(kind: &str, data: Value) -> Value {
    json!({"type": kind, "data": data, "id": "e", "timestamp": "2026-06-25T01:50:34.403Z", "parentId": null})
}

/// A Copilot CLI session: start, a prompt, one message with reasoning and
/// two tool requests, their results (one failed), and a final answer.
pub fn copilot_session() -> Vec<Value> {
    vec![
        copilot(
            "session.start",
            json!({"sessionId": "copilot-1", "copilotVersion": "1.0.70", "startTime": "2026-06-25T01:50:34.040Z", "context": {"cwd": "/work/demo"}}),
        ),
        copilot("session.model_change", json!({"newModel": "claude-test"})),
        copilot("user.message", json!({"content": "fix the bug"})),
        copilot(
            "assistant.message",
            json!({"messageId": "m1", "content": "", "reasoningOpaque": "blob",
            "toolRequests": [{"toolCallId": "t1", "name": "bash", "arguments": {"command": "ls"}},
                             {"toolCallId": "t2", "name": "view", "arguments": "{\"path\":\"src\"}"}], "outputTokens": 70}),
        ),
        copilot(
            "tool.execution_start",
            json!({"toolCallId": "t1", "toolName": "bash"}),
        ),
        copilot(
            "tool.execution_complete",
            json!({"toolCallId": "t1", "success": true, "result": {"content": "src"}}),
        ),
        copilot(
            "tool.execution_complete",
            json!({"toolCallId": "t2", "success": false, "error": {"message": "no such file"}}),
        ),
        copilot(
            "assistant.message",
            json!({"messageId": "m2", "model": "claude-test", "content": "Fixed.", "outputTokens": 9}),
        ),
    ]
}
