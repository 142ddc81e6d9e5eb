//! Files the tools refuse even inside the workspace: Strata's own folders
//! (its config, keys, sessions and logs: never, whatever the person allows)
//! and the person's obvious secret files (unless the person allows them).
//!
//! Checked on the *real* path a call would act on, after symlinks inside
//! the workspace are resolved, so a link named `notes.txt` that points at
//! `.env` is refused like `.env` itself.

use std::path::{Path, PathBuf};

/// Folder names whose whole contents are secret (SSH keys, GnuPG, cloud CLIs).
const SECRET_DIRS: &[&str] = &[".ssh", ".gnupg", ".aws", ".kube", ".password-store"];

/// Folder pairs whose contents are secret: `.config/gcloud`, `.docker/config.json`…
const SECRET_NESTED: &[(&str, &str)] = &[
    (".config", "gcloud"),
    (".docker", "config.json"),
    (".config", "gh"),
];

/// Exact file names that hold credentials.
const SECRET_FILES: &[&str] = &[
    ".env",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".pgpass",
    ".htpasswd",
    "kubeconfig",
    "credentials.json",
];

/// `.env.*` files that are templates, by convention free of real values.
const ENV_TEMPLATES: &[&str] = &[".env.example", ".env.sample", ".env.template"];

/// Whether `real` (workspace-relative, `/`-separated components) names one of
/// the person's obvious secret files or lies in a secret folder.
pub fn is_secret_path(components: &[&str]) -> bool {
    let in_secret_dir = components.iter().any(|c| SECRET_DIRS.contains(c))
        || components
            .windows(2)
            .any(|pair| SECRET_NESTED.contains(&(pair[0], pair[1])));
    in_secret_dir || components.last().is_some_and(|name| is_secret_name(name))
}

fn is_secret_name(name: &str) -> bool {
    if SECRET_FILES.contains(&name) {
        return true;
    }
    if name.starts_with(".env.") {
        return !ENV_TEMPLATES.contains(&name);
    }
    let key_prefixes = ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"];
    key_prefixes.iter().any(|prefix| name.starts_with(prefix))
        || [".pem", ".key", ".p12", ".pfx", ".keystore", ".jks"]
            .iter()
            .any(|suffix| name.len() > suffix.len() && name.ends_with(suffix))
}

/// What a resolved path may be: see [`SecretGuard::check`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Allowed,
    /// One of the person's secret files, not on their allow-list.
    Secret,
    /// Inside Strata's own folders: never allowed.
    Protected,
}

/// The refusal rules of one workspace.
#[derive(Clone, Debug, Default)]
pub(crate) struct SecretGuard {
    /// Absolute folders and files no tool may touch (each kept as given and,
    /// when it exists, canonicalised too).
    protected: Vec<PathBuf>,
    /// Workspace-relative paths the person allows; a folder allows what is in it.
    allowed: Vec<String>,
}

impl SecretGuard {
    pub fn new(protected: &[PathBuf], allowed: &[String]) -> Self {
        let mut kept = Vec::new();
        for path in protected.iter().filter(|p| p.is_absolute()) {
            kept.push(path.clone());
            if let Ok(real) = path.canonicalize()
                && &real != path
            {
                kept.push(real);
            }
        }
        let allowed = allowed
            .iter()
            .map(|entry| entry.trim_matches('/').to_owned())
            .filter(|entry| !entry.is_empty())
            .collect();
        Self {
            protected: kept,
            allowed,
        }
    }

    /// The verdict for the real path `abs` (absolute) whose workspace-relative
    /// components are `components`.
    pub fn check(&self, abs: &Path, components: &[&str]) -> Verdict {
        if self.protected.iter().any(|p| abs.starts_with(p)) {
            return Verdict::Protected;
        }
        if !is_secret_path(components) {
            return Verdict::Allowed;
        }
        let display = components.join("/");
        let allowed = self.allowed.iter().any(|entry| {
            display == *entry
                || display
                    .strip_prefix(entry.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        });
        if allowed {
            Verdict::Allowed
        } else {
            Verdict::Secret
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(path: &str) -> Vec<&str> {
        path.split('/').collect()
    }

    #[test]
    fn obvious_secret_files_are_recognised() {
        for path in [
            ".env",
            "app/.env.local",
            ".ssh/config",
            "home/.ssh/known_hosts",
            ".aws/credentials",
            ".config/gcloud/application_default_credentials.json",
            ".netrc",
            ".npmrc",
            ".pypirc",
            ".git-credentials",
            "certs/server.pem",
            "tls/server.key",
            "id_rsa",
            "keys/id_ed25519.pub",
            ".kube/config",
            ".docker/config.json",
        ] {
            assert!(is_secret_path(&split(path)), "{path}");
        }
    }

    #[test]
    fn ordinary_files_and_env_templates_are_not_secret() {
        for path in [
            "src/main.rs",
            ".env.example",
            "docs/env.md",
            "environment.rs",
            "keyboard.rs",
            ".key",
            "config/settings.toml",
            "docker/config.json",
        ] {
            assert!(!is_secret_path(&split(path)), "{path}");
        }
    }

    #[test]
    fn the_allow_list_admits_exact_paths_and_folders_only() {
        let guard = SecretGuard::new(&[], &[".env".into(), "deploy/".into()]);
        let root = Path::new("/w");
        assert_eq!(guard.check(root, &split(".env")), Verdict::Allowed);
        assert_eq!(guard.check(root, &split("deploy/id_rsa")), Verdict::Allowed);
        assert_eq!(guard.check(root, &split("a/.env")), Verdict::Secret);
        assert_eq!(
            guard.check(root, &split("deployer/id_rsa")),
            Verdict::Secret
        );
    }

    #[test]
    fn protected_folders_are_refused_whatever_is_allowed() {
        let guard = SecretGuard::new(&[PathBuf::from("/w/.strata/config")], &["x".into()]);
        let verdict = guard.check(Path::new("/w/.strata/config/x"), &split("x"));
        assert_eq!(verdict, Verdict::Protected);
        let verdict = guard.check(Path::new("/w/.strata/configs"), &split("configs"));
        assert_eq!(verdict, Verdict::Allowed);
    }
}
