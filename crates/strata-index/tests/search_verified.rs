//! Search through the trigram index, whose candidates are verified against
//! their text read a little at a time, finds exactly what a plain substring
//! search (ASCII case ignored) finds, newest text first: no false
//! positive, no miss, wherever the match lies in a long text.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::library;

use std::path::Path;

use proptest::prelude::*;
use strata_index::{Filters, Index, MATCH_END, MATCH_START};
use strata_protocol::ResponseItem;

/// Words sharing many trigrams (so most texts hold every trigram of a
/// query without holding the query), and a two-byte character, so reads
/// end inside characters.
const WORDS: &[&str] = &[
    "send", "end", "sen", "ends", "client", "Http", "é", "::", " ",
];

fn text() -> impl Strategy<Value = String> {
    // Up to ~6 KB: matches before, across and after the 1 KB and 4 KB reads.
    (
        prop::collection::vec(prop::sample::select(WORDS), 0..40),
        0usize..1500,
        prop::collection::vec(prop::sample::select(WORDS), 0..8),
    )
        .prop_map(|(head, padding, tail)| {
            let mut text = head.concat();
            // Filler with none of the words' trigrams.
            text.push_str(&"xyzq".repeat(padding));
            text.push_str(&tail.concat());
            text
        })
}

fn query() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(prop::sample::select(WORDS), 1..4),
        any::<u64>(),
    )
        .prop_map(|(words, cases)| {
            // Some letters in upper case: the search ignores case.
            words
                .concat()
                .chars()
                .enumerate()
                .map(|(at, c)| {
                    if cases >> (at % 64) & 1 == 1 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn search_finds_exactly_the_texts_holding_the_query_newest_first(
        texts in prop::collection::vec(text(), 1..10),
        query in query(),
    ) {
        prop_assume!(!query.trim().is_empty());
        let (_home, paths, store) = library();
        let mut live = store
            .create(Path::new("/w"), "openai-responses", "m")
            .expect("create");
        let mut ids = Vec::new();
        for text in &texts {
            let item = ResponseItem::user(text.as_str());
            ids.push(item.id().to_string());
            live.commit_item(item).expect("commit");
        }
        drop(live);
        let mut index = Index::open(&paths).expect("open");
        index.refresh().expect("refresh");
        let wanted = query.trim().to_ascii_lowercase();
        let expected: Vec<&String> = texts
            .iter()
            .zip(&ids)
            .rev()
            .filter(|(text, _)| text.to_ascii_lowercase().contains(&wanted))
            .map(|(_, id)| id)
            .collect();
        let page = index
            .search_page(&query, &Filters::default(), 0, 100)
            .expect("search");
        let found: Vec<&String> = page
            .hits
            .iter()
            .map(|hit| hit.item_id.as_ref().expect("item"))
            .collect();
        prop_assert_eq!(&found, &expected, "query {:?}", query);
        prop_assert_eq!(page.total, expected.len());
        for hit in &page.hits {
            let marked: String = hit
                .snippet
                .split(MATCH_START)
                .nth(1)
                .and_then(|rest| rest.split(MATCH_END).next())
                .expect("a marked match")
                .to_owned();
            prop_assert_eq!(marked.to_ascii_lowercase(), wanted.clone());
        }
    }
}
