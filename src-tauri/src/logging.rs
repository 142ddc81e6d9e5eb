//! Logs go through `tracing` to a file rotated daily in the app's log folder
//! (`STRATA_HOME/logs` when set), keeping a week of files. Nothing logged
//! holds an API key: keys only exist as `ApiKey`, whose `Debug` is redacted,
//! and no command logs its arguments. The folder is 0700 and every log
//! file 0600 (`strata_core::private`).

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{NaiveDate, Utc};

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
    if let Err(error) = strata_core::private::ensure_dir(dir) {
        eprintln!(
            "strata: cannot create the log folder {}: {error}",
            dir.display()
        );
    }
    let appender = RollingFileAppender::builder()
        .rotation(Rotation::DAILY)
        .filename_prefix(FILE_PREFIX)
        .filename_suffix("log")
        .max_log_files(KEPT_FILES)
        .build(dir);
    match appender {
        Ok(appender) => {
            // Files an older Strata left readable by others, and the one
            // the appender just opened.
            if let Err(error) = strata_core::private::tighten_tree(dir) {
                eprintln!("strata: cannot make the logs owner-only: {error}");
            }
            let (writer, guard) =
                tracing_appender::non_blocking(OwnerOnlyDaily::new(dir, appender));
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

/// The daily appender, with each day's file created 0600 before the
/// appender rolls over to it (it would create it with the default mode).
struct OwnerOnlyDaily {
    dir: PathBuf,
    day: NaiveDate,
    appender: RollingFileAppender,
}

impl OwnerOnlyDaily {
    fn new(dir: &Path, appender: RollingFileAppender) -> Self {
        Self {
            dir: dir.to_owned(),
            day: Utc::now().date_naive(),
            appender,
        }
    }

    /// On a new (UTC) day, creates that day's file under the appender's
    /// name, `<prefix>.<YYYY-MM-DD>.log`, before its first line is written.
    fn prepare(&mut self) {
        let today = Utc::now().date_naive();
        if today == self.day {
            return;
        }
        self.day = today;
        let path = self
            .dir
            .join(format!("{FILE_PREFIX}.{}.log", today.format("%Y-%m-%d")));
        let _ = strata_core::private::file_options()
            .append(true)
            .create(true)
            .open(&path)
            .and_then(|file| strata_core::private::tighten_file(&file));
    }
}

impl Write for OwnerOnlyDaily {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.prepare();
        self.appender.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.appender.flush()
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

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use strata_core::private::mode;

    #[test]
    fn log_files_are_owner_only_across_a_day_change() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("logs");
        strata_core::private::ensure_dir(&dir).unwrap();
        let appender = RollingFileAppender::builder()
            .rotation(Rotation::DAILY)
            .filename_prefix(FILE_PREFIX)
            .filename_suffix("log")
            .build(&dir)
            .unwrap();
        let opened: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        assert_eq!(
            opened.len(),
            1,
            "the appender opened today's file: {opened:?}"
        );
        // As on the first write of a new day: the file of the day does not
        // exist yet (the appender still holds the old one open).
        std::fs::remove_file(&opened[0]).unwrap();
        let mut writer = OwnerOnlyDaily::new(&dir, appender);
        writer.day = writer.day.pred_opt().unwrap();
        writer.write_all(b"a line\n").unwrap();
        writer.flush().unwrap();
        assert_eq!(mode(&dir).unwrap(), 0o700);
        // Created under the appender's own name, owner-only.
        assert_eq!(mode(&opened[0]).unwrap(), 0o600);
    }
}
