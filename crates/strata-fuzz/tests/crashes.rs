//! Every crash input the fuzzer found and kept replays here, through the
//! same target, as an ordinary test: each must now run without a panic. The
//! seeds of every target run too (the stream targets' come from
//! `../shared/fixtures/wire`, skipped by name without it), so a target broken
//! by a refactor shows up in `make test`, not first in `make fuzz`.

use std::path::Path;

use strata_fuzz::campaign::run_one;
use strata_fuzz::{Target, crash_dir, repo_root, wire_dir};

/// Replays the kept crash inputs of `targets`; the failures, described.
fn replay_crashes(targets: &[Target]) -> (usize, Vec<String>) {
    let mut replayed = 0;
    let mut failures = Vec::new();
    for &target in targets {
        let Ok(entries) = std::fs::read_dir(crash_dir(target)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(data) = std::fs::read(&path) else {
                continue;
            };
            replayed += 1;
            if let Err(message) = run_one(target, &data) {
                failures.push(format!("{}: {message}", path.display()));
            }
        }
    }
    (replayed, failures)
}

#[test]
fn every_kept_crash_input_now_runs_clean() {
    let targets: Vec<Target> = Target::ALL
        .into_iter()
        .filter(|target| *target != Target::Paths)
        .collect();
    let (replayed, failures) = replay_crashes(&targets);
    assert!(
        failures.is_empty(),
        "{} of {replayed} crash inputs still fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn path_escapes_the_fuzzer_found_now_stay_inside_the_workspace() {
    let (replayed, failures) = replay_crashes(&[Target::Paths]);
    assert!(replayed > 0, "no kept path inputs");
    assert!(
        failures.is_empty(),
        "{} of {replayed} path inputs still escape:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs every seed of `target`; a panic names the seed.
fn run_seeds(target: Target, wire: &Path) {
    let seeds = target.seeds(&repo_root(), wire);
    assert!(!seeds.is_empty(), "{} has no seeds", target.name());
    for (index, seed) in seeds.iter().enumerate() {
        if let Err(message) = run_one(target, seed) {
            panic!("{} seed {index}: {message}", target.name());
        }
    }
}

#[test]
fn every_target_runs_its_seeds_from_the_repository_clean() {
    for target in Target::ALL.into_iter().filter(|t| !t.seeds_from_wire()) {
        run_seeds(target, &wire_dir());
    }
}

#[test]
fn the_stream_targets_run_the_recorded_streams_clean() {
    let Some(wire) = strata_testkit::needs_shared(strata_testkit::WIRE) else {
        return;
    };
    for target in Target::ALL.into_iter().filter(|t| t.seeds_from_wire()) {
        run_seeds(target, &wire);
    }
}
