//! `open_external_link` through Tauri's IPC on the mock runtime: it checks
//! the URL again whatever the UI sent, and hands only the normalised URL on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::OnceLock;

use serde_json::json;
use strata_core::StrataPaths;
use strata_desktop::links::RECORD_LINKS_ENV;
use strata_protocol::{CommandError, CommandErrorKind};
use tauri::WebviewWindowBuilder;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, mock_builder, mock_context, noop_assets};
use tauri::webview::InvokeRequest;

/// Where this test binary's app records the links it would open.
static RECORD: OnceLock<String> = OnceLock::new();

fn env(name: &str) -> Option<String> {
    (name == RECORD_LINKS_ENV)
        .then(|| RECORD.get().cloned())
        .flatten()
}

#[test]
fn open_external_link_rechecks_the_url_and_opens_only_allowed_ones() {
    let home = tempfile::tempdir().unwrap();
    let record = home.path().join("opened.txt");
    RECORD.set(record.to_str().unwrap().to_owned()).unwrap();
    let app = strata_desktop::configure(mock_builder(), StrataPaths::under(home.path()), env)
        .build(mock_context(noop_assets()))
        .unwrap();
    let window = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .unwrap();
    let open = |url: &str| {
        tauri::test::get_ipc_response(
            &window,
            InvokeRequest {
                cmd: "open_external_link".into(),
                callback: CallbackFn(0),
                error: CallbackFn(1),
                url: "tauri://localhost".parse().unwrap(),
                body: InvokeBody::Json(json!({ "url": url })),
                headers: Default::default(),
                invoke_key: INVOKE_KEY.to_string(),
            },
        )
        .map(|_| ())
        .map_err(|error| serde_json::from_value::<CommandError>(error).unwrap())
    };

    for hostile in [
        "javascript:window.__xss=1",
        "data:text/html,<script>1</script>",
        "file:///etc/passwd",
        "vbscript:msgbox(1)",
        "https://trusted.example@evil.example/",
        "/relative",
    ] {
        let error = open(hostile).expect_err(hostile);
        assert_eq!(error.kind, CommandErrorKind::InvalidInput, "{hostile}");
    }
    open("HTTPS://Example.com/a b").unwrap();
    open("mailto:someone@example.com").unwrap();

    let opened = std::fs::read_to_string(&record).unwrap();
    assert_eq!(
        opened, "https://example.com/a%20b\nmailto:someone@example.com\n",
        "only the allowed links, normalised"
    );
}
