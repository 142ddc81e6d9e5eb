use std::sync::OnceLock;

use serde_json::json;
use strata_core::StrataPaths;
use strata_protocol::{CommandError, CommandErrorKind};
use tauri::WebviewWindowBuilder;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, mock_builder, mock_context, noop_assets};
use tauri::webview::InvokeRequest;

use super::*;

fn refused(raw: &str) -> String {
    match validate_external_link(raw) {
        Ok(url) => panic!("{raw:?} was accepted as {url}"),
        Err(reason) => reason,
    }
}

#[test]
fn http_https_and_mailto_links_are_accepted_in_normalised_form() {
    let cases = [
        ("https://example.com/a?b=c#d", "https://example.com/a?b=c#d"),
        ("HTTP://Example.COM", "http://example.com/"),
        (
            "https://例え.jp/パス",
            "https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9",
        ),
        (
            "https://example.com/\u{202e}gnp.exe",
            "https://example.com/%E2%80%AEgnp.exe",
        ),
        (
            "mailto:someone@example.com?subject=hi",
            "mailto:someone@example.com?subject=hi",
        ),
    ];
    for (raw, opened) in cases {
        assert_eq!(
            validate_external_link(raw).unwrap().as_str(),
            opened,
            "{raw}"
        );
    }
}

#[test]
fn script_data_file_and_other_schemes_are_refused() {
    for raw in [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "java\tscript:alert(1)",
        " javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "vbscript:msgbox(1)",
        "tauri://localhost/index.html",
        "ftp://example.com/",
        "blob:https://example.com/1",
        "about:blank",
    ] {
        assert!(refused(raw).contains("links are not opened"), "{raw}");
    }
}

#[test]
fn relative_hostless_credentialed_and_oversized_links_are_refused() {
    for raw in [
        "/etc/passwd",
        "//example.com/x",
        "page.html",
        "#top",
        "",
        "%6Aavascript:x",
    ] {
        assert_eq!(
            refused(raw),
            "Only absolute http, https and mailto links can be opened.",
            "{raw:?}"
        );
    }
    assert_eq!(
        refused("https://trusted.example@evil.example/"),
        "Links with a user name or password are not opened."
    );
    assert_eq!(refused("mailto:"), "The mail link has no address.");
    let long = format!("https://example.com/{}", "a".repeat(MAX_LINK_LENGTH));
    assert_eq!(refused(&long), "The link is too long to open.");
}

#[test]
fn only_the_apps_own_pages_may_be_shown_in_the_webview() {
    for own in [
        "tauri://localhost/",
        "tauri://localhost/index.html",
        "http://tauri.localhost/",
    ] {
        assert!(is_app_page(&Url::parse(own).unwrap()), "{own}");
    }
    for away in [
        "https://example.com/",
        "http://127.0.0.1:1420/",
        "tauri://evil.example/",
        "http://tauri.localhost.evil.example/",
        "data:text/html,hi",
        "about:blank",
        "file:///etc/passwd",
        "javascript:alert(1)",
    ] {
        assert!(!is_app_page(&Url::parse(away).unwrap()), "{away}");
    }
}

#[test]
fn the_recording_opener_is_chosen_only_in_debug_builds_when_the_variable_is_set() {
    fn with_file(name: &str) -> Option<String> {
        (name == RECORD_LINKS_ENV).then(|| "/tmp/links.txt".to_owned())
    }
    fn without(_: &str) -> Option<String> {
        None
    }
    assert!(matches!(LinkOpener::from_env(without), LinkOpener::System));
    let chosen = LinkOpener::from_env(with_file);
    if cfg!(debug_assertions) {
        assert!(
            matches!(chosen, LinkOpener::Record(path) if path == std::path::Path::new("/tmp/links.txt"))
        );
    } else {
        assert!(matches!(chosen, LinkOpener::System));
    }
}

/// Where the IPC test's app records the links it would open.
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
    let app = crate::configure(mock_builder(), StrataPaths::under(home.path()), env)
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
                body: InvokeBody::Json(json!({ "request": { "url": url } })),
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

/// The parts of tauri.conf.json and the capability this module relies on.
#[derive(serde::Deserialize)]
struct Conf {
    app: ConfApp,
}

#[derive(serde::Deserialize)]
struct ConfApp {
    security: ConfSecurity,
}

#[derive(serde::Deserialize)]
struct ConfSecurity {
    csp: std::collections::BTreeMap<String, String>,
}

#[derive(serde::Deserialize)]
struct Capability {
    permissions: Vec<String>,
}

#[test]
fn the_csp_stays_strict_and_no_opener_or_shell_plugin_is_granted() {
    let conf: Conf = serde_json::from_str(include_str!("../tauri.conf.json")).unwrap();
    let csp = conf.app.security.csp;
    assert_eq!(csp["default-src"], "'self'");
    assert_eq!(csp["script-src"], "'self'", "no inline or eval'd script");
    assert_eq!(csp["object-src"], "'none'");
    assert_eq!(csp["base-uri"], "'self'");
    assert_eq!(csp["form-action"], "'none'");
    assert_eq!(csp["frame-ancestors"], "'none'");
    for (directive, sources) in &csp {
        for loose in ["'unsafe-inline'", "'unsafe-eval'", "*", "http:", "https:"] {
            assert!(
                !sources.split_whitespace().any(|source| source == loose),
                "{directive} allows {loose}"
            );
        }
    }

    let capability: Capability =
        serde_json::from_str(include_str!("../capabilities/default.json")).unwrap();
    assert!(
        capability
            .permissions
            .contains(&"allow-open-external-link".to_owned())
    );
    for permission in &capability.permissions {
        assert!(
            !permission.starts_with("opener:") && !permission.starts_with("shell:"),
            "{permission} would let the page open URLs or programs without open_external_link's checks"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn the_link_opener_does_not_inherit_what_the_app_set_for_its_own_webkit() {
    let opener = system_opener(
        "https://example.com/",
        &[crate::webview::DMABUF_RENDERER_OFF],
    );
    let removed: Vec<_> = opener
        .get_envs()
        .filter(|(_, value)| value.is_none())
        .map(|(name, _)| name.to_owned())
        .collect();
    assert_eq!(
        removed,
        [std::ffi::OsString::from(
            crate::webview::DMABUF_RENDERER_OFF
        )]
    );
}
