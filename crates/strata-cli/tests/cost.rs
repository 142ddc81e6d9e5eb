//! What sessions cost, on the command line: `sessions list` shows and sorts
//! by it, `sessions show` states it, and `sessions show --json` carries it
//! as typed fields.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use strata_protocol::{Cost, ResponseItem, SessionId, SessionItems, TokenUsage, Usd};
use support::Home;

fn session_costing(home: &Home, title: &str, model: &str, cost: Option<u64>) -> SessionId {
    let mut session = home
        .store()
        .create(home.path(), "openai-chat", model)
        .unwrap();
    session.commit_item(ResponseItem::user(title)).unwrap();
    let usage = TokenUsage {
        input_tokens: Some(1_000),
        output_tokens: Some(10),
        ..TokenUsage::default()
    };
    let cost = cost.map(|pico| Cost {
        usd: Usd(pico),
        price_as_of: "config".into(),
    });
    session.record_usage(usage, None, cost).unwrap();
    session.id()
}

#[test]
fn sessions_list_shows_each_cost_and_sorts_the_dearest_first() {
    let home = Home::new();
    let cheap = session_costing(&home, "cheap one", "my-local-model", Some(10_000_000_000));
    let dear = session_costing(&home, "dear one", "my-local-model", Some(2_000_000_000_000));
    let unpriced = session_costing(&home, "unpriced one", "my-local-model", None);

    let listed = home.run(&["sessions", "list", "--sort", "cost"]).ok();
    let order: Vec<usize> = [dear, cheap, unpriced]
        .iter()
        .map(|id| listed.find(&id.to_string()).expect("listed"))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{listed}");
    assert!(listed.contains("$2.00"), "{listed}");
    assert!(listed.contains("$0.01"), "{listed}");
    assert!(listed.contains("no price"), "{listed}");
}

#[test]
fn sessions_show_states_the_cost_and_its_json_carries_typed_fields() {
    let home = Home::new();
    let id = session_costing(&home, "priced", "my-local-model", Some(6_400_000_000));
    let shown = home.run(&["sessions", "show", &id.to_string()]).ok();
    assert!(shown.contains("cost $0.0064 (prices of config)"), "{shown}");

    let json = home
        .run(&["sessions", "show", &id.to_string(), "--json"])
        .ok();
    let items: SessionItems = serde_json::from_str(json.trim()).unwrap();
    let cost = items.cost.expect("a cost");
    assert_eq!(cost.cost_pico_usd, 6_400_000_000);
    assert!((cost.cost_usd - 0.0064).abs() < 1e-12);
    assert_eq!(cost.price_as_of, "config");

    let unpriced = session_costing(&home, "unpriced", "my-local-model", None);
    let shown = home.run(&["sessions", "show", &unpriced.to_string()]).ok();
    assert!(shown.contains("cost: no price"), "{shown}");
}
