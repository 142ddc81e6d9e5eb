//! Session files, torn-tail sidecars and the sessions folder are readable by
//! their owner alone: created 0600/0700, and tightened when an older Strata
//! (or another umask) left them wider.

#![cfg(unix)]
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use strata_core::SessionStore;
use strata_core::store::ReadMode;

mod store_support;
use store_support::{append_raw, closed_session};

fn mode(path: &Path) -> u32 {
    strata_core::private::mode(path).unwrap()
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_new_session_and_its_folder_are_owner_only() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path().join("nested/sessions"));
    let id = closed_session(&store);
    assert_eq!(mode(store.root()), 0o700);
    assert_eq!(mode(&store.session_path(id)), 0o600);
}

#[test]
fn a_torn_tail_sidecar_is_owner_only() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path().join("sessions"));
    let id = closed_session(&store);
    append_raw(&store.session_path(id), br#"{"v":1,"ts":"#);
    let session = store.open_writer(id).unwrap();
    let sidecar = session.recovery().torn_tail.clone().unwrap().sidecar;
    assert_eq!(mode(&sidecar), 0o600, "{sidecar:?}");
}

#[test]
fn a_wide_session_file_and_folder_are_tightened_when_listed_or_opened() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path().join("sessions"));
    let id = closed_session(&store);
    let path = store.session_path(id);
    set_mode(store.root(), 0o755);
    set_mode(&path, 0o644);
    assert_eq!(store.list().unwrap().len(), 1);
    assert_eq!((mode(store.root()), mode(&path)), (0o700, 0o600));

    set_mode(store.root(), 0o755);
    set_mode(&path, 0o644);
    store.resolve(&id.to_string()).unwrap();
    assert_eq!((mode(store.root()), mode(&path)), (0o700, 0o600));

    // Opening for writing tightens through the handle it locks.
    set_mode(&path, 0o664);
    drop(store.open_writer(id).unwrap());
    assert_eq!(mode(&path), 0o600);
    store.open_reader(id, ReadMode::Strict).unwrap();
}
