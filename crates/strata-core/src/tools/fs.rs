//! The read tools over single paths: `list_directory` and `read_file`.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use rustix::fs::{AtFlags, FileType};

use super::error::{ToolError, ToolResult};
use super::workspace::{Resolved, Workspace};

/// Files above this are refused by `read_file` rather than loaded whole.
const READ_MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// A directory listing stops after this many entries.
const LIST_MAX_ENTRIES: usize = 1000;

pub(crate) fn list_directory(ws: &Workspace, dir: &Resolved) -> ToolResult<String> {
    let handle = ws.open_dir(dir)?;
    let entries = rustix::fs::Dir::read_from(&handle)
        .map_err(|error| ToolError::io("could not list", &dir.display, &error.into()))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry =
            entry.map_err(|error| ToolError::io("could not list", &dir.display, &error.into()))?;
        let raw = OsStr::from_bytes(entry.file_name().to_bytes());
        if raw == "." || raw == ".." || raw == ".git" {
            continue;
        }
        let name = raw.to_string_lossy().into_owned();
        let file_type = match entry.file_type() {
            FileType::Unknown => rustix::fs::statat(&handle, raw, AtFlags::SYMLINK_NOFOLLOW)
                .map_or(FileType::Unknown, |stat| {
                    FileType::from_raw_mode(stat.st_mode)
                }),
            known => known,
        };
        let is_dir = match file_type {
            FileType::Directory => true,
            // A link is marked as a directory only when it leads to one
            // inside the workspace; where else it leads is not shown.
            FileType::Symlink => dir
                .real
                .join(raw)
                .to_str()
                .and_then(|path| ws.resolve(path).ok())
                .and_then(|target| ws.open_dir(&target).ok())
                .is_some(),
            _ => false,
        };
        names.push(if is_dir { format!("{name}/") } else { name });
    }
    if names.is_empty() {
        return Ok(format!("{} is an empty directory.", dir.display));
    }
    names.sort_unstable();
    let total = names.len();
    names.truncate(LIST_MAX_ENTRIES);
    let mut out = names.join("\n");
    if total > LIST_MAX_ENTRIES {
        out.push_str(&format!(
            "\n[... {} more entries not shown]",
            total - LIST_MAX_ENTRIES
        ));
    }
    Ok(out)
}

#[derive(Clone, Debug)]
pub(crate) struct ReadPlan {
    pub path: Resolved,
    pub start_line: Option<u64>,
    pub end_line: Option<u64>,
}

/// How much of a file one `read_file` returns; sized to fit the history cap
/// so the model sees one contiguous piece and a note on how to read on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReadLimits {
    pub max_bytes: usize,
    pub max_lines: usize,
}

pub(crate) fn validate_range(start: Option<u64>, end: Option<u64>) -> Result<(), String> {
    if start == Some(0) || end == Some(0) {
        return Err("line numbers are 1-based; the first line is 1".into());
    }
    if let (Some(start), Some(end)) = (start, end)
        && end < start
    {
        return Err(format!("end_line {end} is before start_line {start}"));
    }
    Ok(())
}

pub(crate) fn read_file(ws: &Workspace, plan: &ReadPlan, limits: ReadLimits) -> ToolResult<String> {
    let display = &plan.path.display;
    let bytes = ws.read_bytes(&plan.path, READ_MAX_FILE_BYTES, "read_file")?;
    let text = String::from_utf8(bytes).map_err(|_| ToolError::NotText {
        path: display.clone(),
    })?;
    if text.is_empty() {
        return Ok(format!("{display} is empty."));
    }

    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total = lines.len() as u64;
    let start = plan.start_line.unwrap_or(1);
    if start > total {
        return Err(ToolError::InvalidArguments {
            tool: "read_file",
            message: format!("start_line {start} is past the end; {display} has {total} lines"),
        });
    }
    let end = plan.end_line.unwrap_or(total).min(total);

    let mut out = String::new();
    let mut last = start - 1;
    for (number, line) in (start..=end).zip(&lines[(start - 1) as usize..end as usize]) {
        let shown = number - start;
        if shown as usize >= limits.max_lines || out.len() + line.len() > limits.max_bytes {
            if shown == 0 {
                // A single line longer than the budget: show its start.
                let mut cut = limits.max_bytes.min(line.len());
                while !line.is_char_boundary(cut) {
                    cut -= 1;
                }
                out.push_str(&line[..cut]);
                out.push_str(&format!(
                    "\n[line {number} is {} bytes; only its first {cut} are shown]",
                    line.len()
                ));
                last = number;
            }
            break;
        }
        out.push_str(line);
        last = number;
    }
    if last < end {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!(
            "[showing lines {start}-{last} of {total}; call read_file with start_line={} to read on]",
            last + 1
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws(dir: &tempfile::TempDir) -> Workspace {
        Workspace::open(dir.path(), Default::default()).unwrap()
    }

    fn resolved(dir: &tempfile::TempDir, name: &str) -> Resolved {
        ws(dir).resolve(name).unwrap()
    }

    const WIDE: ReadLimits = ReadLimits {
        max_bytes: 1 << 20,
        max_lines: 10_000,
    };

    #[test]
    fn listing_is_sorted_marks_directories_and_skips_git() {
        let dir = tempfile::tempdir().unwrap();
        for sub in [".git", "b_dir", ".hidden_dir"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        for file in ["c.txt", "a.txt", ".env"] {
            std::fs::write(dir.path().join(file), "").unwrap();
        }
        let out = list_directory(&ws(&dir), &resolved(&dir, "")).unwrap();
        assert_eq!(out, ".env\n.hidden_dir/\na.txt\nb_dir/\nc.txt");
    }

    #[test]
    fn reading_a_named_pipe_is_refused_instead_of_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(dir.path().join("pipe"))
            .status()
            .unwrap();
        assert!(status.success());
        let plan = ReadPlan {
            path: resolved(&dir, "pipe"),
            start_line: None,
            end_line: None,
        };
        let error = read_file(&ws(&dir), &plan, WIDE).unwrap_err().to_string();
        assert!(error.contains("not a regular file"), "{error}");
    }

    #[test]
    fn listing_a_file_or_a_missing_folder_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "").unwrap();
        assert_eq!(
            list_directory(&ws(&dir), &resolved(&dir, "f"))
                .unwrap_err()
                .to_string(),
            "f is not a directory"
        );
        assert_eq!(
            list_directory(&ws(&dir), &resolved(&dir, "nope"))
                .unwrap_err()
                .to_string(),
            "nope does not exist"
        );
    }

    #[test]
    fn a_long_file_is_cut_with_a_note_on_how_to_read_on() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (1..=50).map(|i| format!("l{i}\n")).collect();
        std::fs::write(dir.path().join("f"), text).unwrap();
        let plan = ReadPlan {
            path: resolved(&dir, "f"),
            start_line: Some(5),
            end_line: None,
        };
        let limits = ReadLimits {
            max_bytes: 1 << 20,
            max_lines: 3,
        };
        assert_eq!(
            read_file(&ws(&dir), &plan, limits).unwrap(),
            "l5\nl6\nl7\n[showing lines 5-7 of 50; call read_file with start_line=8 to read on]"
        );
    }

    #[test]
    fn a_single_overlong_line_is_shown_in_part() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "ééééé\nnext\n").unwrap();
        let plan = ReadPlan {
            path: resolved(&dir, "f"),
            start_line: None,
            end_line: None,
        };
        let limits = ReadLimits {
            max_bytes: 5,
            max_lines: 10,
        };
        let out = read_file(&ws(&dir), &plan, limits).unwrap();
        assert!(
            out.starts_with("éé\n[line 1 is 11 bytes; only its first 4 are shown]\n"),
            "{out}"
        );
        assert!(out.ends_with("start_line=2 to read on]"), "{out}");
    }

    #[test]
    fn ranges_are_validated_and_binary_files_refused() {
        assert!(validate_range(Some(0), None).is_err());
        assert!(validate_range(Some(4), Some(3)).is_err());
        assert!(validate_range(Some(3), Some(3)).is_ok());
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bin"), [0xff, 0xfe, 0x00]).unwrap();
        let plan = ReadPlan {
            path: resolved(&dir, "bin"),
            start_line: None,
            end_line: None,
        };
        assert_eq!(
            read_file(&ws(&dir), &plan, WIDE).unwrap_err().to_string(),
            "bin is not UTF-8 text"
        );
    }
}
