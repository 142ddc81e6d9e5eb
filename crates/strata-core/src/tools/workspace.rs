//! Confinement: every path a tool touches is resolved against the canonical
//! workspace folder, with symlinks followed, and refused if it lands outside.

use std::io;
use std::path::{Component, Path, PathBuf};

use super::error::{ToolError, ToolResult};

/// A path inside the workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// Absolute, with every existing component's symlinks resolved.
    pub abs: PathBuf,
    /// Relative to the workspace with `/` separators; `.` for the root.
    pub display: String,
}

#[derive(Clone, Debug)]
pub(crate) struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// `root` must already be canonical.
    pub fn new(root: PathBuf) -> Self {
        Self { root }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `raw` (relative to the workspace, or absolute inside it).
    /// The path need not exist: the nearest existing ancestor is
    /// canonicalised and the rest, which cannot contain symlinks because it
    /// does not exist, is normalised lexically.
    pub fn resolve(&self, raw: &str) -> ToolResult<Resolved> {
        let escape = || ToolError::PathEscape {
            path: raw.to_owned(),
        };
        let raw_path = Path::new(if raw.trim().is_empty() { "." } else { raw });
        let joined = self.root.join(raw_path);

        // Walk up to the nearest ancestor that exists (as a link or not; a
        // dangling symlink counts as existing so writes cannot follow it out).
        let mut existing = joined.as_path();
        let mut rest: Vec<Component<'_>> = Vec::new();
        loop {
            match existing.symlink_metadata() {
                Ok(_) => break,
                Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                Err(error) => return Err(ToolError::io("could not resolve", raw, &error)),
            }
            match (existing.parent(), existing.components().next_back()) {
                (Some(parent), Some(last)) => {
                    rest.push(last);
                    existing = parent;
                }
                _ => return Err(escape()),
            }
        }

        let mut abs = match existing.canonicalize() {
            Ok(path) => path,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                return Err(ToolError::BrokenSymlink {
                    path: self.display_of(existing).unwrap_or_else(|| raw.to_owned()),
                });
            }
            Err(error) => return Err(ToolError::io("could not resolve", raw, &error)),
        };
        for component in rest.iter().rev() {
            match component {
                Component::Normal(name) => abs.push(name),
                Component::ParentDir => {
                    if !abs.pop() {
                        return Err(escape());
                    }
                }
                Component::CurDir => {}
                Component::RootDir | Component::Prefix(_) => return Err(escape()),
            }
        }

        match self.display_of(&abs) {
            Some(display) => Ok(Resolved { abs, display }),
            None => Err(escape()),
        }
    }

    /// `path` relative to the root with `/` separators, if it is inside.
    pub fn display_of(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(&self.root).ok()?;
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(if parts.is_empty() {
            ".".to_owned()
        } else {
            parts.join("/")
        })
    }

    /// Whether `path`, with symlinks resolved, is inside the workspace.
    pub fn contains_real(&self, path: &Path) -> bool {
        path.canonicalize()
            .is_ok_and(|real| real.starts_with(&self.root))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src/nested")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "x").unwrap();
        (dir, Workspace::new(root))
    }

    #[test]
    fn relative_absolute_and_empty_paths_resolve_inside() {
        let (_dir, ws) = workspace();
        assert_eq!(ws.resolve("src/lib.rs").unwrap().display, "src/lib.rs");
        assert_eq!(ws.resolve("").unwrap().display, ".");
        assert_eq!(ws.resolve("./src/../src").unwrap().display, "src");
        let absolute = ws.root().join("src/lib.rs");
        let resolved = ws.resolve(absolute.to_str().unwrap()).unwrap();
        assert_eq!(resolved.abs, absolute);
    }

    #[test]
    fn missing_paths_resolve_through_their_nearest_existing_ancestor() {
        let (_dir, ws) = workspace();
        let resolved = ws.resolve("src/new/deeper/file.txt").unwrap();
        assert_eq!(resolved.display, "src/new/deeper/file.txt");
        assert_eq!(ws.resolve("new/../src/x").unwrap().display, "src/x");
    }

    #[test]
    fn dot_dot_out_of_the_root_is_refused_even_through_missing_folders() {
        let (_dir, ws) = workspace();
        for raw in [
            "..",
            "../x",
            "src/../../x",
            "missing/../../x",
            "/etc/passwd",
        ] {
            match ws.resolve(raw) {
                Err(ToolError::PathEscape { path }) => assert_eq!(path, raw),
                other => panic!("{raw}: expected an escape, got {other:?}"),
            }
        }
    }

    #[test]
    fn a_dangling_symlink_is_not_followed() {
        let (_dir, ws) = workspace();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path().join("nope"), ws.root().join("dangling"))
            .unwrap();
        assert!(matches!(
            ws.resolve("dangling"),
            Err(ToolError::BrokenSymlink { .. })
        ));
    }
}
