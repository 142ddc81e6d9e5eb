//! The debug console folded in Rust, through the application layer: a
//! console opened on a session and kept up to date by the live updates of
//! its turns and compactions (on the offline demo model) shows exactly what
//! the session file gives when the console is opened again.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod console_fixtures;
mod support;

use std::sync::{Arc, Mutex};

use strata_app::App;
use strata_app::transcript::TranscriptFeed;
use strata_core::StrataPaths;
use strata_protocol::{
    CompactNow, CompactionPolicy, ConsoleStep, ConsoleUpdate, ConsoleView, LiveEvent, LogRow,
    OpenConsole, SessionId, SetCompactionPolicy, UndoCompaction, UndoState,
};
use support::{create, runtime};

/// What the UI's store does with an update (ui/src/state/console.ts).
fn apply(view: &mut ConsoleView, update: ConsoleUpdate) {
    if update.records <= view.records {
        return;
    }
    view.records = update.records;
    view.rows.extend(update.rows);
    view.rows_total = u32::try_from(view.rows.len()).unwrap();
    for point in update.chart {
        match view.chart.iter_mut().find(|p| p.round == point.round) {
            Some(slot) => *slot = point,
            None => view.chart.push(point),
        }
    }
    view.markers.extend(update.markers);
    if let Some(steps) = update.steps {
        view.steps = steps;
    }
    if let Some(model_view) = update.model_view {
        view.model_view = model_view;
    }
    view.gauge = update.gauge;
    view.undo = update.undo;
}

async fn open(app: &Arc<App>, id: SessionId) -> ConsoleView {
    app.open_console(OpenConsole {
        session_id: id,
        before: None,
        limit: Some(1_000),
    })
    .await
    .unwrap()
}

type Events = Arc<Mutex<Vec<LiveEvent>>>;

fn feed(
    app: &Arc<App>,
    events: &Events,
) -> TranscriptFeed<impl FnMut(strata_protocol::LiveBatch) + Send + use<>> {
    let sink = Arc::clone(events);
    TranscriptFeed::new(move |batch| sink.lock().unwrap().extend(batch.events))
        .with_console(app.console_tail())
}

/// The rows the file keeps (live-only notices aside), without their positions.
fn recorded(rows: &[LogRow]) -> Vec<LogRow> {
    rows.iter()
        .filter(|row| row.record_index.is_some())
        .map(|row| LogRow {
            index: 0,
            ..row.clone()
        })
        .collect()
}

#[test]
fn a_console_kept_up_by_live_updates_equals_the_console_the_file_gives() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let body: String = (0..200)
        .map(|n| format!("line {n} of the notes\n"))
        .collect();
    std::fs::write(workspace.path().join("notes.txt"), body).unwrap();
    runtime().block_on(async {
        let app = Arc::new(App::new(StrataPaths::under(home.path()), |_| None));
        let id = create(&app, workspace.path()).await;
        app.set_compaction_policy(SetCompactionPolicy {
            session_id: id,
            policy: CompactionPolicy::Layered,
        })
        .await
        .unwrap();
        let mut shown = open(&app, id).await;
        let events: Events = Arc::default();
        for text in ["What is in this folder?", "Read notes.txt", "Summarise it"] {
            support::send(&app, id, text, feed(&app, &events)).await;
        }
        app.compact_now(
            CompactNow {
                session_id: id,
                focus: None,
            },
            feed(&app, &events),
        )
        .await
        .unwrap();
        support::send(&app, id, "What next?", feed(&app, &events)).await;
        let mut updates = 0;
        let mut deltas_with_updates = 0;
        for event in std::mem::take(&mut *events.lock().unwrap()) {
            let delta = matches!(
                event.envelope.event,
                strata_protocol::AgentEvent::Mainline(
                    strata_protocol::MainlineEvent::TextDelta { .. }
                )
            );
            if let Some(update) = event.console {
                updates += 1;
                deltas_with_updates += usize::from(delta);
                apply(&mut shown, update);
            }
        }
        assert!(
            updates >= 4,
            "every turn changed the console: {updates} updates"
        );
        assert_eq!(
            deltas_with_updates, 0,
            "streamed text changes nothing the console shows"
        );

        let reopened = open(&app, id).await;
        assert_eq!(shown.records, reopened.records);
        assert_eq!(recorded(&shown.rows), recorded(&reopened.rows));
        assert_eq!(shown.chart, reopened.chart);
        assert_eq!(shown.markers, reopened.markers);
        assert_eq!(shown.steps, reopened.steps);
        assert_eq!(shown.model_view, reopened.model_view);
        assert_eq!(
            (shown.gauge.tokens, shown.gauge.estimated),
            (reopened.gauge.tokens, reopened.gauge.estimated)
        );
        assert_eq!(shown.undo, reopened.undo);
        assert!(
            reopened
                .steps
                .iter()
                .any(|s| matches!(s, ConsoleStep::Summary { .. })),
            "{:?}",
            reopened.steps
        );
        assert!(!reopened.chart.is_empty() && !reopened.markers.is_empty());
    });
}

#[test]
fn undo_reads_available_after_a_summary_and_refused_once_it_was_undone() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("a.txt"), "alpha\n".repeat(50)).unwrap();
    runtime().block_on(async {
        let app = Arc::new(App::new(StrataPaths::under(home.path()), |_| None));
        let id = create(&app, workspace.path()).await;
        support::send(&app, id, "Read a.txt", support::Collect::default()).await;
        support::send(&app, id, "And again", support::Collect::default()).await;
        support::compact_now(&app, id).await;
        let view = open(&app, id).await;
        let UndoState::Available { summary_id } = view.undo else {
            panic!("{:?}", view.undo)
        };
        app.undo_compaction(UndoCompaction { session_id: id })
            .await
            .unwrap();
        let view = open(&app, id).await;
        let UndoState::Refused { reason } = &view.undo else {
            panic!("{:?}", view.undo)
        };
        assert!(reason.contains("undone"), "{reason}");
        assert!(view.steps.iter().any(|step| matches!(
            step,
            ConsoleStep::Summary { undone: true, view, .. } if view.summary.id == summary_id
        )));
    });
}
