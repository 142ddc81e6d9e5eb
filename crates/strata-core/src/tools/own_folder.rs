//! One folder of files the person wrote for Strata (their prompt files),
//! read the way `read_file` reads: the folder is found beneath its root by
//! the tools' resolver (a link out of the root is refused), then each file
//! beneath the folder itself, so a link that leads out of the folder, to a
//! secret file or to Strata's own files is refused before any read, a FIFO,
//! socket or device is refused without blocking, and no file over the
//! limit is read whole.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::beneath::{self, ReadRefusal};
use super::error::{ToolError, ToolResult};
use super::secrets::SecretGuard;
use super::workspace::Workspace;

/// An opened folder of the person's files.
pub(crate) struct OwnFolder {
    folder: Workspace,
}

impl OwnFolder {
    /// The folder `sub` beneath `root`; `None` when either does not exist.
    /// `own_folder` is set for a folder in Strata's config folder, which the
    /// tools otherwise never read.
    pub fn open(root: &Path, sub: &str, own_folder: bool) -> ToolResult<Option<Self>> {
        if !root.is_dir() {
            return Ok(None);
        }
        let protected = if own_folder {
            Vec::new()
        } else {
            super::ToolConfig::default().protected_paths
        };
        let guard = SecretGuard::new(&protected, &[]);
        let outer = Workspace::open(root, guard.clone())
            .map_err(|error| ToolError::io("could not open", &root.to_string_lossy(), &error))?;
        let resolved = match outer.resolve(sub) {
            Ok(resolved) if resolved.exists => resolved,
            Ok(_) | Err(ToolError::NotFound { .. }) => return Ok(None),
            Err(error) => return Err(error),
        };
        let path = outer.abs(&resolved);
        if !path.is_dir() {
            return Err(ToolError::NotADirectory {
                path: resolved.display,
            });
        }
        let folder = Workspace::open(&path, guard)
            .map_err(|error| ToolError::io("could not open", &resolved.display, &error))?;
        Ok(Some(Self { folder }))
    }

    /// The names in the folder that end in `suffix` (and are longer than
    /// it), sorted; names that are not UTF-8 come lossily converted.
    pub fn names(&self, suffix: &str) -> ToolResult<Vec<String>> {
        let here = self.folder.resolve(".")?;
        let handle = self.folder.open_dir(&here)?;
        let listing =
            |error: rustix::io::Errno| ToolError::io("could not list", ".", &error.into());
        let mut names = Vec::new();
        for entry in rustix::fs::Dir::read_from(&handle).map_err(listing)? {
            let entry = entry.map_err(listing)?;
            let raw = OsStr::from_bytes(entry.file_name().to_bytes());
            let name = raw.to_string_lossy();
            if name.len() > suffix.len() && name.ends_with(suffix) {
                names.push(name.into_owned());
            }
        }
        names.sort_unstable();
        Ok(names)
    }

    /// The whole of the file `name` in the folder, at most `limit` bytes;
    /// `Ok(None)` when it does not exist, else why it cannot be used.
    pub fn read(&self, name: &str, limit: u64) -> Result<Option<Vec<u8>>, String> {
        let resolved = match self.folder.resolve(name) {
            Ok(resolved) if resolved.exists => resolved,
            Ok(_) | Err(ToolError::NotFound { .. }) => return Ok(None),
            Err(ToolError::PathEscape { .. }) => {
                return Err("it is a link that leads out of its folder".to_owned());
            }
            Err(error) => return Err(error.to_string()),
        };
        let file = match self.folder.open_read(&resolved) {
            Ok(file) => file,
            Err(ToolError::NotFound { .. }) => return Ok(None),
            Err(error) => return Err(error.to_string()),
        };
        beneath::read_regular(file, limit)
            .map(Some)
            .map_err(|refusal| match refusal {
                ReadRefusal::Directory => "it is a directory, not a file".to_owned(),
                ReadRefusal::NotRegular => {
                    "it is not a regular file (a FIFO, socket or device)".to_owned()
                }
                ReadRefusal::TooLarge { size } => {
                    format!("it is {size} bytes, over the {limit}-byte limit")
                }
                ReadRefusal::Io(error) => format!("it could not be read: {error}"),
            })
    }
}
