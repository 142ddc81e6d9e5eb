//! Invariants of MCP tool naming over hostile server and tool names.

use proptest::prelude::*;
use std::collections::BTreeSet;
use strata_core::mcp::naming::{MAX_TOOL_NAME_BYTES, name_tools};

fn part() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,6}",
        "[A-Za-z0-9_.\\- ]{1,12}",
        ".{0,80}",
        "[a-z_]{40,90}",
    ]
}

fn pairs() -> impl Strategy<Value = Vec<(String, String)>> {
    prop::collection::vec((part(), part()), 0..24)
}

proptest! {
    #[test]
    fn names_are_unique_short_and_in_the_provider_alphabet(pairs in pairs()) {
        let named = name_tools(pairs.iter().map(|(s, t)| (s.as_str(), t.as_str())));
        let distinct: BTreeSet<_> = pairs.iter().collect();
        prop_assert_eq!(named.len(), distinct.len());
        let names: BTreeSet<_> = named.iter().map(|n| n.name.as_str()).collect();
        prop_assert_eq!(names.len(), named.len());
        for tool in &named {
            prop_assert!(tool.name.len() <= MAX_TOOL_NAME_BYTES, "{}", tool.name);
            prop_assert!(tool.name.starts_with("mcp__"));
            prop_assert!(
                tool.name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
                "{}", tool.name
            );
        }
    }

    #[test]
    fn names_do_not_depend_on_the_order_servers_answered_in(
        (pairs, shuffled) in pairs().prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle())),
    ) {
        let a = name_tools(pairs.iter().map(|(s, t)| (s.as_str(), t.as_str())));
        let b = name_tools(shuffled.iter().map(|(s, t)| (s.as_str(), t.as_str())));
        prop_assert_eq!(a, b);
    }

    #[test]
    fn the_tools_array_is_sorted_by_name(pairs in pairs()) {
        let named = name_tools(pairs.iter().map(|(s, t)| (s.as_str(), t.as_str())));
        prop_assert!(named.windows(2).all(|w| w[0].name < w[1].name));
    }
}
