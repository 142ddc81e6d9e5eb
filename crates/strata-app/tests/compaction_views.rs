//! The console's before/after sizes (`compaction_views`) on a session the
//! offline demo model drives: one estimator with the gauge, never a count
//! of characters / 4 made on the side.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use strata_app::App;
use strata_core::StrataPaths;
use strata_core::compaction::{Calibration, CharEstimator, Estimate};
use strata_protocol::{
    CompactionPolicy, GetCompactionStatus, GetCompactionViews, OpenSession, ProviderKind, Record,
    RecordBody, SetCompactionPolicy,
};
use strata_providers::{DEMO_MODEL, estimator_for};
use support::{Collect, compact_now, create, runtime, send};

async fn compact(app: &Arc<App>, id: strata_protocol::SessionId, policy: CompactionPolicy) {
    app.set_compaction_policy(SetCompactionPolicy {
        session_id: id,
        policy,
    })
    .await
    .unwrap();
    send(app, id, "Read notes.rs and explain it", Collect::default()).await;
    let outcome = compact_now(app, id).await;
    assert!(outcome.summary.is_some(), "{outcome:?}");
}

#[test]
fn before_and_after_sizes_come_from_the_gauges_estimator_or_the_layered_record() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    // Code, where a tokenizer and characters / 4 disagree.
    let body: String = (0..80)
        .map(|line| {
            format!("fn total_{line}(a: &[u64]) -> u64 {{ a.iter().sum::<u64>() * {line} }}\n")
        })
        .collect();
    std::fs::write(workspace.path().join("notes.rs"), body).unwrap();
    runtime().block_on(async {
        let app = Arc::new(App::new(StrataPaths::under(home.path()), |_| None));
        let id = create(&app, workspace.path()).await;
        // A layered summary, then a base one last (no round reports after it).
        compact(&app, id, CompactionPolicy::Layered).await;
        compact(&app, id, CompactionPolicy::Base).await;

        let views = app
            .compaction_views(GetCompactionViews { session_id: id })
            .await
            .unwrap();
        let [layered_view, base_view] = views.as_slice() else {
            panic!("two compactions: {views:?}")
        };
        let records = app
            .open_session(OpenSession {
                session_id: id,
                from_record: None,
                at_item: None,
                without_records: false,
            })
            .await
            .unwrap()
            .records;
        let layered = records
            .iter()
            .find_map(|record: &Record| match &record.body {
                RecordBody::LayeredCompaction(layered) => Some(layered.clone()),
                _ => None,
            })
            .expect("a layered record");
        assert_eq!(layered.summary.id, layered_view.summary.id);
        assert_eq!(
            (
                layered_view.estimated_tokens_before,
                layered_view.estimated_tokens_after
            ),
            (layered.estimated_before, layered.estimated_after),
            "the layered record's own estimates"
        );

        // The base summary records none: the demo model's tokenizer counts.
        let estimator = estimator_for(ProviderKind::Demo, DEMO_MODEL);
        assert_eq!(estimator.name(), "o200k_base");
        let gauge = Estimate::new(estimator.as_ref(), Calibration::default());
        let chars = Estimate::new(&CharEstimator, Calibration::default());
        let shown = (
            base_view.estimated_tokens_before,
            base_view.estimated_tokens_after,
        );
        assert_eq!(
            shown,
            (
                gauge.items(&base_view.before),
                gauge.items(&base_view.after)
            )
        );
        assert_ne!(
            shown.0,
            chars.items(&base_view.before),
            "not characters / 4"
        );
        assert_ne!(shown.1, chars.items(&base_view.after), "not characters / 4");
        // And the figure after it is the one the gauge shows now.
        let status = app
            .compaction_status(GetCompactionStatus { session_id: id })
            .await
            .unwrap();
        assert_eq!(
            status.estimated_tokens,
            Some(base_view.estimated_tokens_after)
        );
    });
}
