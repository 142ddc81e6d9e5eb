//! Everything Strata keeps (sessions, sidecars, config, the key file, logs)
//! is readable by its owner alone: files are created 0600 and folders 0700,
//! and ones found wider (made by an older Strata, or under another umask)
//! are tightened when Strata opens them. Every writer of those folders goes
//! through these helpers. Other platforms keep their default permissions.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io;
use std::path::Path;

/// Mode of Strata's files.
pub const FILE_MODE: u32 = 0o600;
/// Mode of Strata's folders.
pub const DIR_MODE: u32 = 0o700;

/// Options that create a file readable by its owner alone (the mode applies
/// only when the file is created; see [`tighten_file`] for one that exists).
pub fn file_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(FILE_MODE);
    }
    options
}

/// Creates `dir` (0700) and its missing parents (with the default mode:
/// they are not Strata's), or tightens it to 0700 when it exists.
pub fn ensure_dir(dir: &Path) -> io::Result<()> {
    if let Some(parent) = dir.parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent)?;
    }
    let mut builder = DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(DIR_MODE);
    }
    match builder.create(dir) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => tighten(dir),
        Err(error) => Err(error),
    }
}

/// Replaces `path` with `bytes` whole or not at all: a temporary file in the
/// same folder (0600, the folder made 0700), synced, then renamed over it,
/// so a crash leaves the old file or the new one, never half of one.
pub fn write_replacing(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    ensure_dir(dir)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".strata-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(FILE_MODE));
    }
    let mut temp = builder.tempfile_in(dir)?;
    {
        use std::io::Write;
        let file = temp.as_file_mut();
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    temp.persist(path).map_err(|error| error.error)?;
    Ok(())
}

/// Tightens an open file of Strata's to 0600 when others could read or
/// write it. Acts on the handle, so a path swapped meanwhile is not touched.
pub fn tighten_file(file: &File) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = file.metadata()?.permissions().mode();
        if mode & 0o077 != 0 {
            file.set_permissions(std::fs::Permissions::from_mode(FILE_MODE))?;
        }
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}

/// Tightens a file (to 0600) or folder (to 0700) of Strata's when others
/// could read, write or enter it; a missing path is left missing.
pub fn tighten(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let metadata = match std::fs::metadata(path) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(error) => return Err(error),
        };
        let wanted = if metadata.is_dir() {
            DIR_MODE
        } else {
            FILE_MODE
        };
        if metadata.permissions().mode() & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(wanted))?;
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// The permission bits of `path` (what [`tighten`] looks at).
#[cfg(unix)]
pub fn mode(path: &Path) -> io::Result<u32> {
    use std::os::unix::fs::PermissionsExt;
    Ok(std::fs::metadata(path)?.permissions().mode() & 0o777)
}

/// [`tighten`] on `dir` and every file and folder directly inside it.
pub fn tighten_tree(dir: &Path) -> io::Result<()> {
    tighten(dir)?;
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(error),
    };
    for entry in entries {
        let entry = entry?;
        // Symlinks are not followed: what they point at is not Strata's.
        if !entry.file_type()?.is_symlink() {
            tighten(&entry.path())?;
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        super::mode(path).unwrap()
    }

    #[test]
    fn new_files_and_folders_are_owner_only() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/sessions");
        ensure_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        let file = dir.join("s.jsonl");
        file_options()
            .write(true)
            .create_new(true)
            .open(&file)
            .unwrap()
            .write_all(b"x")
            .unwrap();
        assert_eq!(mode(&file), 0o600);
    }

    #[test]
    fn wide_folders_and_files_are_tightened() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("logs");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let file = dir.join("old.log");
        std::fs::write(&file, "x").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        ensure_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&file), 0o644, "ensure_dir tightens the folder only");
        tighten_tree(&dir).unwrap();
        assert_eq!(mode(&file), 0o600);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        tighten_file(&File::open(&file).unwrap()).unwrap();
        assert_eq!(mode(&file), 0o600);
    }

    #[test]
    fn tight_modes_are_left_alone_and_missing_paths_are_not_created() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("key");
        std::fs::write(&file, "x").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o400)).unwrap();
        tighten(&file).unwrap();
        assert_eq!(mode(&file), 0o400);
        tighten(&root.path().join("missing")).unwrap();
        tighten_tree(&root.path().join("missing")).unwrap();
        assert!(!root.path().join("missing").exists());
    }
}
