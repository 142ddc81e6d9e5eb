//! The demo model's token counts: real `o200k_base` counts (the GPT-4o/GPT-5
//! tokenizer, embedded in tiktoken-rs, so no network) of exactly what it was
//! given and what it produced.
//!
//! What is counted, so anyone can count independently:
//! - `input_tokens` = the sum, over `request.input`, of the token count of
//!   [`render_item`] of each item, plus the sum, over `request.tools`, of the
//!   token count of `serde_json::to_string(&tool_spec)`.
//! - `output_tokens` = the token count of the answer text; for tool calls,
//!   the sum over calls of count(name) + count(arguments).
//!
//! Counts use `encode_ordinary` (special tokens are plain text).

use strata_protocol::{ModelRequest, ResponseItem, ToolSpec};

/// The canonical text of one history item:
/// - message: `"{role}: {content}"` (role as in `Role::as_str`)
/// - function call: `"function_call {name} {arguments}"`
/// - function call output: `"function_call_output {output}"`
/// - compaction summary: `"summary: {summary}"`
/// - reasoning: `serde_json::to_string(&payload)`
pub fn render_item(item: &ResponseItem) -> String {
    match item {
        ResponseItem::Message(m) => format!("{}: {}", m.role.as_str(), m.content),
        ResponseItem::FunctionCall(c) => format!("function_call {} {}", c.name, c.arguments),
        ResponseItem::FunctionCallOutput(o) => format!("function_call_output {}", o.output),
        ResponseItem::CompactionSummary(s) => format!("summary: {}", s.summary),
        ResponseItem::Reasoning(r) => r.payload.to_string(),
    }
}

/// The `o200k_base` token count of `text`.
pub fn count_tokens(text: &str) -> u64 {
    let bpe = tiktoken_rs::o200k_base_singleton();
    u64::try_from(bpe.encode_ordinary(text).len()).unwrap_or(u64::MAX)
}

fn render_tool(tool: &ToolSpec) -> String {
    // Serialising plain data to a string cannot fail; an empty rendering
    // would only undercount.
    serde_json::to_string(tool).unwrap_or_default()
}

/// `input_tokens` of a request, as documented in this module.
pub fn count_request_tokens(request: &ModelRequest) -> u64 {
    let items: u64 = request
        .input
        .iter()
        .map(|item| count_tokens(&render_item(item)))
        .sum();
    let tools: u64 = request
        .tools
        .iter()
        .map(|tool| count_tokens(&render_tool(tool)))
        .sum();
    items + tools
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_known_o200k_figures() {
        assert_eq!(count_tokens(""), 0);
        assert_eq!(count_tokens("hello world"), 2);
    }

    #[test]
    fn renders_each_item_kind_canonically() {
        assert_eq!(render_item(&ResponseItem::user("hi")), "user: hi");
        assert_eq!(
            render_item(&ResponseItem::function_call("c1", "read_file", "{}")),
            "function_call read_file {}"
        );
        assert_eq!(
            render_item(&ResponseItem::function_call_output("c1", "text")),
            "function_call_output text"
        );
    }
}
