//! The table `make bench-context` prints and docs/CONTEXT.md records.

use super::*;

impl Outcome {
    /// The policy, threshold and rounds-run cells every table starts with.
    fn run_cells(&self) -> String {
        let marked = if self.default_threshold {
            ""
        } else {
            " (override)"
        };
        format!(
            "{} | {}{marked} | {}",
            self.policy.as_str(),
            self.threshold,
            self.rounds
        )
    }
}

pub(super) fn table(outcomes: &[Outcome], rounds: usize, window: u64) -> String {
    let mut out = format!(
        "{rounds} scripted rounds, window {window} tokens, each policy at its default threshold \
         unless marked (override), tool outputs 0.5–20 KB\n\n\
         | policy | threshold | rounds run | input tokens (incl. summarizer) | mean request | uncached input | summarizer input | peak context | summary calls | evictions | rounds until overflow |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n"
    );
    for o in outcomes {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            o.run_cells(),
            o.input,
            (o.input - o.summary_input) / o.rounds.max(1) as u64,
            o.uncached_input,
            o.summary_input,
            o.peak,
            o.summary_calls,
            o.evictions,
            o.overflowed_at.map_or_else(
                || format!("never in {}", o.rounds),
                |r| format!("{r} (round {} overflows)", r + 1)
            ),
        );
    }
    let base = outcomes.iter().find(|o| o.policy == CompactionPolicy::Base);
    let layered = outcomes
        .iter()
        .find(|o| o.policy == CompactionPolicy::Layered && o.default_threshold);
    if let (Some(base), Some(layered)) = (base, layered) {
        let ratio = |a: u64, b: u64| a as f64 / b.max(1) as f64;
        let _ = writeln!(
            out,
            "\nlayered / base: input {:.2}, uncached input {:.2}, summary calls {}/{}",
            ratio(layered.input, base.input),
            ratio(layered.uncached_input, base.uncached_input),
            layered.summary_calls,
            base.summary_calls
        );
        for other in outcomes.iter().filter(|o| !o.default_threshold) {
            let _ = writeln!(
                out,
                "layered at {} (override) / base: input {:.2}, uncached input {:.2}, summary calls {}/{}, \
                 an eviction every {:.1} rounds",
                other.threshold,
                ratio(other.input, base.input),
                ratio(other.uncached_input, base.uncached_input),
                other.summary_calls,
                base.summary_calls,
                other.rounds as f64 / other.evictions.max(1) as f64,
            );
        }
        let met = |ok: bool| if ok { "met" } else { "NOT MET" };
        let kept = promised_facts_kept(layered).is_empty();
        let _ = writeln!(
            out,
            "targets for layered: input <= 60% of base: {}; summary calls <= 1/3 of base: {}; \
             never over the window: {}; promised paths, commands and rules at every snapshot: {}",
            met(layered.input * 10 <= base.input * 6),
            met(layered.summary_calls * 3 <= base.summary_calls),
            met(layered.overflowed_at.is_none() && layered.peak <= window),
            met(kept),
        );
        let _ = writeln!(
            out,
            "layered profile: an eviction every {:.1} rounds (shortest gap between steps {} rounds, \
             {} steps within 2 rounds of the previous), a placeholder {} tokens, the last state sheet {} tokens\n",
            layered.rounds as f64 / layered.evictions.max(1) as f64,
            layered
                .shortest_gap
                .map_or_else(|| "-".to_owned(), |gap| gap.to_string()),
            layered.close_steps,
            layered.placeholder_tokens,
            layered.sheet_tokens,
        );
    }
    out.push_str(
        "Planted facts after 1, 2 and 5 compaction steps (@n: evictions and summaries alike) and \
         after the 1st and 2nd summary (Sn): verbatim in context, in the state sheet, recallable \
         (found by the recall tool in the session's removed items), or LOST \
         (— = not reached). * = Strata promises it.\n\n\
         | fact | ",
    );
    let outcomes: Vec<&Outcome> = outcomes.iter().filter(|o| o.default_threshold).collect();
    for o in &outcomes {
        for n in SNAPSHOTS {
            let _ = write!(out, "{} {} | ", o.policy.as_str(), n.label());
        }
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(outcomes.len() * SNAPSHOTS.len()));
    out.push('\n');
    for (index, fact) in facts("").iter().enumerate() {
        let star = if fact.promised { "*" } else { "" };
        let _ = write!(out, "| {}{star} | ", fact.name);
        for o in &outcomes {
            for n in SNAPSHOTS {
                let cell = o
                    .snapshots
                    .iter()
                    .find(|(k, _)| *k == n)
                    .map_or("—", |(_, seen)| seen[index].2.label());
                let _ = write!(out, "{cell} | ");
            }
        }
        out.push('\n');
    }
    out
}

/// Each run's cost in dollars on one Anthropic and one OpenAI model, with
/// each provider's caching rules (see `money.rs`).
pub(super) fn money_table(outcomes: &[Outcome]) -> String {
    let mut out = format!(
        "Cost in dollars (price table of {PRICE_TABLE_DATE}): {ANTHROPIC_MODEL} with Strata's breakpoints \
         (5-minute TTL), {OPENAI_MODEL} with automatic prefix caching (5-minute retention); \
         {ROUND_SECONDS} s a request, pauses between turns of 1–2 minutes and every fourth turn 15 minutes\n\n\
         | policy | threshold | rounds run | Anthropic uncached / cache read / cache write | {ANTHROPIC_MODEL} | OpenAI uncached / cached | {OPENAI_MODEL} | output tokens |\n\
         |---|---|---|---|---|---|---|---|\n"
    );
    for o in outcomes {
        let _ = writeln!(
            out,
            "| {} | {} / {} / {} | {} | {} / {} | {} | {} |",
            o.run_cells(),
            o.anthropic.uncached,
            o.anthropic.read,
            o.anthropic.written(),
            o.anthropic_cost(),
            o.openai.uncached,
            o.openai.read,
            o.openai_cost(),
            o.output,
        );
    }
    let base = outcomes.iter().find(|o| o.policy == CompactionPolicy::Base);
    let layered = outcomes
        .iter()
        .find(|o| o.policy == CompactionPolicy::Layered && o.default_threshold);
    if let (Some(base), Some(layered)) = (base, layered) {
        let ratio = |a: Usd, b: Usd| a.pico() as f64 / b.pico().max(1) as f64;
        let met = |ok: bool| if ok { "met" } else { "NOT MET" };
        let (anthropic, openai) = (
            ratio(layered.anthropic_cost(), base.anthropic_cost()),
            ratio(layered.openai_cost(), base.openai_cost()),
        );
        let _ = writeln!(
            out,
            "\nlayered / base in dollars: {ANTHROPIC_MODEL} {anthropic:.3}, {OPENAI_MODEL} {openai:.3}"
        );
        for other in outcomes.iter().filter(|o| !o.default_threshold) {
            let _ = writeln!(
                out,
                "layered at {} (override) / base in dollars: {ANTHROPIC_MODEL} {:.3}, {OPENAI_MODEL} {:.3}",
                other.threshold,
                ratio(other.anthropic_cost(), base.anthropic_cost()),
                ratio(other.openai_cost(), base.openai_cost()),
            );
        }
        let never_more = outcomes
            .iter()
            .filter(|o| o.policy == CompactionPolicy::Layered)
            .all(|o| !o.costs_more_than(base));
        let _ = writeln!(
            out,
            "money targets for layered: at most half of base on {ANTHROPIC_MODEL}: {}; at most 60% of base on \
             {OPENAI_MODEL}: {}; no layered row over base on either model: {}",
            met(anthropic <= 0.5),
            met(openai <= 0.6),
            met(never_more),
        );
    }
    out
}
