//! What tokens cost: the built-in price table and the arithmetic that turns a
//! round's [`TokenUsage`] into money.
//!
//! Money is exact integer arithmetic, never `f64` sums. A price is kept in
//! micro-dollars per million tokens, so the cost of `n` tokens is `n × price`
//! pico-dollars with no rounding at all: a session's cost is the exact sum of
//! its rounds' costs, in any order. Only display turns it into a decimal.
//!
//! Each row of [`PRICE_TABLE`] names the date it was read and the page it was
//! read from. A model the table does not know has no price: callers show its
//! tokens and "no price", never an estimate.

use std::fmt;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::TokenUsage;

/// An amount of US dollars, exact to the pico-dollar (10⁻¹² $).
///
/// `u64` pico-dollars reach about 18 million dollars, far beyond any
/// session; sums saturate rather than wrap. In TypeScript it is a `number`
/// of pico-dollars (exact up to about 9,000 dollars).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, TS,
)]
#[serde(transparent)]
pub struct Usd(pub u64);

/// Pico-dollars in one dollar.
pub const PICO_PER_USD: u64 = 1_000_000_000_000;

impl Usd {
    pub const ZERO: Usd = Usd(0);

    /// The amount in pico-dollars.
    pub fn pico(self) -> u64 {
        self.0
    }

    pub fn saturating_add(self, other: Usd) -> Usd {
        Usd(self.0.saturating_add(other.0))
    }

    pub fn saturating_sub(self, other: Usd) -> Usd {
        Usd(self.0.saturating_sub(other.0))
    }

    /// Dollars as a float, for JSON consumers and charts only (never summed
    /// back into money).
    pub fn as_dollars_f64(self) -> f64 {
        // Split so large amounts keep their precision as far as f64 can.
        let whole = self.0 / PICO_PER_USD;
        let frac = self.0 % PICO_PER_USD;
        whole as f64 + frac as f64 / PICO_PER_USD as f64
    }
}

impl fmt::Display for Usd {
    /// `$12.34` from a cent up, `$0.0123` (four significant places) below a
    /// cent, `$0` for nothing and `<$0.000001` for less than a micro-dollar.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const CENT: u64 = PICO_PER_USD / 100;
        const MICRO: u64 = 1_000_000;
        let pico = self.0;
        if pico == 0 {
            return f.write_str("$0");
        }
        if pico < MICRO {
            return f.write_str("<$0.000001");
        }
        if pico >= CENT {
            // Round half up to the cent.
            let cents = (pico + CENT / 2) / CENT;
            return write!(f, "${}.{:02}", cents / 100, cents % 100);
        }
        // Below a cent: micro-dollars, rounded, with trailing zeros trimmed.
        let micros = (pico + MICRO / 2) / MICRO;
        let digits = format!("{micros:06}");
        let trimmed = digits.trim_end_matches('0');
        write!(f, "$0.{trimmed}")
    }
}

/// A price in micro-dollars per million tokens: `$3.75 / MTok` is `3_750_000`.
/// Equal, numerically, to pico-dollars per token.
pub type MicroUsdPerMtok = u64;

/// What one model charges, per million tokens. A missing cache rate means
/// the provider bills those tokens at the base input rate (or never reports
/// them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ModelPrice {
    /// Uncached input.
    pub input: MicroUsdPerMtok,
    /// Input read from the provider's cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input: Option<MicroUsdPerMtok>,
    /// Input written to the cache with the 5-minute TTL (Anthropic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_5m: Option<MicroUsdPerMtok>,
    /// Input written to the cache with the 1-hour TTL (Anthropic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_1h: Option<MicroUsdPerMtok>,
    /// Output, reasoning included.
    pub output: MicroUsdPerMtok,
}

/// A round's input and output split the way they are billed. Built from a
/// [`TokenUsage`] by [`BilledTokens::from_usage`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BilledTokens {
    pub uncached_input: u64,
    pub cached_input: u64,
    pub cache_write_5m: u64,
    pub cache_write_1h: u64,
    pub output: u64,
}

impl BilledTokens {
    /// Splits reported usage into what is billed at each rate. Cache writes
    /// without a reported TTL split count as 5-minute writes (the default
    /// TTL). Inconsistent reports (more cached than input) are clamped so the
    /// parts never exceed `input_tokens`.
    pub fn from_usage(usage: &TokenUsage) -> Self {
        let input = usage.input_tokens.unwrap_or(0);
        let cached = usage.cached_input_tokens.unwrap_or(0).min(input);
        let writes = usage
            .cache_write_input_tokens
            .unwrap_or(0)
            .min(input - cached);
        let write_1h = usage.cache_write_1h_input_tokens.unwrap_or(0).min(writes);
        BilledTokens {
            uncached_input: input - cached - writes,
            cached_input: cached,
            cache_write_5m: writes - write_1h,
            cache_write_1h: write_1h,
            output: usage.output_tokens.unwrap_or(0),
        }
    }
}

impl ModelPrice {
    /// The exact cost of `tokens` at these rates.
    pub fn cost_of(&self, tokens: &BilledTokens) -> Usd {
        let at = |count: u64, rate: MicroUsdPerMtok| count.saturating_mul(rate);
        let parts = [
            at(tokens.uncached_input, self.input),
            at(tokens.cached_input, self.cached_input.unwrap_or(self.input)),
            at(
                tokens.cache_write_5m,
                self.cache_write_5m.unwrap_or(self.input),
            ),
            at(
                tokens.cache_write_1h,
                self.cache_write_1h.unwrap_or(self.input),
            ),
            at(tokens.output, self.output),
        ];
        Usd(parts
            .iter()
            .fold(0u64, |sum, part| sum.saturating_add(*part)))
    }

    /// The exact cost of one round's reported usage.
    pub fn cost(&self, usage: &TokenUsage) -> Usd {
        self.cost_of(&BilledTokens::from_usage(usage))
    }
}

/// Money with the date of the prices it was computed from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Cost {
    pub usd: Usd,
    /// The date (`YYYY-MM-DD`) of the price row used, or `config` for a
    /// price set in `config.toml`. For a sum, the newest date among its
    /// parts.
    pub price_as_of: String,
}

impl Cost {
    /// Adds `other`; the date becomes the newer of the two.
    pub fn add(&mut self, other: &Cost) {
        self.usd = self.usd.saturating_add(other.usd);
        if other.price_as_of > self.price_as_of {
            self.price_as_of.clone_from(&other.price_as_of);
        }
    }
}

/// The price a session's rounds are billed at, and the date it is from:
/// the built-in row for the model, or the profile's `[profiles.X.price]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PriceQuote {
    pub price: ModelPrice,
    /// `YYYY-MM-DD` of the table row, or `config`.
    pub as_of: String,
}

/// What a profile's own price is dated as.
pub const CONFIG_PRICE_AS_OF: &str = "config";

impl PriceQuote {
    /// The built-in table's price for `model`; `None` when the table has no
    /// row for it or the row has no price.
    pub fn builtin(model: &str) -> Option<PriceQuote> {
        let row = lookup_price(model)?;
        row.price.map(|price| PriceQuote {
            price,
            as_of: row.as_of.to_owned(),
        })
    }

    /// The cost of `usage` at this price.
    pub fn cost(&self, usage: &TokenUsage) -> Cost {
        Cost {
            usd: self.price.cost(usage),
            price_as_of: self.as_of.clone(),
        }
    }
}

/// One row of the built-in table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PriceRow {
    /// The catalog's model id.
    pub model: &'static str,
    /// `None` for a model whose price could not be found.
    pub price: Option<ModelPrice>,
    /// When the price was read (`YYYY-MM-DD`).
    pub as_of: &'static str,
    /// The page it was read from; a note when it is not the provider's own.
    pub source: &'static str,
}

impl PriceRow {
    /// The cost of `usage` at this row's price, dated; `None` when the row
    /// has no price.
    pub fn cost(&self, usage: &TokenUsage) -> Option<Cost> {
        self.price.map(|price| Cost {
            usd: price.cost(usage),
            price_as_of: self.as_of.to_owned(),
        })
    }
}

/// The date of the built-in table: the newest of its rows' dates.
pub const PRICE_TABLE_DATE: &str = "2026-12-02";

const fn usd(dollars: u64, micros: u64) -> MicroUsdPerMtok {
    dollars * 1_000_000 + micros
}

const fn anthropic(
    model: &'static str,
    base: MicroUsdPerMtok,
    output: MicroUsdPerMtok,
    source: &'static str,
) -> PriceRow {
    // Anthropic's published multipliers: 5-minute writes 1.25×, 1-hour
    // writes 2×, cache hits 0.1× the base input rate (each row below was
    // checked against the pricing page's own figures).
    PriceRow {
        model,
        price: Some(ModelPrice {
            input: base,
            cached_input: Some(base / 10),
            cache_write_5m: Some(base + base / 4),
            cache_write_1h: Some(base * 2),
            output,
        }),
        as_of: PRICE_TABLE_DATE,
        source,
    }
}

const fn plain(
    model: &'static str,
    input: MicroUsdPerMtok,
    cached_input: Option<MicroUsdPerMtok>,
    output: MicroUsdPerMtok,
    source: &'static str,
) -> PriceRow {
    PriceRow {
        model,
        price: Some(ModelPrice {
            input,
            cached_input,
            cache_write_5m: None,
            cache_write_1h: None,
            output,
        }),
        as_of: PRICE_TABLE_DATE,
        source,
    }
}

/// Standard-tier list prices for the catalog's models. The demo model is
/// free and has its own row.
pub const PRICE_TABLE: &[PriceRow] = &[
    plain(
        "gpt-5.4",
        usd(2, 500_000),
        Some(usd(0, 250_000)),
        usd(15, 0),
        "https://docs.rs/crate/adk-model/latest/source/src/openai/pricing.rs (OpenAI list prices, March 2026; secondary)",
    ),
    PriceRow {
        model: "gpt-5.1-codex-max",
        price: None,
        as_of: PRICE_TABLE_DATE,
        source: "no published price found",
    },
    plain(
        "gpt-5",
        usd(1, 250_000),
        Some(usd(0, 125_000)),
        usd(10, 0),
        "https://developers.openai.com/api/docs/models/gpt-5-codex (GPT-5 and GPT-5-Codex share $1.25 in / $0.125 cached / $10 out)",
    ),
    plain(
        "gpt-4.1-mini",
        usd(0, 400_000),
        Some(usd(0, 100_000)),
        usd(1, 600_000),
        "https://raw.githubusercontent.com/Sraleik/undetermini/HEAD/PRICING.md (verified 2026-05-07; cached at the GPT-4.1 family's 75% discount; secondary)",
    ),
    plain(
        "gpt-4o",
        usd(2, 500_000),
        Some(usd(1, 250_000)),
        usd(10, 0),
        "https://github.com/CommitBrief/commitbrief/wiki/Provider-OpenAI (rates from openai.com/api/pricing, 2026-05-27; secondary)",
    ),
    plain(
        "gpt-4o-mini",
        usd(0, 150_000),
        Some(usd(0, 75_000)),
        usd(0, 600_000),
        "https://github.com/CommitBrief/commitbrief/wiki/Provider-OpenAI (rates from openai.com/api/pricing, 2026-05-27; secondary)",
    ),
    anthropic(
        "claude-opus-4-6",
        usd(5, 0),
        usd(25, 0),
        "https://platform.claude.com/docs/en/about-claude/pricing",
    ),
    anthropic(
        "claude-sonnet-4-6",
        usd(3, 0),
        usd(15, 0),
        "https://platform.claude.com/docs/en/models/sonnet-4-6/overview and https://platform.claude.com/docs/en/about-claude/pricing",
    ),
    anthropic(
        "claude-sonnet-4-5",
        usd(3, 0),
        usd(15, 0),
        "https://platform.claude.com/docs/en/models/sonnet-4-5/overview and https://platform.claude.com/docs/en/about-claude/pricing",
    ),
    anthropic(
        "claude-haiku-4-5",
        usd(1, 0),
        usd(5, 0),
        "https://platform.claude.com/docs/en/models/haiku-4-5/overview and https://platform.claude.com/docs/en/about-claude/pricing",
    ),
    anthropic(
        "claude-opus-4-1",
        usd(15, 0),
        usd(75, 0),
        "https://platform.claude.com/docs/en/about-claude/pricing",
    ),
    plain(
        "deepseek-chat",
        usd(0, 270_000),
        Some(usd(0, 70_000)),
        usd(1, 100_000),
        "https://api-docs.deepseek.com/quick_start/pricing-details-usd",
    ),
    plain(
        "grok-3-mini",
        usd(0, 300_000),
        Some(usd(0, 75_000)),
        usd(0, 500_000),
        "https://docs.x.ai/docs/models (as archived 2025-06-02 at https://archive.fo/dYUtw)",
    ),
    plain(
        "llama-3.3-70b-versatile",
        usd(0, 590_000),
        None,
        usd(0, 790_000),
        "https://smithery.ai/skills/jeremylongshore/groq-cost-tuning (Groq on-demand rates; secondary, groq.com/pricing not found)",
    ),
    PriceRow {
        model: "strata-demo",
        price: Some(ModelPrice {
            input: 0,
            cached_input: None,
            cache_write_5m: None,
            cache_write_1h: None,
            output: 0,
        }),
        as_of: PRICE_TABLE_DATE,
        source: "Strata's built-in demo model is free",
    },
];

/// The row for `model`: an exact id, or an id followed by a dated snapshot
/// suffix (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) or `-latest`.
/// Other suffixes name other models (`gpt-4o-mini` is not `gpt-4o`).
pub fn lookup_price(model: &str) -> Option<&'static PriceRow> {
    if let Some(row) = PRICE_TABLE.iter().find(|row| row.model == model) {
        return Some(row);
    }
    PRICE_TABLE
        .iter()
        .filter(|row| {
            model
                .strip_prefix(row.model)
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(is_snapshot_suffix)
        })
        .max_by_key(|row| row.model.len())
}

/// `latest`, or a date of at least four digits (`20250929`, `2024-08-06`,
/// `0613`): the suffixes that name a snapshot of the same model.
pub fn is_snapshot_suffix(rest: &str) -> bool {
    rest == "latest"
        || (!rest.is_empty()
            && rest.bytes().all(|b| b.is_ascii_digit() || b == b'-')
            && rest.bytes().filter(u8::is_ascii_digit).count() >= 4)
}

#[cfg(test)]
#[path = "pricing_tests.rs"]
mod tests;
