//! Logs go through `tracing` to a file rotated daily in the app's log folder
//! (`STRATA_HOME/logs` when set), keeping a week of files. Nothing logged
//! holds an API key: keys only exist as `ApiKey`, whose `Debug` is redacted,
//! and no command logs its arguments.

use std::path::Path;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_appender::rolling::{RollingFileAppender, Rotation};
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// Overrides the log filter (`tracing` directives, e.g. `debug`).
pub const LOG_ENV: &str = "STRATA_LOG";

/// The log files' name prefix: `strata-desktop.<date>.log`.
const FILE_PREFIX: &str = "strata-desktop";

/// Days of logs kept.
const KEPT_FILES: usize = 7;

fn filter() -> EnvFilter {
    EnvFilter::try_from_env(LOG_ENV).unwrap_or_else(|_| EnvFilter::new("info"))
}

/// Starts logging to `dir`; keep the guard for the app's lifetime (dropping
/// it flushes the file). When the folder cannot be used, logs go to stderr
/// alone and the reason is printed there.
pub fn init(dir: &Path) -> Option<WorkerGuard> {
    // The appender prunes old files before it creates the folder.
    let _ = std::fs::create_dir_all(dir);
    let appender = RollingFileAppender::builder()
        .rotation(Rotation::DAILY)
        .filename_prefix(FILE_PREFIX)
        .filename_suffix("log")
        .max_log_files(KEPT_FILES)
        .build(dir);
    match appender {
        Ok(appender) => {
            let (writer, guard) = tracing_appender::non_blocking(appender);
            let file = tracing_subscriber::fmt::layer()
                .with_ansi(false)
                .with_writer(writer);
            let _ = tracing_subscriber::registry()
                .with(filter())
                .with(file)
                .with(stderr_layer())
                .try_init();
            Some(guard)
        }
        Err(error) => {
            let _ = tracing_subscriber::registry()
                .with(filter())
                .with(stderr_layer())
                .try_init();
            tracing::warn!(dir = %dir.display(), %error, "cannot write logs to the log folder");
            None
        }
    }
}

/// Only warnings and errors reach stderr; the file gets everything the
/// filter lets through.
fn stderr_layer<S>() -> impl Layer<S>
where
    S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
{
    tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(LevelFilter::WARN)
}
