//! The words and figures of the console's rows: exact counts, estimates
//! marked "≈", plurals and the plain names of triggers.

use strata_protocol::{CompactionTrigger, McpCatalog, McpCatalogServer, TokenUsage};

/// An exact count with thousands separators ("8,015"): two figures that
/// differ never read the same.
pub fn tokens(count: u64) -> String {
    let digits = count.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// An estimate: "≈ 1,412".
pub fn estimate(count: u64) -> String {
    format!("≈ {}", tokens(count))
}

pub fn plural(count: usize, one: &str, many: &str) -> String {
    format!(
        "{} {}",
        tokens(count as u64),
        if count == 1 { one } else { many }
    )
}

/// How each trigger is said in a sentence.
pub fn trigger_phrase(trigger: CompactionTrigger) -> &'static str {
    match trigger {
        CompactionTrigger::Auto => "automatic, between model calls",
        CompactionTrigger::Manual => "asked for",
        CompactionTrigger::ContextOverflow => "after the model's context overflowed",
        CompactionTrigger::PreTurn => "before a new message",
        CompactionTrigger::ModelSwitch => "after a model switch",
    }
}

pub fn one_line(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > max {
        let mut cut: String = line.chars().take(max - 1).collect();
        cut.push('…');
        cut
    } else {
        line
    }
}

/// The usage a round reported, in one line.
pub fn usage_text(usage: &TokenUsage) -> String {
    let mut parts = Vec::new();
    if let Some(input) = usage.input_tokens {
        let cached = usage
            .cached_input_tokens
            .filter(|&c| c > 0)
            .map(|c| format!(" ({} cached)", tokens(c)))
            .unwrap_or_default();
        parts.push(format!("{} in{cached}", tokens(input)));
    }
    if let Some(output) = usage.output_tokens {
        let reasoning = usage
            .reasoning_output_tokens
            .filter(|&r| r > 0)
            .map(|r| format!(" ({} reasoning)", tokens(r)))
            .unwrap_or_default();
        parts.push(format!("{} out{reasoning}", tokens(output)));
    }
    if let Some(total) = usage.total_tokens {
        parts.push(format!("total {}", tokens(total)));
    }
    if parts.is_empty() {
        "no figures reported".to_owned()
    } else {
        parts.join(" · ")
    }
}

/// "350 ms", "2.5 s".
pub fn duration(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1_000.0)
    }
}

/// What an `mcp_catalog` record offers, in one line: each server's name
/// (control characters escaped: server text is hostile) and tool count.
pub fn mcp_catalog_text(catalog: &McpCatalog) -> String {
    if catalog.servers.is_empty() {
        return "no MCP tools from here on".into();
    }
    let servers: Vec<String> = catalog
        .servers
        .iter()
        .map(|server| {
            let name: String = server.name.chars().flat_map(char::escape_default).collect();
            let count = plural(server.tools.len(), "tool", "tools");
            let cost = estimate(server_definition_tokens(catalog, server));
            format!("{} ({count}, {cost} tokens a request)", one_line(&name, 64))
        })
        .collect();
    format!("{} from here on", servers.join(", "))
}

/// What a server's tool definitions, as the requests send them, cost in
/// every request: characters ÷ 4 (the console's estimate where the model's
/// tokenizer is not at hand), counted over each spec's JSON.
pub fn server_definition_tokens(catalog: &McpCatalog, server: &McpCatalogServer) -> u64 {
    let estimator = strata_core::compaction::CharEstimator;
    catalog
        .tools
        .iter()
        .filter(|spec| server.tools.iter().any(|tool| tool.name == spec.name))
        .map(|spec| {
            let json = serde_json::to_string(spec).unwrap_or_default();
            strata_core::compaction::TokenEstimator::count(&estimator, &json)
        })
        .sum()
}
