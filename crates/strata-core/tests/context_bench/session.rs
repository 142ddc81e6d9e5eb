//! The scripted coding session: its files, its rounds and the facts planted
//! along the way.

use super::*;

pub(super) const ROUNDS_PER_TURN: usize = 10;
pub(super) const FILES: usize = 40;
pub(super) const RULE: &str = "Never edit vendor/";
pub(super) const DECISION: &str = "Decision: store amounts as integer cents";
pub(super) const CHECK: &str = "sh scripts/check.sh billing";

/// A deterministic pseudo-random sequence (an LCG), so every run is the same.
pub(super) struct Lcg(pub(super) u64);

impl Lcg {
    pub(super) fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below
    }
}

pub(super) fn file_path(n: usize) -> String {
    format!("src/module_{}/file_{n}.rs", n % 6)
}

/// What the scripted model does in one round.
#[derive(Clone, Debug)]
pub(super) enum Move {
    Call {
        name: &'static str,
        arguments: serde_json::Value,
    },
    Answer(String),
}

/// The whole session's script: for each turn, the person's message and its
/// rounds (tool calls, then an answer).
pub(super) fn script(rounds: usize) -> Vec<(String, Vec<Move>)> {
    let mut rng = Lcg(7);
    let read = |path: &str| Move::Call {
        name: "read_file",
        arguments: serde_json::json!({ "path": path }),
    };
    let shell = |command: &str| Move::Call {
        name: "run_shell",
        arguments: serde_json::json!({ "command": command }),
    };
    let edit = |path: &str, old: &str, new: &str| Move::Call {
        name: "apply_edit",
        arguments: serde_json::json!({ "path": path, "old_text": old, "new_text": new }),
    };
    let mut turns = Vec::new();
    for turn in 0..rounds.div_ceil(ROUNDS_PER_TURN) {
        let user = if turn == 0 {
            format!("Fix the rounding in the billing module. {RULE}: it is generated.")
        } else {
            format!("Continue with part {turn} of the clean-up.")
        };
        let mut moves = Vec::new();
        for round in 0..ROUNDS_PER_TURN - 1 {
            let step = turn * ROUNDS_PER_TURN + round;
            moves.push(match step {
                0 => read("src/billing/invoice.rs"),
                1 => edit("src/billing/invoice.rs", "\"half-up\"", "\"half-even\""),
                2 => shell(CHECK),
                3 => read("src/billing/tax.rs"),
                4 => edit(
                    "src/billing/tax.rs",
                    "// TODO rounding",
                    "// fixed rounding",
                ),
                5 => shell(CHECK),
                _ if rng.next(5) == 0 => {
                    shell(&format!("sh scripts/check.sh module_{}", rng.next(6)))
                }
                _ => read(&file_path(rng.next(FILES as u64) as usize)),
            });
        }
        let next = file_path(rng.next(FILES as u64) as usize);
        let answer = if turn == 0 {
            format!("{DECISION}.\nNext step: review {next} for the same rounding.")
        } else {
            format!("Part {turn} is done.\nNext step: review {next} for the same rounding.")
        };
        moves.push(Move::Answer(answer));
        turns.push((user, moves));
    }
    turns
}

/// A workspace whose files are 0.5–20 KB of plausible source.
pub(super) fn workspace(dir: &std::path::Path) {
    let mut rng = Lcg(11);
    let write = |path: &str, text: String| {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    for n in 0..FILES {
        let size = 500 + rng.next(19_500) as usize;
        let mut text = format!("//! file {n}: part of module {}\n", n % 6);
        let mut line = 0;
        while text.len() < size {
            let _ = writeln!(
                text,
                "pub fn item_{n}_{line}(x: i64) -> i64 {{ x * {line} + {n} }}"
            );
            line += 1;
        }
        write(&file_path(n), text);
    }
    write(
        "src/billing/invoice.rs",
        "pub const ROUNDING: &str = \"half-up\";\n".to_owned() + &"// invoice lines\n".repeat(200),
    );
    write(
        "src/billing/tax.rs",
        "// TODO rounding\n".to_owned() + &"// tax tables\n".repeat(300),
    );
    write(
        "scripts/check.sh",
        "for i in $(seq 1 60); do echo \"test $1::case_$i ... ok\"; done\n\
         if [ \"$1\" = billing ] && ! grep -q 'fixed rounding' src/billing/tax.rs; then \
         echo 'test billing::rounding ... FAILED'; exit 1; fi\n"
            .to_owned(),
    );
}
