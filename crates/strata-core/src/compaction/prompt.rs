//! The request that asks the model for a compaction summary.

use std::fmt::Write as _;

use strata_protocol::{ModelRequest, ResponseItem};

/// The summarizer's instructions. The summary replaces the transcript, so it
/// must carry everything the agent needs to go on.
pub const SUMMARY_INSTRUCTIONS: &str = "\
You are compacting the transcript of a coding agent's session so the agent can continue \
with less context. Write a summary that replaces the transcript. Preserve:
- the user's goal and every explicit request or constraint, in the user's words where it matters;
- key decisions made and why;
- files read, created or changed, with what changed;
- work completed so far;
- work remaining, with the next step;
- errors encountered and how they were resolved, or that they are unresolved.
Be specific: names, paths, commands, numbers. Do not invent anything. \
Start directly with the summary: no preamble, no closing remarks.";

/// Renders every item of a history as plain text for the summarizer, numbered
/// in order, tool calls with their arguments and outputs, earlier summaries
/// included.
pub fn serialize_history_for_summary_prompt(history: &[ResponseItem]) -> String {
    let mut out = String::new();
    for (index, item) in history.iter().enumerate() {
        let n = index + 1;
        // Writing to a String cannot fail.
        let _ = match item {
            ResponseItem::Message(message) => {
                writeln!(out, "[{n}] {}:\n{}", message.role.as_str(), message.content)
            }
            ResponseItem::FunctionCall(call) => writeln!(
                out,
                "[{n}] function_call {} (call_id {}):\n{}",
                call.name, call.call_id, call.arguments
            ),
            ResponseItem::FunctionCallOutput(output) => writeln!(
                out,
                "[{n}] function_call_output (call_id {}):\n{}",
                output.call_id, output.output
            ),
            ResponseItem::CompactionSummary(summary) => {
                writeln!(out, "[{n}] summary of earlier work:\n{}", summary.summary)
            }
            ResponseItem::Reasoning(reasoning) => writeln!(
                out,
                "[{n}] reasoning ({}):\n{}",
                reasoning.provider,
                // Each provider's own readable part (Anthropic's thinking,
                // an OpenAI summary, `reasoning_content`), never its
                // encrypted or redacted payload.
                reasoning
                    .readable_text()
                    .unwrap_or_else(|| "(opaque reasoning, not shown)".to_owned())
            ),
        };
        out.push('\n');
    }
    out
}

/// The non-streaming request for a summary of `history`: the instructions as
/// the system message, the transcript as one user message, no tools and no
/// tool choice. `focus`, from the person, steers what the summary stresses.
pub fn build_compaction_summary_request(
    history: &[ResponseItem],
    focus: Option<&str>,
    model: &str,
) -> ModelRequest {
    let mut prompt = String::from("Transcript to summarize:\n\n");
    prompt.push_str(&serialize_history_for_summary_prompt(history));
    if let Some(plan) = crate::plan::latest_plan(history.iter()) {
        let _ = write!(
            prompt,
            "The agent's current plan, from its latest update_plan call (restate it in the \
             summary verbatim, each step with its status):\n{}\n",
            plan.to_text()
        );
    }
    summary_request(prompt, focus, model)
}

/// The summarizer's request around `prompt`: the instructions as the system
/// message, the prompt (with the person's focus) as one user message, no
/// tools and no tool choice.
pub(crate) fn summary_request(
    mut prompt: String,
    focus: Option<&str>,
    model: &str,
) -> ModelRequest {
    if let Some(focus) = focus.map(str::trim).filter(|f| !f.is_empty()) {
        let _ = writeln!(prompt, "Focus the summary on: {focus}");
    }
    ModelRequest {
        model: model.to_owned(),
        input: vec![
            ResponseItem::system(SUMMARY_INSTRUCTIONS),
            ResponseItem::user(prompt),
        ],
        tools: Vec::new(),
        tool_choice: None,
        max_output_tokens: None,
        session_id: None,
        reasoning: None,
        cache_anchors: Vec::new(),
    }
}
