//! Where a Messages request asks for prompt caching. The API caches the
//! prompt up to each `cache_control` breakpoint (tools, then system, then
//! messages, in that order), at most four per request, and reads the longest
//! cached prefix back on the next request. Strata marks:
//!
//! 1. the newest message: everything this round sends, written for the next
//!    round, which appends to it;
//! 2. the user message the previous round ended with (the one before the
//!    newest assistant turn): exactly where the previous round's newest
//!    breakpoint was, so this round reads that entry even when the tool calls
//!    and results since then are more blocks than the API looks back over;
//! 3. the end of each stable prefix the request announces (`ModelRequest::cache_anchors`, from
//!    [`strata_core::compaction::cache_anchors`]): the one the previous round
//!    cached, read back after an eviction, and the one the next eviction
//!    leaves alone, written for it; an eviction then rewrites the cache only
//!    from the first, not from the system prompt;
//! 4. the end of the system prompt (or of the tool definitions when there is
//!    no system prompt), the same for the whole session, when a breakpoint
//!    is left (the anchors' prefixes hold it);
//! 5. the end of the tool definitions when a system prompt follows them and
//!    a breakpoint is left, so a changed system prompt still finds the tools
//!    cached.
//!
//! Only a session's rounds are marked: a request outside one (a compaction
//! summary, a connection test) is sent once, so a cache write (billed above
//! the base input rate) would never be read.
//!
//! A breakpoint whose prefix is below the model's minimum cacheable size
//! ([`anthropic_min_cacheable_tokens`]) is not sent. Sizes are estimated as
//! the serialized JSON's characters ÷ 4 (no Claude tokenizer is embedded).

use serde::Serialize;

use super::request::{Block, MessagesRequest, Turn};
use crate::cache::{CacheTtl, anthropic_min_cacheable_tokens};

/// The API's limit on breakpoints in one request.
pub const MAX_BREAKPOINTS: usize = 4;

/// `{"type": "ephemeral"}`, with `"ttl": "1h"` for the longer TTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl: Option<&'static str>,
}

impl CacheControl {
    fn new(ttl: CacheTtl) -> Self {
        let ttl = match ttl {
            // The API's default; sent without a `ttl` like its own examples.
            CacheTtl::FiveMinutes => None,
            CacheTtl::OneHour => Some("1h"),
        };
        Self {
            kind: "ephemeral",
            ttl,
        }
    }
}

/// Marks `body`'s breakpoints as the module says, for `model`'s minimum.
pub(super) fn place_breakpoints(body: &mut MessagesRequest<'_>, model: &str, ttl: CacheTtl) {
    if !body.in_session {
        return;
    }
    let control = CacheControl::new(ttl);
    // One form for the system prompt in every round, marked or not, so the
    // prefix before the messages is byte-identical whichever breakpoints
    // this round has room for.
    if let Some(system) = &mut body.system {
        system.set_block(None);
    }
    let minimum = anthropic_min_cacheable_tokens(model);
    let caches = |chars: usize| u64::try_from(chars.div_ceil(4)).unwrap_or(u64::MAX) >= minimum;

    let tools_chars: usize = body.tools.iter().map(json_len).sum();
    let head_chars = tools_chars + body.system.as_ref().map_or(0, json_len);
    let mut prefix = head_chars;
    let message_ends: Vec<usize> = body
        .messages
        .iter()
        .map(|turn| {
            prefix += json_len(turn);
            prefix
        })
        .collect();

    let newest = body.messages.len().checked_sub(1);
    let previous = previous_round_end(&body.messages).filter(|&index| Some(index) != newest);
    // The end of each stable prefix the context manager announced, oldest
    // first: the last message before it that can carry a breakpoint.
    let mut anchors: Vec<usize> = Vec::new();
    for &before in &body.stable_before {
        let end = body.messages[..before.min(body.messages.len())]
            .iter()
            .rposition(markable);
        if let Some(end) = end.filter(|end| ![newest, previous].contains(&Some(*end)))
            && !anchors.contains(&end)
        {
            anchors.push(end);
        }
    }
    let mut placed = 0;
    for index in [newest, previous]
        .into_iter()
        .flatten()
        .chain(anchors.iter().copied())
    {
        if placed < MAX_BREAKPOINTS
            && caches(message_ends[index])
            && mark_last_block(&mut body.messages[index], control)
        {
            placed += 1;
        }
    }
    if placed < MAX_BREAKPOINTS && caches(head_chars) {
        if let Some(system) = &mut body.system {
            system.mark(control);
            placed += 1;
        } else if let Some(tool) = body.tools.last_mut() {
            tool.cache_control = Some(control);
            placed += 1;
        }
    }
    if placed < MAX_BREAKPOINTS
        && body.system.is_some()
        && caches(tools_chars)
        && let Some(tool) = body.tools.last_mut()
    {
        tool.cache_control = Some(control);
    }
}

/// The user message before the newest assistant turn: the previous round's
/// last message.
fn previous_round_end(messages: &[Turn<'_>]) -> Option<usize> {
    let assistant = messages.iter().rposition(|turn| turn.role == "assistant")?;
    messages[..assistant]
        .iter()
        .rposition(|turn| turn.role == "user")
}

/// Whether a message has a block that can carry a breakpoint.
fn markable(turn: &Turn<'_>) -> bool {
    turn.content
        .iter()
        .any(|block| matches!(block, Block::Text { .. } | Block::ToolResult { .. }))
}

/// Puts the breakpoint on the message's last block that can carry one
/// (text or a tool result; thinking blocks cannot). False when none can.
fn mark_last_block(turn: &mut Turn<'_>, control: CacheControl) -> bool {
    for block in turn.content.iter_mut().rev() {
        match block {
            Block::Text { cache_control, .. } | Block::ToolResult { cache_control, .. } => {
                *cache_control = Some(control);
                return true;
            }
            Block::ToolUse { .. } | Block::Verbatim(_) => {}
        }
    }
    false
}

/// The length of `value` as compact JSON.
fn json_len(value: &impl Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}
