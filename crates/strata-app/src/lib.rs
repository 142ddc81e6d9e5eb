//! Strata's application layer, shared by both front ends (the Tauri shell
//! and the `strata` command line), above strata-core and strata-providers
//! and free of Tauri.
//!
//! Its table of contents is [`commands`]: one module per group of the
//! command list (`strata_protocol::with_commands!`), each holding that
//! group's `App` methods, the entries both front ends call. Behind them:
//!
//! - the session manager ([`manager`], [`live`]): sessions open for turns,
//!   turns and compactions with their events handed to the caller's sink,
//!   approvals routed to the waiting tool call, cancellation;
//! - agent construction ([`launch`]) and which profile a session talks to
//!   ([`profile`]): sessions resume on the profile recorded when they were
//!   made, and another is only ever chosen explicitly;
//! - the session library ([`library`]): reading sessions for viewing, the
//!   library's index ([`catalog`]), watched for changes any process makes
//!   ([`watch`], [`outside`]), exports ([`export`]), recent folders
//!   ([`recent`]);
//! - the folds people read: the transcript ([`transcript`]) and the debug
//!   console ([`console`]), from records and live events;
//! - settings and profiles ([`settings`], [`preferences`], [`connection`]);
//! - what the composer's text asks for, a message, `/compact [focus]` or a
//!   prompt file's `/name [arguments]` ([`ComposerInput`], beside
//!   `send_message`; the commands offered in [`slash`]), read the same by
//!   the desktop and the REPL;
//! - context management as shown ([`context`]): a session's compaction
//!   status, its policy, the compaction preview, the threshold check;
//! - one error type ([`error`]) and every input validated once
//!   ([`validate`]).

pub mod catalog;
pub mod changes;
pub mod commands;
pub mod connection;
pub mod console;
pub mod context;
pub mod error;
pub mod eval;
pub mod export;
pub mod imported;
pub mod imported_loss;
pub mod imported_view;
pub mod launch;
pub mod library;
pub mod live;
pub mod manager;
pub mod mcp;
mod memory;
pub mod mentions;
pub mod network_file;
pub mod outside;
pub mod preferences;
pub mod profile;
pub mod recent;
pub mod rules;
pub mod settings;
pub mod slash;
pub mod transcript;
pub mod validate;
pub mod views;
pub mod watch;

use std::sync::Arc;

use strata_core::{SessionStore, StrataPaths};
use strata_providers::StrataConfig;
use strata_providers::config::EnvLookup;

pub use commands::conversation::ComposerInput;
pub use error::CommandResult;
pub use launch::{LaunchOptions, Launched};
pub use preferences::provider_kinds;
pub use watch::LibraryWatcher;

use crate::error::AppResult;
use crate::manager::LiveSessions;
use crate::settings::DesktopPrefs;

/// Reads an environment variable (the process environment in the app; tests
/// pass an empty one so a developer's keys never leak into them).
pub type EnvFn = fn(&str) -> Option<String>;

/// The application: where Strata's files are, and the sessions it holds
/// open. One per app; shared behind an `Arc`.
pub struct App {
    paths: StrataPaths,
    store: SessionStore,
    env: EnvFn,
    live: LiveSessions,
    catalog: catalog::Catalog,
    shown: outside::Shown,
    /// The console folds kept for live updates ([`console`]).
    consoles: Arc<console::Consoles>,
    /// Where other agents' sessions are looked for, when not `$HOME`
    /// (tests).
    import_home: Option<std::path::PathBuf>,
}

impl App {
    pub fn new(paths: StrataPaths, env: EnvFn) -> Self {
        Self {
            store: SessionStore::from_paths(&paths),
            paths,
            env,
            live: LiveSessions::default(),
            catalog: catalog::Catalog::default(),
            shown: outside::Shown::default(),
            consoles: Arc::default(),
            import_home: None,
        }
    }

    /// Looks for other agents' sessions under `home` instead of `$HOME`.
    pub fn with_import_home(mut self, home: std::path::PathBuf) -> Self {
        self.import_home = Some(home);
        self
    }

    pub fn paths(&self) -> &StrataPaths {
        &self.paths
    }

    pub fn store(&self) -> &SessionStore {
        &self.store
    }

    pub fn env(&self) -> EnvLookup<'_> {
        &self.env
    }

    /// The config file, or why it cannot be read.
    pub fn config(&self) -> AppResult<StrataConfig> {
        Ok(StrataConfig::load(&self.paths.config_file())?)
    }

    pub fn prefs(&self) -> DesktopPrefs {
        DesktopPrefs::load(&self.paths.config)
    }

    /// Runs blocking work (file reads, keychain access) off the async
    /// runtime's threads.
    pub async fn blocking<T, F>(self: &Arc<Self>, work: F) -> CommandResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&App) -> AppResult<T> + Send + 'static,
    {
        let app = Arc::clone(self);
        let done = tokio::task::spawn_blocking(move || work(&app))
            .await
            .map_err(error::task_failed)?;
        Ok(done?)
    }
}
