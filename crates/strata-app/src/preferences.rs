//! The settings commands: the active profile (`app_info`), the settings
//! screen (`get_settings`, `save_settings`), API keys (`set_api_key`), the
//! window layout kept between runs (`save_layout`) and
//! the provider kinds a profile can have (`provider_kinds`, from the
//! providers' catalog, so the UI keeps no copy). Keys go into the key store
//! and never come back: a profile only says `has_key`.

use strata_protocol::{ProviderKind, ProviderKindInfo};
use strata_providers::{ApiKey, ApiKeySource, KeyStore, ProviderKindExt, StrataConfig};

use crate::App;
use crate::error::{AppResult, invalid_input, not_found};

/// The debug console widths `save_layout` keeps, in pixels: the UI's own
/// bounds are narrower (280 to 900); these only refuse nonsense.
pub(crate) const CONSOLE_WIDTHS: (u32, u32) = (200, 4000);

/// What the settings screen calls each kind.
pub(crate) fn kind_label(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::OpenaiResponses => "OpenAI Responses",
        ProviderKind::OpenaiChat => "OpenAI-compatible Chat Completions",
        ProviderKind::Anthropic => "Anthropic Messages",
        ProviderKind::Demo => "Offline demo",
    }
}

/// `provider_kinds`: every kind with its label, default model and endpoint.
pub fn provider_kinds() -> Vec<ProviderKindInfo> {
    ProviderKind::ALL
        .into_iter()
        .map(|kind| ProviderKindInfo {
            kind,
            label: kind_label(kind).to_owned(),
            default_model: kind.default_model().to_owned(),
            default_base_url: kind.default_base_url().map(str::to_owned),
        })
        .collect()
}

impl App {
    /// Stores `key` for `profile_id` of `config` in the key store and points
    /// the profile at it; true when `config` changed and must be saved.
    pub(crate) fn store_key(
        &self,
        config: &mut StrataConfig,
        profile_id: &str,
        key: &ApiKey,
    ) -> AppResult<bool> {
        let store = KeyStore::open(config.key_store, &self.paths.config);
        let profile = config.profiles.get_mut(profile_id).ok_or_else(|| {
            not_found(format!(
                "No saved profile is named {profile_id:?}; save the settings first."
            ))
        })?;
        if profile.kind == ProviderKind::Demo {
            return Err(invalid_input("The offline demo model takes no key."));
        }
        store.set(profile_id, key)?;
        tracing::info!(profile = %profile_id, store = %store.describe(), "API key stored");
        let source = ApiKeySource::Keychain(profile_id.to_owned());
        if profile.api_key.as_ref() == Some(&source) {
            return Ok(false);
        }
        profile.api_key = Some(source);
        Ok(true)
    }

    /// `STRATA_HOME`, or the folder holding the sessions.
    pub(crate) fn strata_home(&self) -> String {
        self.paths
            .sessions
            .parent()
            .unwrap_or(&self.paths.sessions)
            .display()
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_offered_with_its_default_model() {
        let kinds = provider_kinds();
        assert_eq!(kinds.len(), ProviderKind::ALL.len());
        let chat = kinds
            .iter()
            .find(|k| k.kind == ProviderKind::OpenaiChat)
            .unwrap();
        assert_eq!(chat.default_model, ProviderKind::OpenaiChat.default_model());
        assert!(kinds.iter().all(|k| !k.label.is_empty()));
    }
}
