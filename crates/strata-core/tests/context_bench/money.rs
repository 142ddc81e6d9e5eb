//! What the bench's requests cost in money under each provider's prompt-cache
//! rules (`strata_testkit::prompt_cache`): every request the scripted model
//! receives is billed twice as it arrives, once as Anthropic would bill it
//! with the breakpoints Strata sends (strata-providers
//! `anthropic/breakpoints.rs`: the end of the system prompt, the newest
//! message, the previous round's last message, the request's cache anchors
//! once the session has evicted, and the system prompt when a breakpoint is
//! left) and once as OpenAI would
//! with automatic prefix caching under the session's `prompt_cache_key`.
//! Summary requests are outside a session: no breakpoints, no key.
//!
//! Time is simulated so TTLs expire between turns: each request takes
//! [`ROUND_SECONDS`], and the person pauses between turns
//! ([`pause_before_turn`]), sometimes longer than a 5-minute TTL.

use strata_protocol::{BilledTokens, Usd, lookup_price};
use strata_testkit::prompt_cache::{
    AnthropicCache, Block, CacheUsage, MAX_BREAKPOINTS, OpenAiCache, Ttl,
};

use super::*;

/// Seconds one request (the model's answer and the tools after it) takes.
pub(super) const ROUND_SECONDS: u64 = 20;
/// Sonnet's minimum cacheable prefix (strata-providers `cache.rs`).
pub(super) const ANTHROPIC_MINIMUM: u64 = 1024;
/// OpenAI's in-memory retention: 5 to 10 minutes of inactivity; the bench
/// takes the lower bound.
pub(super) const OPENAI_RETENTION: u64 = 5 * 60;

/// The person's pause before turn `turn` (0 has none): a minute or two
/// to read the answer, and every fourth turn a 15-minute break, past a
/// 5-minute TTL.
pub(super) fn pause_before_turn(turn: usize) -> u64 {
    match turn {
        0 => 0,
        t if t % 4 == 0 => 15 * 60,
        t => 60 + (t as u64 % 3) * 30,
    }
}

/// Both providers' bills for one run, as token totals by kind.
pub(super) struct Bills {
    anthropic_cache: AnthropicCache,
    openai_cache: OpenAiCache,
    pub(super) anthropic: CacheUsage,
    pub(super) openai: CacheUsage,
    pub(super) output: u64,
    /// Requests Anthropic would have refused (more than 4 breakpoints).
    pub(super) refused: usize,
}

impl Default for Bills {
    fn default() -> Self {
        Bills {
            anthropic_cache: AnthropicCache::new(ANTHROPIC_MINIMUM),
            openai_cache: OpenAiCache::new(OPENAI_RETENTION),
            anthropic: CacheUsage::default(),
            openai: CacheUsage::default(),
            output: 0,
            refused: 0,
        }
    }
}

fn add(total: &mut CacheUsage, usage: CacheUsage) {
    total.uncached += usage.uncached;
    total.read += usage.read;
    total.written_5m += usage.written_5m;
    total.written_1h += usage.written_1h;
}

/// Which Messages role an item is sent as (`None`: the system prompt).
fn role(item: &ResponseItem) -> Option<&'static str> {
    match item {
        ResponseItem::Message(m) => match m.role {
            strata_protocol::Role::User => Some("user"),
            strata_protocol::Role::Assistant => Some("assistant"),
            strata_protocol::Role::System | strata_protocol::Role::Developer => None,
        },
        ResponseItem::CompactionSummary(_) | ResponseItem::FunctionCallOutput(_) => Some("user"),
        ResponseItem::FunctionCall(_) | ResponseItem::Reasoning(_) => Some("assistant"),
    }
}

/// One Messages message of a request: its role, the item its first block
/// came from, and its last block that can carry a breakpoint (text or a tool
/// result; a `tool_use` block cannot).
struct Message {
    role: &'static str,
    first_item: usize,
    markable: Option<usize>,
}

/// The blocks Anthropic reads for `items`, with Strata's breakpoints when the
/// request is a session's round (`in_session`): as
/// strata-providers `anthropic/breakpoints.rs` places them, with one block
/// per item and consecutive items of one role in one message.
pub(super) fn anthropic_blocks(request: &ModelRequest, in_session: bool) -> Vec<Block> {
    let items = &request.input;
    let mut blocks = Vec::new();
    let mut system_end = None;
    let mut messages: Vec<Message> = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let Some(role) = role(item) else {
            blocks.push(Block::text(&item_text(item), None));
            system_end = Some(blocks.len() - 1);
            continue;
        };
        blocks.push(Block::text(&format!("{role}:{}", item_text(item)), None));
        let at = blocks.len() - 1;
        if messages.last().is_none_or(|last| last.role != role) {
            messages.push(Message {
                role,
                first_item: index,
                markable: None,
            });
        }
        if let (Some(last), false) = (
            messages.last_mut(),
            matches!(
                item,
                ResponseItem::FunctionCall(_) | ResponseItem::Reasoning(_)
            ),
        ) {
            last.markable = Some(at);
        }
    }
    if !in_session {
        return blocks;
    }
    let prefix = |at: usize| blocks[..=at].iter().map(|b| b.tokens).sum::<u64>();
    let caches = |at: usize| prefix(at) >= ANTHROPIC_MINIMUM;
    let newest = messages.len().checked_sub(1);
    let previous = messages
        .iter()
        .rposition(|m| m.role == "assistant")
        .and_then(|a| messages[..a].iter().rposition(|m| m.role == "user"))
        .filter(|&at| Some(at) != newest);
    // The anchors the request announces: the last markable message before
    // the one holding the first item past each.
    let mut anchors = Vec::new();
    for &anchor in &request.cache_anchors {
        let first = anchor as usize;
        let before = messages
            .iter()
            .rposition(|m| m.first_item <= first && first < items.len())
            .unwrap_or(messages.len());
        if let Some(at) = messages[..before]
            .iter()
            .rposition(|m| m.markable.is_some())
            && ![newest, previous].contains(&Some(at))
            && !anchors.contains(&at)
        {
            anchors.push(at);
        }
    }
    let mut marks = Vec::new();
    for message in [newest, previous]
        .into_iter()
        .flatten()
        .chain(anchors.iter().copied())
    {
        if let Some(end) = messages[message].markable.filter(|&end| caches(end)) {
            marks.push(end);
        }
    }
    if let Some(end) = system_end.filter(|&end| caches(end) && marks.len() < MAX_BREAKPOINTS) {
        marks.push(end);
    }
    for at in marks {
        blocks[at].breakpoint = Some(Ttl::FiveMinutes);
    }
    blocks
}

/// The blocks OpenAI reads for `items`: each item, in order.
fn openai_blocks(items: &[ResponseItem]) -> Vec<Block> {
    items
        .iter()
        .map(|item| Block::text(&item_text(item), None))
        .collect()
}

impl Bills {
    /// Bills one request sent at `now`; `in_session` is false for a summary.
    pub(super) fn bill(&mut self, now: u64, request: &ModelRequest, in_session: bool) {
        match self
            .anthropic_cache
            .request(now, &anthropic_blocks(request, in_session))
        {
            Ok(usage) => add(&mut self.anthropic, usage),
            Err(_) => self.refused += 1,
        }
        let key = in_session.then_some("session");
        let usage = self
            .openai_cache
            .request(now, key, &openai_blocks(&request.input));
        add(&mut self.openai, usage);
    }
}

/// The models the bench prices, one per caching scheme, from the price
/// table (`strata_protocol::PRICE_TABLE`).
pub(super) const ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";
pub(super) const OPENAI_MODEL: &str = "gpt-5.4";

/// What `usage` and `output` cost at `model`'s row of the price table.
pub(super) fn dollars(model: &str, usage: &CacheUsage, output: u64) -> Usd {
    let Some(price) = lookup_price(model).and_then(|row| row.price) else {
        panic!("the price table has no price for {model}");
    };
    price.cost_of(&BilledTokens {
        uncached_input: usage.uncached,
        cached_input: usage.read,
        cache_write_5m: usage.written_5m,
        cache_write_1h: usage.written_1h,
        output,
    })
}
