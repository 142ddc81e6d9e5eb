//! Writes seeded sessions for benchmarks:
//!
//! ```text
//! strata-gen session RECORDS DIR [SEED]    one long session (10k, 100k, 1M records)
//! strata-gen library SESSIONS DIR [SEED]   a library of short sessions
//! ```
//!
//! The same seed writes the same bytes (timestamps included).

use std::path::PathBuf;
use std::process::ExitCode;

use chrono::{TimeZone, Utc};
use strata_index::generate::{Shape, write_library, write_session};

const DEFAULT_SEED: u64 = 13;

// The generator's one line of output is what it is for.
#[allow(clippy::print_stdout)]
fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("strata-gen: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<String>) -> Result<String, String> {
    let usage = || "usage: strata-gen (session RECORDS | library SESSIONS) DIR [SEED]".to_owned();
    let [kind, count, dir, rest @ ..] = args.as_slice() else {
        return Err(usage());
    };
    let count: u64 = count.parse().map_err(|_| usage())?;
    let dir = PathBuf::from(dir);
    let seed = match rest {
        [] => DEFAULT_SEED,
        [seed] => seed.parse().map_err(|_| usage())?,
        _ => return Err(usage()),
    };
    match kind.as_str() {
        "session" => {
            strata_core::private::ensure_dir(&dir).map_err(|error| error.to_string())?;
            let created = Utc
                .with_ymd_and_hms(2026, 1, 1, 0, 0, 0)
                .single()
                .unwrap_or_default();
            let written = write_session(&dir, seed, created, &Shape::long(count))
                .map_err(|error| error.to_string())?;
            Ok(format!(
                "{} records, {} bytes: {}",
                written.records,
                written.bytes,
                written.path.display()
            ))
        }
        "library" => {
            let sessions = usize::try_from(count).map_err(|_| usage())?;
            let bytes = write_library(&dir, sessions, seed).map_err(|error| error.to_string())?;
            Ok(format!(
                "{sessions} sessions, {bytes} bytes: {}",
                dir.display()
            ))
        }
        _ => Err(usage()),
    }
}
