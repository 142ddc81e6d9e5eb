//! A profile's own price (`[profiles.X.price]`), for a model the built-in
//! table does not price, or a negotiated rate:
//!
//! ```toml
//! [profiles.local.price]        # US dollars per million tokens
//! input = 0.59
//! cached_input = 0.059          # optional: else billed at `input`
//! cache_write_5m = 0.7375       # optional (Anthropic-style cache writes)
//! cache_write_1h = 1.18         # optional
//! output = 0.79
//! ```
//!
//! Without one, a profile uses the built-in table's row for its model
//! (`strata_protocol::PRICE_TABLE`), and a model with no row has no price:
//! its sessions show tokens and "no price", never an estimate. A profile's
//! own price is dated `config` in every cost it produces.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use strata_protocol::{CONFIG_PRICE_AS_OF, MicroUsdPerMtok, ModelPrice, PriceQuote};

/// The most a price may be, in dollars per million tokens: far above any
/// published rate, low enough that no round's cost can overflow.
const MAX_DOLLARS_PER_MTOK: f64 = 100_000.0;

/// `[profiles.X.price]` as written: dollars per million tokens, held as
/// micro-dollars (rounded once, when read) so money stays exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceConfig {
    #[serde(with = "dollars")]
    pub input: MicroUsdPerMtok,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_dollars")]
    pub cached_input: Option<MicroUsdPerMtok>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_dollars")]
    pub cache_write_5m: Option<MicroUsdPerMtok>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_dollars")]
    pub cache_write_1h: Option<MicroUsdPerMtok>,
    #[serde(with = "dollars")]
    pub output: MicroUsdPerMtok,
}

impl PriceConfig {
    /// The quote a profile with this price bills at.
    pub fn quote(&self) -> PriceQuote {
        PriceQuote {
            price: ModelPrice {
                input: self.input,
                cached_input: self.cached_input,
                cache_write_5m: self.cache_write_5m,
                cache_write_1h: self.cache_write_1h,
                output: self.output,
            },
            as_of: CONFIG_PRICE_AS_OF.to_owned(),
        }
    }
}

/// The price a profile on `model` bills at: its own, else the built-in
/// table's, else none.
pub fn profile_price(own: Option<&PriceConfig>, model: &str) -> Option<PriceQuote> {
    own.map(PriceConfig::quote)
        .or_else(|| PriceQuote::builtin(model))
}

fn to_micros(dollars: f64) -> Result<MicroUsdPerMtok, String> {
    if !dollars.is_finite() || dollars < 0.0 {
        return Err(format!(
            "a price must be a non-negative number, not {dollars}"
        ));
    }
    if dollars > MAX_DOLLARS_PER_MTOK {
        return Err(format!(
            "a price of ${dollars} per million tokens is above the ${MAX_DOLLARS_PER_MTOK} limit"
        ));
    }
    // In range, so the rounded product fits a u64 exactly.
    Ok((dollars * 1_000_000.0).round() as u64)
}

fn to_dollars(micros: MicroUsdPerMtok) -> f64 {
    micros as f64 / 1_000_000.0
}

mod dollars {
    use super::*;

    pub fn serialize<S: Serializer>(micros: &MicroUsdPerMtok, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(to_dollars(*micros))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<MicroUsdPerMtok, D::Error> {
        to_micros(f64::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

mod opt_dollars {
    use super::*;

    pub fn serialize<S: Serializer>(
        micros: &Option<MicroUsdPerMtok>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match micros {
            Some(micros) => s.serialize_some(&to_dollars(*micros)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<MicroUsdPerMtok>, D::Error> {
        Option::<f64>::deserialize(d)?
            .map(to_micros)
            .transpose()
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<PriceConfig, toml::de::Error> {
        toml::from_str(text)
    }

    #[test]
    fn a_price_is_read_in_dollars_and_held_exactly_in_micro_dollars() -> Result<(), toml::de::Error>
    {
        let price = parse("input = 0.59\ncached_input = 0.059\noutput = 0.79\n")?;
        assert_eq!(price.input, 590_000);
        assert_eq!(price.cached_input, Some(59_000));
        assert_eq!(price.cache_write_5m, None);
        assert_eq!(price.output, 790_000);
        Ok(())
    }

    #[test]
    fn negative_unknown_or_absurd_prices_are_refused() {
        assert!(parse("input = -1.0\noutput = 1.0\n").is_err());
        assert!(parse("input = 1.0\noutput = 1e9\n").is_err());
        assert!(parse("input = 1.0\noutput = 1.0\ncache_read = 0.1\n").is_err());
        assert!(parse("input = 1.0\n").is_err());
    }

    #[test]
    fn a_profile_price_wins_and_is_dated_config() -> Result<(), toml::de::Error> {
        let own = parse("input = 1.0\noutput = 2.0\n")?;
        let quote = profile_price(Some(&own), "gpt-4o");
        assert_eq!(quote.as_ref().map(|q| q.as_of.as_str()), Some("config"));
        assert_eq!(quote.map(|q| q.price.output), Some(2_000_000));
        Ok(())
    }

    #[test]
    fn without_its_own_price_a_profile_uses_the_table_or_has_none() {
        assert_eq!(
            profile_price(None, "gpt-4o").map(|q| q.price.input),
            Some(2_500_000)
        );
        assert_eq!(profile_price(None, "my-local-model"), None);
        assert_eq!(profile_price(None, "gpt-5.1-codex-max"), None);
    }

    #[test]
    fn a_price_round_trips_through_toml() -> Result<(), Box<dyn std::error::Error>> {
        let price = parse("input = 3.0\ncache_write_1h = 6.0\noutput = 15.0\n")?;
        let text = toml::to_string(&price)?;
        assert_eq!(parse(&text)?, price);
        Ok(())
    }
}
