//! Setting a provider up from the settings screen: `test_connection` sends
//! the draft's model one small request, `list_models` reads the models its
//! server offers. Both work on a profile that is not saved yet, with a key
//! only typed: the key is used for the request and kept nowhere.

use strata_protocol::{ProviderDraft, ProviderKind, endpoint_without_secrets};
use strata_providers::config::resolve;
use strata_providers::{ApiKey, Endpoint, HttpOptions, KeyStore, ProfileFlags, ProviderKindExt};

use crate::error::{AppResult, invalid_input};
use crate::{App, validate};

/// Where a draft's requests go, and with which key and transport settings.
pub(crate) struct Target {
    pub(crate) kind: ProviderKind,
    pub(crate) endpoint: Endpoint,
    pub(crate) http: HttpOptions,
}

impl Target {
    pub(crate) fn shown(&self) -> String {
        endpoint_without_secrets(&self.endpoint.base_url)
    }
}

impl App {
    /// The endpoint and key a draft names: its base URL or the kind's
    /// default; the typed key, else the saved profile's, else the kind's
    /// environment variable. Opens the key store: call it blocking.
    pub(crate) fn target_of(&self, draft: &ProviderDraft) -> AppResult<Target> {
        if draft.model.trim().is_empty() {
            return Err(invalid_input("Enter a model first."));
        }
        let base_url = match draft.base_url.as_deref().map(str::trim) {
            Some(url) if !url.is_empty() => url.to_owned(),
            _ => draft
                .kind
                .default_base_url()
                .ok_or_else(|| invalid_input("Enter the server's base URL."))?
                .to_owned(),
        };
        if !base_url.starts_with("http://") && !base_url.starts_with("https://") {
            return Err(invalid_input(
                "Enter a full http:// or https:// base URL, or leave it empty for the default.",
            ));
        }
        let config = self.config()?;
        let typed = match draft.api_key.as_deref().map(str::trim) {
            Some(key) if !key.is_empty() => Some(ApiKey::new(validate::api_key(key)?)),
            _ => None,
        };
        let saved = match (&typed, &draft.profile_id) {
            (None, Some(id)) if config.profiles.contains_key(id) => {
                let store = KeyStore::open(config.key_store, &self.paths.config);
                let flags = ProfileFlags {
                    profile: Some(id.clone()),
                    ..ProfileFlags::default()
                };
                resolve(&config, &flags, self.env(), &store, &self.paths.config)?.api_key
            }
            _ => None,
        };
        let from_env = || {
            draft
                .kind
                .default_api_key_env()
                .and_then(|var| (self.env())(var))
                .filter(|key| !key.trim().is_empty())
                .map(ApiKey::new)
        };
        let key = typed.or(saved).or_else(from_env);
        Ok(Target {
            kind: draft.kind,
            endpoint: Endpoint::new(base_url, key),
            http: config.network.options(),
        })
    }
}
