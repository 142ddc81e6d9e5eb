//! What an `@` mention attaches to the person's message: the file as
//! `read_file` shows it or the folder as `list_directory` does, through the
//! same confinement, secret rules, caps and redaction as the tools.

use super::error::ToolError;
use super::{ToolRegistry, fs};
use crate::mentions::{MAX_ATTACHED_MENTIONS, mentioned_paths};

/// One mentioned path and what the model is shown for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    /// As the workspace resolved it (`.` for the root), a folder with a `/`.
    pub path: String,
    /// The file's text, the folder's listing, or why it is not attached
    /// (a secret file's refusal, never its contents).
    pub text: String,
}

impl ToolRegistry {
    /// What `@path` attaches, or `None` when the path names nothing in the
    /// workspace (missing, or leading outside it): that mention stays text.
    pub fn attach_mention(&self, path: &str) -> Option<Attachment> {
        let resolved = match self.workspace.resolve(path) {
            Ok(resolved) if resolved.exists => resolved,
            Ok(_) => return None,
            Err(
                ToolError::NotFound { .. }
                | ToolError::PathEscape { .. }
                | ToolError::BrokenSymlink { .. }
                | ToolError::NotADirectory { .. }
                | ToolError::SymlinkLoop { .. },
            ) => return None,
            Err(refused) => {
                return Some(Attachment {
                    path: path.to_owned(),
                    text: self.capped(refused.to_string()),
                });
            }
        };
        let is_dir = self.workspace.open_dir(&resolved).is_ok();
        let result = if is_dir {
            fs::list_directory(&self.workspace, &resolved)
        } else {
            let plan = fs::ReadPlan {
                path: resolved.clone(),
                start_line: None,
                end_line: None,
            };
            fs::read_file(&self.workspace, &plan, self.read_limits())
        };
        let text = result.unwrap_or_else(|error| error.to_string());
        let shown = if is_dir && resolved.display != "." {
            format!("{}/", resolved.display)
        } else {
            resolved.display
        };
        Some(Attachment {
            path: shown,
            text: self.capped(text),
        })
    }

    /// `text` with what its mentions attach appended as fenced blocks, one
    /// per path (at most [`MAX_ATTACHED_MENTIONS`]); `text` as it is when
    /// it mentions nothing the workspace has.
    pub fn attach_mentions(&self, text: &str) -> String {
        let attachments: Vec<Attachment> = mentioned_paths(text)
            .iter()
            .filter_map(|path| self.attach_mention(path))
            .take(MAX_ATTACHED_MENTIONS)
            .collect();
        if attachments.is_empty() {
            return text.to_owned();
        }
        let mut out = text.to_owned();
        for attachment in attachments {
            let fence = fence_for(&attachment.text);
            out.push_str(&format!(
                "\n\n{} (attached with @):\n{fence}\n{}\n{fence}",
                attachment.path,
                attachment.text.trim_end_matches('\n')
            ));
        }
        out
    }

    fn capped(&self, text: String) -> String {
        self.config.output_cap.apply(self.redactor.redact(&text)).0
    }
}

/// A backtick fence longer than any run of backticks in `text`.
fn fence_for(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

#[cfg(test)]
#[path = "attach_tests.rs"]
mod tests;
