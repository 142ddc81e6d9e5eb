//! Settings and profiles. Provider profiles live in the config file the
//! command line reads too (`config/config.toml`, see `strata_providers::config`);
//! the desktop's own preferences (theme, approval policy) in
//! `config/desktop.toml`. Everything is validated before anything is written.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use strata_core::StrataPaths;
use strata_protocol::{
    ApprovalPolicy, CompactionPolicy, ProfileView, SandboxMode, SandboxNetwork, Settings, Theme,
    ThresholdSetting,
};
use strata_providers::config::{EnvLookup, ProfileOrigin, ToolsConfig};
use strata_providers::{
    ApiKeySource, KeyStore, ProfileConfig, ProfileFlags, ProviderKind, ProviderProfile,
    StrataConfig, config::resolve_profile,
};

/// The desktop preferences file inside the config folder.
pub const DESKTOP_FILE: &str = "desktop.toml";

/// The id the built-in offline demo profile is shown under when the config
/// file has no demo profile of its own.
pub const DEMO_PROFILE_ID: &str = "demo";
/// The id it is shown under when a config profile is already named `demo`.
pub const OTHER_DEMO_PROFILE_ID: &str = "offline-demo";
/// Both, for commands that take a profile id.
pub const DEMO_PROFILE_IDS: [&str; 2] = [DEMO_PROFILE_ID, OTHER_DEMO_PROFILE_ID];

/// What only the desktop app keeps.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DesktopPrefs {
    pub theme: Theme,
    pub approval_policy: ApprovalPolicy,
    /// Names a person gave profiles, by profile id; profiles without one
    /// are shown with a name derived from their provider and model.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// The threshold override new sessions record (`80%`, `12000`,
    /// `left:20000`); none: each profile's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact_threshold: Option<ThresholdSetting>,
    /// The debug console's width the person last chose, in pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub console_width: Option<u32>,
    /// Which other agents' sessions the library shows, and those hidden.
    #[serde(skip_serializing_if = "crate::imported::ImportPrefs::is_unset")]
    pub imported: crate::imported::ImportPrefs,
}

impl DesktopPrefs {
    /// The preferences in `config_dir`; a missing file means the defaults,
    /// and so does a damaged one (with a warning): it holds nothing a person
    /// could lose, and the default policy is the cautious one.
    pub fn load(config_dir: &Path) -> Self {
        let path = config_dir.join(DESKTOP_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => toml::from_str(&text).unwrap_or_else(|error| {
                tracing::warn!(path = %path.display(), %error, "ignoring unreadable desktop preferences");
                Self::default()
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Self::default(),
            Err(error) => {
                tracing::warn!(path = %path.display(), %error, "cannot read desktop preferences");
                Self::default()
            }
        }
    }

    pub fn save(&self, config_dir: &Path) -> std::io::Result<()> {
        let text = toml::to_string(self).map_err(std::io::Error::other)?;
        write_replacing(&config_dir.join(DESKTOP_FILE), text.as_bytes())
    }
}

/// Replaces `path` whole (owner-only, synced, renamed over it): see
/// [`strata_core::private::write_replacing`].
pub(crate) use strata_core::private::write_replacing;

/// What the UI calls a profile: derived, so it always matches the profile.
fn label_for(profile: &ProviderProfile) -> String {
    let kind = match profile.kind {
        ProviderKind::Demo => return "Offline demo".into(),
        ProviderKind::OpenaiResponses => "OpenAI Responses",
        ProviderKind::OpenaiChat => "Chat Completions",
        ProviderKind::Anthropic => "Anthropic",
    };
    format!("{kind} · {}", profile.model_label)
}

/// A resolved profile as the UI sees it, under `id`.
pub fn profile_view(id: &str, profile: &ProviderProfile, has_key: bool) -> ProfileView {
    ProfileView {
        id: id.to_owned(),
        kind: profile.kind,
        label: label_for(profile),
        base_url: profile.base_url.clone(),
        model: profile.model.clone(),
        has_key,
        context_window: Some(profile.context_window),
        compact_threshold: profile.compaction_threshold,
    }
}

/// Whether a key is available from `source`, without showing it. The key
/// store is opened once, and only if a profile keeps its key there.
pub struct KeyPresence<'a> {
    config: &'a StrataConfig,
    paths: &'a StrataPaths,
    env: EnvLookup<'a>,
    store: Option<KeyStore>,
}

impl<'a> KeyPresence<'a> {
    pub fn new(config: &'a StrataConfig, paths: &'a StrataPaths, env: EnvLookup<'a>) -> Self {
        Self {
            config,
            paths,
            env,
            store: None,
        }
    }

    pub fn has_key(&mut self, profile: &ProviderProfile) -> bool {
        match &profile.api_key_source {
            ApiKeySource::None => false,
            ApiKeySource::Env(var) => (self.env)(var).is_some_and(|v| !v.trim().is_empty()),
            ApiKeySource::Keychain(_) | ApiKeySource::File(_) => {
                let (config, paths) = (self.config, self.paths);
                let store = self
                    .store
                    .get_or_insert_with(|| KeyStore::open(config.key_store, &paths.config));
                profile
                    .load_api_key(self.env, store, &paths.config)
                    .is_ok_and(|key| key.is_some())
            }
        }
    }
}

/// Every profile the settings screen lists, and the active one's id: the
/// config file's profiles, the profile the environment selects when no
/// config profile is active, and always an offline demo profile.
pub fn profile_views(
    config: &StrataConfig,
    env: EnvLookup<'_>,
    keys: &mut KeyPresence<'_>,
    labels: &BTreeMap<String, String>,
) -> Result<(Vec<ProfileView>, String), strata_providers::ProviderError> {
    let active = resolve_profile(config, &ProfileFlags::default(), env)?;
    let mut views = Vec::new();
    for name in config.profiles.keys() {
        let flags = ProfileFlags {
            profile: Some(name.clone()),
            ..Default::default()
        };
        let profile = resolve_profile(config, &flags, env)?;
        views.push(profile_view(name, &profile, keys.has_key(&profile)));
    }
    if active.origin != ProfileOrigin::ConfigFile {
        views.push(profile_view(&active.name, &active, keys.has_key(&active)));
    }
    if !views.iter().any(|view| view.kind == ProviderKind::Demo) {
        let demo = demo_profile(env)?;
        let id = if views.iter().any(|view| view.id == DEMO_PROFILE_ID) {
            OTHER_DEMO_PROFILE_ID
        } else {
            DEMO_PROFILE_ID
        };
        views.push(profile_view(id, &demo, false));
    }
    for view in &mut views {
        if let Some(label) = labels.get(&view.id) {
            view.label.clone_from(label);
        }
    }
    Ok((views, active.name))
}

fn demo_profile(env: EnvLookup<'_>) -> Result<ProviderProfile, strata_providers::ProviderError> {
    let flags = ProfileFlags {
        kind: Some(ProviderKind::Demo),
        ..Default::default()
    };
    resolve_profile(&StrataConfig::default(), &flags, env)
}

/// The settings screen's state.
pub fn settings_of(
    config: &StrataConfig,
    prefs: DesktopPrefs,
    env: EnvLookup<'_>,
    keys: &mut KeyPresence<'_>,
) -> Result<Settings, strata_providers::ProviderError> {
    let (profiles, active_profile) = profile_views(config, env, keys, &prefs.labels)?;
    Ok(Settings {
        profiles,
        active_profile,
        approval_policy: prefs.approval_policy,
        theme: prefs.theme,
        compaction_policy: config.compaction_policy.unwrap_or_default(),
        compact_threshold: prefs.compact_threshold,
        sandbox: config.tools.sandbox.unwrap_or_default(),
        sandbox_network: config.tools.sandbox_network.unwrap_or_default(),
        sandbox_allow_domains: config.tools.sandbox_allow_domains.clone(),
    })
}

/// The names in `settings` that differ from the derived ones (`derived`:
/// the saved profiles' views without custom names).
pub fn custom_labels(settings: &Settings, derived: &[ProfileView]) -> BTreeMap<String, String> {
    settings
        .profiles
        .iter()
        .filter_map(|view| {
            let id = view.id.trim();
            let label = view.label.split_whitespace().collect::<Vec<_>>().join(" ");
            let default = derived
                .iter()
                .find(|d| d.id == id)
                .map(|d| d.label.as_str());
            (!label.is_empty() && default.is_some_and(|d| d != label))
                .then(|| (id.to_owned(), label))
        })
        .collect()
}

/// The config file `settings` describe, or every problem with them. Key
/// sources and output limits the UI does not show are kept from `existing`;
/// values equal to what resolution would pick anyway are left out, so the
/// catalog's figures keep applying.
pub fn config_from_settings(
    settings: &Settings,
    existing: &StrataConfig,
) -> Result<StrataConfig, Vec<String>> {
    let mut problems = Vec::new();
    if settings.profiles.is_empty() {
        problems.push("Add at least one provider profile.".to_owned());
    }
    let mut profiles = BTreeMap::new();
    for view in &settings.profiles {
        let id = view.id.trim().to_owned();
        if id.is_empty() {
            problems.push("Every profile needs a name.".to_owned());
            continue;
        }
        if let Err(error) = crate::validate::profile_id(&id) {
            problems.push(strata_protocol::CommandError::from(error).message);
            continue;
        }
        if view.label.chars().any(char::is_control)
            || view.label.chars().count() > crate::validate::MAX_TITLE_CHARS
        {
            problems.push(format!(
                "Profile {id:?}: the name shown must be one line of at most {} characters.",
                crate::validate::MAX_TITLE_CHARS
            ));
        }
        let profile = profile_config(view, existing.profiles.get(&id), &mut problems);
        if profiles.insert(id.clone(), profile).is_some() {
            problems.push(format!("Two profiles are named {id:?}; names must differ."));
        }
    }
    let active = settings.active_profile.trim().to_owned();
    if !profiles.contains_key(&active) {
        problems.push(format!(
            "The active profile {active:?} is not one of the profiles."
        ));
    }
    let config = StrataConfig {
        default_profile: Some(active),
        key_store: existing.key_store,
        profiles,
        models: existing.models.clone(),
        network: existing.network.clone(),
        // Written when chosen: the command line's new sessions follow it.
        tools: ToolsConfig {
            sandbox: (existing.tools.sandbox.is_some()
                || settings.sandbox != SandboxMode::default())
            .then_some(settings.sandbox),
            sandbox_network: (existing.tools.sandbox_network.is_some()
                || settings.sandbox_network != SandboxNetwork::Off)
                .then_some(settings.sandbox_network),
            sandbox_allow_domains: settings
                .sandbox_allow_domains
                .iter()
                .map(|domain| domain.trim().to_owned())
                .filter(|domain| !domain.is_empty())
                .collect(),
            ..existing.tools.clone()
        },
        mcp_servers: existing.mcp_servers.clone(),
        rules: existing.rules.clone(),
        // Written when chosen, so the command line's new sessions follow it.
        compaction_policy: (existing.compaction_policy.is_some()
            || settings.compaction_policy != CompactionPolicy::default())
        .then_some(settings.compaction_policy),
    };
    problems.extend(config.problems());
    if !problems.is_empty() {
        return Err(problems);
    }
    let no_env: EnvLookup<'_> = &|_| None;
    for name in config.profiles.keys() {
        let flags = ProfileFlags {
            profile: Some(name.clone()),
            ..Default::default()
        };
        if let Err(error) = resolve_profile(&config, &flags, no_env) {
            problems.push(format!("Profile {name:?}: {error}"));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(without_defaults(config))
}

fn profile_config(
    view: &ProfileView,
    existing: Option<&ProfileConfig>,
    problems: &mut Vec<String>,
) -> ProfileConfig {
    let kind = view.kind;
    let same_kind = existing.filter(|p| p.kind == kind);
    let model = view.model.trim();
    if model.is_empty() && kind != ProviderKind::Demo {
        problems.push(format!("Profile {:?}: the model is empty.", view.id));
    }
    let base_url = view
        .base_url
        .as_deref()
        .map(str::trim)
        .filter(|url| !url.is_empty())
        .map(str::to_owned);
    let mut profile = ProfileConfig::new(kind);
    if kind != ProviderKind::Demo {
        profile.model = Some(model.to_owned()).filter(|m| !m.is_empty());
        profile.api_key = same_kind.and_then(|p| p.api_key.clone());
        profile.max_output_tokens = same_kind
            .filter(|p| p.model.as_deref() == Some(model))
            .and_then(|p| p.max_output_tokens);
        // Caching and storage choices have no field in the form: kept as
        // the file has them.
        profile.cache_ttl = same_kind.and_then(|p| p.cache_ttl);
        profile.store = same_kind.and_then(|p| p.store);
    }
    profile.base_url = base_url;
    profile.context_window = view.context_window;
    profile.compaction_threshold = Some(view.compact_threshold);
    profile
}

/// Drops base URLs, windows and thresholds that resolution would choose
/// anyway (judged without the environment, so the file means the same
/// wherever it is read).
fn without_defaults(mut config: StrataConfig) -> StrataConfig {
    let names: Vec<String> = config.profiles.keys().cloned().collect();
    for name in names {
        for field in [Field::BaseUrl, Field::Threshold, Field::Window] {
            let resolved = |config: &StrataConfig| {
                let flags = ProfileFlags {
                    profile: Some(name.clone()),
                    ..Default::default()
                };
                resolve_profile(config, &flags, &|_| None).ok()
            };
            let Some(before) = resolved(&config) else {
                continue;
            };
            let mut trial = config.clone();
            if let Some(profile) = trial.profiles.get_mut(&name) {
                field.clear(profile);
            }
            if resolved(&trial).is_some_and(|after| field.same(&before, &after)) {
                config = trial;
            }
        }
    }
    config
}

#[derive(Clone, Copy)]
enum Field {
    BaseUrl,
    Window,
    Threshold,
}

impl Field {
    fn clear(self, profile: &mut ProfileConfig) {
        match self {
            Field::BaseUrl => profile.base_url = None,
            Field::Window => profile.context_window = None,
            Field::Threshold => profile.compaction_threshold = None,
        }
    }

    /// Whether clearing the field changed nothing that matters.
    fn same(self, before: &ProviderProfile, after: &ProviderProfile) -> bool {
        let limits = before.context_window == after.context_window
            && before.compaction_threshold == after.compaction_threshold;
        match self {
            Field::BaseUrl => before.base_url == after.base_url,
            Field::Window | Field::Threshold => limits,
        }
    }
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
