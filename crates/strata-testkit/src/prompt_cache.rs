//! The providers' prompt-cache rules as pure functions over a sequence of
//! requests, for the local servers that enforce them over HTTP
//! (strata-providers' `caching_server` tests) and for the money columns of
//! the context bench (strata-core's `context_bench`). A request is a list of
//! [`Block`]s in the order the provider reads the prompt (tools, system,
//! messages); a block is compared by its bytes (without any cache marker)
//! and counted by its tokens.
//!
//! **Anthropic Messages** (explicit breakpoints, from Anthropic's
//! prompt-caching guide): at most [`MAX_BREAKPOINTS`] `cache_control`
//! markers per request (more is a 400); a breakpoint whose prefix is below
//! the model's minimum cacheable size neither writes nor reads; a request
//! reads the longest prefix that ends at one of its breakpoints and was
//! written earlier, byte for byte, and has not expired; each breakpoint past
//! that point writes the tokens between the previous cached position and
//! itself, billed by its TTL (5 minutes or 1 hour); a read or a write
//! refreshes an entry's lifetime.
//!
//! **OpenAI** (automatic prefix caching, from OpenAI's prompt-caching
//! guide): prompts of at least [`OPENAI_MIN_TOKENS`] tokens cache
//! automatically; a request reads the longest token prefix it shares with an
//! earlier, unexpired request of the same `prompt_cache_key`, in steps of
//! [`OPENAI_INCREMENT`] tokens from 1,024; every request is written for
//! later ones, and an entry lives `retention` seconds after its last use.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

/// Anthropic's limit on breakpoints in one request.
pub const MAX_BREAKPOINTS: usize = 4;
/// OpenAI caches prompts of at least this many tokens.
pub const OPENAI_MIN_TOKENS: u64 = 1024;
/// OpenAI's cache hits grow in steps of this many tokens past the minimum.
pub const OPENAI_INCREMENT: u64 = 128;

/// An Anthropic breakpoint's lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ttl {
    FiveMinutes,
    OneHour,
}

impl Ttl {
    pub fn seconds(self) -> u64 {
        match self {
            Ttl::FiveMinutes => 5 * 60,
            Ttl::OneHour => 60 * 60,
        }
    }
}

/// One block of a prompt: its bytes (any cache marker removed), its tokens,
/// and the breakpoint it carries (Anthropic only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub bytes: Vec<u8>,
    pub tokens: u64,
    pub breakpoint: Option<Ttl>,
}

impl Block {
    /// A block counted as characters ÷ 4, rounded up (what Strata's
    /// estimator counts).
    pub fn text(text: &str, breakpoint: Option<Ttl>) -> Self {
        Block {
            bytes: text.as_bytes().to_vec(),
            tokens: text.chars().count().div_ceil(4) as u64,
            breakpoint,
        }
    }
}

/// What one request's input was billed as. `uncached + read + written_5m +
/// written_1h` is the request's whole input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheUsage {
    /// Input at the base rate (Anthropic's `input_tokens`).
    pub uncached: u64,
    /// Served from the cache (`cache_read_input_tokens`, `cached_tokens`).
    pub read: u64,
    /// Written with a 5-minute and a 1-hour lifetime
    /// (`cache_creation.ephemeral_5m_input_tokens`, `…_1h_…`).
    pub written_5m: u64,
    pub written_1h: u64,
}

impl CacheUsage {
    pub fn input(&self) -> u64 {
        self.uncached + self.read + self.written()
    }

    /// `cache_creation_input_tokens`.
    pub fn written(&self) -> u64 {
        self.written_5m + self.written_1h
    }
}

/// A request the rules refuse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheError {
    /// More than [`MAX_BREAKPOINTS`] `cache_control` markers.
    TooManyBreakpoints(usize),
}

impl std::fmt::Display for CacheError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CacheError::TooManyBreakpoints(n) => write!(
                f,
                "A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {n}."
            ),
        }
    }
}

/// The digest of each prefix `blocks[..=i]`, and its tokens.
fn prefixes(blocks: &[Block]) -> Vec<(u64, u64)> {
    let mut hasher = DefaultHasher::new();
    let mut tokens = 0;
    blocks
        .iter()
        .map(|block| {
            block.bytes.len().hash(&mut hasher);
            block.bytes.hash(&mut hasher);
            tokens += block.tokens;
            (hasher.finish(), tokens)
        })
        .collect()
}

/// Anthropic's cache: entries by prefix digest, each with its expiry.
#[derive(Clone, Debug)]
pub struct AnthropicCache {
    minimum: u64,
    entries: HashMap<u64, u64>,
}

impl AnthropicCache {
    /// A cache for a model whose minimum cacheable prefix is `minimum`
    /// tokens.
    pub fn new(minimum: u64) -> Self {
        AnthropicCache {
            minimum,
            entries: HashMap::new(),
        }
    }

    /// Bills `blocks`, sent at `now` (seconds), and updates the cache.
    pub fn request(&mut self, now: u64, blocks: &[Block]) -> Result<CacheUsage, CacheError> {
        let marked = blocks.iter().filter(|b| b.breakpoint.is_some()).count();
        if marked > MAX_BREAKPOINTS {
            return Err(CacheError::TooManyBreakpoints(marked));
        }
        let prefixes = prefixes(blocks);
        let total = prefixes.last().map_or(0, |&(_, tokens)| tokens);
        // Breakpoints that can cache: (position, digest, tokens, ttl).
        let points: Vec<(usize, u64, u64, Ttl)> = blocks
            .iter()
            .enumerate()
            .filter_map(|(at, block)| {
                let (digest, tokens) = prefixes[at];
                block
                    .breakpoint
                    .filter(|_| tokens >= self.minimum)
                    .map(|ttl| (at, digest, tokens, ttl))
            })
            .collect();
        let live = |digest: &u64, entries: &HashMap<u64, u64>| {
            entries.get(digest).is_some_and(|&expires| expires > now)
        };
        let hit = points
            .iter()
            .rposition(|(_, digest, _, _)| live(digest, &self.entries));
        let mut usage = CacheUsage::default();
        let mut cached_to = 0;
        if let Some(hit) = hit {
            cached_to = points[hit].2;
            usage.read = cached_to;
            for (_, digest, _, ttl) in &points[..=hit] {
                if live(digest, &self.entries) {
                    self.entries.insert(*digest, now + ttl.seconds());
                }
            }
        }
        let first_write = hit.map_or(0, |hit| hit + 1);
        for &(_, digest, tokens, ttl) in &points[first_write..] {
            let written = tokens - cached_to;
            match ttl {
                Ttl::FiveMinutes => usage.written_5m += written,
                Ttl::OneHour => usage.written_1h += written,
            }
            cached_to = tokens;
            self.entries.insert(digest, now + ttl.seconds());
        }
        usage.uncached = total - usage.read - usage.written();
        Ok(usage)
    }
}

/// One request OpenAI keeps for later prefix matches.
#[derive(Clone, Debug)]
struct Kept {
    blocks: Vec<Block>,
    expires: u64,
}

/// OpenAI's automatic cache: earlier requests by `prompt_cache_key`.
#[derive(Clone, Debug)]
pub struct OpenAiCache {
    retention: u64,
    by_key: HashMap<Option<String>, Vec<Kept>>,
}

impl OpenAiCache {
    /// A cache whose entries live `retention` seconds after their last use
    /// (OpenAI: 5 to 10 minutes of inactivity in memory, up to 24 hours with
    /// `prompt_cache_retention: "24h"`).
    pub fn new(retention: u64) -> Self {
        OpenAiCache {
            retention,
            by_key: HashMap::new(),
        }
    }

    /// Bills `blocks`, sent at `now` (seconds) with `key`, and keeps them.
    pub fn request(&mut self, now: u64, key: Option<&str>, blocks: &[Block]) -> CacheUsage {
        let total: u64 = blocks.iter().map(|b| b.tokens).sum();
        let kept = self.by_key.entry(key.map(str::to_owned)).or_default();
        kept.retain(|k| k.expires > now);
        let best = kept
            .iter_mut()
            .map(|k| (shared_tokens(&k.blocks, blocks), k))
            .max_by_key(|(shared, _)| *shared);
        let mut read = 0;
        if let Some((shared, earlier)) = best
            && total >= OPENAI_MIN_TOKENS
            && shared >= OPENAI_MIN_TOKENS
        {
            read = OPENAI_MIN_TOKENS
                + (shared - OPENAI_MIN_TOKENS) / OPENAI_INCREMENT * OPENAI_INCREMENT;
            earlier.expires = now + self.retention;
        }
        if total >= OPENAI_MIN_TOKENS {
            kept.push(Kept {
                blocks: blocks.to_vec(),
                expires: now + self.retention,
            });
        }
        CacheUsage {
            uncached: total - read,
            read,
            ..CacheUsage::default()
        }
    }
}

/// The tokens two prompts share from the start: whole equal blocks, then
/// the first differing block's common bytes at its tokens per byte.
fn shared_tokens(a: &[Block], b: &[Block]) -> u64 {
    let mut shared = 0;
    for (x, y) in a.iter().zip(b) {
        if x.bytes == y.bytes {
            shared += x.tokens;
            continue;
        }
        let common = x
            .bytes
            .iter()
            .zip(&y.bytes)
            .take_while(|(p, q)| p == q)
            .count() as u64;
        let len = (y.bytes.len() as u64).max(1);
        shared += (common * y.tokens / len).min(x.tokens);
        break;
    }
    shared
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(text: &str, tokens: u64, breakpoint: Option<Ttl>) -> Block {
        Block {
            bytes: text.as_bytes().to_vec(),
            tokens,
            breakpoint,
        }
    }

    const FIVE: Option<Ttl> = Some(Ttl::FiveMinutes);

    #[test]
    fn anthropic_writes_then_reads_the_prefix_up_to_a_breakpoint() {
        let mut cache = AnthropicCache::new(1024);
        let first = [block("system", 2000, FIVE), block("user 1", 500, FIVE)];
        assert_eq!(
            cache.request(0, &first).unwrap(),
            CacheUsage {
                uncached: 0,
                read: 0,
                written_5m: 2500,
                written_1h: 0
            }
        );
        let second = [
            block("system", 2000, FIVE),
            block("user 1", 500, FIVE),
            block("answer", 300, None),
            block("user 2", 200, FIVE),
        ];
        // Three breakpoints; the second one was written: read 2500, write 500.
        let usage = cache.request(60, &second).unwrap();
        assert_eq!(
            (usage.read, usage.written_5m, usage.uncached),
            (2500, 500, 0)
        );
    }

    #[test]
    fn anthropic_refuses_a_fifth_breakpoint() {
        let mut cache = AnthropicCache::new(1);
        let blocks: Vec<Block> = (0..5).map(|i| block(&i.to_string(), 10, FIVE)).collect();
        assert_eq!(
            cache.request(0, &blocks),
            Err(CacheError::TooManyBreakpoints(5))
        );
    }

    #[test]
    fn anthropic_does_not_cache_below_the_minimum_nor_after_the_ttl() {
        let mut cache = AnthropicCache::new(1024);
        let small = [block("system", 1000, FIVE), block("user", 10, None)];
        assert_eq!(cache.request(0, &small).unwrap().uncached, 1010);
        assert_eq!(cache.request(1, &small).unwrap().read, 0);
        let big = [block("system", 2000, FIVE)];
        assert_eq!(cache.request(0, &big).unwrap().written_5m, 2000);
        assert_eq!(cache.request(299, &big).unwrap().read, 2000);
        // The read at 299 refreshed it until 599.
        assert_eq!(cache.request(598, &big).unwrap().read, 2000);
        assert_eq!(cache.request(598 + 300, &big).unwrap().read, 0);
        let hour = [block("system", 2000, Some(Ttl::OneHour))];
        let mut cache = AnthropicCache::new(1024);
        assert_eq!(cache.request(0, &hour).unwrap().written_1h, 2000);
        assert_eq!(cache.request(3599, &hour).unwrap().read, 2000);
    }

    #[test]
    fn anthropic_reads_nothing_when_a_byte_before_the_breakpoint_changed() {
        let mut cache = AnthropicCache::new(1024);
        cache
            .request(0, &[block("system", 2000, None), block("a", 100, FIVE)])
            .unwrap();
        let changed = [block("system!", 2000, None), block("a", 100, FIVE)];
        assert_eq!(cache.request(1, &changed).unwrap().read, 0);
    }

    #[test]
    fn openai_reads_the_shared_prefix_in_steps_of_128_from_1024() {
        let mut cache = OpenAiCache::new(300);
        let first = [block("tools", 1500, None), block("user", 100, None)];
        assert_eq!(cache.request(0, Some("k"), &first).read, 0);
        let second = [
            block("tools", 1500, None),
            block("user", 100, None),
            block("more", 400, None),
        ];
        // 1,600 shared: 1,024 + 4 × 128.
        assert_eq!(cache.request(10, Some("k"), &second).read, 1536);
        // Another key shares nothing; nor does an expired entry.
        assert_eq!(cache.request(11, Some("other"), &second).read, 0);
        assert_eq!(cache.request(10_000, Some("k"), &second).read, 0);
        // Below 1,024 shared tokens nothing is read.
        let short = [block("tools", 900, None), block("x", 900, None)];
        let mut cache = OpenAiCache::new(300);
        cache.request(0, None, &short);
        let other = [block("tools", 900, None), block("y", 900, None)];
        assert_eq!(cache.request(1, None, &other).read, 0);
    }
}
