//! The crash harness: the built `strata` killed with SIGKILL mid-stream,
//! mid-tool, mid-compaction, right after a record and at random moments,
//! against a local Responses server. After every kill the session file
//! reads, only grew, holds nothing the server did not send whole, its
//! finished turns are whole, and a resume moves any torn tail to a sidecar,
//! continues the session and reports the history `strata context --json`
//! replays.
//!
//! `CRASH_KILLS` (default 24) sets how many kills; `CRASH_SEED` repeats a
//! run (`make soak` runs 500); `CRASH_POLICY` (`layered` or `base`) runs
//! every session chain on one compaction policy instead of alternating.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod crash;
mod support;

use std::collections::BTreeMap;
use std::time::Instant;

use crash::plan::{Names, scenario};
use crash::server::CrashServer;
use crash::{Harness, Tally};
use strata_protocol::CompactionPolicy;

/// Kills per session before the harness starts a new one (so kills before
/// and during a session's first turn keep happening).
const KILLS_PER_SESSION: usize = 8;

/// Session chains alternate between the default policy and the base design.
const POLICIES: [CompactionPolicy; 2] = [CompactionPolicy::Layered, CompactionPolicy::Base];

/// The policies the chains cycle through: both, or the one `CRASH_POLICY`
/// names (`off` compacts nothing, so a kill mid-compaction would never come).
fn policies() -> Vec<CompactionPolicy> {
    match std::env::var("CRASH_POLICY") {
        Err(_) => POLICIES.to_vec(),
        Ok(name) => match name.parse::<CompactionPolicy>() {
            Ok(policy @ (CompactionPolicy::Layered | CompactionPolicy::Base)) => vec![policy],
            Ok(CompactionPolicy::Off) | Err(_) => {
                panic!("CRASH_POLICY={name:?}: expected layered or base")
            }
        },
    }
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
}

#[test]
fn sigkill_at_any_moment_loses_no_finished_turn_and_the_session_resumes() {
    let kills_wanted = env_number("CRASH_KILLS").unwrap_or(24) as usize;
    let seed = env_number("CRASH_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64
    });
    let policies = policies();
    let policy_names: Vec<&str> = policies.iter().map(|p| p.as_str()).collect();
    eprintln!(
        "crash harness: seed {seed} (CRASH_SEED={seed} repeats this run), {kills_wanted} kills, \
         policies {policy_names:?}"
    );
    let started = Instant::now();
    let server = CrashServer::start();
    let mut names = Names::new(seed);
    let mut total = Tally::default();
    let mut by_label: BTreeMap<&str, usize> = BTreeMap::new();
    let mut chains = 0;
    let mut harness = Harness::new(&server, policies[0]);
    let mut cycle = 0u64;
    while total.kills < kills_wanted {
        assert!(
            cycle < kills_wanted as u64 * 3,
            "seed {seed}: only {} kills in {cycle} cycles",
            total.kills
        );
        if total.kills > 0 && total.kills % KILLS_PER_SESSION == 0 && harness.session_started() {
            chains += 1;
            harness = Harness::new(&server, policies[chains % policies.len()]);
        }
        // Mixed, so nearby seeds do not replay shifted copies of one run.
        let cycle_seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(cycle);
        let scenario = scenario(cycle_seed, &mut names);
        let tally = harness
            .kill_cycle(&format!("task {cycle}"), &scenario)
            .unwrap_or_else(|error| {
                panic!(
                    "seed {seed}, cycle {cycle} (cycle seed {cycle_seed}), {} kill at {:?}, tear {:?}: {error}",
                    scenario.label, scenario.kill, scenario.tear
                )
            });
        *by_label.entry(scenario.label).or_default() += tally.kills;
        total = total.plus(tally);
        cycle += 1;
    }
    eprintln!(
        "crash harness: {} kills in {cycle} cycles, {:.1} s; by moment {by_label:?}; \
         {} finished before their moment, {} before the session file, {} torn tails \
         (cut after the kill) moved to sidecars, {} calls answered as aborted; \
         killed processes wrote {} evictions and {} summaries; \
         resumes folded {} evictions, {} layered and {} base summaries",
        total.kills,
        started.elapsed().as_secs_f64(),
        total.finished_first,
        total.before_session,
        total.torn_tails,
        total.aborted_calls,
        total.killed_evictions,
        total.killed_summaries,
        total.evictions,
        total.layered_summaries,
        total.base_summaries,
    );
}
