//! The write tools: `write_file` and `apply_edit`. Preparing one reads the
//! current file (bounded, regular files only) and computes the diff an
//! approval shows; executing it resolves the path again, checks that the file
//! is still what was approved, and replaces it atomically (a temp file beside
//! it, renamed over it, keeping its mode).

use std::os::fd::AsFd;

use similar::TextDiff;

use super::beneath::{self, ReadRefusal};
use super::error::{ToolError, ToolResult};
use super::workspace::{Resolved, Workspace, open_error, refusal_error};

/// Files above this are not rewritten: the diff alone would flood an approval.
const EDIT_MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

#[derive(Clone, Debug)]
pub(crate) struct WritePlan {
    /// The path as the model gave it, resolved again when the call runs.
    pub raw: String,
    pub path: Resolved,
    pub content: String,
    pub diff: String,
    /// The file's bytes when prepared; `None` if it did not exist.
    pub old: Option<Vec<u8>>,
}

#[derive(Clone, Debug)]
pub(crate) struct EditPlan {
    pub raw: String,
    pub path: Resolved,
    pub old_text: String,
    pub new_text: String,
    pub diff: String,
    pub old: Vec<u8>,
}

/// The file's current bytes; `None` if it does not exist.
fn current(ws: &Workspace, path: &Resolved, tool: &'static str) -> ToolResult<Option<Vec<u8>>> {
    if !path.exists {
        return Ok(None);
    }
    match ws.read_bytes(path, EDIT_MAX_FILE_BYTES, tool) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(ToolError::NotFound { .. }) => Ok(None),
        Err(error) => Err(error),
    }
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

pub(crate) fn prepare_write(ws: &Workspace, raw: &str, content: String) -> ToolResult<WritePlan> {
    let path = ws.resolve(raw)?;
    let old = current(ws, &path, "write_file")?;
    let diff = match old.as_deref().map(std::str::from_utf8) {
        None => unified_diff(&path.display, None, &content),
        Some(Ok(text)) => unified_diff(&path.display, Some(text), &content),
        Some(Err(_)) => format!(
            "({} holds {} bytes that are not UTF-8 text; all of them are replaced)\n{}",
            path.display,
            old.as_ref().map_or(0, Vec::len),
            unified_diff(&path.display, Some(""), &content)
        ),
    };
    Ok(WritePlan {
        raw: raw.to_owned(),
        path,
        content,
        diff,
        old,
    })
}

pub(crate) fn execute_write(ws: &Workspace, plan: &WritePlan) -> ToolResult<String> {
    commit(
        ws,
        &plan.raw,
        &plan.path,
        plan.old.as_deref(),
        plan.content.as_bytes(),
    )?;
    let verb = if plan.old.is_none() {
        "Created"
    } else {
        "Wrote"
    };
    Ok(format!(
        "{verb} {} ({} lines, {} bytes).",
        plan.path.display,
        plan.content.lines().count(),
        plan.content.len()
    ))
}

/// Writes `new` at the approved path if it still resolves to the same place
/// and still holds `expected` (`None`: still absent).
fn commit(
    ws: &Workspace,
    raw: &str,
    approved: &Resolved,
    expected: Option<&[u8]>,
    new: &[u8],
) -> ToolResult<()> {
    let display = &approved.display;
    let changed = || ToolError::ChangedSinceApproval {
        path: display.clone(),
    };
    let again = ws.resolve(raw)?;
    if again.real != approved.real {
        return Err(changed());
    }
    let (Some(name), Some(parent)) = (approved.real.file_name(), approved.real.parent()) else {
        return Err(ToolError::IsADirectory {
            path: display.clone(),
        });
    };
    let dir = beneath::open_dir_creating(ws.handle(), parent, ws.strategy())
        .map_err(|error| open_error(display, "could not create the folder for", &error))?;
    let now = beneath::read_in_dir(dir.as_fd(), name, EDIT_MAX_FILE_BYTES).map_err(|refusal| {
        match refusal {
            ReadRefusal::Io(error) => open_error(display, "could not read", &error),
            other => refusal_error(other, display, EDIT_MAX_FILE_BYTES, "write_file"),
        }
    })?;
    let (now_bytes, mode) = match now {
        Some((bytes, mode)) => (Some(bytes), Some(mode)),
        None => (None, None),
    };
    if now_bytes.as_deref() != expected {
        return Err(changed());
    }
    beneath::write_atomic(dir.as_fd(), name, new, mode)
        .map_err(|error| ToolError::io("could not write", display, &error))
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
    ws: &Workspace,
    raw: &str,
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
    let path = ws.resolve(raw)?;
    let Some(old) = current(ws, &path, "apply_edit")? else {
        return Err(ToolError::NotFound {
            path: path.display.clone(),
        });
    };
    let Ok(text) = std::str::from_utf8(&old) else {
        return Err(ToolError::EditNotText {
            path: path.display.clone(),
        });
    };
    let edited = replace_unique(&path.display, text, &old_text, &new_text)?;
    let diff = unified_diff(&path.display, Some(text), &edited);
    Ok(EditPlan {
        raw: raw.to_owned(),
        path,
        old_text,
        new_text,
        diff,
        old,
    })
}

pub(crate) fn execute_edit(ws: &Workspace, plan: &EditPlan) -> ToolResult<String> {
    let display = &plan.path.display;
    let text = std::str::from_utf8(&plan.old).map_err(|_| ToolError::EditNotText {
        path: display.clone(),
    })?;
    let edited = replace_unique(display, text, &plan.old_text, &plan.new_text)?;
    commit(
        ws,
        &plan.raw,
        &plan.path,
        Some(&plan.old),
        edited.as_bytes(),
    )?;
    Ok(format!(
        "Edited {display}: replaced {} lines with {}.",
        plan.old_text.lines().count(),
        plan.new_text.lines().count()
    ))
}

#[cfg(test)]
#[path = "edit_tests.rs"]
mod tests;
