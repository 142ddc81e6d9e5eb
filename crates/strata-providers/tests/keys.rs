//! Key storage: the file store (forced, as every test but one does), the
//! Secret Service path under a private D-Bus session with gnome-keyring, and
//! proof that keys never show in Debug output, errors or serialised config.

// Helpers panic on setup failures; that is how a test reports them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use strata_providers::config::{
    ApiKeySource, ProfileConfig, ProfileFlags, ProviderKind, StrataConfig, resolve,
};
use strata_providers::keys::{KEY_FILE_NAME, KEYCHAIN_SERVICE};
use strata_providers::{ApiKey, KeyStore, KeyStoreChoice, KeyStoreKind, ProviderError};

const SECRET: &str = "sk-test-NEVERSHOWN-0123456789abcdef";

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_file_key_store_keeps_keys_readable_by_the_user_alone() {
    let home = tempfile::tempdir().unwrap();
    let config_dir = home.path().join("config");
    let store = KeyStore::open(KeyStoreChoice::File, &config_dir);
    let path = config_dir.join(KEY_FILE_NAME);
    assert_eq!(store.kind(), &KeyStoreKind::File { path: path.clone() });

    assert_eq!(store.get("work").unwrap(), None);
    store.set("work", &ApiKey::new(SECRET)).unwrap();
    store.set("home", &ApiKey::new("sk-other")).unwrap();
    assert_eq!(mode(&path), 0o600);
    assert_eq!(
        mode(&config_dir),
        0o700,
        "a folder it creates is private too"
    );
    assert_eq!(store.get("work").unwrap().unwrap().expose(), SECRET);

    // Another store over the same file sees the same keys.
    let again = KeyStore::file(&path);
    assert_eq!(again.get("home").unwrap().unwrap().expose(), "sk-other");

    assert!(store.delete("work").unwrap());
    assert!(!store.delete("work").unwrap());
    assert_eq!(store.get("work").unwrap(), None);
    assert_eq!(mode(&path), 0o600, "rewrites keep the mode");
}

#[test]
fn a_key_file_readable_by_others_is_restricted_on_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(KEY_FILE_NAME);
    fs::write(&path, format!("[keys]\nwork = \"{SECRET}\"\n")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    let store = KeyStore::file(&path);
    assert_eq!(store.get("work").unwrap().unwrap().expose(), SECRET);
    assert_eq!(mode(&path), 0o600);
}

#[test]
fn a_corrupt_key_file_error_does_not_quote_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(KEY_FILE_NAME);
    fs::write(&path, format!("[keys]\nwork = {SECRET}\n")).unwrap();
    let err = KeyStore::file(&path).get("work").unwrap_err();
    assert!(matches!(err, ProviderError::KeyFile { .. }));
    assert!(err.to_string().contains("near line 2"), "{err}");
    assert!(!err.to_string().contains("NEVERSHOWN"), "{err}");
    assert!(!format!("{err:?}").contains("NEVERSHOWN"));
}

#[test]
fn keys_never_appear_in_debug_output_errors_or_serialised_config() {
    let dir = tempfile::tempdir().unwrap();
    let key = ApiKey::new(SECRET);
    assert!(!format!("{key:?}").contains("NEVERSHOWN"));
    assert!(!format!("{key}").contains("NEVERSHOWN"));

    let store = KeyStore::open(KeyStoreChoice::File, dir.path());
    store.set("work", &key).unwrap();
    let mut profile = ProfileConfig::new(ProviderKind::Anthropic);
    profile.api_key = Some(ApiKeySource::Keychain("work".into()));
    let mut config = StrataConfig {
        default_profile: Some("work".into()),
        key_store: KeyStoreChoice::File,
        ..StrataConfig::default()
    };
    config.profiles.insert("work".into(), profile);
    let env = |_: &str| None;
    let resolved = resolve(&config, &ProfileFlags::default(), &env, &store, dir.path()).unwrap();
    assert_eq!(resolved.api_key.as_ref().unwrap().expose(), SECRET);

    let debug = format!("{resolved:?} {resolved:#?}");
    assert!(!debug.contains("NEVERSHOWN"), "{debug}");
    assert!(
        debug.to_lowercase().contains("redacted"),
        "the key is shown as redacted"
    );

    let profile_json = serde_json::to_string(&resolved.profile).unwrap();
    assert!(!profile_json.contains("NEVERSHOWN"), "{profile_json}");
    let config_path = dir.path().join("config.toml");
    config.save(&config_path).unwrap();
    let saved = fs::read_to_string(&config_path).unwrap();
    assert!(!saved.contains("NEVERSHOWN"), "{saved}");
    assert!(saved.contains("keychain = \"work\""), "{saved}");

    // Errors about the key name where it was looked for, never the key.
    config.profiles.get_mut("work").unwrap().api_key =
        Some(ApiKeySource::Env("ANTHROPIC_API_KEY".into()));
    let err = resolve(&config, &ProfileFlags::default(), &env, &store, dir.path()).unwrap_err();
    assert!(!err.to_string().contains("NEVERSHOWN"));
    assert!(!format!("{err:?}").contains("NEVERSHOWN"));
}

/// Set in a child test process that runs inside its own D-Bus session.
const CHILD_ENV: &str = "STRATA_KEYRING_TEST_CHILD";

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|out| out.status.success())
}

/// Runs the named test of this binary again in a child process whose
/// environment holds `CHILD_ENV=mode` and a private home, optionally
/// wrapped by `wrapper` (a shell snippet ending in `exec "$@"`).
fn rerun(test: &str, mode: &str, wrapper: Option<&str>, home: &Path) -> std::process::Output {
    let exe = std::env::current_exe().unwrap();
    let mut command = match wrapper {
        Some(script) => {
            let mut c = Command::new("dbus-run-session");
            c.args(["--", "sh", "-c", script, "sh"]);
            c.arg(&exe);
            c
        }
        None => Command::new(&exe),
    };
    command
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, mode)
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_RUNTIME_DIR", home)
        .env_remove("DBUS_SESSION_BUS_ADDRESS");
    command.output().unwrap()
}

fn assert_child_passed(output: &std::process::Output) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "child test failed:\n{stdout}\n{stderr}"
    );
}

#[test]
fn keys_round_trip_through_the_secret_service_of_gnome_keyring() {
    match std::env::var(CHILD_ENV).as_deref() {
        Ok("secret-service") => {
            // Inside the private session: auto mode finds the keychain.
            let config_dir = tempfile::tempdir().unwrap();
            let store = KeyStore::open(KeyStoreChoice::Auto, config_dir.path());
            assert_eq!(
                store.kind(),
                &KeyStoreKind::Keychain {
                    service: KEYCHAIN_SERVICE.into()
                }
            );
            store.set("work", &ApiKey::new(SECRET)).unwrap();
            let fresh = KeyStore::open(KeyStoreChoice::Keychain, config_dir.path());
            assert_eq!(fresh.get("work").unwrap().unwrap().expose(), SECRET);
            assert!(
                !config_dir.path().join(KEY_FILE_NAME).exists(),
                "the key went to the keychain, not the file"
            );
            assert!(fresh.delete("work").unwrap());
            assert_eq!(fresh.get("work").unwrap(), None);
        }
        Ok(other) => panic!("unexpected {CHILD_ENV}={other}"),
        Err(_) => {
            assert!(
                have("dbus-run-session") && have("gnome-keyring-daemon"),
                "this test needs dbus-run-session and gnome-keyring-daemon \
                 (apt-get install dbus gnome-keyring)"
            );
            let home = tempfile::tempdir().unwrap();
            // gnome-keyring creates and unlocks a login keyring with the
            // password on stdin, then serves the Secret Service on the
            // session bus dbus-run-session started.
            let unlock = "printf strata-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec \"$@\"";
            let output = rerun(
                "keys_round_trip_through_the_secret_service_of_gnome_keyring",
                "secret-service",
                Some(unlock),
                home.path(),
            );
            assert_child_passed(&output);
        }
    }
}

#[test]
fn auto_mode_falls_back_to_the_key_file_without_a_keychain() {
    match std::env::var(CHILD_ENV).as_deref() {
        Ok("no-keychain") => {
            let config_dir = tempfile::tempdir().unwrap();
            let store = KeyStore::open(KeyStoreChoice::Auto, config_dir.path());
            let path = config_dir.path().join(KEY_FILE_NAME);
            assert_eq!(store.kind(), &KeyStoreKind::File { path: path.clone() });
            store.set("work", &ApiKey::new(SECRET)).unwrap();
            assert_eq!(mode(&path), 0o600);
            let keychain = KeyStore::keychain(KEYCHAIN_SERVICE);
            assert!(matches!(
                keychain.get("work"),
                Err(ProviderError::Keychain { .. })
            ));
        }
        Ok(other) => panic!("unexpected {CHILD_ENV}={other}"),
        Err(_) => {
            // No session bus at all: an empty runtime folder and no address.
            let home = tempfile::tempdir().unwrap();
            let output = rerun(
                "auto_mode_falls_back_to_the_key_file_without_a_keychain",
                "no-keychain",
                None,
                home.path(),
            );
            assert_child_passed(&output);
        }
    }
}
