//! The new-session sheet's choices through the app: the profile a session
//! starts on, the approval policy, the folders offered next time and the
//! session reopened on start.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use strata_app::App;
use strata_core::StrataPaths;
use strata_protocol::{
    ApprovalPolicy, CreateSession, DeleteSession, GetRecent, GetSettings, RememberOpen,
};

mod support;
use support::runtime;

#[test]
fn a_session_starts_on_the_chosen_profile_and_policy_and_its_folder_and_session_are_remembered() {
    let home = tempfile::tempdir().unwrap();
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    std::fs::create_dir_all(&paths.config).unwrap();
    // The active profile is a local server; the sheet picks the demo.
    std::fs::write(
        paths.config_file(),
        "default_profile = \"local\"\n[profiles.local]\nkind = \"openai-chat\"\nmodel = \"qwen3-coder\"\nbase_url = \"http://127.0.0.1:9/v1\"\n",
    )
    .unwrap();
    let app = Arc::new(App::new(paths, |_| None));
    runtime().block_on(async {
        let empty = app.recent(GetRecent {}).await.unwrap();
        assert!(empty.workspaces.is_empty() && empty.last_session.is_none());

        let created = app
            .create_session(CreateSession {
                workspace: first.path().display().to_string(),
                profile_id: Some("demo".into()),
                approval_policy: Some(ApprovalPolicy::Auto),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(created.provider_kind, "demo");
        let settings = app.get_settings(GetSettings {}).await.unwrap();
        assert_eq!(settings.approval_policy, ApprovalPolicy::Auto);

        let other = app
            .create_session(CreateSession {
                workspace: second.path().display().to_string(),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(
            other.provider_kind, "openai-chat",
            "no choice: the active profile"
        );

        app.remember_open(RememberOpen {
            session_id: created.id,
        })
        .await
        .unwrap();
        let recent = app.recent(GetRecent {}).await.unwrap();
        assert_eq!(
            recent.workspaces,
            [second.path(), first.path()].map(|p| p.display().to_string())
        );
        assert_eq!(recent.last_session, Some(created.id));

        // A session that is gone is not reopened.
        app.delete_session(DeleteSession {
            session_id: created.id,
        })
        .await
        .unwrap();
        assert_eq!(app.recent(GetRecent {}).await.unwrap().last_session, None);
        // A profile that is not a profile id is refused before anything starts.
        let refused = app
            .create_session(CreateSession {
                workspace: first.path().display().to_string(),
                profile_id: Some("no such/profile".into()),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(
            refused.kind,
            strata_protocol::CommandErrorKind::InvalidInput
        );
    });
}

#[test]
fn a_session_records_the_sandbox_chosen_for_it_else_the_settings_one() {
    use strata_protocol::{OpenSession, SandboxMode};
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    std::fs::create_dir_all(&paths.config).unwrap();
    std::fs::write(paths.config_file(), "[tools]\nsandbox = \"read-only\"\n").unwrap();
    let app = Arc::new(App::new(paths, |_| None));
    runtime().block_on(async {
        let settings = app.get_settings(GetSettings {}).await.unwrap();
        assert_eq!(settings.sandbox, SandboxMode::ReadOnly);
        let sandbox_of = |id| {
            let app = app.clone();
            async move {
                app.open_session(OpenSession {
                    session_id: id,
                    from_record: None,
                    without_records: true,
                    at_item: None,
                })
                .await
                .unwrap()
                .sandbox
            }
        };
        let chosen = app
            .create_session(CreateSession {
                workspace: workspace.path().display().to_string(),
                sandbox: Some(SandboxMode::Off),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(sandbox_of(chosen.id).await, Some(SandboxMode::Off));
        let default = app
            .create_session(CreateSession {
                workspace: workspace.path().display().to_string(),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(sandbox_of(default.id).await, Some(SandboxMode::ReadOnly));
    });
}
