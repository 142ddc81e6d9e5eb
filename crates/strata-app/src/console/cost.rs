//! The console's money: each round's cost (as its usage record says, else
//! at today's table, which names its date), the session's and each turn's
//! sums, and what each compaction cost against what it saved. Pure functions
//! of the records' figures.

use strata_protocol::{ChartPoint, Cost, PriceQuote, SessionCost, StepMoney, TurnCost, Usd};

/// A round's cost: the one its usage record carries; for a file written
/// before costs were recorded, the built-in table's for its model today.
pub use strata_core::store::usage_cost as round_cost;

fn add(sum: &mut Option<Cost>, cost: &Cost) {
    match sum {
        Some(sum) => sum.add(cost),
        None => *sum = Some(cost.clone()),
    }
}

/// The session's cost from its chart (one point per round) and its summary
/// calls' costs.
pub fn session_cost<'a>(
    points: &[ChartPoint],
    summaries: impl IntoIterator<Item = &'a Cost>,
) -> SessionCost {
    let mut total = None;
    let mut turns: Vec<TurnCost> = Vec::new();
    let mut unpriced_rounds = 0;
    for point in points {
        if turns.last().is_none_or(|turn| turn.turn != point.turn) {
            turns.push(TurnCost {
                turn: point.turn,
                rounds: 0,
                cost: None,
            });
        }
        if let Some(turn) = turns.last_mut() {
            turn.rounds += 1;
            if let Some(cost) = &point.cost {
                add(&mut turn.cost, cost);
            }
        }
        match &point.cost {
            Some(cost) => add(&mut total, cost),
            None if point.context_tokens.is_some() => unpriced_rounds += 1,
            None => {}
        }
    }
    let mut summary_total = None;
    for cost in summaries {
        add(&mut summary_total, cost);
        add(&mut total, cost);
    }
    SessionCost {
        total,
        summaries: summary_total,
        unpriced_rounds,
        turns,
        steps: Vec::new(),
    }
}

/// What a round around a compaction reported, and its price.
#[derive(Clone, Debug, Default)]
pub struct RoundFacts {
    pub input: Option<u64>,
    pub cached: Option<u64>,
    pub price: Option<PriceQuote>,
}

/// A compaction's money: its summary call, the cache the next round gave
/// up (its input beyond what it read from cache, up to what the round before
/// had sent, at the input rate less the cached rate) and what the rounds
/// after it saved (the freed tokens each no longer resent, at its cached
/// rate). `None` when neither the summary nor any round after had a price.
pub fn step_money(
    record_index: u32,
    freed: u64,
    summary: Option<&Cost>,
    before: Option<&RoundFacts>,
    after: &[RoundFacts],
) -> Option<StepMoney> {
    let priced_after = after.iter().find_map(|round| round.price.as_ref());
    let price_as_of = priced_after
        .map(|quote| quote.as_of.clone())
        .or_else(|| summary.map(|cost| cost.price_as_of.clone()))?;
    let cache_given_up = match (after.first(), before) {
        (Some(next), Some(prev)) => next.price.as_ref().map_or(Usd::ZERO, |quote| {
            let sent_before = prev.input.unwrap_or(0);
            let reread = next.input.unwrap_or(0).min(sent_before);
            let missed = reread.saturating_sub(next.cached.unwrap_or(0));
            let rate = quote.price.input;
            let cached_rate = quote.price.cached_input.unwrap_or(rate);
            Usd(missed.saturating_mul(rate.saturating_sub(cached_rate)))
        }),
        _ => Usd::ZERO,
    };
    let saved =
        after
            .iter()
            .filter_map(|round| round.price.as_ref())
            .fold(Usd::ZERO, |sum, quote| {
                let rate = quote.price.cached_input.unwrap_or(quote.price.input);
                sum.saturating_add(Usd(freed.saturating_mul(rate)))
            });
    Some(StepMoney {
        record_index,
        summary: summary.map(|cost| cost.usd),
        cache_given_up,
        saved,
        rounds_after: u32::try_from(after.len()).unwrap_or(u32::MAX),
        price_as_of,
    })
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use strata_protocol::{ModelPrice, TokenUsage, TokenUsageRecord};

    use super::*;

    fn point(turn: u32, cost: Option<u64>, reported: bool) -> ChartPoint {
        ChartPoint {
            round: 1,
            ts: Utc::now(),
            context_tokens: reported.then_some(100),
            input_tokens: None,
            output_tokens: None,
            cached_tokens: None,
            estimated_input_tokens: None,
            cache_write_tokens: None,
            cost: cost.map(|pico| Cost {
                usd: Usd(pico),
                price_as_of: "2026-12-02".into(),
            }),
            turn,
            cache_break: None,
        }
    }

    fn quote() -> PriceQuote {
        PriceQuote {
            price: ModelPrice {
                input: 3_000_000,
                cached_input: Some(300_000),
                cache_write_5m: Some(3_750_000),
                cache_write_1h: None,
                output: 15_000_000,
            },
            as_of: "2026-12-02".into(),
        }
    }

    #[test]
    fn a_round_keeps_its_recorded_cost_and_old_files_are_priced_at_todays_table() {
        let usage = TokenUsage {
            input_tokens: Some(1_000_000),
            ..TokenUsage::default()
        };
        let recorded = TokenUsageRecord {
            round_id: None,
            usage: usage.clone(),
            price: None,
            cost: Some(Cost {
                usd: Usd(7),
                price_as_of: "2025-01-01".into(),
            }),
        };
        assert_eq!(round_cost(&recorded, "gpt-4o").map(|c| c.usd), Some(Usd(7)));
        let old = TokenUsageRecord {
            cost: None,
            ..recorded
        };
        let today = round_cost(&old, "gpt-4o");
        assert_eq!(
            today.as_ref().map(|c| c.usd),
            Some(Usd(2_500_000 * 1_000_000))
        );
        assert_eq!(
            today.map(|c| c.price_as_of),
            Some(strata_protocol::PRICE_TABLE_DATE.to_owned())
        );
        assert_eq!(round_cost(&old, "my-local-model"), None);
    }

    #[test]
    fn the_session_sums_its_turns_and_summaries_and_counts_unpriced_rounds() {
        let points = [
            point(1, Some(10), true),
            point(1, Some(5), true),
            point(2, None, true),
            point(3, None, false),
        ];
        let summary = Cost {
            usd: Usd(100),
            price_as_of: "2026-12-02".into(),
        };
        let cost = session_cost(&points, [&summary]);
        assert_eq!(cost.total.map(|c| c.usd), Some(Usd(115)));
        assert_eq!(cost.summaries.map(|c| c.usd), Some(Usd(100)));
        assert_eq!(cost.unpriced_rounds, 1);
        let turns: Vec<_> = cost
            .turns
            .iter()
            .map(|t| (t.turn, t.rounds, t.cost.as_ref().map(|c| c.usd)))
            .collect();
        assert_eq!(turns, [(1, 2, Some(Usd(15))), (2, 1, None), (3, 1, None)]);
    }

    #[test]
    fn nothing_priced_means_no_total_not_zero() {
        let cost = session_cost(&[point(1, None, true)], []);
        assert_eq!(cost.total, None);
        assert_eq!(cost.unpriced_rounds, 1);
    }

    #[test]
    fn a_compaction_costs_its_summary_and_the_lost_cache_and_saves_its_freed_tokens_per_round() {
        let before = RoundFacts {
            input: Some(100_000),
            cached: Some(90_000),
            price: Some(quote()),
        };
        let first = RoundFacts {
            input: Some(20_000),
            cached: Some(2_000),
            price: Some(quote()),
        };
        let later = RoundFacts {
            input: Some(22_000),
            cached: Some(20_000),
            price: Some(quote()),
        };
        let summary = Cost {
            usd: Usd(1_000),
            price_as_of: "2026-12-02".into(),
        };
        let money = step_money(
            4,
            80_000,
            Some(&summary),
            Some(&before),
            &[first, later.clone()],
        );
        let Some(money) = money else {
            panic!("priced rounds have money")
        };
        assert_eq!(money.summary, Some(Usd(1_000)));
        // 18,000 tokens re-read uncached at $3 − $0.30 per million.
        assert_eq!(money.cache_given_up, Usd(18_000 * 2_700_000));
        // 80,000 freed tokens not resent on each of two rounds, at $0.30.
        assert_eq!(money.saved, Usd(2 * 80_000 * 300_000));
        assert_eq!((money.record_index, money.rounds_after), (4, 2));
        assert!(step_money(4, 80_000, None, Some(&before), &[RoundFacts::default()]).is_none());
    }
}
