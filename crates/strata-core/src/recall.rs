//! Nothing compacted is gone: every item a session ever recorded is found by
//! its id (or a unique prefix of it) in the session's own records, and the
//! `recall` tool gives the model back what eviction or a summary removed,
//! by id or by searching. Pure functions over records and a history.

use std::collections::{HashMap, HashSet};

use regex::{Regex, RegexBuilder};
use serde::Deserialize;
use strata_protocol::{ItemId, Record, RecordBody, RecordedItem, ResponseItem, ToolSpec};

use crate::compaction::{EVICTED_PREFIX, item_text};
use crate::error::{CoreError, Result};
use crate::history::History;

/// The recall tool's name.
pub const RECALL: &str = "recall";

/// The longest pattern the recall tool accepts.
pub const RECALL_MAX_QUERY_CHARS: usize = 200;

/// Matches a search returns at most.
pub const RECALL_MAX_MATCHES: usize = 40;

/// Characters of a matching line shown in a search result.
const MATCH_LINE_CHARS: usize = 160;

/// The compiled size a regex may take: patterns past it are refused, so a
/// pattern from the model cannot make the search slow or large (the regex
/// crate's matching is linear in the text).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// The recall tool's spec, sent with every round of a session that can
/// remove items (every policy but `base`, whose requests stay as they were).
pub fn recall_spec() -> ToolSpec {
    ToolSpec {
        name: RECALL.to_owned(),
        description: "Get back what compaction removed from your context: the original of an \
                      evicted tool output or of any summarized item, by its id (as placeholders, \
                      the state sheet and summaries name them; a unique prefix works), or search \
                      the removed items for text and get the ids of the matches. Reads only \
                      this session's own records."
            .to_owned(),
        parameters: serde_json::json!({
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": "An item id, or a unique prefix of one."},
                "query": {"type": "string", "description": "Text to find in the removed items (case-insensitive)."},
                "regex": {"type": "boolean", "description": "Treat query as a regular expression."}
            },
            "additionalProperties": false
        }),
    }
}

/// Every item the records hold, as first written, in write order: response
/// items (a capped tool output with its full text), summaries and state-sheet
/// messages of layered compactions.
pub fn recorded_originals(records: &[Record]) -> Vec<ResponseItem> {
    let mut items: Vec<ResponseItem> = Vec::new();
    let mut seen: HashSet<ItemId> = HashSet::new();
    let mut full: HashMap<ItemId, String> = HashMap::new();
    for record in records {
        let found = match &record.body {
            RecordBody::ResponseItem(item) => vec![item.clone()],
            RecordBody::LayeredCompaction(layered) => vec![
                ResponseItem::CompactionSummary(layered.summary.clone()),
                ResponseItem::Message(layered.sheet_message.clone()),
            ],
            RecordBody::FullToolOutput(output) => {
                full.insert(output.item_id, output.output.clone());
                Vec::new()
            }
            _ => Vec::new(),
        };
        for item in found {
            if seen.insert(item.id()) {
                items.push(item);
            }
        }
    }
    for item in &mut items {
        if let ResponseItem::FunctionCallOutput(output) = item
            && let Some(text) = full.remove(&output.id)
        {
            output.output = text;
        }
    }
    items
}

/// The one item id a full id or a unique prefix (case-insensitive) names
/// among `ids`.
pub fn resolve_item(ids: impl IntoIterator<Item = ItemId>, query: &str) -> Result<ItemId> {
    let wanted = query.trim().to_ascii_lowercase();
    let not_found = || CoreError::ItemNotFound {
        query: query.to_owned(),
    };
    if wanted.is_empty() {
        return Err(not_found());
    }
    let mut matches: Vec<ItemId> = ids
        .into_iter()
        .filter(|id| id.to_string().starts_with(&wanted))
        .collect();
    matches.sort();
    matches.dedup();
    match matches.as_slice() {
        [] => Err(not_found()),
        [id] => Ok(*id),
        many => Err(CoreError::AmbiguousItem {
            query: query.to_owned(),
            count: many.len(),
        }),
    }
}

/// The id `query` names among every item the records hold.
pub fn resolve_recorded_item(records: &[Record], query: &str) -> Result<ItemId> {
    resolve_item(
        recorded_originals(records).iter().map(ResponseItem::id),
        query,
    )
}

fn kind_of(item: &ResponseItem) -> &'static str {
    match item {
        ResponseItem::Message(message)
            if message
                .content
                .starts_with(crate::compaction::STATE_SHEET_PREFIX) =>
        {
            "state_sheet"
        }
        ResponseItem::Message(_) => "message",
        ResponseItem::FunctionCall(_) => "function_call",
        ResponseItem::FunctionCallOutput(_) => "function_call_output",
        ResponseItem::CompactionSummary(_) => "compaction_summary",
        ResponseItem::Reasoning(_) => "reasoning",
    }
}

fn is_placeholder(item: &ResponseItem) -> bool {
    matches!(item, ResponseItem::FunctionCallOutput(o) if o.output.starts_with(EVICTED_PREFIX))
}

fn first_line(text: &str, chars: usize) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("");
    let mut cut: String = line.chars().take(chars).collect();
    if line.chars().count() > chars {
        cut.push('…');
    }
    cut
}

/// Every item ever recorded, in write order, with whether the model sees it
/// now (verbatim or as a placeholder) and whether it is pinned.
pub fn recorded_items(records: &[Record], history: &History) -> Vec<RecordedItem> {
    let visible: HashMap<ItemId, &ResponseItem> = history
        .items()
        .iter()
        .map(|item| (item.id(), item))
        .collect();
    recorded_originals(records)
        .iter()
        .map(|item| {
            let now = visible.get(&item.id());
            RecordedItem {
                id: item.id(),
                kind: kind_of(item).to_owned(),
                role: item.role().map(|role| role.as_str().to_owned()),
                call_id: item.call_id().map(str::to_owned),
                in_context: now.is_some(),
                evicted: now.is_some_and(|now| is_placeholder(now)),
                pinned: history.is_pinned(item.id()),
                preview: first_line(&item_text(item), 80),
            }
        })
        .collect()
}

/// The items the model no longer sees as written: removed by a summary, or
/// in context only as an eviction placeholder. Originals, in write order.
pub fn removed_items(records: &[Record], history: &History) -> Vec<ResponseItem> {
    let verbatim: HashSet<ItemId> = history
        .items()
        .iter()
        .filter(|item| !is_placeholder(item))
        .map(ResponseItem::id)
        .collect();
    recorded_originals(records)
        .into_iter()
        .filter(|item| !verbatim.contains(&item.id()))
        .collect()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecallArgs {
    id: Option<String>,
    query: Option<String>,
    #[serde(default)]
    regex: bool,
}

/// What the recall tool answers (before the tool output cap): the original
/// of one item, or the removed items matching a search. Mistakes are
/// answered in text, as every tool's are.
pub fn recall(records: &[Record], history: &History, arguments: &str) -> String {
    let arguments = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    let args: RecallArgs = match serde_json::from_str(arguments) {
        Ok(args) => args,
        Err(error) => return format!("recall: invalid arguments: {error}"),
    };
    match (args.id, args.query) {
        (Some(id), None) => recall_by_id(records, &id),
        (None, Some(query)) => search(records, history, &query, args.regex),
        _ => "recall: give either id (an item id or a unique prefix) or query (text to \
              search the removed items for)"
            .to_owned(),
    }
}

fn recall_by_id(records: &[Record], query: &str) -> String {
    let originals = recorded_originals(records);
    let id = match resolve_item(originals.iter().map(ResponseItem::id), query) {
        Ok(id) => id,
        Err(error) => return format!("recall: {error}"),
    };
    let Some(item) = originals.iter().find(|item| item.id() == id) else {
        return format!("recall: no item of this session matches {query:?}");
    };
    let what = match item {
        ResponseItem::FunctionCallOutput(output) => {
            let call = originals.iter().find_map(|other| match other {
                ResponseItem::FunctionCall(call) if call.call_id == output.call_id => Some(call),
                _ => None,
            });
            match call {
                Some(call) => format!(
                    "output of {} {}",
                    call.name,
                    first_line(&call.arguments, 200)
                ),
                None => "a tool output".to_owned(),
            }
        }
        ResponseItem::Message(message) => format!("{} message", message.role.as_str()),
        other => kind_of(other).replace('_', " "),
    };
    let text = item_text(item);
    format!(
        "[recalled item {id}: {what}, {} chars, as first recorded]\n{text}",
        text.chars().count()
    )
}

fn pattern(query: &str, regex: bool) -> std::result::Result<Regex, String> {
    if query.trim().is_empty() {
        return Err("the query is empty".to_owned());
    }
    if query.chars().count() > RECALL_MAX_QUERY_CHARS {
        return Err(format!(
            "the query is longer than {RECALL_MAX_QUERY_CHARS} characters"
        ));
    }
    let source = if regex {
        query.to_owned()
    } else {
        regex::escape(query)
    };
    RegexBuilder::new(&source)
        .case_insensitive(true)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|error| format!("the pattern is not usable: {error}"))
}

fn search(records: &[Record], history: &History, query: &str, regex: bool) -> String {
    let pattern = match pattern(query, regex) {
        Ok(pattern) => pattern,
        Err(message) => return format!("recall: {message}"),
    };
    let mut lines = Vec::new();
    let mut total = 0usize;
    for item in removed_items(records, history) {
        let text = item_text(&item);
        for line in text.lines().filter(|line| pattern.is_match(line)) {
            total += 1;
            if lines.len() < RECALL_MAX_MATCHES {
                lines.push(format!(
                    "- {} ({}): {}",
                    item.id(),
                    kind_of(&item),
                    first_line(line, MATCH_LINE_CHARS)
                ));
            }
        }
    }
    if total == 0 {
        return format!(
            "recall: nothing removed from your context matches {query:?} (items you still see \
             are not searched)"
        );
    }
    let mut out = format!(
        "recall: {total} matching line(s) in removed items{}; call recall with an id for the \
         whole item:\n",
        if total > lines.len() {
            format!(", the first {} shown", lines.len())
        } else {
            String::new()
        }
    );
    out.push_str(&lines.join("\n"));
    out
}

#[cfg(test)]
mod tests;
