//! Where API keys are kept: the OS keychain when one is reachable, else a
//! TOML file in the config folder readable by the user alone.
//!
//! The keychain backends are named in the `keyring` dependency's features
//! (Secret Service over pure-Rust zbus on Linux, the native stores on macOS
//! and Windows). A `keyring` build without them silently stores keys in
//! process memory, so [`KeyStore::open`] refuses any backend whose
//! persistence ends with the process and falls back to the file.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use keyring::credential::{Credential, CredentialPersistence};
use serde::{Deserialize, Serialize};

use crate::error::{ProviderError, Result};
use crate::secret::ApiKey;

/// The keychain service name Strata's keys are stored under.
pub const KEYCHAIN_SERVICE: &str = "strata";

/// The fallback key file's name inside the config folder.
pub const KEY_FILE_NAME: &str = "keys.toml";

/// Which key store a config asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyStoreChoice {
    /// The OS keychain when reachable, else the key file (with a warning).
    #[default]
    Auto,
    /// The OS keychain only; failures are errors.
    Keychain,
    /// The key file only (mode 0600 under the config folder).
    File,
}

impl KeyStoreChoice {
    pub fn is_auto(&self) -> bool {
        *self == KeyStoreChoice::Auto
    }
}

/// Which store a [`KeyStore`] ended up using.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyStoreKind {
    Keychain { service: String },
    File { path: PathBuf },
}

/// Reads and writes API keys by account name (usually a profile name).
#[derive(Clone, Debug)]
pub struct KeyStore {
    kind: KeyStoreKind,
    /// In `Auto` mode with a working keychain: the key file is still read
    /// so keys saved while the keychain was unreachable keep working.
    fallback_file: Option<PathBuf>,
}

impl KeyStore {
    /// The OS keychain under `service`, without probing it.
    pub fn keychain(service: impl Into<String>) -> Self {
        Self {
            kind: KeyStoreKind::Keychain {
                service: service.into(),
            },
            fallback_file: None,
        }
    }

    /// The key file at `path`.
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Self {
            kind: KeyStoreKind::File { path: path.into() },
            fallback_file: None,
        }
    }

    /// The store `choice` selects for a config folder. `Auto` probes the
    /// keychain once and falls back to `config_dir/keys.toml` with a warning.
    pub fn open(choice: KeyStoreChoice, config_dir: &Path) -> Self {
        let file = config_dir.join(KEY_FILE_NAME);
        match choice {
            KeyStoreChoice::File => Self::file(file),
            KeyStoreChoice::Keychain => Self::keychain(KEYCHAIN_SERVICE),
            KeyStoreChoice::Auto => match probe_keychain(KEYCHAIN_SERVICE) {
                Ok(()) => Self {
                    kind: KeyStoreKind::Keychain {
                        service: KEYCHAIN_SERVICE.to_string(),
                    },
                    fallback_file: Some(file),
                },
                Err(reason) => {
                    tracing::warn!(
                        path = %file.display(),
                        %reason,
                        "no OS keychain is reachable; API keys are kept in a file readable by you alone"
                    );
                    Self::file(file)
                }
            },
        }
    }

    pub fn kind(&self) -> &KeyStoreKind {
        &self.kind
    }

    /// Where keys go, for people: "OS keychain (service strata)" or a path.
    pub fn describe(&self) -> String {
        match &self.kind {
            KeyStoreKind::Keychain { service } => format!("OS keychain (service {service})"),
            KeyStoreKind::File { path } => path.display().to_string(),
        }
    }

    /// The key stored for `account`, if any.
    pub fn get(&self, account: &str) -> Result<Option<ApiKey>> {
        check_account(account)?;
        match &self.kind {
            KeyStoreKind::Keychain { service } => {
                match (keychain_get(service, account), &self.fallback_file) {
                    (Ok(Some(key)), _) => Ok(Some(key)),
                    (Ok(None), Some(file)) => file_get(file, account),
                    (Ok(None), None) => Ok(None),
                    // Auto mode: a keychain that stopped answering (locked,
                    // daemon gone) still leaves the file's keys usable.
                    (Err(err), Some(file)) => match file_get(file, account)? {
                        Some(key) => Ok(Some(key)),
                        None => Err(err),
                    },
                    (Err(err), None) => Err(err),
                }
            }
            KeyStoreKind::File { path } => file_get(path, account),
        }
    }

    /// Stores `key` for `account`, replacing any earlier one.
    pub fn set(&self, account: &str, key: &ApiKey) -> Result<()> {
        check_account(account)?;
        if key.is_empty() {
            return Err(ProviderError::InvalidArgument {
                what: "API key",
                message: "the key is empty".into(),
            });
        }
        match (&self.kind, &self.fallback_file) {
            (KeyStoreKind::Keychain { service }, fallback) => {
                let stored = entry(service, account)
                    .and_then(|e| e.set_password(key.expose()).map_err(keychain_error));
                match (stored, fallback) {
                    (Err(err), Some(file)) => {
                        tracing::warn!(
                            path = %file.display(),
                            reason = %err,
                            "the OS keychain refused the key; keeping it in a file readable by you alone"
                        );
                        file_set(file, account, key)
                    }
                    (stored, _) => stored,
                }
            }
            (KeyStoreKind::File { path }, _) => file_set(path, account, key),
        }
    }

    /// Removes the key for `account`; whether there was one.
    pub fn delete(&self, account: &str) -> Result<bool> {
        check_account(account)?;
        let mut removed = false;
        if let KeyStoreKind::Keychain { service } = &self.kind {
            match entry(service, account)?.delete_credential() {
                Ok(()) => removed = true,
                Err(keyring::Error::NoEntry) => {}
                Err(err) => return Err(keychain_error(err)),
            }
        }
        let file = match (&self.kind, &self.fallback_file) {
            (KeyStoreKind::File { path }, _) | (_, Some(path)) => Some(path),
            _ => None,
        };
        if let Some(path) = file {
            let mut keys = read_key_file(path)?;
            if keys.keys.remove(account).is_some() {
                write_key_file(path, &keys)?;
                removed = true;
            }
        }
        Ok(removed)
    }
}

fn check_account(account: &str) -> Result<()> {
    if account.trim().is_empty() {
        return Err(ProviderError::InvalidArgument {
            what: "key account",
            message: "the account name is empty".into(),
        });
    }
    Ok(())
}

/// A credential from the platform's default store, refusing stores that do
/// not outlive the process (the mock a featureless `keyring` build uses).
fn entry(service: &str, account: &str) -> Result<keyring::Entry> {
    let builder = keyring::default::default_credential_builder();
    match builder.persistence() {
        CredentialPersistence::EntryOnly | CredentialPersistence::ProcessOnly => {
            return Err(ProviderError::Keychain {
                message: "this build has no persistent keychain backend".into(),
            });
        }
        _ => {}
    }
    let credential: Box<Credential> = builder
        .build(None, service, account)
        .map_err(keychain_error)?;
    Ok(keyring::Entry::new_with_credential(credential))
}

fn keychain_get(service: &str, account: &str) -> Result<Option<ApiKey>> {
    match entry(service, account)?.get_password() {
        Ok(key) => Ok(Some(ApiKey::new(key))),
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(err) => Err(keychain_error(err)),
    }
}

/// Looks up an account that is never written: `NoEntry` proves the
/// keychain answers.
fn probe_keychain(service: &str) -> Result<()> {
    keychain_get(service, "strata-keychain-probe").map(|_| ())
}

fn keychain_error(err: keyring::Error) -> ProviderError {
    // keyring's Display never includes a secret (bad encodings are described,
    // not shown).
    ProviderError::Keychain {
        message: err.to_string(),
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyFile {
    #[serde(default)]
    keys: BTreeMap<String, String>,
}

fn file_get(path: &Path, account: &str) -> Result<Option<ApiKey>> {
    Ok(read_key_file(path)?
        .keys
        .get(account)
        .filter(|key| !key.trim().is_empty())
        .map(|key| ApiKey::new(key.trim())))
}

fn file_set(path: &Path, account: &str, key: &ApiKey) -> Result<()> {
    let mut keys = read_key_file(path)?;
    keys.keys
        .insert(account.to_string(), key.expose().to_string());
    write_key_file(path, &keys)
}

fn read_key_file(path: &Path) -> Result<KeyFile> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(KeyFile::default()),
        Err(err) => return Err(ProviderError::io("read", path)(err)),
    };
    restrict_to_owner(path)?;
    toml::from_str(&text).map_err(|err| ProviderError::KeyFile {
        path: path.to_path_buf(),
        // toml's own message quotes the offending line, which may hold a
        // key: report the position only.
        message: format!(
            "not valid TOML near line {}",
            line_of(&text, err.span().map(|s| s.start))
        ),
    })
}

fn write_key_file(path: &Path, keys: &KeyFile) -> Result<()> {
    let body = toml::to_string(keys).map_err(|err| ProviderError::ConfigEncode {
        message: err.to_string(),
    })?;
    let text = format!(
        "# Strata API keys, used when no OS keychain is reachable.\n\
         # Keep this file readable by you alone (mode 0600).\n{body}"
    );
    crate::config::write_atomically(path, text.as_bytes())
}

/// A key file readable by others is tightened to 0600.
fn restrict_to_owner(path: &Path) -> Result<()> {
    strata_core::private::tighten(path).map_err(ProviderError::io("restrict permissions of", path))
}

pub(crate) fn line_of(text: &str, offset: Option<usize>) -> usize {
    let offset = offset.unwrap_or(0).min(text.len());
    text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_build_names_a_persistent_keychain_backend() {
        // Guards the Cargo features: without a named backend keyring would
        // hand out an in-memory mock.
        let persistence = keyring::default::default_credential_builder().persistence();
        assert!(matches!(persistence, CredentialPersistence::UntilDelete));
    }

    #[test]
    fn line_of_counts_newlines_before_the_offset() {
        assert_eq!(line_of("a\nb\nc", Some(4)), 3);
        assert_eq!(line_of("abc", None), 1);
        assert_eq!(line_of("a\n", Some(99)), 2);
    }

    #[test]
    fn an_empty_account_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let store = KeyStore::file(dir.path().join(KEY_FILE_NAME));
        assert!(matches!(
            store.get(" "),
            Err(ProviderError::InvalidArgument { .. })
        ));
    }
}
