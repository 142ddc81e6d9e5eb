//! GitHub Copilot CLI `events.jsonl`: `{type, data, id, timestamp,
//! parentId}` lines (format notes §6). The observed 1.0.64 file records no
//! compactions and only output tokens per message.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Map, Value};
use strata_protocol::TokenUsage;

use crate::LineFolder;
use crate::builder::{SessionBuilder, output_text, parse_time, typed};
use crate::model::{ClippedText, ImportedRound, ItemKind, ReasoningText, Tool};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SessionStart {
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    copilot_version: Option<String>,
    #[serde(default)]
    start_time: Option<String>,
    #[serde(default)]
    context: Option<StartContext>,
}

#[derive(Deserialize)]
struct StartContext {
    #[serde(default)]
    cwd: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AssistantMessage {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    content: String,
    #[serde(default)]
    tool_requests: Vec<ToolRequest>,
    #[serde(default)]
    reasoning_text: Option<String>,
    #[serde(default)]
    reasoning_opaque: Option<Value>,
    #[serde(default)]
    output_tokens: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolRequest {
    #[serde(default)]
    tool_call_id: String,
    #[serde(default)]
    name: String,
    /// A JSON object, or its text.
    #[serde(default)]
    arguments: Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolComplete {
    #[serde(default)]
    tool_call_id: String,
    #[serde(default)]
    success: Option<bool>,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

pub(crate) struct CopilotFolder {
    builder: SessionBuilder,
    model: Option<String>,
}

impl CopilotFolder {
    pub(crate) fn new() -> Self {
        CopilotFolder {
            builder: SessionBuilder::new(Tool::CopilotCli),
            model: None,
        }
    }

    fn session_start(&mut self, data: Value) -> Option<()> {
        let start: SessionStart = typed(data)?;
        let session = &mut self.builder.session;
        SessionBuilder::first(&mut session.id, start.session_id);
        SessionBuilder::first(&mut session.tool_version, start.copilot_version);
        SessionBuilder::first(&mut session.workspace, start.context.and_then(|c| c.cwd));
        self.builder
            .saw_time(parse_time(start.start_time.map(Value::String).as_ref()));
        Some(())
    }

    fn assistant(&mut self, line: u64, at: Option<DateTime<Utc>>, data: Value) -> Option<()> {
        let message: AssistantMessage = typed(data)?;
        let reasoning = match (message.reasoning_text, message.reasoning_opaque) {
            (Some(text), _) if !text.is_empty() => Some(ReasoningText::Text(text)),
            (_, Some(_)) => Some(ReasoningText::Encrypted),
            (_, None) => None,
        };
        if let Some(reasoning) = reasoning {
            self.builder
                .push_item(line, at, false, ItemKind::Reasoning { reasoning });
        }
        if !message.content.is_empty() {
            let text = message.content;
            self.builder
                .push_item(line, at, false, ItemKind::Assistant { text });
        }
        for request in message.tool_requests {
            let arguments = match &request.arguments {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let kind = ItemKind::ToolCall {
                call_id: request.tool_call_id,
                name: request.name,
                arguments: ClippedText::new(&arguments),
            };
            self.builder.push_item(line, at, false, kind);
        }
        let model = message.model.or_else(|| self.model.clone());
        if let Some(model) = &model {
            self.builder.saw_model(model);
        }
        if let Some(output) = message.output_tokens {
            self.builder.push_round(ImportedRound {
                line,
                at,
                model,
                usage: TokenUsage {
                    output_tokens: Some(output),
                    ..TokenUsage::default()
                },
                context_tokens: None,
                context_window: None,
            });
        }
        Some(())
    }

    fn tool_complete(&mut self, line: u64, at: Option<DateTime<Utc>>, data: Value) -> Option<()> {
        let complete: ToolComplete = typed(data)?;
        let output = match (&complete.result, &complete.error) {
            (Some(result), _) => output_text(result),
            (None, Some(error)) => match error.get("message") {
                Some(message) => output_text(message),
                None => output_text(error),
            },
            (None, None) => String::new(),
        };
        let kind = ItemKind::ToolOutput {
            call_id: complete.tool_call_id,
            output: ClippedText::new(&output),
            is_error: complete.success.map(|success| !success),
        };
        self.builder.push_item(line, at, false, kind);
        Some(())
    }
}

impl LineFolder for CopilotFolder {
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
        let data = record.remove("data").unwrap_or(Value::Null);
        match kind {
            Some("session.start") => self.session_start(data),
            Some("session.model_change") => {
                let model = data
                    .get("newModel")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if let Some(model) = &model {
                    self.builder.saw_model(model);
                }
                self.model = model.or(self.model.take());
                Some(())
            }
            Some("user.message") => data.get("content").and_then(Value::as_str).map(|text| {
                let text = text.to_owned();
                self.builder
                    .push_item(line, at, false, ItemKind::User { text });
            }),
            Some("assistant.message") => self.assistant(line, at, data),
            Some("tool.execution_complete") => self.tool_complete(line, at, data),
            Some(
                "assistant.turn_start"
                | "assistant.turn_end"
                | "tool.execution_start"
                | "hook.start"
                | "hook.end"
                | "permission.requested"
                | "permission.completed"
                | "session.info"
                | "session.shutdown"
                | "session.permissions_changed"
                | "abort"
                | "system.message"
                | "system.notification",
            ) => Some(()),
            Some(other) => {
                self.builder.warnings().unknown(other);
                Some(())
            }
            None => None,
        }
    }
}
