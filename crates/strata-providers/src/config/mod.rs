//! Provider configuration: profiles (kind, base URL, model, key source, model
//! metadata), the TOML config file, the built-in model catalog, and the
//! resolution of the one profile a session uses.
//!
//! Precedence, highest first: explicit flags, the config file, the
//! environment (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `OPENAI_BASE_URL`),
//! and finally the offline demo model.

mod catalog;
mod file;
mod network;
mod price;
mod resolve;
mod tools;

use std::path::Path;

use crate::error::{ProviderError, Result};

pub use catalog::{
    DEFAULT_COMPACTION_PERCENT, FALLBACK_CONTEXT_WINDOW, FALLBACK_MAX_OUTPUT_TOKENS, MODEL_CATALOG,
    ModelInfo, default_compaction_threshold, lookup_model, model_label,
};
pub use file::{
    ApiKeySource, McpServerTables, ModelOverride, ProfileConfig, StrataConfig, ToolsConfig,
};
pub use network::NetworkConfig;
pub use price::{PriceConfig, profile_price};
pub use resolve::{
    ANTHROPIC_API_KEY_ENV, EnvLookup, MetadataSource, OPENAI_API_KEY_ENV, OPENAI_BASE_URL_ENV,
    ProfileFlags, ProfileOrigin, ProviderProfile, ResolvedProfile, load_and_resolve, process_env,
    resolve, resolve_profile, with_key,
};

pub use strata_protocol::ProviderKind;

/// What the providers crate knows about each [`ProviderKind`]: its default
/// endpoint, key variable and model.
pub trait ProviderKindExt {
    /// The base URL a profile of this kind uses unless it names one; it
    /// includes the version segment, so endpoints are `base_url + path`.
    fn default_base_url(self) -> Option<&'static str>;
    /// The environment variable holding the key unless a profile says
    /// otherwise.
    fn default_api_key_env(self) -> Option<&'static str>;
    /// The model used when a profile of this kind names none.
    fn default_model(self) -> &'static str;
}

impl ProviderKindExt for ProviderKind {
    fn default_base_url(self) -> Option<&'static str> {
        match self {
            ProviderKind::OpenaiResponses | ProviderKind::OpenaiChat => {
                Some("https://api.openai.com/v1")
            }
            ProviderKind::Anthropic => Some("https://api.anthropic.com/v1"),
            ProviderKind::Demo => None,
        }
    }

    fn default_api_key_env(self) -> Option<&'static str> {
        match self {
            ProviderKind::OpenaiResponses | ProviderKind::OpenaiChat => Some(OPENAI_API_KEY_ENV),
            ProviderKind::Anthropic => Some(ANTHROPIC_API_KEY_ENV),
            ProviderKind::Demo => None,
        }
    }

    fn default_model(self) -> &'static str {
        match self {
            ProviderKind::OpenaiResponses => "gpt-5.4",
            ProviderKind::OpenaiChat => "gpt-4.1-mini",
            ProviderKind::Anthropic => "claude-sonnet-4-5",
            ProviderKind::Demo => crate::demo::DEMO_MODEL,
        }
    }
}

/// Replaces `path` with `bytes` so readers see the old or the new file,
/// never half of one: a temporary file in the same folder, synced, then
/// renamed over it. Strata's config and key files are readable by the user
/// alone: the file is created 0600 and its folder 0700 (tightened when it
/// exists).
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    strata_core::private::write_replacing(path, bytes).map_err(ProviderError::io("replace", path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/config.toml");
        write_atomically(&path, b"first").unwrap();
        write_atomically(&path, b"second").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    }

    #[cfg(unix)]
    #[test]
    fn config_files_and_their_folder_are_owner_only_even_when_made_wider() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| strata_core::private::mode(path).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        let path = config.join("config.toml");
        write_atomically(&path, b"first").unwrap();
        assert_eq!((mode(&config), mode(&path)), (0o700, 0o600));
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_atomically(&path, b"second").unwrap();
        assert_eq!((mode(&config), mode(&path)), (0o700, 0o600));
    }
}
