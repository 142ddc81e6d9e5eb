//! `strata eval compaction`: an opt-in measurement with a real model, never
//! part of `make test`'s use of real endpoints. A recorded long session
//! (`fixtures/eval/long-session.jsonl`, embedded; `fixtures/eval/README.md`
//! says how it was made) is copied into a scratch session store once per
//! policy, resumed on the profile the person names, compacted by hand
//! (trigger `manual`) through the agent exactly as `strata compact` does
//! (the real summary request through the gateway), and then asked the
//! probe questions; each answer is scored by the planted facts it names.
//! The person's own sessions are never touched.

use std::path::Path;

use strata_core::agent::{Agent, CompactOutcome};
use strata_core::store::ReadMode;
use strata_core::{CancellationToken, SessionStore, StrataPaths};
use strata_protocol::{
    ApprovalPolicy, CONTRACT_FORMAT_VERSION, CompactResult, CompactionEval, CompactionPolicy,
    EvalFixture, OutputKind, PolicyEval, ProbeScore, Record, RecordBody, SessionId,
    ThresholdSetting, TokenUsage,
};
use strata_providers::ProfileFlags;
use strata_providers::config::EnvLookup;

use crate::error::{AppResult, internal, io};
use crate::launch::{self, LaunchOptions};

/// The recorded session every evaluation replays.
pub const EVAL_SESSION: &str = include_str!("../fixtures/eval/long-session.jsonl");

/// The policies compared, in the order they are run and printed.
pub const EVAL_POLICIES: [CompactionPolicy; 2] =
    [CompactionPolicy::Base, CompactionPolicy::Layered];

/// One probe: a question about the session and the planted facts a right
/// answer names (each matched as text, ignoring case).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    pub name: &'static str,
    pub question: &'static str,
    pub required: &'static [&'static str],
}

/// What the probes ask, and the facts the fixture planted for each.
pub const PROBES: [Probe; 4] = [
    Probe {
        name: "task",
        question: "What task did I give you in this session? Answer in one or two sentences.",
        required: &["VAT", "half-even"],
    },
    Probe {
        name: "files_changed",
        question: "Which files have you changed in this session? List their paths.",
        required: &["src/billing/invoice.rs", "src/billing/vat.rs"],
    },
    Probe {
        name: "failed",
        question: "Which command failed during this session, which test failed in it, and does \
                   it pass now?",
        required: &["check.sh billing", "vat_rounding"],
    },
    Probe {
        name: "next_step",
        question: "What is the next step you planned? Answer in one sentence.",
        required: &["CHANGELOG.md"],
    },
];

/// The required texts `answer` holds, ignoring case, in `required`'s order.
pub fn facts_found(answer: &str, required: &[&str]) -> Vec<String> {
    let answer = answer.to_lowercase();
    required
        .iter()
        .filter(|fact| answer.contains(&fact.to_lowercase()))
        .map(|fact| (*fact).to_owned())
        .collect()
}

/// What to evaluate with.
#[derive(Clone, Debug, Default)]
pub struct EvalOptions {
    /// The provider profile (`--provider`, `--model`, `--base-url`).
    pub profile: ProfileFlags,
    /// The threshold the layered policy's eviction levels derive from
    /// (default: the model's).
    pub compact_threshold: Option<ThresholdSetting>,
}

/// The fixture's session id, request count and the records it holds.
fn fixture_records() -> AppResult<(SessionId, u32)> {
    let mut id = None;
    let mut rounds = 0u32;
    for line in EVAL_SESSION.lines().filter(|line| !line.trim().is_empty()) {
        let record: Record = serde_json::from_str(line)
            .map_err(|error| internal(format!("The evaluation's session is corrupt: {error}")))?;
        match record.body {
            RecordBody::SessionMeta(meta) => id = Some(meta.session_id),
            RecordBody::Round(_) => rounds += 1,
            _ => {}
        }
    }
    let id = id.ok_or_else(|| internal("The evaluation's session has no session_meta record"))?;
    Ok((id, rounds))
}

/// A scratch store holding a copy of the fixture: sessions, index and logs
/// under `dir`; the person's config (profiles) and keys are read as usual.
fn scratch_paths(dir: &Path, paths: &StrataPaths, id: SessionId) -> AppResult<StrataPaths> {
    let scratch = StrataPaths {
        sessions: dir.join("sessions"),
        config: paths.config.clone(),
        logs: dir.join("logs"),
    };
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(&scratch.sessions)?;
        std::fs::create_dir_all(dir.join("workspace"))?;
        std::fs::write(scratch.sessions.join(format!("{id}.jsonl")), EVAL_SESSION)
    };
    write().map_err(|error| {
        io(format!(
            "Cannot prepare the evaluation's scratch folder: {error}"
        ))
    })?;
    Ok(scratch)
}

/// Compacts a copy of the fixture under each policy with the profile
/// `options` names, then asks every probe; stops early only when `cancel`
/// fires or the profile cannot be used.
pub async fn evaluate_compaction(
    paths: &StrataPaths,
    env: EnvLookup<'_>,
    options: &EvalOptions,
    cancel: &CancellationToken,
) -> AppResult<CompactionEval> {
    let (session_id, rounds) = fixture_records()?;
    let mut policies = Vec::new();
    let mut fixture = None;
    let mut profile = None;
    for policy in EVAL_POLICIES {
        let dir = tempfile::tempdir()
            .map_err(|error| io(format!("Cannot make a scratch folder: {error}")))?;
        let scratch = scratch_paths(dir.path(), paths, session_id)?;
        let store = SessionStore::from_paths(&scratch);
        if fixture.is_none() {
            fixture = Some(describe_fixture(&store, session_id, rounds)?);
        }
        let launch_options = LaunchOptions {
            profile: options.profile.clone(),
            workspace: Some(dir.path().join("workspace")),
            compact_threshold: options.compact_threshold,
            compaction: Some(policy),
            // Nothing runs a tool: the probes offer none.
            ..LaunchOptions::new(Some(ApprovalPolicy::ReadOnly), false)
        };
        let mut launched = launch::resume(&store, &scratch, env, session_id, &launch_options)?;
        if let Some(fixture) = &mut fixture {
            fixture.estimated_tokens = launched.agent.estimated_context_tokens();
        }
        profile.get_or_insert_with(|| launched.profile.clone());
        let mut evaluated = evaluate_policy(&mut launched.agent, policy, cancel).await?;
        evaluated.cost = launched
            .profile
            .price
            .as_ref()
            .map(|price| price.cost(&evaluated.usage));
        policies.push(evaluated);
    }
    let (Some(fixture), Some(profile)) = (fixture, profile) else {
        return Err(internal("The evaluation ran no policy"));
    };
    let mut usage = TokenUsage::default();
    for policy in &policies {
        usage.accumulate(&policy.usage);
    }
    let cost = profile.price.as_ref().map(|price| price.cost(&usage));
    Ok(CompactionEval {
        cost,
        v: CONTRACT_FORMAT_VERSION,
        kind: OutputKind::CompactionEval,
        provider_kind: profile.kind,
        model: profile.model,
        fixture,
        requests: policies.iter().map(|policy| policy.requests).sum(),
        policies,
        usage,
    })
}

fn describe_fixture(store: &SessionStore, id: SessionId, rounds: u32) -> AppResult<EvalFixture> {
    let read = store.open_reader(id, ReadMode::Strict)?;
    let items = read.replay().history().len();
    Ok(EvalFixture {
        session_id: id,
        rounds,
        items: u32::try_from(items).unwrap_or(u32::MAX),
        estimated_tokens: 0,
    })
}

fn cancelled() -> crate::error::AppError {
    crate::error::invalid_input("The evaluation was cancelled")
}

/// One policy: the compaction, then every probe against its result.
async fn evaluate_policy(
    agent: &mut Agent,
    policy: CompactionPolicy,
    cancel: &CancellationToken,
) -> AppResult<PolicyEval> {
    let outcome = agent.compact_now(None, cancel.clone()).await?;
    let mut usage = TokenUsage::default();
    let (outcome, message, mut requests) = match outcome {
        CompactOutcome::Compacted(summary) => {
            if let Some(summary_usage) = &summary.metadata.summarizer_usage {
                usage.accumulate(summary_usage);
            }
            (CompactResult::Compacted, None, 1)
        }
        CompactOutcome::NothingToCompact { items } => (
            CompactResult::NothingToCompact,
            Some(format!(
                "nothing to compact: all {items} items would be kept"
            )),
            0,
        ),
        CompactOutcome::SummaryFailed { attempts, message } => {
            (CompactResult::SummaryFailed, Some(message), attempts)
        }
        CompactOutcome::Refused { message, .. } => (CompactResult::Refused, Some(message), 1),
        CompactOutcome::Cancelled => return Err(cancelled()),
    };
    let mut probes = Vec::new();
    for probe in PROBES {
        let response = agent
            .probe(probe.question, cancel)
            .await
            .ok_or_else(cancelled)?;
        requests += 1;
        let (answer, error, probe_usage) = match response {
            Ok(response) => (response.text(), None, response.usage),
            Err(error) => (String::new(), Some(error.to_string()), None),
        };
        if let Some(probe_usage) = &probe_usage {
            usage.accumulate(probe_usage);
        }
        probes.push(ProbeScore {
            probe: probe.name.to_owned(),
            question: probe.question.to_owned(),
            required: probe
                .required
                .iter()
                .map(|fact| (*fact).to_owned())
                .collect(),
            found: facts_found(&answer, probe.required),
            answer,
            error,
            usage: probe_usage,
        });
    }
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Ok(PolicyEval {
        policy,
        outcome,
        message,
        history_items: count(agent.history().len()),
        estimated_tokens: agent.estimated_context_tokens(),
        score: count(probes.iter().map(|probe| probe.found.len()).sum()),
        max_score: count(probes.iter().map(|probe| probe.required.len()).sum()),
        probes,
        requests,
        usage,
        cost: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_counts_when_the_answer_names_it_in_any_case() {
        let found = facts_found(
            "I changed SRC/billing/invoice.rs and added a test.",
            &["src/billing/invoice.rs", "src/billing/vat.rs"],
        );
        assert_eq!(found, ["src/billing/invoice.rs"]);
        assert!(facts_found("", &["VAT"]).is_empty());
    }

    #[test]
    fn the_fixture_is_a_long_session_that_plants_every_probed_fact() {
        let (_, rounds) = fixture_records().unwrap();
        assert!(rounds >= 100, "{rounds} rounds");
        for probe in PROBES {
            for fact in probe.required {
                assert!(
                    EVAL_SESSION.contains(fact),
                    "the fixture never mentions {fact:?} ({})",
                    probe.name
                );
            }
        }
    }
}
