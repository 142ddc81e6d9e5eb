//! Strata's desktop shell: Tauri v2 over strata-core and strata-providers.
//! The commands (docs/desktop-commands.md) are thin; the state holds the
//! session store and the sessions open for turns.

pub mod commands;
pub mod errors;
pub mod export;
pub mod links;
pub mod logging;
pub mod settings;
pub mod state;
pub mod views;

use std::sync::Arc;

use strata_core::StrataPaths;
use tauri::{Runtime, generate_handler};

use crate::state::{AppState, EnvFn};

/// Adds the plugins, the state and every command to `builder`: the binary
/// passes the real runtime's builder, the tests the mock one's.
pub fn configure<R: Runtime>(
    builder: tauri::Builder<R>,
    paths: StrataPaths,
    env: EnvFn,
) -> tauri::Builder<R> {
    let state: commands::Shared = Arc::new(AppState::new(paths, env));
    builder
        .plugin(tauri_plugin_dialog::init())
        .plugin(links::navigation_guard())
        .manage(state)
        .manage(links::LinkOpener::from_env(env))
        .invoke_handler(generate_handler![
            commands::settings::app_info,
            commands::sessions::list_sessions,
            commands::sessions::open_session,
            commands::sessions::create_session,
            commands::turns::send_message,
            commands::turns::stop_turn,
            commands::turns::answer_approval,
            commands::turns::compact_now,
            commands::sessions::rename_session,
            commands::sessions::delete_session,
            commands::sessions::export_session,
            commands::settings::get_settings,
            commands::settings::save_settings,
            commands::settings::set_api_key,
            commands::console::compaction_views,
            commands::console::round_requests,
            links::open_external_link,
        ])
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
    .build(tauri::generate_context!())
    .map_err(|error| {
        tracing::error!(%error, "the app stopped with an error");
        Box::new(error) as Box<dyn std::error::Error>
    })?
    .run(|_, event| {
        // No command the agent started outlives the app.
        if let tauri::RunEvent::Exit = event {
            strata_core::tools::end_all_commands();
        }
    });
    Ok(())
}
