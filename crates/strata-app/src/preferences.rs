//! The settings commands: the active profile (`app_info`), the settings
//! screen (`get_settings`, `save_settings`), API keys (`set_api_key`), the
//! window layout kept between runs (`save_layout`) and
//! the provider kinds a profile can have (`provider_kinds`, from the
//! providers' catalog, so the UI keeps no copy). Keys go into the key store
//! and never come back: a profile only says `has_key`.

use std::collections::BTreeMap;
use std::sync::Arc;

use strata_protocol::{
    AppInfo, GetAppInfo, GetSettings, ListProviderKinds, ProviderKind, ProviderKindInfo,
    SaveLayout, SaveSettings, SetApiKey, Settings,
};
use strata_providers::config::resolve_profile;
use strata_providers::{
    ApiKey, ApiKeySource, KeyStore, ProfileFlags, ProviderKindExt, StrataConfig,
};

use crate::error::{AppResult, CommandResult, invalid_input, io, not_found};
use crate::settings::{
    DesktopPrefs, KeyPresence, config_from_settings, custom_labels, profile_view, profile_views,
    settings_of,
};
use crate::{App, validate};

/// The debug console widths `save_layout` keeps, in pixels: the UI's own
/// bounds are narrower (280 to 900); these only refuse nonsense.
const CONSOLE_WIDTHS: (u32, u32) = (200, 4000);

/// What the settings screen calls each kind.
fn kind_label(kind: ProviderKind) -> &'static str {
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
    /// `provider_kinds`: [`provider_kinds`], as a command.
    pub async fn provider_kinds(
        self: &Arc<Self>,
        _request: ListProviderKinds,
    ) -> CommandResult<Vec<ProviderKindInfo>> {
        Ok(provider_kinds())
    }

    /// `app_info`: the version, where Strata keeps its files, and the active
    /// profile (the offline demo model when nothing is configured).
    pub async fn app_info(self: &Arc<Self>, _request: GetAppInfo) -> CommandResult<AppInfo> {
        self.blocking(|app| {
            let config = app.config()?;
            let profile = resolve_profile(&config, &ProfileFlags::default(), app.env())?;
            let has_key = KeyPresence::new(&config, &app.paths, app.env()).has_key(&profile);
            let mut active_profile = profile_view(&profile.name, &profile, has_key);
            let mut prefs = app.prefs();
            if let Some(label) = prefs.labels.remove(&profile.name) {
                active_profile.label = label;
            }
            Ok(AppInfo {
                version: env!("CARGO_PKG_VERSION").to_owned(),
                strata_home: app.strata_home(),
                is_demo: profile.is_demo(),
                active_profile,
                console_width: prefs.console_width,
            })
        })
        .await
    }

    /// `get_settings`.
    pub async fn get_settings(self: &Arc<Self>, _request: GetSettings) -> CommandResult<Settings> {
        self.blocking(|app| {
            let config = app.config()?;
            let mut keys = KeyPresence::new(&config, &app.paths, app.env());
            Ok(settings_of(&config, app.prefs(), app.env(), &mut keys)?)
        })
        .await
    }

    /// `save_settings`: validates everything, then writes the config file
    /// and the desktop preferences; invalid input saves nothing. Sessions
    /// open for turns pick the new settings up at their next turn.
    pub async fn save_settings(self: &Arc<Self>, request: SaveSettings) -> CommandResult<Settings> {
        let settings = request.settings;
        let mut keys = Vec::with_capacity(request.api_keys.len());
        for typed in request.api_keys {
            let profile_id = validate::profile_id(&typed.profile_id)?;
            keys.push((profile_id, ApiKey::new(validate::api_key(&typed.key)?)));
        }
        let saved = self
            .blocking(move |app| {
                let existing = app.config()?;
                let mut config =
                    config_from_settings(&settings, &existing).map_err(|problems| {
                        invalid_input(format!("Nothing was saved. {}", problems.join(" ")))
                    })?;
                for (profile_id, key) in &keys {
                    app.store_key(&mut config, profile_id, key)?;
                }
                config.save(&app.paths.config_file())?;
                let mut keys = KeyPresence::new(&config, &app.paths, app.env());
                let (derived, _) = profile_views(&config, app.env(), &mut keys, &BTreeMap::new())?;
                let prefs = DesktopPrefs {
                    theme: settings.theme,
                    approval_policy: settings.approval_policy,
                    labels: custom_labels(&settings, &derived),
                    compact_threshold: settings.compact_threshold,
                    // Not a setting of the form: kept as it is.
                    console_width: app.prefs().console_width,
                };
                prefs.save(&app.paths.config).map_err(|error| {
                    io(format!("Could not save the desktop preferences: {error}"))
                })?;
                tracing::info!(profiles = config.profiles.len(), "settings saved");
                Ok(settings_of(&config, prefs, app.env(), &mut keys)?)
            })
            .await?;
        self.settings_changed();
        Ok(saved)
    }

    /// `save_layout`: keeps the debug console's chosen width in the desktop
    /// preferences, for the next run. A width no window could show is refused.
    pub async fn save_layout(self: &Arc<Self>, request: SaveLayout) -> CommandResult<()> {
        let width = request.console_width;
        if !(CONSOLE_WIDTHS.0..=CONSOLE_WIDTHS.1).contains(&width) {
            return Err(invalid_input(format!(
                "A console width of {width} px is outside {}..={} px.",
                CONSOLE_WIDTHS.0, CONSOLE_WIDTHS.1
            ))
            .into());
        }
        self.blocking(move |app| {
            let mut prefs = app.prefs();
            prefs.console_width = Some(width);
            prefs
                .save(&app.paths.config)
                .map_err(|error| io(format!("Could not save the desktop preferences: {error}")))?;
            Ok(())
        })
        .await
    }

    /// `set_api_key`: stores the profile's API key in the key store (the OS
    /// keychain, else a file readable by the user alone) and points the
    /// profile at it.
    pub async fn set_api_key(self: &Arc<Self>, request: SetApiKey) -> CommandResult<()> {
        let profile_id = validate::profile_id(&request.profile_id)?;
        let key = ApiKey::new(validate::api_key(&request.key)?);
        self.blocking(move |app| {
            let mut config = app.config()?;
            if app.store_key(&mut config, &profile_id, &key)? {
                config.save(&app.paths.config_file())?;
            }
            Ok(())
        })
        .await?;
        self.settings_changed();
        Ok(())
    }

    /// Stores `key` for `profile_id` of `config` in the key store and points
    /// the profile at it; true when `config` changed and must be saved.
    fn store_key(
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
    fn strata_home(&self) -> String {
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
