//! `strata eval compaction --provider KIND --model MODEL [--json]`: the
//! opt-in evaluation of strata-app's [`strata_app::eval`], printed as one
//! table per policy (probe, score, answer excerpt) with the tokens used, or
//! as one `CompactionEval` object. Every answer is the model's text:
//! hostile, so it is printed only through the escaping helpers.

use std::io::Write;

use strata_app::eval::{EvalOptions, evaluate_compaction};
use strata_protocol::{CompactResult, CompactionEval, Cost, PolicyEval, TokenUsage};
use strata_providers::ProfileFlags;
use strata_providers::config::process_env;

use crate::cli::EvalArgs;
use crate::store::Context;
use crate::style::{BOLD, DIM, one_line, paint};
use crate::visible::{json_safe, visible_inline};

/// How many characters of an answer the table shows.
const ANSWER_CHARS: usize = 100;

/// `strata eval compaction`.
pub fn compaction(ctx: &Context, args: &EvalArgs) -> crate::error::Result<()> {
    let options = EvalOptions {
        profile: ProfileFlags {
            profile: None,
            kind: Some(args.provider),
            model: Some(args.model.clone()),
            base_url: args.base_url.clone(),
        },
        compact_threshold: args.compact_threshold,
    };
    let cancel = strata_core::CancellationToken::new();
    let eval = crate::run::runtime()?.block_on(evaluate_compaction(
        &ctx.paths,
        &process_env,
        &options,
        &cancel,
    ))?;
    let mut out = ctx.out.stdout();
    if args.json {
        writeln!(out, "{}", json_safe(&serde_json::to_string(&eval)?))?;
        return Ok(());
    }
    write!(out, "{}", render(&eval))?;
    Ok(())
}

/// The tables, every model string escaped.
fn render(eval: &CompactionEval) -> String {
    let fixture = &eval.fixture;
    let mut text = format!(
        "{}\n{}\n",
        paint(
            BOLD,
            format!(
                "compaction eval: {} ({})",
                visible_inline(&eval.model),
                eval.provider_kind
            )
        ),
        paint(
            DIM,
            format!(
                "recorded session {}: {} rounds, {} items, about {} tokens (an estimate)",
                fixture.session_id, fixture.rounds, fixture.items, fixture.estimated_tokens
            )
        ),
    );
    for policy in &eval.policies {
        text.push('\n');
        text.push_str(&render_policy(policy));
    }
    text.push_str(&format!(
        "\ntotal: {} requests; {}; {}\n{}\n",
        eval.requests,
        usage_line(&eval.usage),
        cost_line(eval.cost.as_ref()),
        paint(
            DIM,
            "scores count the planted facts each answer names (text matched, case ignored); \
             a measurement, asserted nowhere"
        )
    ));
    text
}

fn render_policy(policy: &PolicyEval) -> String {
    let outcome = match policy.outcome {
        CompactResult::Compacted => "compacted".to_owned(),
        CompactResult::NothingToCompact => "nothing to compact".to_owned(),
        CompactResult::SummaryFailed => "summary failed".to_owned(),
        CompactResult::Refused => "refused".to_owned(),
        CompactResult::Cancelled => "cancelled".to_owned(),
    };
    let mut text = format!(
        "{} {}: {} items, about {} tokens (an estimate); score {}/{}\n",
        paint(BOLD, format!("policy {}", policy.policy.as_str())),
        outcome,
        policy.history_items,
        policy.estimated_tokens,
        policy.score,
        policy.max_score
    );
    if let Some(message) = &policy.message {
        text.push_str(&format!("  {}\n", one_line(message, 200)));
    }
    text.push_str("| probe | score | answer |\n|---|---|---|\n");
    for probe in &policy.probes {
        let answer = match &probe.error {
            Some(error) => format!("(failed: {})", one_line(error, ANSWER_CHARS)),
            None => one_line(&probe.answer, ANSWER_CHARS).replace('|', "\\|"),
        };
        text.push_str(&format!(
            "| {} | {}/{} | {} |\n",
            probe.probe,
            probe.found.len(),
            probe.required.len(),
            answer
        ));
    }
    text.push_str(&format!(
        "{} requests; {}; {}\n",
        policy.requests,
        usage_line(&policy.usage),
        cost_line(policy.cost.as_ref())
    ));
    text
}

/// What a policy or the whole run cost, or that the model has no price.
fn cost_line(cost: Option<&Cost>) -> String {
    match cost {
        Some(cost) => format!(
            "cost {} (prices of {})",
            cost.usd,
            one_line(&cost.price_as_of, 40)
        ),
        None => "no price".to_owned(),
    }
}

fn usage_line(usage: &TokenUsage) -> String {
    let figure = |value: Option<u64>| value.map_or_else(|| "-".to_owned(), |v| v.to_string());
    format!(
        "input {} tokens (cached {}), output {} tokens, as reported",
        figure(usage.input_tokens),
        figure(usage.cached_input_tokens),
        figure(usage.output_tokens)
    )
}
