//! Opening files beneath the workspace's directory handle.
//!
//! The resolver ([`super::workspace`]) turns a model's path into a *real*
//! path: relative to the root, only plain names, no `..` and no symlinks.
//! Everything here opens such a path relative to the root's handle so that
//! the kernel refuses any symlink or `..` that appeared since resolution:
//! on Linux with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
//! RESOLVE_NO_MAGICLINKS)`, elsewhere (or on kernels without openat2) by a
//! walk that opens one component at a time with `O_NOFOLLOW`. Both refuse the
//! same paths; tests run both.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path};
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fs::{Mode, OFlags};

/// How a real path is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenStrategy {
    /// `openat2` beneath the root handle (Linux 5.6+), falling back to
    /// [`OpenStrategy::Walk`] where the kernel lacks it.
    Kernel,
    /// One component at a time with `O_NOFOLLOW`: the portable path.
    Walk,
}

/// Set once `openat2` turned out to be missing (old kernel, seccomp filter).
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

/// What every open adds: no controlling terminal, no inheritance, and never
/// following a symlink in the last component.
fn base_flags() -> OFlags {
    OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NOFOLLOW
}

fn names(real: &Path) -> io::Result<Vec<&OsStr>> {
    real.components()
        .map(|component| match component {
            Component::Normal(name) => Ok(name),
            // The resolver never produces these; refuse rather than trust.
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a plain relative path",
            )),
        })
        .collect()
}

/// Opens `real` (a resolved path: plain names only) beneath `root`.
pub(crate) fn open(
    root: BorrowedFd<'_>,
    real: &Path,
    flags: OFlags,
    mode: Mode,
    strategy: OpenStrategy,
) -> io::Result<OwnedFd> {
    let parts = names(real)?;
    #[cfg(target_os = "linux")]
    if strategy == OpenStrategy::Kernel && !NO_OPENAT2.load(Ordering::Relaxed) {
        use rustix::fs::ResolveFlags;
        let path: &Path = if parts.is_empty() {
            Path::new(".")
        } else {
            real
        };
        let resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(root, path, flags | base_flags(), mode, resolve) {
            Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {
                NO_OPENAT2.store(true, Ordering::Relaxed);
            }
            // AGAIN: the kernel saw a concurrent rename and asks for a retry;
            // the walk below is as strict, so it serves as the retry.
            Err(rustix::io::Errno::AGAIN) => {}
            other => return other.map_err(io::Error::from),
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (strategy, &NO_OPENAT2);
    open_walk(root, &parts, flags, mode)
}

fn open_walk(
    root: BorrowedFd<'_>,
    parts: &[&OsStr],
    flags: OFlags,
    mode: Mode,
) -> io::Result<OwnedFd> {
    let Some((last, dirs)) = parts.split_last() else {
        return Ok(rustix::fs::openat(root, ".", flags | base_flags(), mode)?);
    };
    let mut dir: Option<OwnedFd> = None;
    for name in dirs {
        let at = dir.as_ref().map_or(root, |d| d.as_fd());
        dir = Some(open_dir_at(at, name)?);
    }
    let at = dir.as_ref().map_or(root, |d| d.as_fd());
    Ok(rustix::fs::openat(at, *last, flags | base_flags(), mode)?)
}

/// `name` inside `at` as a directory handle, refusing a symlink.
fn open_dir_at(at: BorrowedFd<'_>, name: &OsStr) -> io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | base_flags();
    match rustix::fs::openat(at, name, flags, Mode::empty()) {
        // Linux says "not a directory" for a symlink here; report it as the
        // symlink it is, like openat2 does.
        Err(rustix::io::Errno::NOTDIR) => {
            let stat = rustix::fs::statat(at, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)?;
            if rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::Symlink {
                Err(rustix::io::Errno::LOOP.into())
            } else {
                Err(rustix::io::Errno::NOTDIR.into())
            }
        }
        other => Ok(other?),
    }
}

/// Opens `real` for reading without blocking: a FIFO opens at once instead
/// of waiting for a writer, and the caller checks the type on the handle.
pub(crate) fn open_read(
    root: BorrowedFd<'_>,
    real: &Path,
    strategy: OpenStrategy,
) -> io::Result<File> {
    let flags = OFlags::RDONLY | OFlags::NONBLOCK;
    open(root, real, flags, Mode::empty(), strategy).map(File::from)
}

/// Opens the directory `real` beneath `root`, creating missing folders one
/// at a time (each created and then opened without following symlinks).
pub(crate) fn open_dir_creating(
    root: BorrowedFd<'_>,
    real: &Path,
    strategy: OpenStrategy,
) -> io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY;
    match open(root, real, flags, Mode::empty(), strategy) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        other => return other,
    }
    let mut dir: Option<OwnedFd> = None;
    for name in names(real)? {
        let at = dir.as_ref().map_or(root, |d| d.as_fd());
        match rustix::fs::mkdirat(at, name, Mode::from_bits_truncate(0o777)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(error) => return Err(error.into()),
        }
        dir = Some(open_dir_at(at, name)?);
    }
    match dir {
        Some(dir) => Ok(dir),
        None => open(root, real, flags, Mode::empty(), strategy),
    }
}

/// Why a handle could not be read as a regular file.
#[derive(Debug)]
pub(crate) enum ReadRefusal {
    Directory,
    /// A FIFO, socket or device: never read.
    NotRegular,
    TooLarge {
        size: u64,
    },
    Io(io::Error),
}

/// The handle's metadata (`fstat`) if it is a regular file.
fn regular_metadata(file: &File) -> Result<std::fs::Metadata, ReadRefusal> {
    let meta = file.metadata().map_err(ReadRefusal::Io)?;
    if meta.is_dir() {
        return Err(ReadRefusal::Directory);
    }
    if !meta.file_type().is_file() {
        return Err(ReadRefusal::NotRegular);
    }
    Ok(meta)
}

/// Reads the whole of an opened regular file, refusing other kinds before
/// any read and files over `limit` bytes before and while reading.
pub(crate) fn read_regular(mut file: File, limit: u64) -> Result<Vec<u8>, ReadRefusal> {
    let meta = regular_metadata(&file)?;
    if meta.len() > limit {
        return Err(ReadRefusal::TooLarge { size: meta.len() });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // The file may grow after the check: never read past the limit.
    (&mut file)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadRefusal::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadRefusal::TooLarge {
            size: bytes.len() as u64,
        });
    }
    Ok(bytes)
}

/// The first `max` bytes of an opened regular file and its size, refusing
/// other kinds before any read.
pub(crate) fn read_head(mut file: File, max: u64) -> Result<(Vec<u8>, u64), ReadRefusal> {
    let meta = regular_metadata(&file)?;
    let mut bytes = Vec::new();
    (&mut file)
        .take(max)
        .read_to_end(&mut bytes)
        .map_err(ReadRefusal::Io)?;
    let size = meta.len().max(bytes.len() as u64);
    Ok((bytes, size))
}

/// The regular file `name` in `dir` if there is one: `Ok(None)` when absent.
/// A symlink in its place is an error (`ELOOP`), as is any other kind.
pub(crate) fn read_in_dir(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    limit: u64,
) -> Result<Option<(Vec<u8>, u32)>, ReadRefusal> {
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | base_flags();
    let file = match rustix::fs::openat(dir, name, flags, Mode::empty()) {
        Ok(fd) => File::from(fd),
        Err(rustix::io::Errno::NOENT) => return Ok(None),
        Err(error) => return Err(ReadRefusal::Io(error.into())),
    };
    let mode = file
        .metadata()
        .map_err(ReadRefusal::Io)?
        .permissions()
        .mode();
    Ok(Some((read_regular(file, limit)?, mode)))
}

/// Replaces `name` in `dir` with `bytes` atomically: a temp file beside it
/// (created in the same directory handle, never following a link), synced,
/// given `mode` (the old file's, or the default for new files), then renamed
/// over the target. A failure leaves the target as it was.
pub(crate) fn write_atomic(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    bytes: &[u8],
    mode: Option<u32>,
) -> io::Result<()> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | base_flags();
    // New files get the usual 0666 less the umask; existing ones keep theirs.
    let create_mode = Mode::from_bits_truncate(if mode.is_some() { 0o600 } else { 0o666 });
    let (tmp, fd) = loop_create_temp(dir, name, flags, create_mode)?;
    let result = (|| {
        let mut file = File::from(fd);
        file.write_all(bytes)?;
        if let Some(mode) = mode {
            rustix::fs::fchmod(&file, Mode::from_bits_truncate(mode & 0o7777))?;
        }
        file.sync_all()?;
        rustix::fs::renameat(dir, &tmp, dir, name)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = rustix::fs::unlinkat(dir, &tmp, rustix::fs::AtFlags::empty());
    }
    result
}

fn loop_create_temp(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    flags: OFlags,
    mode: Mode,
) -> io::Result<(std::ffi::OsString, OwnedFd)> {
    let mut last = io::Error::from(io::ErrorKind::AlreadyExists);
    for _ in 0..8 {
        let mut tmp = std::ffi::OsString::from(".");
        tmp.push(name);
        tmp.push(format!(".strata-{}.tmp", uuid::Uuid::now_v7().simple()));
        match rustix::fs::openat(dir, &tmp, flags, mode) {
            Ok(fd) => return Ok((tmp, fd)),
            Err(rustix::io::Errno::EXIST) => last = rustix::io::Errno::EXIST.into(),
            Err(error) => return Err(error.into()),
        }
    }
    Err(last)
}
