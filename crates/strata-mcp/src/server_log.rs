//! Each server's stderr kept past its run: one owner-only file per server
//! name (`<logs>/mcp/NAME.log`), appended to when a run of it ends, each run
//! under a header line, bounded (the oldest runs go first). What a server
//! writes is its own text: kept as written, escaped only when shown.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Past this size the file keeps only its newest [`KEEP_BYTES`].
pub const MAX_LOG_BYTES: u64 = 1024 * 1024;
const KEEP_BYTES: usize = 512 * 1024;
/// What a header line starts with.
pub const RUN_HEADER: &str = "=== ";

/// The log file of the server `name` under the logs folder `logs`.
#[must_use]
pub fn log_path(logs: &Path, name: &str) -> PathBuf {
    logs.join("mcp").join(format!("{name}.log"))
}

/// Appends one run: `header` (one line), then `lines`.
pub fn append_run(logs: &Path, name: &str, header: &str, lines: &[String]) -> std::io::Result<()> {
    let path = log_path(logs, name);
    if let Some(dir) = path.parent() {
        strata_core::private::ensure_dir(dir)?;
    }
    let mut text = format!("{RUN_HEADER}{}\n", header.replace(['\n', '\r'], " "));
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    let mut file = strata_core::private::file_options()
        .create(true)
        .append(true)
        .open(&path)?;
    strata_core::private::tighten_file(&file)?;
    file.write_all(text.as_bytes())?;
    if file.metadata()?.len() > MAX_LOG_BYTES {
        drop(file);
        keep_newest(&path)?;
    }
    Ok(())
}

/// Rewrites the file with its newest [`KEEP_BYTES`], from a run's header on.
fn keep_newest(path: &Path) -> std::io::Result<()> {
    let bytes = std::fs::read(path)?;
    let tail = &bytes[bytes.len().saturating_sub(KEEP_BYTES)..];
    let marker = format!("\n{RUN_HEADER}");
    let start = tail
        .windows(marker.len())
        .position(|window| window == marker.as_bytes())
        .map_or(0, |at| at + 1);
    strata_core::private::write_replacing(path, &tail[start..])
}

/// The last `count` lines of the server's log; empty when there is none.
pub fn tail(logs: &Path, name: &str, count: usize) -> std::io::Result<Vec<String>> {
    let text = match std::fs::read(log_path(logs, name)) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error),
    };
    let lines: Vec<&str> = text.lines().collect();
    Ok(lines[lines.len().saturating_sub(count)..]
        .iter()
        .map(|line| (*line).to_owned())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_appended_under_their_headers_and_read_back_from_the_end() {
        let dir = tempfile::tempdir().unwrap();
        append_run(dir.path(), "docs", "run one", &["a".into(), "b".into()]).unwrap();
        append_run(dir.path(), "docs", "run\ntwo", &["c".into()]).unwrap();
        assert_eq!(
            tail(dir.path(), "docs", 10).unwrap(),
            ["=== run one", "a", "b", "=== run two", "c"]
        );
        assert_eq!(tail(dir.path(), "docs", 2).unwrap(), ["=== run two", "c"]);
        assert!(tail(dir.path(), "other", 5).unwrap().is_empty());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(log_path(dir.path(), "docs"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "readable by others: {mode:o}");
        }
    }

    #[test]
    fn a_log_past_its_limit_keeps_its_newest_runs_whole() {
        let dir = tempfile::tempdir().unwrap();
        let line = "x".repeat(1000);
        for run in 0..1200 {
            append_run(
                dir.path(),
                "noisy",
                &format!("run {run}"),
                std::slice::from_ref(&line),
            )
            .unwrap();
        }
        let path = log_path(dir.path(), "noisy");
        assert!(std::fs::metadata(&path).unwrap().len() <= MAX_LOG_BYTES);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with(RUN_HEADER),
            "cut mid-run: {:?}",
            &text[..40]
        );
        assert!(text.ends_with(&format!("=== run 1199\n{line}\n")));
        assert!(!text.contains("=== run 0\n"));
    }
}
