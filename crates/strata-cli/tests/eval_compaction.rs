//! `strata eval compaction` end to end: the built binary against a local
//! server speaking the OpenAI Responses wire format, whose scripted answers
//! get some probes right and some wrong; the scores, the requests and the
//! escaping of the model's text are checked. The scores of a real model are
//! asserted nowhere.
//!
//! The recorded session the command replays is made by the ignored test
//! here, `regenerate_the_eval_fixture` (see
//! crates/strata-app/fixtures/eval/README.md).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Mutex;

use serde_json::{Value, json};
use strata_protocol::{CompactResult, CompactionEval, CompactionPolicy, OutputKind};
use support::server::{Reply, ResponsesServer, json_text, sse_call, sse_text};
use support::{Home, announced_id, last_user};

/// Whether a request is a compaction summary's (its instructions say so):
/// the summarizer's own request (base) or the session's context with the
/// compaction instruction appended (layered).
fn is_summary(body: &Value) -> bool {
    let body = body.to_string();
    body.contains("You are compacting the transcript")
        || body.contains(strata_core::compaction::IN_CONTEXT_SUMMARY_PREFIX)
}

/// Scripted probe answers: the task right, one of the two files, the
/// failure wrong, the next step right (with an escape sequence a terminal
/// would act on).
fn probe_answer(question: &str) -> &'static str {
    if question.starts_with("What task") {
        "You asked me to add VAT to the invoice totals, rounded half-even to the cent."
    } else if question.starts_with("Which files") {
        "I changed src/billing/invoice.rs."
    } else if question.starts_with("Which command failed") {
        "Nothing failed | all green."
    } else {
        "Add a CHANGELOG.md entry for the VAT change.\u{1b}[2J"
    }
}

#[test]
fn eval_compaction_scores_each_policys_answers_against_the_planted_facts() {
    let home = Home::new();
    let server = ResponsesServer::start(|_, body| {
        if is_summary(body) {
            return json_text("SUMMARY: VAT work on the billing module.", 3000, 200);
        }
        json_text(probe_answer(&last_user(body)), 1000, 20)
    });
    let eval_on = |model: &str, extra: &[&str]| {
        let mut args = vec![
            "eval",
            "compaction",
            "--provider",
            "openai-responses",
            "--model",
            model,
            "--base-url",
            &server.base_url,
        ];
        args.extend_from_slice(extra);
        home.run(&args)
    };
    let eval = |extra: &[&str]| eval_on("gpt-eval", extra);
    let run = eval(&["--json"]);
    assert_eq!(run.code, 0, "{run:#?}");
    let lines = run.json_lines();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    let result: CompactionEval = serde_json::from_value(lines[0].clone()).unwrap();
    assert_eq!(result.kind, OutputKind::CompactionEval);
    assert_eq!(result.model, "gpt-eval");
    assert!(result.fixture.rounds >= 100, "{:?}", result.fixture);
    let policies: Vec<CompactionPolicy> = result.policies.iter().map(|p| p.policy).collect();
    assert_eq!(
        policies,
        [CompactionPolicy::Base, CompactionPolicy::Layered]
    );
    for policy in &result.policies {
        assert_eq!(policy.outcome, CompactResult::Compacted, "{policy:?}");
        let scores: Vec<(&str, usize, usize)> = policy
            .probes
            .iter()
            .map(|p| (p.probe.as_str(), p.found.len(), p.required.len()))
            .collect();
        assert_eq!(
            scores,
            [
                ("task", 2, 2),
                ("files_changed", 1, 2),
                ("failed", 0, 2),
                ("next_step", 1, 1)
            ],
            "{policy:?}"
        );
        assert_eq!((policy.score, policy.max_score), (4, 7));
        assert_eq!(policy.requests, 5);
        assert_eq!(policy.usage.input_tokens, Some(3000 + 4 * 1000));
        assert_eq!(policy.usage.output_tokens, Some(200 + 4 * 20));
        // The compacted history is far smaller than the recording.
        assert!(
            policy.history_items < result.fixture.items / 4,
            "{policy:?}"
        );
    }
    assert_eq!(result.requests, 10);
    assert_eq!(result.usage.input_tokens, Some(14_000));
    // `gpt-eval` has no price: no cost, said so.
    assert_eq!(result.cost, None);
    assert!(result.policies.iter().all(|p| p.cost.is_none()));

    // What went over the wire: per policy one summary, then four probes
    // asked of the compacted history, not streamed, tools offered but not
    // to be called.
    let requests = server.requests();
    assert_eq!(requests.len(), 10);
    for (policy, requests) in ["base", "layered"].iter().zip(requests.chunks(5)) {
        assert!(is_summary(&requests[0]), "{policy}: {:#}", requests[0]);
        for probe in &requests[1..] {
            assert_eq!(probe["stream"], false);
            assert_eq!(probe["model"], "gpt-eval");
            assert_eq!(probe["tool_choice"], "none", "{policy}");
            let wire = probe.to_string();
            assert!(wire.contains("SUMMARY: VAT work"), "{policy}: no summary");
            assert!(
                !wire.contains("pub fn step_0_0"),
                "{policy}: a read file's output was sent verbatim"
            );
            assert_eq!(
                wire.contains("[State sheet]"),
                *policy == "layered",
                "{policy}"
            );
        }
    }
    let questions: Vec<String> = requests[1..5].iter().map(last_user).collect();
    assert!(questions[0].starts_with("What task"), "{questions:?}");

    // The tables: the model's text escaped, never acted on.
    let run = eval(&[]);
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(!run.stdout.contains('\u{1b}'), "{}", run.stdout);
    for line in [
        "| next_step | 1/1 | Add a CHANGELOG.md entry for the VAT change.\\x1b[2J |",
        "| failed | 0/2 | Nothing failed \\| all green. |",
        "policy base compacted",
        "policy layered compacted",
        "total: 10 requests",
        "output 280 tokens, as reported; no price",
    ] {
        assert!(run.stdout.contains(line), "{line:?} in {}", run.stdout);
    }

    // A priced model: each policy's cost and the total, at the table's
    // price with its date. 7,000 input tokens at $2.50 and 280 output
    // tokens at $15 per million: $0.0217 a policy.
    let run = eval_on("gpt-5.4", &["--json"]);
    assert_eq!(run.code, 0, "{run:#?}");
    let result: CompactionEval = serde_json::from_value(run.json_lines()[0].clone()).unwrap();
    for policy in &result.policies {
        let cost = policy.cost.as_ref().expect("gpt-5.4 is priced");
        assert_eq!(cost.usd, strata_protocol::Usd(21_700_000_000), "{policy:?}");
        assert_eq!(cost.price_as_of, strata_protocol::PRICE_TABLE_DATE);
    }
    let total = result.cost.expect("a total");
    assert_eq!(total.usd, strata_protocol::Usd(2 * 21_700_000_000));
    let run = eval_on("gpt-5.4", &[]);
    assert!(
        run.stdout.contains("cost $0.02 (prices of ")
            && run.stdout.contains("cost $0.04 (prices of "),
        "{}",
        run.stdout
    );
    // Nothing was written to the person's sessions.
    assert!(home.store().list().unwrap().is_empty());
}

#[test]
fn eval_compaction_needs_a_provider_and_a_model() {
    let home = Home::new();
    let run = home.run(&["eval", "compaction", "--model", "gpt-eval"]);
    assert_eq!(run.code, 2, "{run:#?}");
    assert!(run.stderr.contains("--provider"), "{}", run.stderr);
}

// ---------------------------------------------------------------------------
// The fixture's generator.

const TASK: &str = "Add VAT to the invoice totals in the billing module: every total must \
                    include 20% VAT, rounded half-even to the cent. Never edit vendor/: it is \
                    generated.";
const CHECK_BILLING: &str = "sh scripts/check.sh billing";
const TURNS: usize = 11;
const ROUNDS_PER_TURN: usize = 10;

/// What the scripted model does in one round.
#[derive(Clone, Debug)]
enum Move {
    Call(&'static str, Value),
    Answer(String),
}

fn filler_path(n: usize) -> String {
    format!("src/{}/{}.rs", MODULES[n % MODULES.len()], n)
}

const MODULES: [&str; 5] = ["ledger", "report", "export", "customers", "payments"];

/// The workspace the session worked in: the billing module, a check script
/// that fails until VAT rounds half-even, and other modules to review.
fn workspace(dir: &std::path::Path) {
    let write = |path: &str, text: &str| {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "src/billing/invoice.rs",
        "use super::Line;\n\n/// The invoice total in cents.\npub fn total(lines: &[Line]) -> i64 {\n    \
         subtotal(lines)\n}\n\nfn subtotal(lines: &[Line]) -> i64 {\n    lines.iter().map(|l| \
         l.cents * l.quantity).sum()\n}\n",
    );
    write(
        "src/billing/mod.rs",
        "pub mod invoice;\n\npub struct Line {\n    pub cents: i64,\n    pub quantity: i64,\n}\n",
    );
    write(
        "vendor/rates/generated.rs",
        "// generated: do not edit\npub const RATES: [i64; 2] = [20, 5];\n",
    );
    write(
        "CHANGELOG.md",
        "# Changelog\n\n## 0.4.0\n- CSV export of reports.\n",
    );
    write(
        "scripts/check.sh",
        "for i in $(seq 1 8); do echo \"test $1::case_$i ... ok\"; done\n\
         if [ \"$1\" = billing ] && ! grep -q round_half_even src/billing/vat.rs 2>/dev/null; then\n\
         \x20 echo 'test billing::vat_rounding ... FAILED'\n\
         \x20 echo 'assertion failed: vat(1005) == 201 (left: 202)'\n\
         \x20 exit 1\n\
         fi\n\
         echo \"test result: ok. $1 passed\"\n",
    );
    for n in 0..40 {
        let mut text = format!("//! {}: part {n}\n\n", MODULES[n % MODULES.len()]);
        let size = 300 + (n * 977) % 2200;
        let mut line = 0;
        while text.len() < size {
            text.push_str(&format!(
                "pub fn step_{n}_{line}(cents: i64) -> i64 {{ cents * {} / 100 }}\n",
                100 + line
            ));
            line += 1;
        }
        write(&filler_path(n), &text);
    }
}

/// Every turn: the person's message and its rounds (calls, then an answer).
fn script() -> Vec<(String, Vec<Move>)> {
    let read = |path: &str| Move::Call("read_file", json!({ "path": path }));
    let shell = |command: &str| Move::Call("run_shell", json!({ "command": command }));
    let edit = |path: &str, old: &str, new: &str| {
        Move::Call(
            "apply_edit",
            json!({"path": path, "old_text": old, "new_text": new}),
        )
    };
    let mut turns = Vec::new();
    turns.push((
        TASK.to_owned(),
        vec![
            read("src/billing/invoice.rs"),
            read("src/billing/mod.rs"),
            Move::Call(
                "write_file",
                json!({"path": "src/billing/vat.rs", "content": "/// 20% VAT on a net amount in cents.\npub fn vat(net: i64) -> i64 {\n    (net as f64 * 0.2).round() as i64\n}\n\npub fn with_vat(net: i64) -> i64 {\n    net + vat(net)\n}\n"}),
            ),
            edit(
                "src/billing/invoice.rs",
                "    subtotal(lines)\n}",
                "    super::vat::with_vat(subtotal(lines))\n}",
            ),
            edit(
                "src/billing/mod.rs",
                "pub mod invoice;\n",
                "pub mod invoice;\npub mod vat;\n",
            ),
            shell(CHECK_BILLING),
            edit(
                "src/billing/vat.rs",
                "    (net as f64 * 0.2).round() as i64",
                "    round_half_even(net * 20, 100)",
            ),
            edit(
                "src/billing/vat.rs",
                "pub fn with_vat",
                "/// `n / d` rounded half to even.\nfn round_half_even(n: i64, d: i64) -> i64 {\n    let (q, r) = (n / d, n % d);\n    if 2 * r > d || (2 * r == d && q % 2 == 1) { q + 1 } else { q }\n}\n\npub fn with_vat",
            ),
            shell(CHECK_BILLING),
            Move::Answer(
                "VAT is now added to every invoice total: src/billing/vat.rs computes 20% \
                 rounded half-even and src/billing/invoice.rs calls it. The check failed at \
                 first (billing::vat_rounding: the float rounding went half-up) and passes \
                 now.\nNext step: review the other modules for hard-coded tax rates."
                    .to_owned(),
            ),
        ],
    ));
    let mut file = 0;
    for part in 1..TURNS {
        let mut moves = Vec::new();
        for round in 0..ROUNDS_PER_TURN - 1 {
            if round == 4 {
                let module = MODULES[part % MODULES.len()];
                moves.push(shell(&format!("sh scripts/check.sh {module}")));
            } else {
                moves.push(read(&filler_path(file % 40)));
                file += 7;
            }
        }
        let (user, answer) = if part + 1 == TURNS {
            (
                "Finish the review and tell me what is left.".to_owned(),
                "The review is complete: no other module hard-codes a tax rate.\nNext step: \
                 add a CHANGELOG.md entry for the VAT change, then run `cargo test \
                 --workspace`."
                    .to_owned(),
            )
        } else {
            (
                format!("Continue the review with part {part}."),
                format!(
                    "Part {part} is reviewed: no hard-coded tax rate found.\nNext step: \
                     continue with part {}.",
                    part + 1
                ),
            )
        };
        moves.push(Move::Answer(answer));
        turns.push((user, moves));
    }
    turns
}

/// Writes crates/strata-app/fixtures/eval/long-session.jsonl: the session
/// of `script()` recorded by the real binary (policy `off`, so nothing is
/// compacted) against the local server, which plays the script and reports
/// usage of about a token per four characters of each request.
#[test]
#[ignore = "regenerates the eval fixture; run by hand"]
fn regenerate_the_eval_fixture() {
    let home = Home::new();
    workspace(home.workspace.path());
    let turns = script();
    let moves: Vec<Move> = turns.iter().flat_map(|(_, moves)| moves.clone()).collect();
    let next = Mutex::new(0usize);
    let server = ResponsesServer::start(move |_, body| {
        let mut next = next.lock().unwrap();
        let step = moves[*next].clone();
        *next += 1;
        let input = (body.to_string().len() / 4) as u64;
        Reply::Sse(match step {
            Move::Call(name, arguments) => {
                sse_call(&format!("call_{next}"), name, &arguments, input, 40)
            }
            Move::Answer(text) => {
                let output = (text.len() / 4) as u64;
                sse_text(&text, input, output)
            }
        })
    });
    let common = ["--approval", "auto", "--base-url", server.base_url.as_str()];
    let mut id = None;
    for (user, _) in &turns {
        let run = match id {
            None => {
                let mut args = vec![
                    "run",
                    "-p",
                    user,
                    "--provider",
                    "openai-responses",
                    "--model",
                    "gpt-5.4",
                    "--compaction",
                    "off",
                ];
                args.extend_from_slice(&common);
                home.run(&args)
            }
            Some(id) => {
                let id = format!("{id}");
                let mut args = vec!["resume", &id, "-p", user];
                args.extend_from_slice(&common);
                home.run(&args)
            }
        };
        assert_eq!(run.code, 0, "{run:#?}");
        id.get_or_insert_with(|| announced_id(&run.stderr));
    }
    let id = id.unwrap();
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../strata-app/fixtures/eval/long-session.jsonl");
    std::fs::copy(home.session_file(id), target).unwrap();
}
