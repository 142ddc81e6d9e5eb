//! A workspace's `.strata/network.toml` through the app, as the desktop's
//! Settings read and save it (the same `strata_app::network_file` that
//! `strata rules network` saves through): a saved file is trusted and new
//! sessions there get its network; a hand-edited one is shown, not
//! applied; a domain that is not one is refused with nothing written.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use strata_app::App;
use strata_protocol::{
    CommandErrorKind, CreateSession, GetWorkspaceNetwork, OpenSession, SandboxNetwork,
    SaveWorkspaceNetwork, WorkspaceNetworkView,
};
mod support;
use support::{Fixture, runtime};

fn workspace_of(fixture: &Fixture) -> String {
    fixture.workspace.path().display().to_string()
}

fn network_file(fixture: &Fixture) -> std::path::PathBuf {
    fixture.workspace.path().join(".strata/network.toml")
}

async fn load(app: &Arc<App>, fixture: &Fixture) -> WorkspaceNetworkView {
    app.get_workspace_network(GetWorkspaceNetwork {
        workspace: workspace_of(fixture),
    })
    .await
    .unwrap()
}

fn allow_list(fixture: &Fixture, domains: &[&str]) -> SaveWorkspaceNetwork {
    SaveWorkspaceNetwork {
        workspace: workspace_of(fixture),
        network: SandboxNetwork::AllowList,
        allow_domains: domains.iter().map(|d| (*d).to_owned()).collect(),
    }
}

#[test]
fn a_workspace_without_a_file_shows_no_choice_and_nothing_applied() {
    let fixture = Fixture::new("");
    runtime().block_on(async {
        let view = load(&fixture.app(), &fixture).await;
        assert_eq!(
            view,
            WorkspaceNetworkView {
                file: network_file(&fixture).display().to_string(),
                exists: false,
                network: None,
                allow_domains: Vec::new(),
                applied: false,
            }
        );
    });
}

#[test]
fn a_saved_allow_list_reads_back_trusted_and_new_sessions_there_get_it() {
    let fixture = Fixture::new("");
    runtime().block_on(async {
        let app = fixture.app();
        let saved = app
            .save_workspace_network(allow_list(
                &fixture,
                &[" crates.io ", "*.npmjs.org", "", "crates.io"],
            ))
            .await
            .unwrap();
        let domains = vec!["crates.io".to_owned(), "*.npmjs.org".to_owned()];
        assert!(saved.exists && saved.applied);
        assert_eq!(saved.network, Some(SandboxNetwork::AllowList));
        assert_eq!(saved.allow_domains, domains);
        assert_eq!(load(&app, &fixture).await, saved);
        let text = std::fs::read_to_string(network_file(&fixture)).unwrap();
        assert!(text.contains("network = \"allow-list\""), "{text}");

        let session = app
            .create_session(CreateSession {
                workspace: workspace_of(&fixture),
                ..Default::default()
            })
            .await
            .unwrap();
        let view = app
            .open_session(OpenSession {
                session_id: session.id,
                from_record: None,
                without_records: true,
                at_item: None,
            })
            .await
            .unwrap();
        assert_eq!(view.sandbox_network, SandboxNetwork::AllowList);
        assert_eq!(view.sandbox_allow_domains, domains);
    });
}

#[test]
fn a_file_edited_outside_strata_shows_its_wider_choice_as_not_applied_until_saved_again() {
    let fixture = Fixture::new("");
    runtime().block_on(async {
        let app = fixture.app();
        app.save_workspace_network(allow_list(&fixture, &["crates.io"]))
            .await
            .unwrap();
        std::fs::write(
            network_file(&fixture),
            "network = \"allow-list\"\nallow_domains = [\"crates.io\", \"evil.example\"]\n",
        )
        .unwrap();
        let edited = load(&app, &fixture).await;
        assert_eq!(edited.network, Some(SandboxNetwork::AllowList));
        assert_eq!(edited.allow_domains, vec!["crates.io", "evil.example"]);
        assert!(edited.exists && !edited.applied);

        let saved = app
            .save_workspace_network(allow_list(&fixture, &["crates.io", "evil.example"]))
            .await
            .unwrap();
        assert!(saved.applied);
    });
}

#[test]
fn off_in_a_file_strata_never_saved_still_applies() {
    let fixture = Fixture::new("");
    std::fs::create_dir_all(fixture.workspace.path().join(".strata")).unwrap();
    std::fs::write(network_file(&fixture), "network = \"off\"\n").unwrap();
    runtime().block_on(async {
        let view = load(&fixture.app(), &fixture).await;
        assert_eq!(view.network, Some(SandboxNetwork::Off));
        assert!(view.applied);
    });
}

#[test]
fn a_domain_that_is_not_one_is_refused_naming_it_and_nothing_is_written() {
    let fixture = Fixture::new("");
    runtime().block_on(async {
        let app = fixture.app();
        let error = app
            .save_workspace_network(allow_list(&fixture, &["crates.io", "not a domain"]))
            .await
            .unwrap_err();
        assert_eq!(error.kind, CommandErrorKind::InvalidInput);
        assert_eq!(
            error.message,
            "Nothing was saved: \"not a domain\" is not a domain, a *.domain or an IP address."
        );
        assert!(!network_file(&fixture).exists());

        app.save_workspace_network(allow_list(&fixture, &["crates.io"]))
            .await
            .unwrap();
        let before = std::fs::read_to_string(network_file(&fixture)).unwrap();
        app.save_workspace_network(allow_list(&fixture, &["*.127.0.0.1"]))
            .await
            .unwrap_err();
        assert_eq!(
            std::fs::read_to_string(network_file(&fixture)).unwrap(),
            before
        );
        assert!(load(&app, &fixture).await.applied);
    });
}

#[test]
fn a_workspace_that_is_not_a_folder_is_invalid_input() {
    let fixture = Fixture::new("");
    let missing = fixture.workspace.path().join("gone");
    runtime().block_on(async {
        let error = fixture
            .app()
            .get_workspace_network(GetWorkspaceNetwork {
                workspace: missing.display().to_string(),
            })
            .await
            .unwrap_err();
        assert_eq!(error.kind, CommandErrorKind::InvalidInput);
    });
}
