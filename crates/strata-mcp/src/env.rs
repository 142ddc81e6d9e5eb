//! The environment a server starts with: Strata's environment is cleared,
//! then an allow-list is copied from it, then the config's `env_vars` (named
//! variables copied from Strata's environment) and `env` (values).
//!
//! Variables that decide which program or library runs (`PATH`, `LD_*`, and
//! on macOS `DYLD_*`) or what Node loads into every process (`NODE_OPTIONS`)
//! cannot come from a config: a project-proposed server must not be able to
//! turn an approved command into another one.

use std::collections::BTreeMap;

use crate::{McpError, StdioServerConfig};

/// Copied from Strata's environment for every server.
const INHERITED: [&str; 6] = ["HOME", "USER", "LANG", "TERM", "TMPDIR", "PATH"];
/// Locale variables (`LC_ALL`, `LC_CTYPE`, ...) are copied too.
const INHERITED_PREFIX: &str = "LC_";

/// Whether Strata's own `name` is copied to every server.
#[must_use]
pub fn is_inherited(name: &str) -> bool {
    INHERITED.contains(&name) || name.starts_with(INHERITED_PREFIX)
}

/// Whether a config may not set or copy `name`.
#[must_use]
pub fn is_protected(name: &str) -> bool {
    name == "PATH" || name == "NODE_OPTIONS" || name.starts_with("LD_") || name.starts_with("DYLD_")
}

fn is_valid_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['=', '\0'])
}

/// The server's whole environment, from Strata's environment `parent`.
pub fn server_environment(
    config: &StdioServerConfig,
    parent: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, McpError> {
    let server = || config.name.clone();
    let named = config.env.keys().chain(config.env_vars.iter());
    for name in named {
        if !is_valid_name(name) {
            return Err(McpError::InvalidEnvVarName {
                server: server(),
                name: name.clone(),
            });
        }
        if is_protected(name) {
            return Err(McpError::ProtectedEnvVar {
                server: server(),
                name: name.clone(),
            });
        }
    }
    if let Some(name) = config.env.iter().find(|(_, value)| value.contains('\0')) {
        return Err(McpError::InvalidEnvVarValue {
            server: server(),
            name: name.0.clone(),
        });
    }

    let mut environment: BTreeMap<String, String> = parent
        .iter()
        .filter(|(name, _)| is_inherited(name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    for name in &config.env_vars {
        let Some(value) = parent.get(name) else {
            return Err(McpError::MissingEnvVar {
                server: server(),
                name: name.clone(),
            });
        };
        environment.insert(name.clone(), value.clone());
    }
    for (name, value) in &config.env {
        environment.insert(name.clone(), value.clone());
    }
    Ok(environment)
}

/// Strata's environment, without the variables whose name or value is not
/// UTF-8 (no config can name those).
#[must_use]
pub fn current_environment() -> BTreeMap<String, String> {
    std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parent() -> BTreeMap<String, String> {
        [
            ("HOME", "/home/ada"),
            ("PATH", "/usr/bin:/bin"),
            ("LC_TIME", "en_GB.UTF-8"),
            ("OPENAI_API_KEY", "sk-secret"),
            ("LD_PRELOAD", "/tmp/evil.so"),
            ("DOCS_TOKEN", "docs-token"),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect()
    }

    #[test]
    fn only_the_allow_list_is_inherited_and_secrets_stay_behind() {
        let config = StdioServerConfig::new("docs", "docs-server", &[]);
        let environment = server_environment(&config, &parent()).unwrap();
        let names: Vec<&str> = environment.keys().map(String::as_str).collect();
        assert_eq!(names, ["HOME", "LC_TIME", "PATH"]);
    }

    #[test]
    fn env_vars_are_copied_and_env_values_are_set() {
        let mut config = StdioServerConfig::new("docs", "docs-server", &[]);
        config.env_vars = vec!["DOCS_TOKEN".into()];
        config.env.insert("DOCS_REGION".into(), "eu".into());
        config.env.insert("HOME".into(), "/srv/docs".into());
        let environment = server_environment(&config, &parent()).unwrap();
        assert_eq!(environment["DOCS_TOKEN"], "docs-token");
        assert_eq!(environment["DOCS_REGION"], "eu");
        assert_eq!(environment["HOME"], "/srv/docs");
    }

    #[test]
    fn a_named_variable_missing_from_strata_is_an_error_that_names_it() {
        let mut config = StdioServerConfig::new("docs", "docs-server", &[]);
        config.env_vars = vec!["GITHUB_TOKEN".into()];
        let error = server_environment(&config, &parent()).unwrap_err();
        assert!(matches!(&error, McpError::MissingEnvVar { name, .. } if name == "GITHUB_TOKEN"));
        assert!(error.to_string().contains("GITHUB_TOKEN"), "{error}");
    }

    #[test]
    fn path_ld_and_node_options_cannot_be_overridden_or_copied() {
        for name in [
            "PATH",
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "NODE_OPTIONS",
            "DYLD_INSERT_LIBRARIES",
        ] {
            let mut set = StdioServerConfig::new("docs", "docs-server", &[]);
            set.env.insert(name.into(), "x".into());
            let mut copied = StdioServerConfig::new("docs", "docs-server", &[]);
            copied.env_vars = vec![name.into()];
            for config in [set, copied] {
                let error = server_environment(&config, &parent()).unwrap_err();
                assert!(
                    matches!(&error, McpError::ProtectedEnvVar { name: refused, .. } if refused == name),
                    "{name}: {error}"
                );
                assert!(error.to_string().contains(name), "{error}");
            }
        }
    }

    #[test]
    fn names_with_an_equals_sign_and_values_with_nul_are_refused() {
        let mut config = StdioServerConfig::new("docs", "docs-server", &[]);
        config.env.insert("A=B".into(), "x".into());
        assert!(matches!(
            server_environment(&config, &parent()),
            Err(McpError::InvalidEnvVarName { .. })
        ));
        let mut config = StdioServerConfig::new("docs", "docs-server", &[]);
        config.env.insert("A".into(), "x\0y".into());
        assert!(matches!(
            server_environment(&config, &parent()),
            Err(McpError::InvalidEnvVarValue { .. })
        ));
    }

    fn name() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("PATH".to_owned()),
            Just("HOME".to_owned()),
            Just("NODE_OPTIONS".to_owned()),
            "LD_[A-Z]{1,6}",
            "LC_[A-Z]{1,6}",
            "[A-Z_]{1,8}",
        ]
    }

    proptest! {
        /// Whatever the parent and the config hold, the server sees only the
        /// allow-list and what the config names, and a protected variable
        /// only ever comes from Strata's own environment (PATH).
        #[test]
        fn the_environment_holds_nothing_the_config_did_not_name(
            parent in proptest::collection::btree_map(name(), "[a-z]{0,4}", 0..12),
            env in proptest::collection::btree_map(name(), "[a-z]{0,4}", 0..4),
            env_vars in proptest::collection::vec(name(), 0..4),
        ) {
            let mut config = StdioServerConfig::new("docs", "docs-server", &[]);
            config.env = env.clone();
            config.env_vars = env_vars.clone();
            match server_environment(&config, &parent) {
                Ok(environment) => {
                    for (name, value) in &environment {
                        prop_assert!(
                            is_inherited(name) || env.contains_key(name) || env_vars.contains(name),
                            "{name} leaked"
                        );
                        if is_protected(name) {
                            prop_assert_eq!(name.as_str(), "PATH");
                            prop_assert_eq!(Some(value), parent.get(name));
                        }
                    }
                }
                Err(McpError::ProtectedEnvVar { name, .. }) => {
                    prop_assert!(is_protected(&name));
                    prop_assert!(env.contains_key(&name) || env_vars.contains(&name));
                }
                Err(McpError::MissingEnvVar { name, .. }) => {
                    prop_assert!(env_vars.contains(&name) && !parent.contains_key(&name));
                }
                Err(other) => prop_assert!(false, "unexpected {other}"),
            }
        }
    }
}
