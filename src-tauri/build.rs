//! Declares the app's commands so each gets an `allow-<command>` permission:
//! with an app manifest, a command the capability does not list is refused.

/// Every command of docs/desktop-commands.md.
const COMMANDS: &[&str] = &[
    "app_info",
    "list_sessions",
    "search_sessions",
    "open_session",
    "create_session",
    "send_message",
    "stop_turn",
    "answer_approval",
    "compact_now",
    "rename_session",
    "delete_session",
    "export_session",
    "get_settings",
    "save_settings",
    "set_api_key",
    "compaction_views",
    "round_requests",
    "open_transcript",
    "tool_output",
    "switch_profile",
    "provider_kinds",
    "watch_library",
    "pick_workspace",
    "compaction_status",
    "set_compaction_policy",
    "preview_compaction",
    "check_threshold",
    "session_items",
    "pin_item",
    "compact_up_to",
    "undo_compaction",
    "fork_session",
    "open_external_link",
];

fn main() {
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(error) = tauri_build::try_build(attributes) {
        // A build script reports failure by panicking; the message is the error.
        panic!("tauri-build failed: {error:#}");
    }
}
