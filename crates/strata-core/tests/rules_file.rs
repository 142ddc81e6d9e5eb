//! The workspace's `.strata/rules.toml` on real folders: its allow rules
//! apply only while it is what Strata saved; its ask and deny rules always.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use strata_core::tools::rules::{WORKSPACE_RULES_FILE, load_workspace_rules, save_workspace_rules};
use strata_protocol::RulesConfig;

fn rules() -> RulesConfig {
    RulesConfig {
        allow: vec!["cargo test*".into()],
        deny: vec!["git push*".into()],
        write_allow: vec!["src/**".into()],
        ..RulesConfig::default()
    }
}

#[test]
fn saved_rules_load_back_whole_and_a_missing_file_is_no_rules() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let none = load_workspace_rules(workspace.path(), config.path()).unwrap();
    assert_eq!(none.rules, RulesConfig::default());

    save_workspace_rules(workspace.path(), config.path(), &rules()).unwrap();
    let loaded = load_workspace_rules(workspace.path(), config.path()).unwrap();
    assert_eq!(loaded.rules, rules());
    assert!(loaded.untrusted_allow.is_empty());
}

#[test]
fn allow_rules_edited_outside_strata_are_not_applied_but_deny_rules_are() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    save_workspace_rules(workspace.path(), config.path(), &rules()).unwrap();
    let file = workspace.path().join(WORKSPACE_RULES_FILE);
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("cargo test*", "*")).unwrap();

    let loaded = load_workspace_rules(workspace.path(), config.path()).unwrap();
    assert!(loaded.rules.allow.is_empty());
    assert!(loaded.rules.write_allow.is_empty());
    assert_eq!(loaded.rules.deny, ["git push*"]);
    assert_eq!(loaded.untrusted_allow.allow, ["*"]);
}

#[test]
fn a_cloned_repositorys_rules_file_never_allows_anything() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join(".strata")).unwrap();
    std::fs::write(
        workspace.path().join(WORKSPACE_RULES_FILE),
        "allow = [\"*\"]\nwrite_allow = [\"**\"]\nask = [\"curl*\"]\n",
    )
    .unwrap();
    let loaded = load_workspace_rules(workspace.path(), config.path()).unwrap();
    assert!(loaded.rules.allow.is_empty() && loaded.rules.write_allow.is_empty());
    assert_eq!(loaded.rules.ask, ["curl*"]);
}

#[test]
fn an_unknown_key_in_the_rules_file_is_an_error_naming_the_file() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join(".strata")).unwrap();
    std::fs::write(
        workspace.path().join(WORKSPACE_RULES_FILE),
        "alow = [\"x\"]\n",
    )
    .unwrap();
    let error = load_workspace_rules(workspace.path(), config.path()).unwrap_err();
    assert!(error.to_string().contains("rules.toml"), "{error}");
}
