//! The write tools: `write_file` and `apply_edit`. Preparing one reads the
//! current file and computes the diff an approval shows; executing it
//! re-checks the file, since it may have changed while the person decided.

use std::io;

use similar::TextDiff;

use super::error::{ToolError, ToolResult};
use super::workspace::Resolved;

#[derive(Clone, Debug)]
pub(crate) struct WritePlan {
    pub path: Resolved,
    pub content: String,
    pub diff: String,
    pub creates: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct EditPlan {
    pub path: Resolved,
    pub old_text: String,
    pub new_text: String,
    pub diff: String,
}

/// The file's current text; `None` if it does not exist.
fn current(path: &Resolved) -> ToolResult<Option<String>> {
    match std::fs::metadata(&path.abs) {
        Ok(meta) if meta.is_dir() => {
            return Err(ToolError::IsADirectory {
                path: path.display.clone(),
            });
        }
        Ok(_) => {}
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(ToolError::io("could not read", &path.display, &error)),
    }
    let bytes = std::fs::read(&path.abs)
        .map_err(|error| ToolError::io("could not read", &path.display, &error))?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// A unified diff, `--- a/path` / `+++ b/path` (or `/dev/null` for a new file).
pub(crate) fn unified_diff(display: &str, old: Option<&str>, new: &str) -> String {
    let old_header = if old.is_some() {
        format!("a/{display}")
    } else {
        "/dev/null".to_owned()
    };
    let diff = TextDiff::from_lines(old.unwrap_or(""), new);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&old_header, &format!("b/{display}"))
        .to_string();
    if text.is_empty() {
        format!("(no changes to {display})")
    } else {
        text
    }
}

pub(crate) fn prepare_write(path: Resolved, content: String) -> ToolResult<WritePlan> {
    let old = current(&path)?;
    let diff = unified_diff(&path.display, old.as_deref(), &content);
    Ok(WritePlan {
        creates: old.is_none(),
        path,
        content,
        diff,
    })
}

pub(crate) fn execute_write(plan: &WritePlan) -> ToolResult<String> {
    let display = &plan.path.display;
    if let Some(parent) = plan.path.abs.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|error| ToolError::io("could not create the folder for", display, &error))?;
    }
    std::fs::write(&plan.path.abs, &plan.content)
        .map_err(|error| ToolError::io("could not write", display, &error))?;
    let verb = if plan.creates { "Created" } else { "Wrote" };
    Ok(format!(
        "{verb} {display} ({} lines, {} bytes).",
        plan.content.lines().count(),
        plan.content.len()
    ))
}

/// `text` with the one occurrence of `old` replaced.
fn replace_unique(display: &str, text: &str, old: &str, new: &str) -> ToolResult<String> {
    let count = text.matches(old).count();
    match count {
        0 => Err(ToolError::EditNotFound {
            path: display.to_owned(),
        }),
        1 => Ok(text.replacen(old, new, 1)),
        count => Err(ToolError::EditAmbiguous {
            path: display.to_owned(),
            count,
        }),
    }
}

pub(crate) fn prepare_edit(
    path: Resolved,
    old_text: String,
    new_text: String,
) -> ToolResult<EditPlan> {
    if old_text.is_empty() {
        return Err(ToolError::InvalidArguments {
            tool: "apply_edit",
            message: "old_text is empty; use write_file to create a file".into(),
        });
    }
    if old_text == new_text {
        return Err(ToolError::InvalidArguments {
            tool: "apply_edit",
            message: "old_text and new_text are the same; nothing would change".into(),
        });
    }
    let Some(text) = current(&path)? else {
        return Err(ToolError::NotFound {
            path: path.display.clone(),
        });
    };
    let edited = replace_unique(&path.display, &text, &old_text, &new_text)?;
    let diff = unified_diff(&path.display, Some(&text), &edited);
    Ok(EditPlan {
        path,
        old_text,
        new_text,
        diff,
    })
}

pub(crate) fn execute_edit(plan: &EditPlan) -> ToolResult<String> {
    let display = &plan.path.display;
    let Some(text) = current(&plan.path)? else {
        return Err(ToolError::NotFound {
            path: display.clone(),
        });
    };
    let edited = replace_unique(display, &text, &plan.old_text, &plan.new_text)?;
    std::fs::write(&plan.path.abs, &edited)
        .map_err(|error| ToolError::io("could not write", display, &error))?;
    Ok(format!(
        "Edited {display}: replaced {} lines with {}.",
        plan.old_text.lines().count(),
        plan.new_text.lines().count()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(dir: &std::path::Path, name: &str) -> Resolved {
        Resolved {
            abs: dir.join(name),
            display: name.to_owned(),
        }
    }

    #[test]
    fn a_new_file_diffs_against_dev_null_and_creates_its_folders() {
        let dir = tempfile::tempdir().unwrap();
        let plan = prepare_write(resolved(dir.path(), "a/b/new.txt"), "one\ntwo\n".into()).unwrap();
        assert_eq!(
            plan.diff,
            "--- /dev/null\n+++ b/a/b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"
        );
        assert_eq!(
            execute_write(&plan).unwrap(),
            "Created a/b/new.txt (2 lines, 8 bytes)."
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a/b/new.txt")).unwrap(),
            "one\ntwo\n"
        );
    }

    #[test]
    fn an_edit_must_match_exactly_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "a\nb\na\n").unwrap();
        let path = resolved(dir.path(), "f");
        assert_eq!(
            prepare_edit(path.clone(), "a\n".into(), "c\n".into())
                .unwrap_err()
                .to_string(),
            "old_text occurs 2 times in f; include more surrounding lines so it matches exactly once"
        );
        assert!(matches!(
            prepare_edit(path.clone(), "zzz".into(), "c".into()),
            Err(ToolError::EditNotFound { .. })
        ));
        let plan = prepare_edit(path, "b\n".into(), "B\n".into()).unwrap();
        assert!(plan.diff.contains("-b\n+B\n"), "{}", plan.diff);
        execute_edit(&plan).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("f")).unwrap(),
            "a\nB\na\n"
        );
    }

    #[test]
    fn an_edit_rechecks_the_file_when_it_runs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "x = 1\n").unwrap();
        let plan = prepare_edit(resolved(dir.path(), "f"), "x = 1".into(), "x = 2".into()).unwrap();
        std::fs::write(dir.path().join("f"), "x = 3\n").unwrap();
        assert!(matches!(
            execute_edit(&plan),
            Err(ToolError::EditNotFound { .. })
        ));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("f")).unwrap(),
            "x = 3\n"
        );
    }

    #[test]
    fn writing_over_a_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        assert_eq!(
            prepare_write(resolved(dir.path(), "d"), String::new())
                .unwrap_err()
                .to_string(),
            "d is a directory, not a file"
        );
    }
}
