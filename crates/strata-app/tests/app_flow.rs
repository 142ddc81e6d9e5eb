//! The application layer end to end, as both front ends use it: create,
//! the live-turn flow, resume on the recorded endpoint against a local
//! server speaking the Chat Completions wire format, an explicit profile
//! switch, and the library (list, search, rename, delete, export).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use strata_protocol::{
    CommandErrorKind, CreateSession, DeleteSession, ExportFormat, ExportSession, ListSessions,
    OpenSession, ProfileChange, ProviderKind, RenameSession, SendMessage, SwitchProfile,
    TurnOutcome,
};
use support::{ChatServer, Collect, Fixture, create, runtime, send, turn_of};

fn profiles(first: &ChatServer, second: &ChatServer) -> String {
    format!(
        "default_profile = \"local\"\n\
         [profiles.local]\nkind = \"openai-chat\"\nmodel = \"qwen3-coder\"\nbase_url = \"{}\"\n\
         [profiles.other]\nkind = \"openai-chat\"\nmodel = \"llama3\"\nbase_url = \"{}\"\n",
        first.base_url, second.base_url
    )
}

#[test]
fn a_session_is_created_runs_a_turn_resumes_on_its_endpoint_and_switches_explicitly() {
    let (first, second) = (ChatServer::start(), ChatServer::start());
    let fixture = Fixture::new(&profiles(&first, &second));
    let rt = runtime();
    rt.block_on(async {
        let app = fixture.app();
        let created = app
            .create_session(CreateSession {
                workspace: fixture.workspace.path().display().to_string(),
                allow_broad_workspace: false,
                ..Default::default()
            })
            .await
            .unwrap();
        let id = created.id;
        let events = Collect::default();
        let report = turn_of(
            app.send_message(
                SendMessage {
                    session_id: id,
                    text: "Count the widgets".into(),
                },
                events.clone(),
            )
            .await
            .unwrap(),
        );
        assert_eq!(report.outcome, TurnOutcome::Completed);
        let seqs: Vec<u64> = events.0.lock().unwrap().iter().map(|e| e.seq).collect();
        assert!(!seqs.is_empty());
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
        assert_eq!(first.models(), ["qwen3-coder"]);

        // The active profile changes; a fresh app (a restart) still resumes
        // the session where it was made.
        std::fs::write(
            fixture.paths.config_file(),
            profiles(&first, &second)
                .replace("default_profile = \"local\"", "default_profile = \"other\""),
        )
        .unwrap();
        drop(app);
        let app = fixture.app();
        app.send_message(
            SendMessage {
                session_id: id,
                text: "Again".into(),
            },
            Collect::default(),
        )
        .await
        .unwrap();
        assert_eq!(first.models(), ["qwen3-coder", "qwen3-coder"]);
        assert!(second.models().is_empty());

        // Switching is explicit and recorded.
        let switched = app
            .switch_profile(SwitchProfile {
                session_id: id,
                profile_id: "other".into(),
            })
            .await
            .unwrap();
        assert_eq!(switched.model, "llama3");
        app.send_message(
            SendMessage {
                session_id: id,
                text: "Third".into(),
            },
            Collect::default(),
        )
        .await
        .unwrap();
        assert_eq!(second.models(), ["llama3"]);
        let view = app
            .open_session(OpenSession {
                session_id: id,
                from_record: None,
                without_records: false,
                at_item: None,
            })
            .await
            .unwrap();
        let profile = view.profile.unwrap();
        assert_eq!(profile.change, ProfileChange::Switched);
        assert_eq!(profile.provider_kind, ProviderKind::OpenaiChat);
        assert_eq!(profile.base_url.as_deref(), Some(second.base_url.as_str()));
        assert_eq!(view.summary.model, "llama3");
        let tail = app
            .open_session(OpenSession {
                session_id: id,
                from_record: Some(view.record_count - 1),
                without_records: false,
                at_item: None,
            })
            .await
            .unwrap();
        assert_eq!(tail.records.len(), 1);
    });
}

#[test]
fn a_session_whose_profile_is_gone_is_not_resumed_elsewhere() {
    let (first, second) = (ChatServer::start(), ChatServer::start());
    let fixture = Fixture::new(&profiles(&first, &second));
    let rt = runtime();
    rt.block_on(async {
        let app = fixture.app();
        let id = app
            .create_session(CreateSession {
                workspace: fixture.workspace.path().display().to_string(),
                allow_broad_workspace: false,
                ..Default::default()
            })
            .await
            .unwrap()
            .id;
        drop(app);
        std::fs::write(
            fixture.paths.config_file(),
            format!(
                "[profiles.other]\nkind = \"openai-chat\"\nmodel = \"llama3\"\nbase_url = \"{}\"\n",
                second.base_url
            ),
        )
        .unwrap();
        let app = fixture.app();
        let error = app
            .send_message(
                SendMessage {
                    session_id: id,
                    text: "Hello".into(),
                },
                Collect::default(),
            )
            .await
            .unwrap_err();
        assert_eq!(error.kind, CommandErrorKind::ProfileUnavailable);
        assert!(error.message.contains("\"local\""), "{error:?}");
        assert!(first.models().is_empty() && second.models().is_empty());
    });
}

#[test]
fn the_library_lists_searches_pages_renames_exports_and_deletes() {
    let fixture = Fixture::new("");
    let rt = runtime();
    rt.block_on(async {
        let app = fixture.app();
        let mut ids = Vec::new();
        for text in ["Fix the CSV parser", "Write the release notes"] {
            let id = create(&app, fixture.workspace.path()).await;
            send(&app, id, text, Collect::default()).await;
            ids.push(id);
        }
        let page = app.list_sessions(ListSessions::default()).await.unwrap();
        assert_eq!(page.total, 2);
        let first = app
            .list_sessions(ListSessions {
                limit: Some(1),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(first.sessions.len(), 1);
        assert_eq!(first.next_offset, Some(1));
        let found = app
            .list_sessions(ListSessions {
                query: Some("csv".into()),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(found.sessions.len(), 1);
        assert_eq!(found.sessions[0].id, ids[0]);

        let renamed = app
            .rename_session(RenameSession {
                session_id: ids[0],
                title: "  Parser   work ".into(),
            })
            .await
            .unwrap();
        assert_eq!(renamed.title.as_deref(), Some("Parser work"));
        let refused = app
            .rename_session(RenameSession {
                session_id: ids[0],
                title: "bad\u{1b}[31m".into(),
            })
            .await
            .unwrap_err();
        assert_eq!(refused.kind, CommandErrorKind::InvalidInput);
        // Search still finds a renamed session by its first message.
        let found = app
            .list_sessions(ListSessions {
                query: Some("CSV".into()),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(found.sessions[0].title.as_deref(), Some("Parser work"));

        let export = app
            .export_session(ExportSession {
                session_id: ids[0],
                format: ExportFormat::Md,
            })
            .await
            .unwrap();
        assert_eq!(export.format, ExportFormat::Md);
        let text = export.text;
        assert!(text.contains("Fix the CSV parser"), "{text}");
        assert!(text.contains("created on demo"), "{text}");

        app.delete_session(DeleteSession { session_id: ids[0] })
            .await
            .unwrap();
        let page = app.list_sessions(ListSessions::default()).await.unwrap();
        assert_eq!(page.total, 1);
        assert_eq!(page.sessions[0].id, ids[1]);
    });
}

#[test]
fn the_root_as_a_workspace_is_refused_with_its_own_kind_until_the_person_confirms() {
    let fixture = Fixture::new("");
    let rt = runtime();
    rt.block_on(async {
        let app = fixture.app();
        let root = |allow_broad_workspace| CreateSession {
            workspace: "/".into(),
            allow_broad_workspace,
            ..Default::default()
        };
        let refused = app.create_session(root(false)).await.unwrap_err();
        assert_eq!(
            refused.kind,
            CommandErrorKind::BroadWorkspace,
            "{refused:?}"
        );
        assert!(
            refused.message.contains("root of the filesystem"),
            "{refused:?}"
        );
        assert_eq!(
            app.list_sessions(ListSessions::default())
                .await
                .unwrap()
                .total,
            0
        );

        let created = app.create_session(root(true)).await.unwrap();
        assert_eq!(created.workspace, "/");
        let page = app.list_sessions(ListSessions::default()).await.unwrap();
        assert_eq!(page.total, 1);
        assert_eq!(page.sessions[0].id, created.id);
        // An ordinary folder needs no confirmation.
        app.create_session(CreateSession {
            workspace: fixture.workspace.path().display().to_string(),
            allow_broad_workspace: false,
            ..Default::default()
        })
        .await
        .unwrap();
    });
}

#[test]
fn items_pins_partial_compaction_undo_and_fork_through_the_app() {
    use strata_protocol::{
        CompactUpTo, ForkPoint, ForkSession, ListSessionItems, OutputKind, PinItem, UndoCompaction,
    };
    let fixture = Fixture::new("");
    let rt = runtime();
    rt.block_on(async {
        let app = fixture.app();
        let id = app
            .create_session(CreateSession {
                workspace: fixture.workspace.path().display().to_string(),
                allow_broad_workspace: false,
                ..Default::default()
            })
            .await
            .unwrap()
            .id;
        for text in ["List the files", "And again"] {
            app.send_message(
                SendMessage {
                    session_id: id,
                    text: text.into(),
                },
                Collect::default(),
            )
            .await
            .unwrap();
        }
        let listed = app
            .session_items(ListSessionItems { session_id: id })
            .await
            .unwrap();
        assert_eq!(listed.kind, OutputKind::SessionItems);
        let items = listed.items;
        let first_user = items
            .iter()
            .find(|i| i.role.as_deref() == Some("user"))
            .unwrap()
            .id;
        let pinned = app
            .pin_item(PinItem {
                session_id: id,
                item: first_user.to_string(),
                pinned: true,
            })
            .await
            .unwrap();
        assert!(pinned.pinned);
        assert_eq!(pinned.kind, OutputKind::ItemPinned);
        let last = items.last().unwrap().id;
        let outcome = app
            .compact_up_to(
                CompactUpTo {
                    session_id: id,
                    item: last.to_string(),
                    focus: None,
                },
                Collect::default(),
            )
            .await
            .unwrap();
        assert!(outcome.summary.is_some(), "{outcome:?}");
        let after = app
            .session_items(ListSessionItems { session_id: id })
            .await
            .unwrap()
            .items;
        assert!(
            after
                .iter()
                .any(|i| i.id == first_user && i.in_context && i.pinned)
        );
        let fork = app
            .fork_session(ForkSession {
                session_id: id,
                point: ForkPoint::BeforeCompaction { number: 1 },
                files: None,
            })
            .await
            .unwrap();
        assert_eq!(fork.history_items as usize, items.len());
        assert_eq!(fork.kind, OutputKind::SessionForked);
        // The sidebar's lineage: the library's row and the snapshot alike.
        let origin = Some(strata_protocol::ForkOrigin {
            parent_session_id: id,
            point: ForkPoint::BeforeCompaction { number: 1 },
        });
        let page = app.list_sessions(ListSessions::default()).await.unwrap();
        let row = page.sessions.iter().find(|s| s.id == fork.session_id);
        assert_eq!(row.map(|s| s.forked_from.clone()), Some(origin.clone()));
        let parent_row = page.sessions.iter().find(|s| s.id == id);
        assert_eq!(parent_row.map(|s| s.forked_from.clone()), Some(None));
        let opened = app
            .open_session(OpenSession {
                session_id: fork.session_id,
                from_record: None,
                without_records: false,
                at_item: None,
            })
            .await
            .unwrap();
        assert_eq!(opened.summary.forked_from, origin);
        let undone = app
            .undo_compaction(UndoCompaction { session_id: id })
            .await
            .unwrap();
        assert_eq!(undone.undone.restored.len(), items.len());
        assert_eq!(undone.kind, OutputKind::CompactionUndone);
        let error = app
            .pin_item(PinItem {
                session_id: id,
                item: "zz".into(),
                pinned: true,
            })
            .await
            .unwrap_err();
        assert_eq!(error.kind, CommandErrorKind::InvalidInput);
    });
}

#[test]
fn compact_up_to_returns_the_rule_checks_refusal_and_the_file_records_it() {
    use strata_protocol::{CompactUpTo, ListSessionItems};
    let fixture = Fixture::new("");
    let rt = runtime();
    rt.block_on(async {
        let app = fixture.app();
        let id = create(&app, fixture.workspace.path()).await;
        send(&app, id, "List the files", Collect::default()).await;
        // A state sheet copied from a compaction card and sent back: the
        // person's latest request, which the planner takes for Strata's.
        // Longer than the demo model's echo of it (160 characters), which
        // the sheet keeps as the latest finished turn's final message.
        let pasted = format!(
            "[State sheet] pasted back: keep listing the files.{}",
            " Then list them again.".repeat(8)
        );
        send(&app, id, &pasted, Collect::default()).await;
        let before = app
            .session_items(ListSessionItems { session_id: id })
            .await
            .unwrap()
            .items;
        let events = Collect::default();
        let outcome = app
            .compact_up_to(
                CompactUpTo {
                    session_id: id,
                    item: before.last().unwrap().id.to_string(),
                    focus: None,
                },
                events.clone(),
            )
            .await
            .unwrap();
        assert!(outcome.summary.is_none(), "{outcome:?}");
        let skipped = outcome.skipped.unwrap();
        assert!(
            skipped.contains("the latest user request (verbatim)"),
            "{skipped}"
        );
        assert!(
            events.0.lock().unwrap().iter().any(|envelope| matches!(
                &envelope.event,
                strata_protocol::AgentEvent::Debug(
                    strata_protocol::DebugEvent::CompactionRefused { .. }
                )
            )),
            "no compaction_refused event"
        );
        let after = app
            .session_items(ListSessionItems { session_id: id })
            .await
            .unwrap()
            .items;
        assert_eq!(after, before);
    });
    let store = strata_core::SessionStore::from_paths(&fixture.paths);
    let id = store.list().unwrap()[0].id;
    let records = store
        .open_reader(id, strata_core::store::ReadMode::Strict)
        .unwrap()
        .records;
    assert!(records.iter().any(|record| matches!(
        record.body,
        strata_protocol::RecordBody::CompactionRefused(_)
    )));
}

#[test]
fn send_message_compacts_on_slash_compact_refuses_another_slash_name_and_runs_a_turn_for_text() {
    use strata_protocol::SendOutcome;
    let fixture = Fixture::new("");
    let rt = runtime();
    rt.block_on(async {
        let app = fixture.app();
        let id = create(&app, fixture.workspace.path()).await;
        let sent = |text: &str| {
            app.send_message(
                SendMessage {
                    session_id: id,
                    text: text.into(),
                },
                Collect::default(),
            )
        };
        // Nothing to compact yet: the outcome says why, for the UI's notice.
        match sent("/compact").await.unwrap() {
            SendOutcome::Compaction(outcome) => {
                assert!(outcome.summary.is_none(), "{outcome:?}");
                assert!(outcome.skipped.is_some(), "{outcome:?}");
            }
            SendOutcome::Turn(report) => panic!("ran a turn: {report:?}"),
        }
        send(&app, id, "List the files", Collect::default()).await;
        // The same compaction `compact_now` runs, with the focus read from the text.
        match sent("  /compact keep the file list ").await.unwrap() {
            SendOutcome::Compaction(outcome) => {
                let summary = outcome.summary.unwrap();
                assert!(
                    summary
                        .metadata
                        .reason
                        .ends_with("focusing on: keep the file list"),
                    "{summary:?}"
                );
            }
            SendOutcome::Turn(report) => panic!("ran a turn: {report:?}"),
        }
        // Another /name is a command no prompt file has: refused, not sent.
        let refused = sent("/compaction is a word").await.unwrap_err();
        assert_eq!(refused.kind, CommandErrorKind::InvalidInput);
        assert!(matches!(
            sent("a compaction, /compact later").await.unwrap(),
            SendOutcome::Turn(_)
        ));
    });
}
