//! The mutation loop: start from the seeds, mutate a corpus entry, run it,
//! keep it when it shows a new shape, and save any input that panics.

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::mutate::mutate;
use crate::targets::{Shape, Target};

/// The corpus stops growing here, so picking stays cheap.
const MAX_CORPUS: usize = 4_096;

pub struct Campaign {
    pub target: Target,
    pub seed: u64,
    pub duration: Duration,
    /// Where new crash inputs are written (none: not written).
    pub crash_dir: Option<PathBuf>,
}

/// What a campaign did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub executions: u64,
    pub seconds: f64,
    pub corpus: usize,
    pub shapes: usize,
    /// Distinct panic messages, each with the file its input went to.
    pub crashes: Vec<(String, Option<PathBuf>)>,
}

impl Report {
    pub fn per_second(&self) -> f64 {
        self.executions as f64 / self.seconds.max(1e-9)
    }
}

/// Runs `data`, turning a panic into its message.
pub fn run_one(target: Target, data: &[u8]) -> Result<Shape, String> {
    catch_unwind(AssertUnwindSafe(|| target.run(data))).map_err(|panic| {
        panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|text| (*text).to_owned()))
            .unwrap_or_else(|| "a panic without a message".into())
    })
}

impl Campaign {
    pub fn run(&self) -> Report {
        let started = Instant::now();
        let mut rng = fastrand::Rng::with_seed(self.seed);
        let mut report = Report::default();
        let mut shapes: HashSet<Shape> = HashSet::new();
        let mut messages: HashSet<String> = HashSet::new();
        let mut corpus: Vec<Vec<u8>> = Vec::new();
        let mut seeds = self.target.seeds(&crate::repo_root(), &crate::wire_dir());
        seeds.push(Vec::new());
        for seed in seeds {
            self.try_input(seed, &mut report, &mut shapes, &mut messages, &mut corpus);
        }
        let dictionary = self.target.dictionary();
        while started.elapsed() < self.duration {
            for _ in 0..64 {
                let (input, other) = if corpus.is_empty() {
                    (Vec::new(), Vec::new())
                } else {
                    (
                        corpus[rng.usize(0..corpus.len())].clone(),
                        corpus[rng.usize(0..corpus.len())].clone(),
                    )
                };
                let data = mutate(&mut rng, &input, &other, dictionary);
                self.try_input(data, &mut report, &mut shapes, &mut messages, &mut corpus);
            }
        }
        report.seconds = started.elapsed().as_secs_f64();
        report.corpus = corpus.len();
        report.shapes = shapes.len();
        report
    }

    fn try_input(
        &self,
        data: Vec<u8>,
        report: &mut Report,
        shapes: &mut HashSet<Shape>,
        messages: &mut HashSet<String>,
        corpus: &mut Vec<Vec<u8>>,
    ) {
        report.executions += 1;
        match run_one(self.target, &data) {
            Ok(shape) => {
                if shapes.insert(shape) && corpus.len() < MAX_CORPUS {
                    corpus.push(data);
                }
            }
            Err(message) => {
                // One input per distinct message start (messages put their
                // variable parts last), so a bug found a thousand times is
                // kept once.
                let key: String = message
                    .lines()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(60)
                    .collect();
                if messages.insert(key.clone()) {
                    let saved = self.crash_dir.as_ref().and_then(|dir| save(dir, &data));
                    report.crashes.push((message, saved));
                }
            }
        }
    }
}

/// Writes a crash input as `<dir>/crash-<hash>`.
fn save(dir: &std::path::Path, data: &[u8]) -> Option<PathBuf> {
    std::fs::create_dir_all(dir).ok()?;
    let path = dir.join(format!("crash-{:016x}", crate::targets::shape_of(data)));
    std::fs::write(&path, data).ok()?;
    Some(path)
}
