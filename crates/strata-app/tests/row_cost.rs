//! A sidebar row the app answers a rename or a profile switch with keeps the
//! session's cost: neither changes what the session cost so far.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use strata_app::App;
use strata_core::StrataPaths;
use strata_core::store::SessionStore;
use strata_protocol::{
    Cost, RenameSession, ResponseItem, SessionId, SwitchProfile, TokenUsage, Usd,
};
use support::runtime;

/// Two local profiles; their servers are never called.
const CONFIG: &str = "default_profile = \"local\"\n\
    [profiles.local]\nkind = \"openai-chat\"\nmodel = \"qwen3-coder\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\
    [profiles.other]\nkind = \"openai-chat\"\nmodel = \"llama3\"\nbase_url = \"http://127.0.0.1:9/v1\"\n";

/// A session whose one round cost `pico` pico-dollars, written as a turn would.
fn priced_session(paths: &StrataPaths, workspace: &std::path::Path, pico: u64) -> SessionId {
    let mut session = SessionStore::new(paths.sessions.clone())
        .create(workspace, "openai-chat", "qwen3-coder")
        .unwrap();
    session
        .commit_item(ResponseItem::user("Count the widgets"))
        .unwrap();
    let usage = TokenUsage {
        input_tokens: Some(1_000),
        output_tokens: Some(10),
        ..TokenUsage::default()
    };
    let cost = Cost {
        usd: Usd(pico),
        price_as_of: "config".into(),
    };
    session.record_usage(usage, None, Some(cost)).unwrap();
    session.id()
}

#[test]
fn renaming_or_switching_a_session_answers_with_a_row_that_keeps_its_cost() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    std::fs::create_dir_all(&paths.config).unwrap();
    std::fs::write(paths.config_file(), CONFIG).unwrap();
    let id = priced_session(&paths, workspace.path(), 6_400_000_000);
    let app = std::sync::Arc::new(App::new(paths.clone(), |_| None));
    runtime().block_on(async {
        let renamed = app
            .rename_session(RenameSession {
                session_id: id,
                title: "Widgets".into(),
            })
            .await
            .unwrap();
        assert_eq!(renamed.title.as_deref(), Some("Widgets"));
        assert_eq!(renamed.cost.map(|cost| cost.usd), Some(Usd(6_400_000_000)));

        let switched = app
            .switch_profile(SwitchProfile {
                session_id: id,
                profile_id: "other".into(),
            })
            .await
            .unwrap();
        assert_eq!(switched.model, "llama3");
        assert_eq!(switched.title.as_deref(), Some("Widgets"));
        assert_eq!(switched.cost.map(|cost| cost.usd), Some(Usd(6_400_000_000)));
    });
}
