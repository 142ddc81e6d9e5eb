//! Confinement: every path a tool (or `AGENTS.md`) touches is resolved here
//! to a *real* path beneath the workspace root, then opened beneath the
//! root's directory handle (see [`super::beneath`]).
//!
//! Resolution walks the path one component at a time the way the kernel
//! would: `..` goes up from where the walk *is* (so `link/..` is the link
//! target's parent), symlinks are read and their targets walked in turn
//! (absolute targets only when they point beneath the root), and a `..` right
//! after a component that does not exist is refused as the kernel would
//! (`missing/..` has no parent to return to). The result has plain names
//! only; opening it refuses any symlink that appeared since, so the walk is
//! advice and the open is the guarantee.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStringExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use super::beneath::{self, OpenStrategy, ReadRefusal};
use super::error::{ToolError, ToolResult};
use super::secrets::{SecretGuard, Verdict};

/// More symlinks than this in one path is a loop (the kernel's limit).
const MAX_SYMLINKS: usize = 40;

/// A path inside the workspace, as a resolution found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// Relative to the root: plain names only, no symlinks when resolved.
    pub real: PathBuf,
    /// `real` with `/` separators; `.` for the root.
    pub display: String,
    /// Whether every component existed when resolved.
    pub exists: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Workspace {
    root: PathBuf,
    dir: Arc<OwnedFd>,
    guard: SecretGuard,
    strategy: OpenStrategy,
}

/// One step of a walk, and the symlink it came from (for error messages).
enum Step {
    Name(OsString),
    Up,
}

impl Workspace {
    /// Opens the folder `root` (canonicalised) as the workspace.
    pub fn open(root: &Path, guard: SecretGuard) -> io::Result<Self> {
        let root = root.canonicalize()?;
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let dir = rustix::fs::open(&root, flags, Mode::empty())?;
        Ok(Self {
            root,
            dir: Arc::new(dir),
            guard,
            strategy: OpenStrategy::Kernel,
        })
    }

    /// The same workspace opened with `strategy` (tests run both).
    pub fn with_strategy(mut self, strategy: OpenStrategy) -> Self {
        self.strategy = strategy;
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn handle(&self) -> BorrowedFd<'_> {
        self.dir.as_fd()
    }

    pub fn strategy(&self) -> OpenStrategy {
        self.strategy
    }

    /// The absolute path of a resolved path (for display and the search walker).
    pub fn abs(&self, resolved: &Resolved) -> PathBuf {
        self.root.join(&resolved.real)
    }

    /// Resolves `raw` (relative to the workspace, or absolute inside it) and
    /// refuses Strata's own files and, unless allowed, the person's secrets.
    pub fn resolve(&self, raw: &str) -> ToolResult<Resolved> {
        let resolved = self.walk(raw)?;
        let parts: Vec<String> = resolved
            .real
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        match self.guard.check(&self.abs(&resolved), &parts) {
            Verdict::Allowed => Ok(resolved),
            Verdict::Secret => Err(ToolError::SecretFile {
                path: resolved.display,
            }),
            Verdict::Protected => Err(ToolError::StrataFile {
                path: resolved.display,
            }),
        }
    }

    fn walk(&self, raw: &str) -> ToolResult<Resolved> {
        let escape = || ToolError::PathEscape {
            path: raw.to_owned(),
        };
        let path = Path::new(if raw.trim().is_empty() { "." } else { raw });
        let relative = if path.is_absolute() {
            path.strip_prefix(&self.root).map_err(|_| escape())?
        } else {
            path
        };
        if climbs_out(relative) {
            return Err(escape());
        }
        let mut queue: VecDeque<(Step, Option<String>)> =
            steps(relative, None).ok_or_else(escape)?.into();
        let mut real: Vec<OsString> = Vec::new();
        let mut missing = false;
        let mut links = 0;
        while let Some((step, origin)) = queue.pop_front() {
            let name = match step {
                Step::Up if missing => {
                    return Err(ToolError::NotFound {
                        path: display(&real),
                    });
                }
                Step::Up => {
                    real.pop().ok_or_else(escape)?;
                    continue;
                }
                Step::Name(name) => name,
            };
            real.push(name);
            if missing {
                continue;
            }
            let here = PathBuf::from_iter(&real);
            let file_type =
                match rustix::fs::statat(self.handle(), &here, AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(stat) => FileType::from_raw_mode(stat.st_mode),
                    Err(rustix::io::Errno::NOENT) => {
                        if let Some(link) = origin {
                            return Err(ToolError::BrokenSymlink { path: link });
                        }
                        missing = true;
                        continue;
                    }
                    Err(rustix::io::Errno::NOTDIR) => {
                        real.pop();
                        return Err(ToolError::NotADirectory {
                            path: display(&real),
                        });
                    }
                    Err(error) => {
                        return Err(ToolError::io("could not resolve", raw, &error.into()));
                    }
                };
            match file_type {
                FileType::Symlink => {
                    links += 1;
                    if links > MAX_SYMLINKS {
                        return Err(ToolError::SymlinkLoop {
                            path: raw.to_owned(),
                        });
                    }
                    let target = rustix::fs::readlinkat(self.handle(), &here, Vec::new())
                        .map_err(|e| ToolError::io("could not resolve", raw, &e.into()))?;
                    let target = PathBuf::from(OsString::from_vec(target.into_bytes()));
                    let link = display(&real);
                    real.pop();
                    let target = if target.is_absolute() {
                        real.clear();
                        target
                            .strip_prefix(&self.root)
                            .map_err(|_| escape())?
                            .to_owned()
                    } else {
                        target
                    };
                    let expanded = steps(&target, Some(link)).ok_or_else(escape)?;
                    for step in expanded.into_iter().rev() {
                        queue.push_front(step);
                    }
                }
                FileType::Directory => {}
                _ if queue.is_empty() => {}
                _ => {
                    return Err(ToolError::NotADirectory {
                        path: display(&real),
                    });
                }
            }
        }
        Ok(Resolved {
            display: display(&real),
            real: PathBuf::from_iter(&real),
            exists: !missing,
        })
    }

    /// Opens a resolved path for reading without blocking; refuses what
    /// changed into a symlink since it was resolved.
    pub fn open_read(&self, resolved: &Resolved) -> ToolResult<File> {
        beneath::open_read(self.handle(), &resolved.real, self.strategy)
            .map_err(|error| open_error(&resolved.display, "could not read", &error))
    }

    /// The whole of a regular file, refusing other kinds and files over
    /// `limit` before reading.
    pub fn read_bytes(
        &self,
        resolved: &Resolved,
        limit: u64,
        tool: &'static str,
    ) -> ToolResult<Vec<u8>> {
        let file = self.open_read(resolved)?;
        beneath::read_regular(file, limit)
            .map_err(|refusal| refusal_error(refusal, &resolved.display, limit, tool))
    }

    /// A directory handle for a resolved directory.
    pub fn open_dir(&self, resolved: &Resolved) -> ToolResult<OwnedFd> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY;
        beneath::open(
            self.handle(),
            &resolved.real,
            flags,
            Mode::empty(),
            self.strategy,
        )
        .map_err(|error| open_error(&resolved.display, "could not list", &error))
    }
}

/// The workspace resolver on its own, for fuzzing and audits: where `path`
/// (as a model would give it) leads beneath `root`, as an absolute path with
/// no symlinks, or why it is refused. Opens the result too when it exists,
/// beneath the root handle with `strategy`, so a tree that changed after
/// resolution is refused as a tool call would refuse it.
pub fn resolve_beneath(root: &Path, path: &str, strategy: OpenStrategy) -> ToolResult<PathBuf> {
    let workspace = Workspace::open(root, SecretGuard::default())
        .map_err(|error| ToolError::io("could not open", &root.to_string_lossy(), &error))?
        .with_strategy(strategy);
    let resolved = workspace.resolve(path)?;
    if resolved.exists {
        drop(workspace.open_read(&resolved)?);
    }
    Ok(workspace.abs(&resolved))
}

/// The start of the instructions file `name` in folder `root` (at most
/// `max` bytes) and its size, found and opened beneath `root` like a
/// `read_file` call; `None` when there is none. `own_folder` is set for the
/// person's own file in Strata's config folder, which the tools otherwise
/// never read (a link out of it is refused all the same).
pub(crate) fn read_agents_head(
    root: &Path,
    name: &'static str,
    max: u64,
    own_folder: bool,
) -> ToolResult<Option<(Vec<u8>, u64)>> {
    let protected = if own_folder {
        Vec::new()
    } else {
        super::ToolConfig::default().protected_paths
    };
    let guard = SecretGuard::new(&protected, &[]);
    let workspace = Workspace::open(root, guard)
        .map_err(|error| ToolError::io("could not open", &root.to_string_lossy(), &error))?;
    let resolved = match workspace.resolve(name) {
        Ok(resolved) if resolved.exists => resolved,
        Ok(_) | Err(ToolError::NotFound { .. }) => return Ok(None),
        Err(error) => return Err(error),
    };
    let file = match workspace.open_read(&resolved) {
        Ok(file) => file,
        Err(ToolError::NotFound { .. }) => return Ok(None),
        Err(error) => return Err(error),
    };
    beneath::read_head(file, max)
        .map(Some)
        .map_err(|refusal| refusal_error(refusal, &resolved.display, max, name))
}

/// Whether the path, read as text, climbs above where it starts: such a path
/// escapes whatever its components are, and says so before any lookup.
fn climbs_out(relative: &Path) -> bool {
    let mut depth = 0usize;
    for component in relative.components() {
        match component {
            Component::ParentDir if depth == 0 => return true,
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    false
}

/// The walk steps of a relative path; `None` if it is not relative.
fn steps(path: &Path, origin: Option<String>) -> Option<Vec<(Step, Option<String>)>> {
    let mut out = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(name) => out.push((Step::Name(name.to_owned()), origin.clone())),
            Component::ParentDir => out.push((Step::Up, origin.clone())),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

fn display(parts: &[OsString]) -> String {
    if parts.is_empty() {
        return ".".to_owned();
    }
    let parts: Vec<String> = parts
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// An open that failed beneath the root: a symlink or `..` found at open
/// time means the tree changed after resolution.
pub(crate) fn open_error(display: &str, action: &'static str, error: &io::Error) -> ToolError {
    match rustix::io::Errno::from_io_error(error) {
        Some(rustix::io::Errno::LOOP | rustix::io::Errno::XDEV) => ToolError::PathChanged {
            path: display.to_owned(),
        },
        Some(rustix::io::Errno::NOENT) => ToolError::NotFound {
            path: display.to_owned(),
        },
        Some(rustix::io::Errno::NOTDIR) => ToolError::NotADirectory {
            path: display.to_owned(),
        },
        // What opening a socket gives: it is no more a file than a FIFO.
        Some(rustix::io::Errno::NXIO) => ToolError::NotRegular {
            path: display.to_owned(),
        },
        _ => ToolError::io(action, display, error),
    }
}

pub(crate) fn refusal_error(
    refusal: ReadRefusal,
    display: &str,
    limit: u64,
    tool: &'static str,
) -> ToolError {
    match refusal {
        ReadRefusal::Directory => ToolError::IsADirectory {
            path: display.to_owned(),
        },
        ReadRefusal::NotRegular => ToolError::NotRegular {
            path: display.to_owned(),
        },
        ReadRefusal::TooLarge { size } => ToolError::TooLarge {
            tool,
            path: display.to_owned(),
            size,
            limit,
            hint: "use search_text to find the part you need",
        },
        ReadRefusal::Io(error) => ToolError::io("could not read", display, &error),
    }
}

#[cfg(test)]
#[path = "workspace_tests.rs"]
mod tests;
