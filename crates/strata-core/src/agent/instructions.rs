//! The instructions a session works by, as one developer message: the
//! person's own `AGENTS.md` (in Strata's config folder), then `AGENTS.md`
//! (or `CLAUDE.md` in a folder that has no `AGENTS.md`) from the repository
//! root down to the workspace, outermost first so the nearest folder's word
//! comes last, within one size budget. Read when a session starts and again
//! at every resume (see `Agent::reread_instructions`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use strata_protocol::InstructionSource;

use crate::error::{CoreError, Result};
use crate::tools::read_agents_head;

/// The instructions file read in each folder.
pub const AGENTS_FILE: &str = "AGENTS.md";
/// The name read where a folder has no [`AGENTS_FILE`] (what Claude Code
/// reads), so a repository written for it is not left without instructions.
pub const CLAUDE_FILE: &str = "CLAUDE.md";

/// How much of the instructions is used, all files together; what is over
/// is cut with a note, so stray huge files cannot fill the context before
/// the first turn. The nearest files are read first, so a cut falls on the
/// outermost.
pub const AGENTS_FILE_MAX_BYTES: usize = 32 * 1024;

/// The instructions that apply to a session, and the files they came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instructions {
    /// The developer message's text.
    pub text: String,
    /// The files read, outermost first.
    pub sources: Vec<InstructionSource>,
}

/// A folder instruction files are looked for in.
struct Folder {
    path: PathBuf,
    /// The person's own folder (Strata's config folder), not the repository's.
    own: bool,
}

/// One folder's file, as far as the budget took it.
struct Part {
    /// The file's path from the repository root (or its name, alone); the
    /// person's own file by its path, `~` for the home folder.
    label: String,
    name: &'static str,
    text: String,
    /// The file's size.
    bytes: u64,
    /// Bytes of the file not included.
    omitted: u64,
    own: bool,
}

impl Part {
    fn write_body(&self, out: &mut String) {
        out.push_str(&self.text);
        if self.omitted > 0 {
            if !self.text.is_empty() {
                out.push_str("\n\n");
            }
            // Writing to a String cannot fail.
            let _ = write!(
                out,
                "[{} continues: {} more bytes not included]",
                self.name, self.omitted
            );
        }
    }
}

/// The developer message made of the instruction files that apply to
/// `workspace`, if any (the repository's alone; see [`read_instructions`]).
pub fn agents_instructions(workspace: &Path) -> Result<Option<String>> {
    Ok(read_instructions(workspace, None)?.map(|instructions| instructions.text))
}

/// The instructions that apply to `workspace`, the person's own file in
/// `own_folder` first, if any apply. A file that exists but cannot be used
/// is an error, so instructions the person wrote are never silently
/// ignored. Each is found by the tools' resolver beneath its own folder and
/// read like `read_file` reads: a link that leads out of its folder or to a
/// secret file, a FIFO, a socket or a device is refused before any read,
/// and only what the budget has room for is read.
pub fn read_instructions(
    workspace: &Path,
    own_folder: Option<&Path>,
) -> Result<Option<Instructions>> {
    let repository = instruction_folders(workspace);
    let root = repository
        .first()
        .cloned()
        .unwrap_or_else(|| workspace.into());
    let folders: Vec<Folder> = own_folder
        .map(|path| Folder {
            path: path.to_owned(),
            own: true,
        })
        .into_iter()
        .chain(repository.iter().map(|path| Folder {
            path: path.clone(),
            own: false,
        }))
        .collect();
    let mut budget = AGENTS_FILE_MAX_BYTES;
    let mut parts = Vec::new();
    for folder in folders.iter().rev() {
        if let Some(part) = read_part(&root, folder, budget, workspace)? {
            budget = budget.saturating_sub(part.text.len());
            parts.push(part);
        }
    }
    parts.reverse();
    let mut message = String::new();
    match parts.as_slice() {
        [] => return Ok(None),
        [only] if only.own => {
            let _ = write!(
                message,
                "Instructions from your own {} ({}):\n\n",
                only.name, only.label
            );
            only.write_body(&mut message);
        }
        [only] if repository.len() == 1 => {
            let _ = write!(
                message,
                "Instructions from {} in the workspace:\n\n",
                only.name
            );
            only.write_body(&mut message);
        }
        all => {
            message.push_str(if all.iter().any(|part| part.own) {
                "Instructions from your own instruction file, then the repository's from its \
                 root down to the workspace (where they disagree, the one nearer the workspace \
                 wins):"
            } else {
                "Instructions from the repository's instruction files, from its root down to \
                 the workspace (where they disagree, the one nearer the workspace wins):"
            });
            for part in all {
                let _ = write!(message, "\n\n## {}\n\n", part.label);
                part.write_body(&mut message);
            }
        }
    }
    let sources = parts
        .iter()
        .map(|part| InstructionSource {
            label: part.label.clone(),
            bytes: part.bytes,
            omitted: part.omitted,
        })
        .collect();
    Ok(Some(Instructions {
        text: message,
        sources,
    }))
}

/// The folders whose instructions apply, outermost first: from the nearest
/// folder at or above `workspace` holding `.git` (the repository root) down
/// to the workspace; the workspace alone outside a repository.
fn instruction_folders(workspace: &Path) -> Vec<PathBuf> {
    let root = workspace
        .ancestors()
        .find(|folder| std::fs::symlink_metadata(folder.join(".git")).is_ok());
    let Some(root) = root else {
        return vec![workspace.to_owned()];
    };
    let mut folders: Vec<PathBuf> = workspace
        .ancestors()
        .take_while(|folder| *folder != root)
        .map(Path::to_owned)
        .collect();
    folders.push(root.to_owned());
    folders.reverse();
    folders
}

/// `folder`'s file within `budget` bytes: its [`AGENTS_FILE`], else its
/// [`CLAUDE_FILE`]; `None` when it has neither, or a blank one.
fn read_part(
    root: &Path,
    folder: &Folder,
    budget: usize,
    workspace: &Path,
) -> Result<Option<Part>> {
    // Strata's config folder need not exist yet (nothing saved so far).
    if folder.own && !folder.path.is_dir() {
        return Ok(None);
    }
    for name in [AGENTS_FILE, CLAUDE_FILE] {
        let label = if folder.own {
            shown_own_path(&folder.path.join(name))
        } else {
            let relative = folder.path.strip_prefix(root).unwrap_or(&folder.path);
            relative.join(name).display().to_string()
        };
        // The reason names the file as its folder sees it; one above the
        // workspace (or the person's own) also says where it is.
        let refused = |reason: String| CoreError::AgentsFileRefused {
            reason: if folder.own {
                format!("{label} (your own instructions): {reason}")
            } else if folder.path == workspace {
                reason
            } else {
                format!("{label} (above the workspace): {reason}")
            },
        };
        let Some((head, size)) = read_agents_head(&folder.path, name, budget as u64, folder.own)
            .map_err(|error| refused(error.to_string()))?
        else {
            continue;
        };
        let text = String::from_utf8_lossy(&head);
        // Cut on a char boundary within the bytes read, not mid-character.
        let cut = if size > head.len() as u64 {
            floor_char_boundary(&text, budget.min(text.len()))
        } else {
            text.len()
        };
        let kept = text[..cut].trim();
        let omitted = size.saturating_sub(text[..cut].len() as u64);
        if kept.is_empty() && omitted == 0 {
            // A blank AGENTS.md still stands for the folder: no fallback.
            return Ok(None);
        }
        return Ok(Some(Part {
            label,
            name,
            text: kept.to_owned(),
            bytes: size,
            omitted,
            own: folder.own,
        }));
    }
    Ok(None)
}

/// The person's own file as shown: under their home folder with `~`.
pub(crate) fn shown_own_path(path: &Path) -> String {
    let home = dirs::home_dir();
    match home
        .as_deref()
        .and_then(|home| path.strip_prefix(home).ok())
    {
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    (0..=at.min(text.len()))
        .rev()
        .find(|&index| text.is_char_boundary(index))
        .unwrap_or(0)
}

#[cfg(test)]
#[path = "instructions_tests.rs"]
mod tests;
