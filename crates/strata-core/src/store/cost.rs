//! What a session cost, from its records alone: each round's usage record
//! carries its cost at the price used then; a file written before costs were
//! recorded is priced at today's built-in table (whose date the cost names).
//! Summary calls add their own recorded cost.

use strata_protocol::{Cost, PriceQuote, Record, RecordBody, ResponseItem, TokenUsageRecord};

/// A round's cost: its record's, else today's table's for `model`.
pub fn usage_cost(record: &TokenUsageRecord, model: &str) -> Option<Cost> {
    record
        .cost
        .clone()
        .or_else(|| PriceQuote::builtin(model).map(|quote| quote.cost(&record.usage)))
}

/// A session's money so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CostTally {
    /// Rounds and summary calls; none when nothing had a price.
    pub total: Option<Cost>,
    /// Rounds that reported usage without a price.
    pub unpriced_rounds: u64,
    /// The model of the last round seen (what the next usage is priced by).
    model: String,
}

impl CostTally {
    /// A tally starting on `model` (the session's first).
    pub fn new(model: &str) -> Self {
        CostTally {
            model: model.to_owned(),
            ..CostTally::default()
        }
    }

    /// Adds what `body` cost, if anything.
    pub fn fold(&mut self, body: &RecordBody) {
        let cost = match body {
            RecordBody::Round(round) => {
                self.model.clone_from(&round.model);
                return;
            }
            RecordBody::TokenUsage(usage) => {
                let cost = usage_cost(usage, &self.model);
                if cost.is_none() {
                    self.unpriced_rounds += 1;
                }
                cost
            }
            RecordBody::ResponseItem(ResponseItem::CompactionSummary(summary)) => {
                summary.metadata.summarizer_cost.clone()
            }
            RecordBody::LayeredCompaction(layered) => {
                layered.summary.metadata.summarizer_cost.clone()
            }
            _ => None,
        };
        if let Some(cost) = cost {
            match &mut self.total {
                Some(total) => total.add(&cost),
                None => self.total = Some(cost),
            }
        }
    }
}

/// The tally of a whole file.
pub fn session_cost(model: &str, records: &[Record]) -> CostTally {
    let mut tally = CostTally::new(model);
    for record in records {
        tally.fold(&record.body);
    }
    tally
}

#[cfg(test)]
mod tests {
    use strata_protocol::{TokenUsage, Usd};

    use super::*;

    fn usage(input: u64, cost: Option<u64>) -> RecordBody {
        RecordBody::TokenUsage(TokenUsageRecord {
            round_id: None,
            usage: TokenUsage {
                input_tokens: Some(input),
                ..TokenUsage::default()
            },
            price: None,
            cost: cost.map(|pico| Cost {
                usd: Usd(pico),
                price_as_of: "config".into(),
            }),
        })
    }

    #[test]
    fn recorded_costs_are_summed_as_written_and_unrecorded_ones_priced_at_todays_table() {
        let mut tally = CostTally::new("gpt-4o");
        tally.fold(&usage(1_000, Some(5)));
        // No cost recorded: gpt-4o's $2.50 per million today.
        tally.fold(&usage(1_000, None));
        assert_eq!(
            tally.total.as_ref().map(|c| c.usd),
            Some(Usd(5 + 1_000 * 2_500_000))
        );
        assert_eq!(tally.unpriced_rounds, 0);
    }

    #[test]
    fn a_model_without_a_price_counts_unpriced_rounds_and_has_no_total() {
        let mut tally = CostTally::new("my-local-model");
        tally.fold(&usage(1_000, None));
        assert_eq!(tally.total, None);
        assert_eq!(tally.unpriced_rounds, 1);
    }
}
