//! Codex rollout JSONL: `{timestamp, type, payload}` lines of `session_meta`,
//! `turn_context`, `response_item`, `event_msg` and `compacted`, as the
//! format notes describe them (`../shared/notes/session-formats.md` §1).

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use strata_protocol::CompactionTrigger;

use crate::LineFolder;

mod wire;

use crate::builder::{SessionBuilder, joined_texts, output_text, parse_time, typed};
use crate::model::{
    ClippedText, ImportedCompaction, ImportedRound, ImportedSummary, ItemKind, KeptItems,
    ReasoningText, Tool,
};
use wire::{
    Compacted, Message, Reasoning, SessionMeta, TokenCount, ToolCall, ToolOutput, TurnContext,
};

/// How Codex's local compaction starts the summary it puts in the history
/// as a user message (`core/templates/compact/summary_prefix.md`).
const SUMMARY_PREFIX_START: &str = "Another language model started to solve this problem";

#[derive(Default)]
struct OpenTurn {
    response_items: u64,
    user_message: bool,
}

pub(crate) struct CodexFolder {
    builder: SessionBuilder,
    /// Items in the model's history now; unknown after a compaction that
    /// recorded no replacement history.
    history: Option<u64>,
    turn: Option<OpenTurn>,
    model: Option<String>,
    context_window: Option<u64>,
    last_context: Option<u64>,
    /// The running total of the last round, to skip repeated reports.
    last_total: Option<u64>,
    /// The compaction still waiting for its after-size.
    awaiting_after: Option<usize>,
    /// The `compacted` line a `context_compacted` would confirm.
    unconfirmed: Option<usize>,
}

impl CodexFolder {
    pub(crate) fn new() -> Self {
        CodexFolder {
            builder: SessionBuilder::new(Tool::Codex),
            history: Some(0),
            turn: None,
            model: None,
            context_window: None,
            last_context: None,
            last_total: None,
            awaiting_after: None,
            unconfirmed: None,
        }
    }

    fn session_meta(&mut self, payload: Value) -> Option<()> {
        let meta: SessionMeta = typed(payload)?;
        let session = &mut self.builder.session;
        SessionBuilder::first(&mut session.id, meta.id);
        SessionBuilder::first(&mut session.workspace, meta.cwd);
        SessionBuilder::first(&mut session.tool_version, meta.cli_version);
        self.builder
            .saw_time(parse_time(meta.timestamp.map(Value::String).as_ref()));
        Some(())
    }

    fn turn_context(&mut self, payload: Value) -> Option<()> {
        let context: TurnContext = typed(payload)?;
        SessionBuilder::first(&mut self.builder.session.workspace, context.cwd);
        if let Some(model) = context.model {
            self.builder.saw_model(&model);
            self.model = Some(model);
        }
        Some(())
    }

    fn response_item(
        &mut self,
        line: u64,
        at: Option<DateTime<Utc>>,
        payload: Value,
    ) -> Option<()> {
        let kind = payload.get("type")?.as_str()?.to_owned();
        let item = match kind.as_str() {
            "message" => {
                let message: Message = typed(payload)?;
                // User and developer messages are the injected context or a
                // copy of `event_msg user_message`, which is what is shown.
                (message.role == "assistant").then(|| ItemKind::Assistant {
                    text: joined_texts(message.content.iter().filter_map(|p| p.text.as_deref())),
                })
            }
            "reasoning" => reasoning(typed(payload)?),
            "function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call" => {
                Some(tool_call(&kind, typed(payload)?))
            }
            "function_call_output" | "custom_tool_call_output" | "tool_search_output" => {
                let output: ToolOutput = typed(payload)?;
                Some(ItemKind::ToolOutput {
                    call_id: output.call_id,
                    output: ClippedText::new(&output_text(&output.output)),
                    is_error: output
                        .output
                        .get("success")
                        .and_then(Value::as_bool)
                        .map(|success| !success),
                })
            }
            "compaction"
            | "compaction_summary"
            | "context_compaction"
            | "tool_search_call"
            | "image_generation_call"
            | "agent_message"
            | "additional_tools"
            | "ghost_snapshot" => None,
            other => {
                self.builder
                    .warnings()
                    .unknown(&format!("response_item/{other}"));
                None
            }
        };
        self.history = self.history.map(|count| count + 1);
        self.unconfirmed = None;
        if let Some(turn) = &mut self.turn {
            turn.response_items += 1;
        }
        if let Some(item) = item {
            self.builder.push_item(line, at, false, item);
        }
        Some(())
    }

    fn event(&mut self, line: u64, at: Option<DateTime<Utc>>, payload: Value) -> Option<()> {
        let kind = payload.get("type")?.as_str()?.to_owned();
        match kind.as_str() {
            "user_message" => {
                let text = payload.get("message")?.as_str()?.to_owned();
                if let Some(turn) = &mut self.turn {
                    turn.user_message = true;
                }
                self.builder
                    .push_item(line, at, false, ItemKind::User { text });
            }
            "task_started" | "turn_started" => {
                self.turn = Some(OpenTurn::default());
                if let Some(window) = payload.get("model_context_window").and_then(Value::as_u64) {
                    self.context_window = Some(window);
                }
            }
            "task_complete" | "turn_aborted" => self.turn = None,
            "token_count" => self.token_count(line, at, typed(payload)?),
            "context_compacted" => {
                if self.unconfirmed.take().is_none() {
                    // A boundary without its `compacted` line: no details.
                    let index = self.builder.push_compaction(ImportedCompaction {
                        tokens_before: self.last_context,
                        items_before: self.history,
                        ..self.builder.boundary(line, at)
                    });
                    self.history = None;
                    self.awaiting_after = Some(index);
                }
            }
            "agent_message"
            | "agent_reasoning"
            | "agent_reasoning_raw_content"
            | "thread_rolled_back"
            | "patch_apply_end"
            | "mcp_tool_call_end"
            | "web_search_end"
            | "image_generation_end"
            | "entered_review_mode"
            | "exited_review_mode"
            | "thread_goal_updated"
            | "sub_agent_activity"
            | "item_completed"
            | "exec_command_end" => {}
            other => self
                .builder
                .warnings()
                .unknown(&format!("event_msg/{other}")),
        }
        Some(())
    }

    fn token_count(&mut self, line: u64, at: Option<DateTime<Utc>>, count: TokenCount) {
        // `info: null` is a rate-limit-only update.
        let Some(info) = count.info else { return };
        if let Some(window) = info.model_context_window {
            self.context_window = Some(window);
        }
        let Some(last) = info.last_token_usage else {
            return;
        };
        if last.input_tokens == 0 && last.output_tokens == 0 {
            // Codex's estimate after a compaction, not a model call.
            if let Some(index) = self.awaiting_after.take() {
                self.builder.session.compactions[index].tokens_after = Some(last.context());
            }
            return;
        }
        let total = info.total_token_usage.and_then(|total| total.total_tokens);
        if total.is_some() && total == self.last_total {
            // The same request reported again.
            return;
        }
        if let Some(index) = self.awaiting_after.take() {
            self.builder.session.compactions[index].tokens_after = Some(last.input_tokens);
        }
        self.last_total = total;
        self.last_context = Some(last.context());
        self.builder.push_round(ImportedRound {
            line,
            at,
            model: self.model.clone(),
            usage: last.usage(),
            context_tokens: Some(last.context()),
            context_window: self.context_window,
        });
    }

    fn compacted(&mut self, line: u64, at: Option<DateTime<Utc>>, payload: Value) -> Option<()> {
        let compacted: Compacted = typed(payload)?;
        let kept = compacted
            .replacement_history
            .as_ref()
            .map(|items| items.len() as u64);
        let summary = summary_of(&compacted);
        let trigger = self.trigger_here();
        let index = self.builder.push_compaction(ImportedCompaction {
            trigger,
            summary,
            tokens_before: self.last_context,
            items_before: self.history,
            items_after: kept,
            kept: compacted.replacement_history.as_deref().map(kept_items),
            ..self.builder.boundary(line, at)
        });
        self.history = kept;
        self.awaiting_after = Some(index);
        self.unconfirmed = Some(index);
        Some(())
    }

    /// Codex does not record why it compacted; where the boundary falls
    /// tells (format notes §1.4): after model output inside a turn is a
    /// mid-turn auto compaction, at a turn's start after its prompt a
    /// pre-turn one, and a turn of its own with no prompt a `/compact`.
    fn trigger_here(&self) -> Option<CompactionTrigger> {
        let turn = self.turn.as_ref()?;
        Some(match (turn.response_items > 0, turn.user_message) {
            (true, _) => CompactionTrigger::Auto,
            (false, true) => CompactionTrigger::PreTurn,
            (false, false) => CompactionTrigger::Manual,
        })
    }
}

fn reasoning(reasoning: Reasoning) -> Option<ItemKind> {
    let summary = joined_texts(reasoning.summary.iter().filter_map(|p| p.text.as_deref()));
    let content = reasoning
        .content
        .as_deref()
        .map(|parts| joined_texts(parts.iter().filter_map(|p| p.text.as_deref())))
        .unwrap_or_default();
    let text = if !summary.is_empty() {
        ReasoningText::Summary(summary)
    } else if !content.is_empty() {
        ReasoningText::Text(content)
    } else if reasoning.encrypted_content.is_some() {
        ReasoningText::Encrypted
    } else {
        return None;
    };
    Some(ItemKind::Reasoning { reasoning: text })
}

fn tool_call(kind: &str, call: ToolCall) -> ItemKind {
    let name = match (call.namespace, call.name) {
        (Some(namespace), Some(name)) => format!("{namespace}.{name}"),
        (None, Some(name)) => name,
        (_, None) => kind.trim_end_matches("_call").to_owned(),
    };
    let arguments = match (call.arguments, call.input, call.action) {
        (Some(arguments), _, _) => arguments,
        (None, Some(input), _) => input,
        (None, None, Some(action)) => action.to_string(),
        (None, None, None) => String::new(),
    };
    ItemKind::ToolCall {
        call_id: call.call_id.or(call.id).unwrap_or_default(),
        name,
        arguments: ClippedText::new(&arguments),
    }
}

/// How Codex starts the user-role messages it injects (AGENTS.md, the
/// environment): context, not the person's words.
const INJECTED_USER_STARTS: &[&str] = &[
    "# AGENTS.md instructions",
    "<environment_context>",
    "<user_instructions>",
];

/// A replacement history split by what each item is.
fn kept_items(history: &[Value]) -> KeptItems {
    let mut kept = KeptItems::default();
    for item in history {
        let kind = item.get("type").and_then(Value::as_str);
        let role = item.get("role").and_then(Value::as_str);
        let first_text = item
            .get("content")
            .and_then(|content| content.get(0))
            .and_then(|part| part.get("text"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let slot = match (kind, role) {
            (Some("compaction" | "compaction_summary"), _) => &mut kept.summary,
            (Some("message"), Some("developer" | "system")) => &mut kept.context,
            (Some("message"), Some("user")) if first_text.starts_with(SUMMARY_PREFIX_START) => {
                &mut kept.summary
            }
            (Some("message"), Some("user"))
                if INJECTED_USER_STARTS
                    .iter()
                    .any(|start| first_text.starts_with(start)) =>
            {
                &mut kept.context
            }
            (Some("message"), Some("user")) => &mut kept.user_messages,
            _ => &mut kept.other,
        };
        *slot += 1;
    }
    kept
}

/// Where the summary is, by Codex generation (format notes §1.4): the
/// `message` text, an encrypted `compaction` item, a user message starting
/// with the summary prefix, or nowhere.
fn summary_of(compacted: &Compacted) -> ImportedSummary {
    if !compacted.message.is_empty() {
        return ImportedSummary::Text(compacted.message.clone());
    }
    let history = compacted.replacement_history.as_deref().unwrap_or_default();
    let kind = |item: &Value| item.get("type").and_then(Value::as_str).map(str::to_owned);
    if history.iter().any(|item| {
        matches!(
            kind(item).as_deref(),
            Some("compaction" | "compaction_summary")
        )
    }) {
        return ImportedSummary::Encrypted;
    }
    history
        .iter()
        .filter(|item| item.get("role").and_then(Value::as_str) == Some("user"))
        .filter_map(|item| typed::<Message>(item.clone()))
        .flat_map(|message| message.content)
        .filter_map(|part| part.text)
        .find(|text| text.starts_with(SUMMARY_PREFIX_START))
        .map_or(ImportedSummary::Absent, ImportedSummary::Text)
}

impl LineFolder for CodexFolder {
    fn builder(&mut self) -> &mut SessionBuilder {
        &mut self.builder
    }

    fn into_builder(self) -> SessionBuilder {
        self.builder
    }

    fn record(
        &mut self,
        line: u64,
        at: Option<DateTime<Utc>>,
        kind: Option<&str>,
        mut record: Map<String, Value>,
    ) -> Option<()> {
        let payload = record.remove("payload");
        match (kind, payload) {
            (Some("session_meta"), Some(payload)) => self.session_meta(payload),
            (Some("turn_context"), Some(payload)) => self.turn_context(payload),
            (Some("response_item"), Some(payload)) => self.response_item(line, at, payload),
            (Some("event_msg"), Some(payload)) => self.event(line, at, payload),
            (Some("compacted"), Some(payload)) => self.compacted(line, at, payload),
            (
                Some(
                    "inter_agent_communication"
                    | "inter_agent_communication_metadata"
                    | "world_state"
                    | "security_risk_score",
                ),
                _,
            ) => Some(()),
            // The pre-envelope format (summer 2025): bare response items.
            (Some(_), None) => self.bare(line, at, record),
            (Some(other), Some(_)) => {
                self.builder.warnings().unknown(other);
                Some(())
            }
            (None, _) => self.bare(line, at, record),
        }
    }
}

impl CodexFolder {
    /// A line of the 2025 format without the `{type, payload}` envelope: a
    /// first `{id, timestamp, …}` line, `{"record_type": "state"}` markers and
    /// bare response items.
    fn bare(
        &mut self,
        line: u64,
        at: Option<DateTime<Utc>>,
        record: Map<String, Value>,
    ) -> Option<()> {
        if record.contains_key("record_type") {
            return Some(());
        }
        if record.contains_key("type") {
            return self.response_item(line, at, Value::Object(record));
        }
        if line == 1 && record.contains_key("id") {
            return self.session_meta(Value::Object(record));
        }
        None
    }
}
