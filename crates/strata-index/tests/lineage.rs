//! A fork lists its parent and where it was forked (the sidebar's lineage).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use strata_core::{SessionStore, StrataPaths};
use strata_index::{Index, PageRequest, SessionSummary};
use strata_protocol::{ForkOrigin, ForkPoint, ResponseItem, SessionId};

fn summary(index: &Index, id: SessionId) -> SessionSummary {
    index
        .list(&PageRequest {
            limit: 100,
            ..PageRequest::default()
        })
        .expect("list")
        .items
        .into_iter()
        .find(|summary| summary.id == id)
        .expect("listed")
}

#[test]
fn a_fork_lists_its_parent_and_point_and_a_fork_of_a_fork_names_its_own_parent() {
    let home = tempfile::tempdir().expect("tempdir");
    let paths = StrataPaths::under(home.path());
    let store = SessionStore::from_paths(&paths);
    let mut parent = store
        .create(Path::new("/w"), "openai-responses", "m")
        .expect("create");
    let first = ResponseItem::user("first task");
    let first_id = first.id();
    parent.commit_item(first).expect("commit");
    parent
        .commit_item(ResponseItem::user("second task"))
        .expect("commit");
    let parent_id = parent.id();
    drop(parent);

    let mut index = Index::open(&paths).expect("open");
    index.refresh().expect("refresh");
    assert_eq!(summary(&index, parent_id).forked_from, None);

    let at_first = ForkPoint::AtItem { item_id: first_id };
    let fork = store.fork(parent_id, at_first.clone()).expect("fork").id();
    let fork_of_fork = store
        .fork(fork, at_first.clone())
        .expect("fork the fork")
        .id();
    index.refresh().expect("refresh");
    assert_eq!(
        summary(&index, fork).forked_from,
        Some(ForkOrigin {
            parent_session_id: parent_id,
            point: at_first.clone(),
        })
    );
    // Its file begins with the fork's records, the fork's own lineage among them.
    assert_eq!(
        summary(&index, fork_of_fork).forked_from,
        Some(ForkOrigin {
            parent_session_id: fork,
            point: at_first,
        })
    );
    assert_eq!(summary(&index, parent_id).forked_from, None);
}
