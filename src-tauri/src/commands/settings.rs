//! What the app runs on: the active profile (`app_info`), the settings screen
//! (`get_settings`, `save_settings`) and API keys (`set_api_key`). Keys go
//! into the key store and never come back: a profile only says `hasKey`.

use std::collections::BTreeMap;

use strata_protocol::{AppInfo, Settings};
use strata_providers::config::resolve_profile;
use strata_providers::{ApiKey, ApiKeySource, KeyStore, ProfileFlags, ProviderKind};
use tauri::State;

use super::{Shared, blocking};
use crate::errors::{CommandResult, ToCommandError, invalid_input, not_found};
use crate::settings::{
    DesktopPrefs, KeyPresence, config_from_settings, custom_labels, profile_view, profile_views,
    settings_of,
};

/// The version, where Strata keeps its files, and the active profile (the
/// offline demo model when nothing is configured).
#[tauri::command]
pub async fn app_info(state: State<'_, Shared>) -> CommandResult<AppInfo> {
    blocking(&state, |state| {
        let config = state.config()?;
        let profile = resolve_profile(&config, &ProfileFlags::default(), state.env())
            .map_err(ToCommandError::to_command_error)?;
        let has_key = KeyPresence::new(&config, state.paths(), state.env()).has_key(&profile);
        let mut active_profile = profile_view(&profile.name, &profile, has_key);
        if let Some(label) = state.prefs().labels.remove(&profile.name) {
            active_profile.label = label;
        }
        Ok(AppInfo {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            strata_home: strata_home(state.paths()),
            is_demo: profile.is_demo(),
            active_profile,
        })
    })
    .await
}

/// `STRATA_HOME`, or the folder holding the sessions.
fn strata_home(paths: &strata_core::StrataPaths) -> String {
    paths
        .sessions
        .parent()
        .unwrap_or(&paths.sessions)
        .display()
        .to_string()
}

#[tauri::command]
pub async fn get_settings(state: State<'_, Shared>) -> CommandResult<Settings> {
    blocking(&state, |state| {
        let config = state.config()?;
        let mut keys = KeyPresence::new(&config, state.paths(), state.env());
        settings_of(&config, state.prefs(), state.env(), &mut keys)
            .map_err(ToCommandError::to_command_error)
    })
    .await
}

/// Validates everything, then writes the config file and the desktop
/// preferences; invalid input saves nothing. Sessions open for turns pick the
/// new settings up at their next turn.
#[tauri::command]
pub async fn save_settings(
    state: State<'_, Shared>,
    settings: Settings,
) -> CommandResult<Settings> {
    let saved = blocking(&state, move |state| {
        let existing = state.config()?;
        let config = config_from_settings(&settings, &existing).map_err(|problems| {
            invalid_input(format!("Nothing was saved. {}", problems.join(" ")))
        })?;
        config
            .save(&state.paths().config_file())
            .map_err(ToCommandError::to_command_error)?;
        let mut keys = KeyPresence::new(&config, state.paths(), state.env());
        let (derived, _) = profile_views(&config, state.env(), &mut keys, &BTreeMap::new())
            .map_err(ToCommandError::to_command_error)?;
        let prefs = DesktopPrefs {
            theme: settings.theme,
            approval_policy: settings.approval_policy,
            labels: custom_labels(&settings, &derived),
        };
        prefs.save(&state.paths().config).map_err(|error| {
            crate::errors::io(format!("Could not save the desktop preferences: {error}"))
        })?;
        tracing::info!(profiles = config.profiles.len(), "settings saved");
        settings_of(&config, prefs, state.env(), &mut keys)
            .map_err(ToCommandError::to_command_error)
    })
    .await?;
    state.settings_changed();
    Ok(saved)
}

/// Stores the profile's API key in the key store (the OS keychain, else a
/// file readable by the user alone) and points the profile at it.
#[tauri::command]
pub async fn set_api_key(
    state: State<'_, Shared>,
    profile_id: String,
    key: String,
) -> CommandResult<()> {
    blocking(&state, move |state| {
        let key = key.trim();
        if key.is_empty() {
            return Err(invalid_input("The API key is empty."));
        }
        let mut config = state.config()?;
        let profile = config.profiles.get_mut(&profile_id).ok_or_else(|| {
            not_found(format!(
                "No saved profile is named {profile_id:?}; save the settings first."
            ))
        })?;
        if profile.kind == ProviderKind::Demo {
            return Err(invalid_input("The offline demo model takes no key."));
        }
        let store = KeyStore::open(config.key_store, &state.paths().config);
        store
            .set(&profile_id, &ApiKey::new(key))
            .map_err(ToCommandError::to_command_error)?;
        let source = ApiKeySource::Keychain(profile_id.clone());
        if profile.api_key.as_ref() != Some(&source) {
            profile.api_key = Some(source);
            config
                .save(&state.paths().config_file())
                .map_err(ToCommandError::to_command_error)?;
        }
        tracing::info!(profile = %profile_id, store = %store.describe(), "API key stored");
        Ok(())
    })
    .await?;
    state.settings_changed();
    Ok(())
}
