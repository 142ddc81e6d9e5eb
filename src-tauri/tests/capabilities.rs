//! The main window's capability (capabilities/default.json) as the built
//! app resolves it, on the mock runtime: every command of the one list is
//! granted and handled (and the capability and the docs name exactly
//! those), and the webview writes files only through the fs plugin, only
//! to the path the save dialog put in scope, never reads, and cannot open
//! the dialog plugin's folder picker (which would put a whole folder in
//! scope).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use strata_protocol::{
    COMMAND_NAMES, COMMANDS, CommandError, CommandErrorKind, ExportFormat, SessionExport,
    SessionListItem,
};
use tauri::http::{HeaderMap, HeaderValue};
use tauri::ipc::{InvokeBody, InvokeResponseBody};
use tauri_plugin_fs::FsExt;

mod support;

use support::MockApp;

fn app() -> MockApp {
    MockApp::with_context(tauri::generate_context!(
        test = true,
        assets = tauri::test::noop_assets()
    ))
}

/// Whether the access control refused the call (as opposed to the command
/// running, or failing on its arguments).
fn refused_by_acl(result: &Result<InvokeResponseBody, Value>) -> bool {
    matches!(result, Err(error) if error.to_string().contains("not allowed"))
}

/// Writes `text` to `path` through the fs plugin, as the UI's
/// `writeTextFile` does: the bytes as the body, the path in a header.
fn write_text_file(h: &MockApp, path: &std::path::Path, text: &str) -> Result<(), Value> {
    let encoded: String = path
        .to_str()
        .unwrap()
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'/' | b'.' | b'-' | b'_' => {
                char::from(b).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect();
    let mut headers = HeaderMap::new();
    headers.insert("path", HeaderValue::from_str(&encoded).unwrap());
    h.invoke_with(
        "plugin:fs|write_text_file",
        InvokeBody::Raw(text.as_bytes().to_vec()),
        headers,
    )
    .map(|_| ())
}

#[test]
fn every_listed_command_is_granted_and_handled() {
    let h = app();
    // Without its `request` every command fails on decoding it, after the
    // access check and only when the handler list has it: a command the
    // list names but nothing handles would be "not found" instead.
    for name in COMMAND_NAMES {
        let result = h.invoke_raw(name, json!({}));
        assert!(!refused_by_acl(&result), "{name}: {result:?}");
        let error: CommandError = serde_json::from_value(result.unwrap_err()).unwrap();
        assert_eq!(
            error.kind,
            CommandErrorKind::InvalidInput,
            "{name}: {error:?}"
        );
        assert!(error.message.contains("request"), "{name}: {error:?}");
    }
    let unknown = h.invoke_raw("not_a_command", json!({}));
    assert!(refused_by_acl(&unknown), "{unknown:?}");
}

/// The capability's permissions after the plugins' (`dialog:`, `fs:`).
fn granted_commands() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/capabilities/default.json");
    let capability: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    capability["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|permission| permission.as_str().unwrap())
        .filter(|permission| !permission.contains(':'))
        .map(|permission| {
            let name = permission.strip_prefix("allow-").unwrap_or(permission);
            name.replace('-', "_")
        })
        .collect()
}

/// The first column of docs/desktop-commands.md's command tables, each
/// command with the `### group` heading it is listed under.
fn documented_commands() -> Vec<(String, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/desktop-commands.md");
    let text = std::fs::read_to_string(path).unwrap();
    let mut group = None;
    let mut documented = Vec::new();
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            group = Some(heading.trim().to_owned());
        } else if line.starts_with("| `") {
            let cell = line.split('|').nth(1).unwrap().trim();
            let group = group.clone().unwrap_or_default();
            documented.push((group, cell.trim_matches('`').to_owned()));
        }
    }
    documented
}

#[test]
fn the_capability_and_the_command_docs_list_exactly_the_commands_of_the_list() {
    let listed: Vec<String> = COMMAND_NAMES
        .iter()
        .map(|name| (*name).to_owned())
        .collect();
    assert_eq!(granted_commands(), listed, "capabilities/default.json");
    let grouped: Vec<(String, String)> = COMMANDS
        .iter()
        .map(|command| (command.group.to_owned(), command.name.to_owned()))
        .collect();
    assert_eq!(
        documented_commands(),
        grouped,
        "docs/desktop-commands.md, under its group headings"
    );
}

#[test]
fn exports_are_written_only_to_the_file_the_save_dialog_chose() {
    let h = app();
    let workspace = tempfile::tempdir().unwrap();
    let created: SessionListItem = h.invoke(
        "create_session",
        json!({ "workspace": workspace.path().to_str().unwrap() }),
    );
    let export: SessionExport = h.invoke(
        "export_session",
        json!({ "session_id": created.id.to_string(), "format": "md" }),
    );
    assert_eq!(export.format, ExportFormat::Md);
    assert!(export.text.contains("strata-demo"), "{}", export.text);

    let folder = tempfile::tempdir().unwrap();
    let chosen = folder.path().join("session.md");
    // Before the person chose it, nothing may be written there.
    let refused = write_text_file(&h, &chosen, &export.text).unwrap_err();
    assert!(refused.to_string().contains("forbidden"), "{refused}");
    assert!(!chosen.exists());

    // What the save dialog does with the path the person chose.
    h.window.fs_scope().allow_file(&chosen).unwrap();
    write_text_file(&h, &chosen, &export.text).unwrap();
    assert_eq!(std::fs::read_to_string(&chosen).unwrap(), export.text);

    // Its neighbours, the workspace and the sessions folder stay closed.
    for other in [
        folder.path().join("other.md"),
        workspace.path().join("notes.md"),
        h.paths.sessions.join(format!("{}.jsonl", created.id)),
    ] {
        let refused = write_text_file(&h, &other, "overwritten");
        assert!(refused.is_err(), "{} was writable", other.display());
    }
    let records = std::fs::read_to_string(h.paths.sessions.join(format!("{}.jsonl", created.id)));
    assert!(!records.unwrap().contains("overwritten"));

    // Reading (even the chosen file) and the dialog plugin's folder picker
    // are not granted.
    let path = chosen.to_str().unwrap();
    for (command, args) in [
        ("plugin:fs|read_text_file", json!({ "path": path })),
        ("plugin:fs|read_dir", json!({ "path": path })),
        ("plugin:fs|remove", json!({ "path": path })),
        (
            "plugin:dialog|open",
            json!({ "options": { "directory": true } }),
        ),
    ] {
        let result = h.invoke_raw(command, args);
        assert!(refused_by_acl(&result), "{command}: {result:?}");
    }
}
