//! The index keeps what each session cost, as its records say, across an
//! appended refresh, so the library can list and sort by it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::library;

use std::path::Path;

use strata_core::SessionStore;
use strata_index::{Index, PageRequest, SessionSummary};
use strata_protocol::{Cost, SessionId, TokenUsage, Usd};

fn usage(input: u64) -> TokenUsage {
    TokenUsage {
        input_tokens: Some(input),
        ..TokenUsage::default()
    }
}

fn cost(pico: u64) -> Option<Cost> {
    Some(Cost {
        usd: Usd(pico),
        price_as_of: "config".into(),
    })
}

fn summary(index: &Index, id: SessionId) -> SessionSummary {
    index
        .list(&PageRequest {
            limit: 100,
            ..PageRequest::default()
        })
        .expect("list")
        .items
        .into_iter()
        .find(|s| s.id == id)
        .expect("listed")
}

#[test]
fn recorded_costs_add_up_across_an_appended_refresh() {
    let (_home, paths, store): (_, _, SessionStore) = library();
    let mut live = store
        .create(Path::new("/w"), "openai-responses", "my-local-model")
        .expect("create");
    live.record_usage(usage(10), None, cost(7)).expect("usage");
    let id = live.id();
    drop(live);
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    assert_eq!(summary(&index, id).cost, cost(7));

    let mut live = store.open_writer(id).expect("open");
    live.record_usage(usage(10), None, cost(5)).expect("usage");
    // Its model has no price and the record carries none: tokens only.
    live.record_usage(usage(10), None, None).expect("usage");
    drop(live);
    index.refresh().expect("refresh");
    let listed = summary(&index, id);
    assert_eq!(listed.cost, cost(12));
    assert_eq!(listed.unpriced_rounds, 1);
}

#[test]
fn an_older_file_without_recorded_costs_is_priced_at_todays_table_and_an_unknown_model_not_at_all()
{
    let (_home, paths, store): (_, _, SessionStore) = library();
    let mut priced = store
        .create(Path::new("/w"), "openai-chat", "gpt-4o")
        .expect("create");
    priced
        .record_usage(usage(1_000_000), None, None)
        .expect("usage");
    let priced = priced.id();
    let mut unknown = store
        .create(Path::new("/w"), "openai-chat", "my-local-model")
        .expect("create");
    unknown
        .record_usage(usage(1_000), None, None)
        .expect("usage");
    let unknown = unknown.id();
    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    let listed = summary(&index, priced);
    assert_eq!(
        listed.cost.as_ref().map(|c| c.usd),
        Some(Usd(2_500_000 * 1_000_000))
    );
    assert_eq!(
        listed.cost.map(|c| c.price_as_of),
        Some(strata_protocol::PRICE_TABLE_DATE.to_owned())
    );
    let listed = summary(&index, unknown);
    assert_eq!((listed.cost, listed.unpriced_rounds), (None, 1));
}
