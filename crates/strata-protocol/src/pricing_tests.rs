use proptest::prelude::*;

use super::*;

fn usage(uncached: u64, cached: u64, write_5m: u64, write_1h: u64, output: u64) -> TokenUsage {
    TokenUsage {
        input_tokens: Some(uncached + cached + write_5m + write_1h),
        cached_input_tokens: Some(cached),
        cache_write_input_tokens: Some(write_5m + write_1h),
        cache_write_5m_input_tokens: Some(write_5m),
        cache_write_1h_input_tokens: Some(write_1h),
        output_tokens: Some(output),
        ..TokenUsage::default()
    }
}

fn row(model: &str) -> &'static PriceRow {
    match lookup_price(model) {
        Some(row) => row,
        None => panic!("{model} has no row"),
    }
}

fn price(model: &str) -> ModelPrice {
    match row(model).price {
        Some(price) => price,
        None => panic!("{model} has no price"),
    }
}

#[test]
fn every_catalog_model_has_a_dated_sourced_row_and_unknown_models_have_none() {
    for model in [
        "gpt-5.4",
        "gpt-5.1-codex-max",
        "gpt-5",
        "gpt-4.1-mini",
        "gpt-4o",
        "gpt-4o-mini",
        "claude-sonnet-4-5",
        "claude-opus-4-6",
        "claude-sonnet-4-6",
        "claude-haiku-4-5",
        "claude-opus-4-1",
        "deepseek-chat",
        "grok-3-mini",
        "llama-3.3-70b-versatile",
        "strata-demo",
    ] {
        let row = row(model);
        assert_eq!(row.as_of.len(), 10, "{model}");
        assert!(row.as_of <= PRICE_TABLE_DATE, "{model}");
        assert!(!row.source.is_empty(), "{model}");
    }
    assert!(lookup_price("some-local-model").is_none());
    // Found nowhere, so priced nowhere: no guess.
    assert!(row("gpt-5.1-codex-max").price.is_none());
}

#[test]
fn dated_snapshots_find_their_model_but_variants_do_not() {
    assert_eq!(row("claude-sonnet-4-5-20250929").model, "claude-sonnet-4-5");
    assert_eq!(row("gpt-4o-2024-08-06").model, "gpt-4o");
    assert_eq!(row("gpt-4o-mini").model, "gpt-4o-mini");
    assert!(lookup_price("gpt-4o-audio").is_none());
}

#[test]
fn anthropic_rows_match_the_published_cache_rates() {
    let sonnet = price("claude-sonnet-4-5");
    assert_eq!(sonnet.input, 3_000_000);
    assert_eq!(sonnet.cache_write_5m, Some(3_750_000));
    assert_eq!(sonnet.cache_write_1h, Some(6_000_000));
    assert_eq!(sonnet.cached_input, Some(300_000));
    assert_eq!(sonnet.output, 15_000_000);
    let opus = price("claude-opus-4-1");
    assert_eq!(opus.cache_write_5m, Some(18_750_000));
    assert_eq!(opus.cache_write_1h, Some(30_000_000));
    assert_eq!(opus.cached_input, Some(1_500_000));
}

#[test]
fn a_round_costs_each_kind_of_token_at_its_own_rate() {
    // 1M of each on Sonnet 4.5: $3 + $0.30 + $3.75 + $6 + $15 = $28.05.
    let cost = price("claude-sonnet-4-5").cost(&usage(
        1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000,
    ));
    assert_eq!(cost, Usd(28_050_000 * 1_000_000));
    assert_eq!(cost.to_string(), "$28.05");
}

#[test]
fn cache_writes_without_a_ttl_split_are_billed_as_five_minute_writes() {
    let unsplit = TokenUsage {
        input_tokens: Some(1_000),
        cache_write_input_tokens: Some(1_000),
        ..TokenUsage::default()
    };
    let sonnet = price("claude-sonnet-4-5");
    assert_eq!(
        sonnet.cost(&unsplit),
        sonnet.cost(&usage(0, 0, 1_000, 0, 0))
    );
}

#[test]
fn a_model_without_cache_rates_bills_cached_tokens_at_the_input_rate() {
    let llama = price("llama-3.3-70b-versatile");
    assert_eq!(
        llama.cost(&usage(0, 1_000, 0, 0, 0)),
        llama.cost(&usage(1_000, 0, 0, 0, 0))
    );
}

#[test]
fn inconsistent_reports_never_bill_more_input_than_was_reported() {
    let odd = TokenUsage {
        input_tokens: Some(100),
        cached_input_tokens: Some(500),
        cache_write_input_tokens: Some(500),
        ..TokenUsage::default()
    };
    let billed = BilledTokens::from_usage(&odd);
    assert_eq!(billed.cached_input, 100);
    assert_eq!(billed.uncached_input + billed.cache_write_5m, 0);
}

#[test]
fn the_demo_model_is_free() {
    assert_eq!(
        price("strata-demo").cost(&usage(5_000, 5_000, 0, 0, 5_000)),
        Usd::ZERO
    );
}

#[test]
fn dollars_display_to_the_cent_or_to_the_micro_dollar_below_a_cent() {
    assert_eq!(Usd::ZERO.to_string(), "$0");
    assert_eq!(Usd(1).to_string(), "<$0.000001");
    assert_eq!(Usd(12_345_678).to_string(), "$0.000012");
    assert_eq!(Usd(1_230_000_000).to_string(), "$0.00123");
    assert_eq!(Usd(5_000_000_000).to_string(), "$0.005");
    assert_eq!(Usd(10_000_000_000).to_string(), "$0.01");
    assert_eq!(Usd(1_234_999_999_999).to_string(), "$1.23");
    assert_eq!(Usd(1_235_000_000_000).to_string(), "$1.24");
    assert_eq!(Usd(1_234 * PICO_PER_USD).to_string(), "$1234.00");
}

#[test]
fn a_sum_of_costs_keeps_the_newest_price_date() {
    let mut total = Cost {
        usd: Usd(5),
        price_as_of: "2026-01-01".into(),
    };
    total.add(&Cost {
        usd: Usd(7),
        price_as_of: "2026-12-02".into(),
    });
    total.add(&Cost {
        usd: Usd(1),
        price_as_of: "2025-06-01".into(),
    });
    assert_eq!(total.usd, Usd(13));
    assert_eq!(total.price_as_of, "2026-12-02");
}

#[test]
fn usd_is_a_plain_number_of_pico_dollars_on_the_wire() -> Result<(), serde_json::Error> {
    let cost = Cost {
        usd: Usd(42),
        price_as_of: "2026-12-02".into(),
    };
    let json = serde_json::to_string(&cost)?;
    assert_eq!(json, r#"{"usd":42,"price_as_of":"2026-12-02"}"#);
    assert_eq!(serde_json::from_str::<Cost>(&json)?, cost);
    Ok(())
}

fn any_round() -> impl Strategy<Value = (u64, u64, u64, u64, u64)> {
    let count = 0u64..5_000_000;
    (
        count.clone(),
        count.clone(),
        count.clone(),
        count.clone(),
        count,
    )
}

fn any_priced_row() -> impl Strategy<Value = &'static PriceRow> {
    let priced: Vec<&'static PriceRow> = PRICE_TABLE
        .iter()
        .filter(|row| row.price.is_some())
        .collect();
    proptest::sample::select(priced)
}

proptest! {
    /// Pricing a whole session at once equals summing its rounds' costs:
    /// no rounding drifts, whatever the order.
    #[test]
    fn cost_is_additive_over_rounds(
        row in any_priced_row(),
        rounds in proptest::collection::vec(any_round(), 0..20),
    ) {
        let Some(price) = row.price else { return Ok(()) };
        let mut total_usage = TokenUsage::default();
        let mut summed = Usd::ZERO;
        for &(u, c, w5, w1, o) in &rounds {
            let round = usage(u, c, w5, w1, o);
            summed = summed.saturating_add(price.cost(&round));
            total_usage.accumulate(&round);
        }
        prop_assert_eq!(price.cost(&total_usage), summed);
        let mut reversed = Usd::ZERO;
        for &(u, c, w5, w1, o) in rounds.iter().rev() {
            reversed = reversed.saturating_add(price.cost(&usage(u, c, w5, w1, o)));
        }
        prop_assert_eq!(reversed, summed);
    }

    /// One more token of any kind never makes a round cheaper.
    #[test]
    fn cost_is_monotone_in_each_token_count(
        row in any_priced_row(),
        (u, c, w5, w1, o) in any_round(),
        extra in 0u64..1_000_000,
    ) {
        let Some(price) = row.price else { return Ok(()) };
        let base = price.cost(&usage(u, c, w5, w1, o));
        for more in [
            usage(u + extra, c, w5, w1, o),
            usage(u, c + extra, w5, w1, o),
            usage(u, c, w5 + extra, w1, o),
            usage(u, c, w5, w1 + extra, o),
            usage(u, c, w5, w1, o + extra),
        ] {
            prop_assert!(price.cost(&more) >= base);
        }
    }

    /// Reading from the cache is never dearer than paying full input, and
    /// writing to it never cheaper.
    #[test]
    fn cache_rates_sit_around_the_input_rate(row in any_priced_row()) {
        let Some(price) = row.price else { return Ok(()) };
        prop_assert!(price.cached_input.unwrap_or(price.input) <= price.input);
        prop_assert!(price.cache_write_5m.unwrap_or(price.input) >= price.input);
        prop_assert!(price.cache_write_1h.unwrap_or(price.input) >= price.cache_write_5m.unwrap_or(price.input));
    }
}
