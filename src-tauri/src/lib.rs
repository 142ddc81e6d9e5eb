//! Strata's desktop shell: a thin Tauri v2 adapter over strata-app. Each
//! command (docs/desktop-commands.md) maps one to one onto the application
//! layer, which the command line uses too; the commands and their handler
//! list are generated from strata-protocol's one list (`commands`).

pub mod commands;
pub mod library;
pub mod links;
pub mod logging;
#[cfg(target_os = "linux")]
pub mod webview;

use std::sync::Arc;

use strata_core::StrataPaths;
use tauri::Runtime;

use strata_app::{App, EnvFn};

/// Adds the plugins, the state and every command to `builder`: the binary
/// passes the real runtime's builder, the tests the mock one's.
pub fn configure<R: Runtime>(
    builder: tauri::Builder<R>,
    paths: StrataPaths,
    env: EnvFn,
) -> tauri::Builder<R> {
    let app: commands::Shared = Arc::new(App::new(paths, env));
    builder
        .plugin(tauri_plugin_dialog::init())
        // Exports only: the capability grants writing text files, in no
        // folder; the save dialog adds the one file the person chose.
        .plugin(tauri_plugin_fs::init())
        .plugin(links::navigation_guard())
        .manage(app)
        .manage(library::LibraryFeed::default())
        .manage(links::LinkOpener::from_env(env))
        .invoke_handler(commands::handler())
}

/// Runs the app until its window closes.
pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let paths = StrataPaths::from_env()?;
    let _log_guard = logging::init(&paths.logs);
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        sessions = %paths.sessions.display(),
        "Strata desktop starting"
    );
    strata_core::tools::end_commands_on_signals(
        strata_core::tools::ExitSignals::TermHangupAndInterrupt,
    );
    configure(
        tauri::Builder::default(),
        paths,
        strata_providers::config::process_env,
    )
    .setup(|app| {
        #[cfg(target_os = "linux")]
        webview::tune(app, strata_providers::config::process_env);
        #[cfg(not(target_os = "linux"))]
        let _ = app;
        Ok(())
    })
    .build(tauri::generate_context!())
    .map_err(|error| {
        tracing::error!(%error, "the app stopped with an error");
        Box::new(error) as Box<dyn std::error::Error>
    })?
    .run(|handle, event| {
        // No command the agent started outlives the app, and its MCP
        // servers are stopped as the MCP stdio rules ask, not SIGKILLed.
        if let tauri::RunEvent::Exit = event {
            strata_core::tools::end_all_commands();
            let app = Arc::clone(&*tauri::Manager::state::<commands::Shared>(handle));
            // Each stop is bounded (about five seconds at most, all at once).
            tauri::async_runtime::block_on(async move { app.shutdown().await });
        }
    });
    Ok(())
}
