//! Context management through the application layer, as the desktop uses
//! it, on the offline demo model (which lists the workspace and reads its
//! files): the settings' default policy and threshold, the threshold check,
//! a session driven past its threshold into eviction and a layered summary
//! whose loss audit names no path or command, the honest status after a
//! compaction, the read-only preview, and the per-session policy.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use strata_app::App;
use strata_core::StrataPaths;
use strata_core::compaction::layered_window_threshold;
use strata_protocol::{
    AgentEvent, CheckThreshold, CommandErrorKind, CompactNow, CompactionPolicy, CreateSession,
    DebugEvent, GetCompactionStatus, ItemId, OpenSession, PreviewCompaction, RecordBody,
    SaveSettings, SendMessage, SessionId, SetCompactionPolicy, ThresholdSetting, UndoCompaction,
};
use support::{Collect, compact_now, runtime, send};

/// The debug events `events` kept, in order.
fn debug_events(events: &Collect) -> Vec<DebugEvent> {
    events
        .0
        .lock()
        .unwrap()
        .iter()
        .filter_map(|envelope| match &envelope.event {
            AgentEvent::Debug(event) => Some(event.clone()),
            AgentEvent::Mainline(_) => None,
        })
        .collect()
}

/// The figure the app's live gauge shows from the event stream (as the
/// UI's `gaugeReading` picks it): the estimate carried by the last
/// compaction step's event, unless a round reported after it.
fn live_gauge_estimate(events: &[DebugEvent]) -> Option<u64> {
    events.iter().rev().find_map(|event| match event {
        DebugEvent::UsageReported { .. } => Some(None),
        DebugEvent::ToolOutputsEvicted { eviction, .. } => Some(Some(eviction.estimated_after)),
        DebugEvent::LayeredCompacted { compaction, .. } => Some(Some(compaction.estimated_after)),
        DebugEvent::CompactionIneffective {
            estimated_tokens, ..
        } => Some(Some(*estimated_tokens)),
        _ => None,
    })?
}

struct Fixture {
    _home: tempfile::TempDir,
    workspace: tempfile::TempDir,
    paths: StrataPaths,
}

impl Fixture {
    /// A workspace of source files large enough that a few reads cross a
    /// small threshold.
    fn new() -> Self {
        let home = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        for name in ["billing.rs", "invoice.rs", "tax.rs"] {
            let body: String = (0..60)
                .map(|line| {
                    format!("// {name} line {line}: fn amount_{line}() -> u64 {{ {line} }}\n")
                })
                .collect();
            std::fs::write(workspace.path().join(name), body).unwrap();
        }
        let paths = StrataPaths::under(home.path());
        Self {
            _home: home,
            workspace,
            paths,
        }
    }

    fn app(&self) -> Arc<App> {
        Arc::new(App::new(self.paths.clone(), |_| None))
    }

    /// A new session in the workspace, under the settings' policy.
    async fn create_session(&self, app: &Arc<App>) -> SessionId {
        app.create_session(CreateSession {
            workspace: self.workspace.path().display().to_string(),
            allow_broad_workspace: false,
            ..Default::default()
        })
        .await
        .unwrap()
        .id
    }
}

fn session_file(paths: &StrataPaths, id: SessionId) -> std::path::PathBuf {
    paths.sessions.join(format!("{id}.jsonl"))
}

#[test]
fn thresholds_are_checked_in_their_three_forms_against_the_profile_window() {
    let fixture = Fixture::new();
    runtime().block_on(async {
        let app = fixture.app();
        let check = |text: &str| {
            app.check_threshold(CheckThreshold {
                threshold: text.into(),
                profile_id: None,
            })
        };
        let percent = check("50%").await.unwrap();
        let window = percent.context_window.unwrap();
        assert_eq!(percent.setting, ThresholdSetting::Percent(50));
        assert_eq!(percent.tokens, window / 2);
        let left = check("left:1000").await.unwrap();
        assert_eq!(left.setting, ThresholdSetting::Left(1_000));
        assert!(left.tokens <= window - 1_000, "{left:?}");
        assert_eq!(check(" 4000 ").await.unwrap().tokens, 4_000);
        for bad in ["eighty", "0", "101%", "left:", "-3"] {
            let error = check(bad).await.unwrap_err();
            assert_eq!(error.kind, CommandErrorKind::InvalidInput, "{bad}");
            assert!(error.message.contains("threshold"), "{bad}: {error:?}");
        }
    });
}

/// The threshold the gauge (`compaction_status`), the session view and the
/// preview show for session `id`: all three, which must agree.
async fn shown_thresholds(app: &Arc<App>, id: SessionId) -> u64 {
    let status = app
        .compaction_status(GetCompactionStatus { session_id: id })
        .await
        .unwrap();
    let view = app
        .open_session(OpenSession {
            session_id: id,
            from_record: None,
            without_records: false,
            at_item: None,
        })
        .await
        .unwrap();
    let preview = app
        .preview_compaction(PreviewCompaction { session_id: id })
        .await
        .unwrap();
    assert_eq!(
        (view.threshold, preview.threshold),
        (status.threshold, status.threshold)
    );
    status.threshold
}

#[test]
fn without_an_override_every_view_shows_the_threshold_of_the_sessions_policy() {
    let fixture = Fixture::new();
    runtime().block_on(async {
        let app = fixture.app();
        let settings = app
            .get_settings(strata_protocol::GetSettings {})
            .await
            .unwrap();
        let profile = settings
            .profiles
            .iter()
            .find(|p| p.id == settings.active_profile)
            .unwrap();
        let window = profile.context_window.unwrap();
        let id = fixture.create_session(&app).await;

        // Layered, live: a fifth of the window (a third of a small one), below the profile's (base's).
        let layered = layered_window_threshold(window).min(profile.compact_threshold);
        assert!(layered < profile.compact_threshold);
        assert_eq!(shown_thresholds(&app, id).await, layered);

        // Base, from the file: the profile's threshold.
        app.set_compaction_policy(SetCompactionPolicy {
            session_id: id,
            policy: CompactionPolicy::Base,
        })
        .await
        .unwrap();
        assert_eq!(shown_thresholds(&app, id).await, profile.compact_threshold);
    });
}

#[test]
fn a_session_compacts_under_the_settings_policy_and_the_app_shows_it_honestly() {
    let fixture = Fixture::new();
    runtime().block_on(async {
        let app = fixture.app();
        // Settings: layered (explicitly) and a small threshold for new sessions.
        let mut settings = app
            .get_settings(strata_protocol::GetSettings {})
            .await
            .unwrap();
        assert_eq!(settings.compaction_policy, CompactionPolicy::Layered);
        settings.compact_threshold = Some(ThresholdSetting::Tokens(4_000));
        let saved = app
            .save_settings(SaveSettings {
                settings,
                api_keys: Vec::new(),
            })
            .await
            .unwrap();
        assert_eq!(
            saved.compact_threshold,
            Some(ThresholdSetting::Tokens(4_000))
        );

        let id = fixture.create_session(&app).await;
        let status = app
            .compaction_status(GetCompactionStatus { session_id: id })
            .await
            .unwrap();
        assert_eq!(status.policy, CompactionPolicy::Layered);
        assert_eq!(
            status.threshold_setting,
            Some(ThresholdSetting::Tokens(4_000))
        );
        assert_eq!(status.threshold, 4_000);

        let events = Collect::default();
        for text in [
            "Read billing.rs and tell me what it does",
            "Now read invoice.rs",
            "And tax.rs, please",
            "Read billing.rs again",
        ] {
            app.send_message(
                SendMessage {
                    session_id: id,
                    text: text.into(),
                },
                events.clone(),
            )
            .await
            .unwrap();
        }
        // A manual compaction last: no round has reported since.
        app.compact_now(
            CompactNow {
                session_id: id,
                focus: None,
            },
            events.clone(),
        )
        .await
        .unwrap();
        let debug = debug_events(&events);
        let evictions = debug
            .iter()
            .filter(|e| matches!(e, DebugEvent::ToolOutputsEvicted { .. }))
            .count();
        let layered: Vec<_> = debug
            .iter()
            .filter_map(|e| match e {
                DebugEvent::LayeredCompacted { compaction, .. } => Some(compaction.clone()),
                _ => None,
            })
            .collect();
        let kinds: Vec<String> = debug
            .iter()
            .map(|e| {
                let text = format!("{e:?}");
                text.split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect();
        assert!(evictions >= 1, "an eviction: {kinds:?}");
        assert!(!layered.is_empty(), "a layered summary");
        for compaction in &layered {
            // The loss audit, computed by the state sheet's extractor: no
            // path or command of the removed span is lost.
            assert!(
                compaction.loss_audit.paths.is_empty(),
                "{:?}",
                compaction.loss_audit
            );
            assert!(
                compaction.loss_audit.commands.is_empty(),
                "{:?}",
                compaction.loss_audit
            );
            assert!(!compaction.state_sheet.files.is_empty());
        }

        // Right after the compaction: an estimate of the new history, never
        // the figure reported before it.
        let status = app
            .compaction_status(GetCompactionStatus { session_id: id })
            .await
            .unwrap();
        assert_eq!(status.reported_tokens, None);
        let estimate = status
            .estimated_tokens
            .expect("an estimate after a compaction");
        let last = layered.last().unwrap();
        let before = last.summary.metadata.context_tokens.unwrap();
        assert!(
            estimate > 0 && estimate < before,
            "an estimate of the new history, not the {before} reported before: {estimate}"
        );
        // One figure: the estimate the compaction made (calibrated) and
        // recorded is what the live gauge, the status and a reopen show.
        assert_eq!(estimate, last.estimated_after);
        assert_eq!(live_gauge_estimate(&debug), Some(estimate));
        assert!(!status.circuit_open);

        // The same status from the file alone (a restart).
        drop(app);
        let app = fixture.app();
        let cold = app
            .compaction_status(GetCompactionStatus { session_id: id })
            .await
            .unwrap();
        assert_eq!(
            (cold.policy, cold.threshold),
            (status.policy, status.threshold)
        );
        assert_eq!(cold.reported_tokens, None);
        assert_eq!(
            cold.estimated_tokens,
            Some(estimate),
            "the reopened session's figure"
        );

        // The preview reads, calls no model and writes nothing.
        let path = session_file(&fixture.paths, id);
        let bytes = std::fs::read(&path).unwrap();
        let preview = app
            .preview_compaction(PreviewCompaction { session_id: id })
            .await
            .unwrap();
        assert_eq!(preview.policy, CompactionPolicy::Layered);
        assert_eq!(preview.threshold, 4_000);
        assert!(preview.estimated_after_summary <= preview.estimated_before);
        assert!(!preview.kept.is_empty());
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "byte-identical");

        // The per-session policy: one record, kept by the next resume.
        let off = app
            .set_compaction_policy(SetCompactionPolicy {
                session_id: id,
                policy: CompactionPolicy::Off,
            })
            .await
            .unwrap();
        assert_eq!(off.policy, CompactionPolicy::Off);
        assert_eq!(off.threshold_setting, Some(ThresholdSetting::Tokens(4_000)));
        let again = app
            .set_compaction_policy(SetCompactionPolicy {
                session_id: id,
                policy: CompactionPolicy::Off,
            })
            .await
            .unwrap();
        assert_eq!(again.policy, CompactionPolicy::Off);
        let text = std::fs::read_to_string(&path).unwrap();
        let policies: Vec<RecordBody> = text
            .lines()
            .filter_map(|line| serde_json::from_str::<strata_protocol::Record>(line).ok())
            .map(|record| record.body)
            .filter(|body| matches!(body, RecordBody::CompactionPolicy(_)))
            .collect();
        assert_eq!(
            policies.len(),
            2,
            "the first and the switch to off: {policies:?}"
        );
        app.send_message(
            SendMessage {
                session_id: id,
                text: "Summarise what you read".into(),
            },
            Collect::default(),
        )
        .await
        .unwrap();
        let resumed = app
            .compaction_status(GetCompactionStatus { session_id: id })
            .await
            .unwrap();
        assert_eq!(resumed.policy, CompactionPolicy::Off);
    });
}

/// What the gauge's status says an undo would undo, live and from the file.
async fn undo_summaries(fixture: &Fixture, app: &Arc<App>, id: SessionId) -> [Option<ItemId>; 2] {
    let status = |app: Arc<App>| async move {
        app.compaction_status(GetCompactionStatus { session_id: id })
            .await
            .unwrap()
            .undo_summary
    };
    [status(app.clone()).await, status(fixture.app()).await]
}

#[test]
fn the_status_names_the_compaction_an_undo_would_undo_and_none_once_it_is_undone() {
    let fixture = Fixture::new();
    runtime().block_on(async {
        let app = fixture.app();
        let id = fixture.create_session(&app).await;
        assert_eq!(undo_summaries(&fixture, &app, id).await, [None, None]);
        let mut summaries = Vec::new();
        for text in ["Read billing.rs", "Now read invoice.rs"] {
            send(&app, id, text, Collect::default()).await;
            let outcome = compact_now(&app, id).await;
            summaries.push(outcome.summary.expect("a compaction").id);
        }
        // The latest only: the core undoes nothing older.
        let latest = summaries.last().copied();
        assert_eq!(undo_summaries(&fixture, &app, id).await, [latest, latest]);

        app.undo_compaction(UndoCompaction { session_id: id })
            .await
            .unwrap();
        assert_eq!(undo_summaries(&fixture, &app, id).await, [None, None]);
    });
}
