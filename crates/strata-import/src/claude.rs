//! Claude Code session JSONL (`~/.claude/projects/<project>/<session>.jsonl`):
//! chain records of type `user`, `assistant` and `system`, one line per
//! content block of a streamed message, and leading `summary` records
//! (format notes §2).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Map, Value};
use strata_protocol::{CompactionTrigger, TokenUsage};

use crate::LineFolder;
use crate::builder::{SessionBuilder, output_text, text_at, typed};
use crate::model::{
    ClippedText, CompactionKind, ImportedCompaction, ImportedRound, ImportedSummary, ItemKind,
    ReasoningText, Tool,
};

/// The model name Claude Code gives the messages it makes up itself (an
/// interrupted request, "No response requested."): no model call.
const SYNTHETIC_MODEL: &str = "<synthetic>";
/// Leaf titles kept while reading (hostile files can hold any number).
const LEAF_TITLES_KEPT: usize = 1024;

#[derive(Deserialize)]
struct AssistantMessage {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    content: Vec<Value>,
    #[serde(default)]
    usage: Option<ClaudeUsage>,
}

#[derive(Clone, Copy, Deserialize)]
struct ClaudeUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    cache_creation_input_tokens: u64,
    #[serde(default)]
    cache_read_input_tokens: u64,
    #[serde(default)]
    cache_creation: Option<CacheCreation>,
    #[serde(default)]
    output_tokens: u64,
}

#[derive(Clone, Copy, Deserialize)]
struct CacheCreation {
    #[serde(default)]
    ephemeral_5m_input_tokens: Option<u64>,
    #[serde(default)]
    ephemeral_1h_input_tokens: Option<u64>,
}

impl ClaudeUsage {
    /// Everything the request sent: fresh, cache-written and cache-read input.
    fn input(self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_creation_input_tokens)
            .saturating_add(self.cache_read_input_tokens)
    }

    fn usage(self) -> TokenUsage {
        TokenUsage {
            input_tokens: Some(self.input()),
            cached_input_tokens: Some(self.cache_read_input_tokens),
            cache_write_input_tokens: Some(self.cache_creation_input_tokens),
            cache_write_5m_input_tokens: self
                .cache_creation
                .and_then(|c| c.ephemeral_5m_input_tokens),
            cache_write_1h_input_tokens: self
                .cache_creation
                .and_then(|c| c.ephemeral_1h_input_tokens),
            output_tokens: Some(self.output_tokens),
            ..TokenUsage::default()
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CompactMetadata {
    #[serde(default)]
    trigger: Option<String>,
    #[serde(default)]
    pre_tokens: Option<u64>,
    #[serde(default)]
    post_tokens: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MicrocompactMetadata {
    #[serde(default)]
    trigger: Option<String>,
    #[serde(default)]
    pre_tokens: Option<u64>,
    #[serde(default)]
    tokens_saved: Option<u64>,
    #[serde(default)]
    compacted_tool_ids: Vec<String>,
}

pub(crate) struct ClaudeFolder {
    builder: SessionBuilder,
    /// Round index by message id and request id: a message's lines share
    /// one usage, counted once (the last line's figures win).
    rounds_by_message: HashMap<String, usize>,
    /// `summary` records' titles by the leaf they name.
    leaf_titles: HashMap<String, String>,
    /// Items the model has seen since the last full compaction.
    items_since_boundary: u64,
    /// The full compaction whose summary record has not come yet.
    awaiting_summary: Option<usize>,
    /// The compaction whose after-size the next request gives.
    awaiting_after: Option<usize>,
}

impl ClaudeFolder {
    pub(crate) fn new() -> Self {
        ClaudeFolder {
            builder: SessionBuilder::new(Tool::ClaudeCode),
            rounds_by_message: HashMap::new(),
            leaf_titles: HashMap::new(),
            items_since_boundary: 0,
            awaiting_summary: None,
            awaiting_after: None,
        }
    }

    fn push(&mut self, line: u64, at: Option<DateTime<Utc>>, sidechain: bool, kind: ItemKind) {
        if !sidechain {
            self.items_since_boundary += 1;
        }
        self.builder.push_item(line, at, sidechain, kind);
    }

    fn user(
        &mut self,
        line: u64,
        at: Option<DateTime<Utc>>,
        record: &Map<String, Value>,
    ) -> Option<()> {
        let sidechain = flag(record, "isSidechain");
        let content = record.get("message")?.get("content")?;
        if flag(record, "isCompactSummary") {
            self.compact_summary(line, at, output_text(content));
            return Some(());
        }
        // Meta records (command caveats, injected reminders) are not typed
        // by the person.
        let meta = flag(record, "isMeta");
        match content {
            Value::String(text) if !meta => {
                self.push(line, at, sidechain, ItemKind::User { text: text.clone() })
            }
            Value::String(_) => {}
            Value::Array(blocks) => {
                for block in blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("text") if !meta => {
                            let text = block.get("text").and_then(Value::as_str)?.to_owned();
                            self.push(line, at, sidechain, ItemKind::User { text });
                        }
                        Some("tool_result") => {
                            let output = block.get("content").map(output_text).unwrap_or_default();
                            let kind = ItemKind::ToolOutput {
                                call_id: block
                                    .get("tool_use_id")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default()
                                    .to_owned(),
                                output: ClippedText::new(&output),
                                is_error: block.get("is_error").and_then(Value::as_bool),
                            };
                            self.push(line, at, sidechain, kind);
                        }
                        Some("text" | "image" | "document") => {}
                        Some(other) => self.builder.warnings().unknown(&format!("user/{other}")),
                        None => return None,
                    }
                }
            }
            _ => return None,
        }
        Some(())
    }

    fn assistant(
        &mut self,
        line: u64,
        at: Option<DateTime<Utc>>,
        record: &Map<String, Value>,
    ) -> Option<()> {
        let sidechain = flag(record, "isSidechain");
        let message: AssistantMessage = typed(record.get("message")?.clone())?;
        for block in &message.content {
            let text_of = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or_default();
            let kind = match block.get("type").and_then(Value::as_str) {
                Some("text") => ItemKind::Assistant {
                    text: text_of("text").to_owned(),
                },
                Some("thinking") if !text_of("thinking").is_empty() => ItemKind::Reasoning {
                    reasoning: ReasoningText::Text(text_of("thinking").to_owned()),
                },
                Some("thinking" | "redacted_thinking") => ItemKind::Reasoning {
                    reasoning: ReasoningText::Encrypted,
                },
                Some("tool_use" | "server_tool_use") => ItemKind::ToolCall {
                    call_id: text_of("id").to_owned(),
                    name: text_of("name").to_owned(),
                    arguments: ClippedText::new(
                        &block.get("input").map(Value::to_string).unwrap_or_default(),
                    ),
                },
                Some(other) => {
                    self.builder
                        .warnings()
                        .unknown(&format!("assistant/{other}"));
                    continue;
                }
                None => return None,
            };
            self.push(line, at, sidechain, kind);
        }
        let model = message.model.filter(|model| model != SYNTHETIC_MODEL);
        if let Some(model) = &model {
            self.builder.saw_model(model);
        }
        if let (Some(model), Some(usage)) = (model, message.usage) {
            let key = format!(
                "{}\u{0}{}",
                message.id.unwrap_or_default(),
                text_at(record, "requestId").unwrap_or_default()
            );
            self.round(line, at, key, model, usage);
        }
        Some(())
    }

    fn round(
        &mut self,
        line: u64,
        at: Option<DateTime<Utc>>,
        key: String,
        model: String,
        usage: ClaudeUsage,
    ) {
        let round = ImportedRound {
            line,
            at,
            model: Some(model),
            usage: usage.usage(),
            context_tokens: Some(usage.input().saturating_add(usage.output_tokens)),
            context_window: None,
        };
        if let Some(&index) = self.rounds_by_message.get(&key) {
            let known = &mut self.builder.session.rounds[index];
            known.usage = round.usage;
            known.context_tokens = round.context_tokens;
            return;
        }
        if let Some(index) = self.awaiting_after.take() {
            self.builder.session.compactions[index].tokens_after = Some(usage.input());
        }
        let index = self.builder.push_round(round);
        self.rounds_by_message.insert(key, index);
    }

    fn system(
        &mut self,
        line: u64,
        at: Option<DateTime<Utc>>,
        record: &Map<String, Value>,
    ) -> Option<()> {
        match record.get("subtype").and_then(Value::as_str) {
            Some("compact_boundary") => {
                let metadata: CompactMetadata = typed(record.get("compactMetadata")?.clone())?;
                let index = self.builder.push_compaction(ImportedCompaction {
                    trigger: trigger(metadata.trigger.as_deref()),
                    tokens_before: metadata.pre_tokens,
                    tokens_after: metadata.post_tokens,
                    items_before: Some(self.items_since_boundary),
                    ..self.builder.boundary(line, at)
                });
                self.items_since_boundary = 0;
                self.awaiting_summary = Some(index);
                self.awaiting_after = metadata.post_tokens.is_none().then_some(index);
            }
            Some("microcompact_boundary") => {
                let metadata: MicrocompactMetadata =
                    typed(record.get("microcompactMetadata")?.clone())?;
                self.builder.push_compaction(ImportedCompaction {
                    kind: CompactionKind::Micro {
                        tokens_saved: metadata.tokens_saved,
                        cleared_tool_ids: metadata.compacted_tool_ids,
                    },
                    trigger: trigger(metadata.trigger.as_deref()),
                    tokens_before: metadata.pre_tokens,
                    tokens_after: metadata
                        .pre_tokens
                        .zip(metadata.tokens_saved)
                        .map(|(before, saved)| before.saturating_sub(saved)),
                    ..self.builder.boundary(line, at)
                });
            }
            Some(
                "turn_duration" | "stop_hook_summary" | "api_error" | "local_command"
                | "away_summary" | "informational",
            ) => {}
            Some(other) => self.builder.warnings().unknown(&format!("system/{other}")),
            None => return None,
        }
        Some(())
    }

    /// The `isCompactSummary` message: the summary of the boundary before
    /// it, or, with no boundary recorded, a compaction of its own.
    fn compact_summary(&mut self, line: u64, at: Option<DateTime<Utc>>, text: String) {
        let index = match self.awaiting_summary.take() {
            Some(index) => index,
            None => self.builder.push_compaction(ImportedCompaction {
                items_before: Some(self.items_since_boundary),
                ..self.builder.boundary(line, at)
            }),
        };
        let compaction = &mut self.builder.session.compactions[index];
        compaction.summary = ImportedSummary::Text(text);
        compaction.items_after = Some(1);
        self.items_since_boundary = 1;
    }
}

fn flag(record: &Map<String, Value>, key: &str) -> bool {
    record.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn trigger(recorded: Option<&str>) -> Option<CompactionTrigger> {
    match recorded? {
        "auto" => Some(CompactionTrigger::Auto),
        "manual" => Some(CompactionTrigger::Manual),
        _ => None,
    }
}

impl LineFolder for ClaudeFolder {
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
        record: Map<String, Value>,
    ) -> Option<()> {
        let session = &mut self.builder.session;
        SessionBuilder::first(&mut session.id, text_at(&record, "sessionId"));
        SessionBuilder::first(&mut session.workspace, text_at(&record, "cwd"));
        SessionBuilder::first(&mut session.tool_version, text_at(&record, "version"));
        if let Some(title) = text_at(&record, "uuid").and_then(|uuid| self.leaf_titles.get(&uuid)) {
            // The title of the newest leaf in this file.
            session.title = Some(title.clone());
        }
        match kind {
            Some("user") => self.user(line, at, &record),
            Some("assistant") => self.assistant(line, at, &record),
            Some("system") => self.system(line, at, &record),
            Some("summary") => {
                if let (Some(leaf), Some(summary)) =
                    (text_at(&record, "leafUuid"), text_at(&record, "summary"))
                    && self.leaf_titles.len() < LEAF_TITLES_KEPT
                {
                    self.leaf_titles.insert(leaf, summary);
                }
                Some(())
            }
            Some(
                "file-history-snapshot"
                | "progress"
                | "queue-operation"
                | "attachment"
                | "last-prompt"
                | "permission-mode"
                | "mode"
                | "ai-title"
                | "agent-setting"
                | "pr-link"
                | "custom-title",
            ) => Some(()),
            Some(other) => {
                self.builder.warnings().unknown(other);
                Some(())
            }
            None => None,
        }
    }
}
