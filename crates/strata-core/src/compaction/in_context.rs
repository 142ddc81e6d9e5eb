//! The layered summary asked for inside the session's own context: the
//! request a next round would send (same model, tools, tool choice,
//! reasoning and session, so the provider's prompt cache reads back the
//! prefix the last round wrote) with one instruction appended. It costs a
//! cache read of the context instead of the full price of every original
//! the span held, which is what makes summarizing early cheaper than
//! carrying a growing floor of placeholders (docs/CONTEXT.md).
//!
//! It reads what the model sees: evicted outputs stay placeholders (the
//! recall tool still returns them). A partial compaction, which summarizes
//! only part of the history, and any reply that is not plain text fall back
//! to the summarizer's own request over the span's originals
//! ([`super::build_layered_summary_request`]).

use std::fmt::Write as _;

use strata_protocol::{ModelRequest, ModelResponse, ResponseItem};

/// Starts the appended instruction, so a reader of the request (and the
/// console) can tell it from a person's message.
pub const IN_CONTEXT_SUMMARY_PREFIX: &str = "[Strata: compaction]";

/// What the appended message asks. The state sheet (paths, commands, rules,
/// the plan) is deterministic and kept beside the summary, so the summary
/// carries the rest.
const IN_CONTEXT_INSTRUCTIONS: &str = "\
The conversation above is being compacted so you can continue with less context: everything \
after the system prompt except the person's recent messages will be replaced by your summary and \
by Strata's state sheet (which lists the files, commands, rules and plan on its own). Do not call \
any tool now: reply only with the summary, as plain text. Preserve:
- the person's goal and every explicit request or constraint, in their words where it matters;
- key decisions made and why;
- files read, created or changed, with what changed;
- work completed so far;
- work remaining, with the next step;
- errors encountered and how they were resolved, or that they are unresolved.
Be specific: names, paths, commands, numbers. Do not invent anything. Outputs shown as evicted \
placeholders are not needed: name them by their item id if they matter. Start directly with the \
summary: no preamble, no closing remarks.";

/// `round` (the request the next round would send, its input the current
/// history) with the summary instruction appended as a user message, and
/// the person's `focus` when given.
pub fn build_in_context_summary_request(
    mut round: ModelRequest,
    focus: Option<&str>,
) -> ModelRequest {
    let mut text = format!("{IN_CONTEXT_SUMMARY_PREFIX} {IN_CONTEXT_INSTRUCTIONS}");
    if let Some(focus) = focus.map(str::trim).filter(|f| !f.is_empty()) {
        let _ = write!(text, "\nFocus the summary on: {focus}");
    }
    round.input.push(ResponseItem::user(text));
    round
}

/// The summary in a reply to the in-context request: its text, unless the
/// model called a tool (it was told not to; what it wrote then is a
/// preamble, not a summary) or wrote nothing.
pub fn in_context_summary_text(response: &ModelResponse) -> Option<String> {
    let called = response
        .items
        .iter()
        .any(|item| matches!(item, ResponseItem::FunctionCall(_)));
    let text = response.text().trim().to_owned();
    (!called && !text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use strata_protocol::{FunctionCall, ItemId, StopReason, ToolChoice};

    use super::*;

    fn round() -> ModelRequest {
        ModelRequest {
            model: "m".into(),
            input: vec![ResponseItem::system("sys"), ResponseItem::user("fix it")],
            tools: vec![crate::plan::update_plan_spec()],
            tool_choice: Some(ToolChoice::Auto),
            max_output_tokens: Some(4096),
            session_id: Some(strata_protocol::SessionId::new()),
            reasoning: None,
            cache_anchors: vec![1],
        }
    }

    #[test]
    fn the_request_is_the_rounds_own_with_one_instruction_appended() {
        let round = round();
        let request = build_in_context_summary_request(round.clone(), Some("  the parser "));
        assert_eq!(request.input[..2], round.input[..]);
        assert_eq!(request.input.len(), 3);
        let ResponseItem::Message(message) = &request.input[2] else {
            panic!("a message")
        };
        assert_eq!(message.role, strata_protocol::Role::User);
        assert!(message.content.starts_with(IN_CONTEXT_SUMMARY_PREFIX));
        assert!(
            message
                .content
                .ends_with("Focus the summary on: the parser")
        );
        // Everything the cache keys on is the round's.
        assert_eq!(request.tools, round.tools);
        assert_eq!(request.tool_choice, round.tool_choice);
        assert_eq!(request.session_id, round.session_id);
        assert_eq!(request.cache_anchors, round.cache_anchors);
        assert_eq!(request.reasoning, round.reasoning);
    }

    fn reply(items: Vec<ResponseItem>) -> ModelResponse {
        ModelResponse {
            model: "m".into(),
            items,
            usage: None,
            stop_reason: StopReason::EndTurn,
        }
    }

    #[test]
    fn a_reply_that_calls_a_tool_is_no_summary() {
        let call = ResponseItem::FunctionCall(FunctionCall {
            id: ItemId::new(),
            call_id: "c1".into(),
            name: "read_file".into(),
            arguments: "{}".into(),
        });
        let preamble = ResponseItem::assistant("Let me read the file first.");
        assert_eq!(in_context_summary_text(&reply(vec![preamble, call])), None);
        assert_eq!(
            in_context_summary_text(&reply(vec![ResponseItem::assistant("  ")])),
            None
        );
        assert_eq!(
            in_context_summary_text(&reply(vec![ResponseItem::assistant(" Done: a, b. ")])),
            Some("Done: a, b.".into())
        );
    }
}
