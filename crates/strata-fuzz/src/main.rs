//! `strata-fuzz [TARGET|all] [--seconds N] [--seed S]`: runs each target's
//! mutation loop for N seconds (default: $FUZZ_SECONDS, else 60), prints
//! executions per second, and writes crash inputs under
//! `crates/strata-fuzz/crashes/<target>/`. Exits 1 if anything crashed.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;
use std::time::Duration;

use strata_fuzz::{Campaign, Target, crash_dir};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut which = "all".to_owned();
    let mut seconds: u64 = std::env::var("FUZZ_SECONDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(60);
    let mut seed: u64 = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    while let Some(arg) = args.next() {
        let number = |value: Option<String>| value.and_then(|value| value.parse().ok());
        match arg.as_str() {
            "--seconds" => seconds = number(args.next()).unwrap_or(seconds),
            "--seed" => seed = number(args.next()).unwrap_or(seed),
            name => which = name.to_owned(),
        }
    }
    let targets: Vec<Target> = match which.as_str() {
        "all" => Target::ALL.to_vec(),
        name => match Target::from_name(name) {
            Some(target) => vec![target],
            None => {
                let names: Vec<&str> = Target::ALL.iter().map(|target| target.name()).collect();
                eprintln!(
                    "strata-fuzz: unknown target {name:?}; targets: {}",
                    names.join(", ")
                );
                return ExitCode::from(2);
            }
        },
    };
    // Panics are expected and reported; the default hook would print each.
    std::panic::set_hook(Box::new(|_| {}));
    println!("seed {seed}, {seconds} s per target");
    let mut crashed = false;
    for target in targets {
        if target.seeds_from_wire() && !strata_fuzz::wire_dir().is_dir() {
            println!(
                "{}: no seeds, {} is missing",
                target.name(),
                strata_fuzz::wire_dir().display()
            );
        }
        let report = Campaign {
            target,
            seed,
            duration: Duration::from_secs(seconds),
            crash_dir: Some(crash_dir(target)),
        }
        .run();
        println!(
            "{:<17} {:>10} executions in {:>5.1} s = {:>8.0}/s, corpus {}, shapes {}, crashes {}",
            target.name(),
            report.executions,
            report.seconds,
            report.per_second(),
            report.corpus,
            report.shapes,
            report.crashes.len()
        );
        for (message, saved) in &report.crashes {
            crashed = true;
            let saved = saved
                .as_ref()
                .map_or("(not saved)".into(), |path| path.display().to_string());
            println!("  crash: {saved}\n    {}", message.replace('\n', "\n    "));
        }
    }
    if crashed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
