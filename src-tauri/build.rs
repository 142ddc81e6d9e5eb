//! Declares the app's commands so each gets an `allow-<command>` permission:
//! with an app manifest, a command the capability does not list is refused.
//! The names come from strata-protocol's one command list, like the
//! commands themselves.

fn main() {
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(strata_protocol::COMMAND_NAMES));
    if let Err(error) = tauri_build::try_build(attributes) {
        // A build script reports failure by panicking; the message is the error.
        panic!("tauri-build failed: {error:#}");
    }
}
