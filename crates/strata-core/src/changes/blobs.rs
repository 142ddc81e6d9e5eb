//! The prior-content store beside a session: `<session id>.blobs/<sha256>`,
//! one file per distinct content, written once (a temp file renamed into
//! place) and never changed. A per-session cap bounds it: when a new blob
//! takes the folder over the cap, the oldest blobs go first, and the
//! changes that named them are shown as no longer restorable.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use sha2::{Digest, Sha256};
use strata_protocol::FileState;

use crate::error::{CoreError, Result};

/// Contents above this are recorded by hash and size only.
pub const MAX_STORED_BYTES: u64 = 4 * 1024 * 1024;
/// The default per-session cap on the store.
pub const DEFAULT_CAP_BYTES: u64 = 256 * 1024 * 1024;
/// How much of a file is looked at to call it binary (a NUL byte in it).
const BINARY_SNIFF_BYTES: usize = 8000;

/// The SHA-256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Whether content is kept whole: text (no NUL in its first bytes) and at
/// most [`MAX_STORED_BYTES`].
pub fn keeps(bytes: &[u8]) -> bool {
    bytes.len() as u64 <= MAX_STORED_BYTES
        && !bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0)
}

/// Whether `name` is a blob's name (64 lowercase hex digits): the only
/// names this store opens, whatever a record says.
fn is_blob_name(name: &str) -> bool {
    name.len() == 64
        && name
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// One blob as the pruning decision sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlobEntry {
    pub name: String,
    pub size: u64,
    pub written: SystemTime,
}

/// Which blobs to remove so the rest fit in `cap`: the oldest first, never
/// `keep` (the blob just written).
pub fn prune_plan(mut entries: Vec<BlobEntry>, cap: u64, keep: &str) -> Vec<String> {
    let mut total: u64 = entries.iter().map(|entry| entry.size).sum();
    entries.sort_by(|a, b| a.written.cmp(&b.written).then_with(|| a.name.cmp(&b.name)));
    let mut removed = Vec::new();
    for entry in entries {
        if total <= cap {
            break;
        }
        if entry.name == keep {
            continue;
        }
        total = total.saturating_sub(entry.size);
        removed.push(entry.name);
    }
    removed
}

/// The content store of one session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlobStore {
    dir: PathBuf,
    cap: u64,
    /// Values (API keys) no stored content may hold: a content with one is
    /// recorded by hash and size only.
    withheld: Vec<String>,
}

impl BlobStore {
    /// The store beside `session_file` (`<id>.jsonl` → `<id>.blobs`).
    pub fn beside(session_file: &Path) -> Self {
        Self {
            dir: session_file.with_extension("blobs"),
            cap: DEFAULT_CAP_BYTES,
            withheld: Vec::new(),
        }
    }

    /// The same store, never keeping a content that holds one of
    /// `secrets` (empty values are ignored).
    pub fn withholding(mut self, secrets: &[String]) -> Self {
        self.withheld = secrets.iter().filter(|s| !s.is_empty()).cloned().collect();
        self
    }

    fn holds_secret(&self, bytes: &[u8]) -> bool {
        self.withheld.iter().any(|secret| {
            let needle = secret.as_bytes();
            bytes.windows(needle.len()).any(|window| window == needle)
        })
    }

    /// The same store with another cap.
    pub fn with_cap(mut self, cap: u64) -> Self {
        self.cap = cap;
        self
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Records `bytes`: kept whole (once per content) when [`keeps`] says
    /// so, else by hash and size only.
    pub fn put(&self, bytes: &[u8]) -> Result<FileState> {
        let sha = sha256_hex(bytes);
        let stored = keeps(bytes) && !self.holds_secret(bytes);
        if stored {
            self.write_once(&sha, bytes)?;
        }
        Ok(FileState {
            size: bytes.len() as u64,
            sha256: Some(sha),
            stored,
        })
    }

    /// Whether the content named `sha` is still here.
    pub fn has(&self, sha: &str) -> bool {
        is_blob_name(sha) && self.dir.join(sha).is_file()
    }

    /// The content named `sha`, checked against its name; `None` when it
    /// was never kept or was pruned.
    pub fn get(&self, sha: &str) -> Result<Option<Vec<u8>>> {
        if !is_blob_name(sha) {
            return Ok(None);
        }
        let path = self.dir.join(sha);
        let mut bytes = Vec::new();
        match fs::File::open(&path) {
            Ok(file) => file
                .take(MAX_STORED_BYTES + 1)
                .read_to_end(&mut bytes)
                .map_err(CoreError::io("read the stored content", &path))?,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(CoreError::io("read the stored content", &path)(error)),
        };
        Ok((sha256_hex(&bytes) == sha).then_some(bytes))
    }

    /// Puts each of `names` this store holds into `other` too: a hard link
    /// where both are on one file system (a blob never changes, and
    /// removing one link leaves the other), else a copy. Returns how many
    /// `other` holds now; the ones this store lacks (pruned) are skipped.
    pub fn share_into<'a>(
        &self,
        other: &BlobStore,
        names: impl IntoIterator<Item = &'a String>,
    ) -> Result<usize> {
        let mut shared = 0;
        for name in names {
            if !self.has(name) {
                continue;
            }
            if !other.has(name) {
                fs::create_dir_all(&other.dir).map_err(CoreError::io("create", &other.dir))?;
                let (from, to) = (self.dir.join(name), other.dir.join(name));
                if fs::hard_link(&from, &to).is_err() {
                    // Another file system: a copy, renamed into place whole.
                    let bytes = fs::read(&from).map_err(CoreError::io("read", &from))?;
                    other.write_once(name, &bytes)?;
                }
            }
            shared += 1;
        }
        Ok(shared)
    }

    fn write_once(&self, sha: &str, bytes: &[u8]) -> Result<()> {
        let target = self.dir.join(sha);
        if target.is_file() {
            return Ok(());
        }
        fs::create_dir_all(&self.dir).map_err(CoreError::io("create", &self.dir))?;
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)
            .map_err(CoreError::io("create a temp file in", &self.dir))?;
        tmp.write_all(bytes)
            .and_then(|()| tmp.as_file().sync_all())
            .map_err(CoreError::io("write", tmp.path().to_owned()))?;
        tmp.persist(&target)
            .map_err(|error| CoreError::io("store", &target)(error.error))?;
        self.prune(sha)
    }

    fn prune(&self, keep: &str) -> Result<()> {
        let entries = self.entries()?;
        let total: u64 = entries.iter().map(|entry| entry.size).sum();
        if total <= self.cap {
            return Ok(());
        }
        for name in prune_plan(entries, self.cap, keep) {
            let path = self.dir.join(&name);
            match fs::remove_file(&path) {
                Ok(()) => {}
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(CoreError::io("prune", &path)(error)),
            }
        }
        Ok(())
    }

    fn entries(&self) -> Result<Vec<BlobEntry>> {
        let read = fs::read_dir(&self.dir).map_err(CoreError::io("list", &self.dir))?;
        let mut entries = Vec::new();
        for entry in read.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !is_blob_name(&name) {
                continue;
            }
            if let Ok(meta) = entry.metadata() {
                entries.push(BlobEntry {
                    name,
                    size: meta.len(),
                    written: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                });
            }
        }
        Ok(entries)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_content_is_stored_once_under_its_hash_and_read_back_checked() {
        let home = tempfile::tempdir().unwrap();
        let store = BlobStore::beside(&home.path().join("s.jsonl"));
        let first = store.put(b"hello\n").unwrap();
        let again = store.put(b"hello\n").unwrap();
        assert_eq!(first, again);
        assert!(first.stored);
        let sha = first.sha256.unwrap();
        assert_eq!(store.get(&sha).unwrap().unwrap(), b"hello\n");
        assert_eq!(fs::read_dir(store.dir()).unwrap().count(), 1);
        // A blob altered on disk is not handed back as the content.
        fs::write(store.dir().join(&sha), b"tampered").unwrap();
        assert_eq!(store.get(&sha).unwrap(), None);
        // Names that are not hashes are never opened.
        assert_eq!(store.get("../s.jsonl").unwrap(), None);
    }

    #[test]
    fn a_content_holding_a_configured_secret_is_never_stored() {
        let home = tempfile::tempdir().unwrap();
        let store = BlobStore::beside(&home.path().join("s.jsonl"))
            .withholding(&["sk-test-0123456789".to_owned(), String::new()]);
        let state = store.put(b"KEY=sk-test-0123456789\n").unwrap();
        assert!(!state.stored);
        assert!(!store.dir().exists());
        assert!(store.put(b"no key here\n").unwrap().stored);
    }

    #[test]
    fn binary_and_huge_contents_are_recorded_by_hash_and_size_only() {
        let home = tempfile::tempdir().unwrap();
        let store = BlobStore::beside(&home.path().join("s.jsonl"));
        let binary = store.put(b"\x7fELF\0\0\x01").unwrap();
        assert!(!binary.stored);
        assert_eq!(binary.size, 7);
        let huge = vec![b'a'; MAX_STORED_BYTES as usize + 1];
        let state = store.put(&huge).unwrap();
        assert!(!state.stored);
        assert!(!store.has(&state.sha256.unwrap()));
        assert!(!store.dir().exists());
    }

    #[test]
    fn over_the_cap_the_oldest_blobs_are_pruned_first_and_never_the_newest() {
        let t = |s| SystemTime::UNIX_EPOCH + Duration::from_secs(s);
        let entry = |name: &str, size, at| BlobEntry {
            name: name.into(),
            size,
            written: t(at),
        };
        let entries = vec![entry("c", 10, 3), entry("a", 10, 1), entry("b", 10, 2)];
        assert_eq!(prune_plan(entries.clone(), 30, "c"), Vec::<String>::new());
        assert_eq!(prune_plan(entries.clone(), 15, "c"), vec!["a", "b"]);
        assert_eq!(prune_plan(entries, 5, "a"), vec!["b", "c"]);

        let home = tempfile::tempdir().unwrap();
        let store = BlobStore::beside(&home.path().join("s.jsonl")).with_cap(12);
        let old = store.put(b"0123456789").unwrap().sha256.unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let new = store.put(b"abcdefghij").unwrap().sha256.unwrap();
        assert!(!store.has(&old));
        assert!(store.has(&new));
    }
}
