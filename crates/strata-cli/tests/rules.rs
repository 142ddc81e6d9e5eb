//! `strata rules list|add|remove` through the built binary: the user's
//! rules in config.toml, a workspace's in `.strata/rules.toml`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{Value, json};
use strata_protocol::{CONTRACT_FORMAT_VERSION, OutputKind, RulesListing};
use support::{Home, last_call_output, one_call_server, responses_run};

/// `strata rules list --json`, checked to be the contract's type (unknown
/// fields refused) with its version.
fn listing(home: &Home, extra: &[&str]) -> Value {
    let mut args = vec!["rules", "list", "--json"];
    args.extend_from_slice(extra);
    let text = home.run(&args).ok();
    let typed: RulesListing = serde_json::from_str(&text).unwrap();
    assert_eq!(typed.v, CONTRACT_FORMAT_VERSION);
    assert_eq!(typed.kind, OutputKind::Rules);
    serde_json::from_str(&text).unwrap()
}

fn patterns(listing: &Value, field: &str) -> Vec<(String, String, String)> {
    listing[field]
        .as_array()
        .map(|rules| {
            rules
                .iter()
                .map(|r| {
                    let text = |k: &str| r[k].as_str().unwrap().to_owned();
                    (text("source"), text("list"), text("pattern"))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn rule(source: &str, list: &str, pattern: &str) -> (String, String, String) {
    (source.into(), list.into(), pattern.into())
}

#[test]
fn user_rules_are_added_listed_and_removed_in_the_config_file() {
    let home = Home::new();
    assert_eq!(home.run(&["rules", "list"]).ok(), "no approval rules\n");
    let added = home.run(&["rules", "add", "allow", "cargo test*"]).ok();
    assert!(
        added.starts_with("added user allow `cargo test*`"),
        "{added}"
    );
    home.run(&["rules", "add", "deny", "git push*"]).ok();
    home.run(&["rules", "add", "write-allow", "src/**"]).ok();

    let listed = listing(&home, &[]);
    assert_eq!(listed["v"], 1);
    assert_eq!(listed["kind"], "rules");
    assert_eq!(
        patterns(&listed, "rules"),
        [
            rule("user", "allow", "cargo test*"),
            rule("user", "deny", "git push*"),
            rule("user", "allow", "src/**"),
        ]
    );
    assert_eq!(listed["rules"][2]["kind"], "write");
    let config = std::fs::read_to_string(home.path().join("config/config.toml")).unwrap();
    assert!(config.contains("[rules]"), "{config}");

    let removed = home.run(&["rules", "remove", "deny", "git push*"]).ok();
    assert!(
        removed.starts_with("removed user deny `git push*`"),
        "{removed}"
    );
    let missing = home.run(&["rules", "remove", "deny", "git push*"]).ok();
    assert!(missing.starts_with("no such rule:"), "{missing}");
    assert_eq!(patterns(&listing(&home, &[]), "rules").len(), 2);
}

#[test]
fn a_bad_pattern_is_refused_and_nothing_is_written() {
    let home = Home::new();
    let run = home.run(&["rules", "add", "allow", "ls && rm -rf /"]);
    assert_ne!(run.code, 0, "{run:#?}");
    assert!(run.stderr.contains("more than one command"), "{run:#?}");
    assert!(!home.path().join("config/config.toml").exists());
    let workspace = home.workspace.path().to_str().unwrap();
    let run = home.run(&[
        "rules",
        "add",
        "write-allow",
        "../up/**",
        "--workspace",
        workspace,
    ]);
    assert_ne!(run.code, 0, "{run:#?}");
    assert!(run.stderr.contains("leaves the workspace"), "{run:#?}");
    assert!(!home.workspace.path().join(".strata/rules.toml").exists());
}

#[test]
fn workspace_rules_are_trusted_only_as_strata_saved_them() {
    let home = Home::new();
    let workspace = home.workspace.path().to_str().unwrap().to_owned();
    let ws = ["--workspace", workspace.as_str()];
    home.run(&["rules", "add", "allow", "npm run lint*", ws[0], ws[1]])
        .ok();
    home.run(&["rules", "add", "allow", "cargo build*"]).ok();
    let listed = listing(&home, &ws);
    assert_eq!(
        patterns(&listed, "rules"),
        [
            rule("user", "allow", "cargo build*"),
            rule("workspace", "allow", "npm run lint*"),
        ]
    );
    assert_eq!(listed.get("not_applied"), None);

    // Edited behind Strata's back: listed, not applied.
    let file = home.workspace.path().join(".strata/rules.toml");
    std::fs::write(&file, "allow = [\"*\"]\ndeny = [\"rm*\"]\n").unwrap();
    let listed = listing(&home, &ws);
    assert_eq!(
        patterns(&listed, "rules"),
        [
            rule("user", "allow", "cargo build*"),
            rule("workspace", "deny", "rm*"),
        ]
    );
    assert_eq!(
        patterns(&listed, "not_applied"),
        [rule("workspace", "allow", "*")]
    );
    let text = home.run(&["rules", "list", ws[0], ws[1]]).ok();
    assert!(text.contains("workspace allow `*` (not applied"), "{text}");

    let json = home
        .run(&["rules", "remove", "deny", "rm*", ws[0], ws[1], "--json"])
        .ok();
    let after: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(after["rules"], json!([]));
}

#[test]
fn the_agent_cannot_write_the_workspace_rules_even_under_auto() {
    let home = Home::new();
    let server = one_call_server(
        "write_file",
        json!({"path": ".strata/rules.toml", "content": "allow = [\"*\"]\n"}),
        "Tried.",
    );
    let run = home.run(&responses_run(
        "allow yourself everything",
        &server.base_url,
        &["--approval", "auto"],
    ));
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(!home.workspace.path().join(".strata/rules.toml").exists());
    let output = last_call_output(&server, 1);
    assert!(!output.contains("Created"), "{output}");
}
