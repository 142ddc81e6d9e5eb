//! The settings' commands: what the app is, profiles and keys, the
//! window's layout, a session's profile, and testing a connection.

use std::sync::Arc;

use std::collections::BTreeMap;

use strata_protocol::{
    AddRule, AppInfo, ConnectionReport, GetAppInfo, GetSettings, GetWorkspaceNetwork, ListModels,
    ListProviderKinds, ListRules, ModelList, ProfileChange, ProfileSet, ProviderFailure,
    ProviderKind, ProviderKindInfo, RemoveRule, RuleKind, RuleList, RulesListing, SandboxMode,
    SaveLayout, SaveSettings, SaveWorkspaceNetwork, SessionListItem, SetApiKey, Settings,
    SwitchProfile, TestConnection, WorkspaceNetworkView,
};
use strata_providers::config::{resolve_profile, with_key};
use strata_providers::probe::{list_models, probe_client, test_connection};
use strata_providers::{ApiKey, ProfileFlags, ProviderKindExt};

use crate::App;
use crate::catalog::{self, Note};
use crate::error::{AppError, CommandResult, invalid_input, io};
use crate::library::flags_for;
use crate::network_file;
use crate::preferences::{CONSOLE_WIDTHS, provider_kinds};
use crate::profile::profile_set;
use crate::rules;
use crate::settings::{
    DesktopPrefs, KeyPresence, config_from_settings, custom_labels, profile_view, profile_views,
    settings_of,
};
use crate::validate;
use crate::views::list_item_of_replay;

impl App {
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
                sandbox_unavailable: strata_core::tools::sandbox_unavailable_here(
                    SandboxMode::default(),
                ),
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
                    // Not settings of the form: kept as they are.
                    console_width: app.prefs().console_width,
                    imported: app.prefs().imported,
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

    /// `switch_profile`: the session talks to the settings' profile
    /// `profile_id` from its next turn on. The choice is a `profile_set`
    /// record; a live session closes so its next turn resumes on it.
    pub async fn switch_profile(
        self: &Arc<Self>,
        request: SwitchProfile,
    ) -> CommandResult<SessionListItem> {
        let profile_id = validate::profile_id(&request.profile_id)?;
        let id = request.session_id;
        let _opening = self.live.opening.lock().await;
        self.close_locked(id)?;
        self.blocking(move |app| {
            let config = app.config()?;
            let flags = flags_for(&config, &profile_id);
            let profile = resolve_profile(&config, &flags, app.env())?;
            // Refuses a profile whose key is missing now, not at the turn.
            let resolved = with_key(&app.paths, &config, profile, app.env())?;
            let mut session = app.store.open_writer(id)?;
            app.check_not_stale(id)?;
            // The session's approval policy goes on with it.
            let record = ProfileSet {
                approval: session.state().profile().and_then(|set| set.approval),
                ..profile_set(&resolved.profile, ProfileChange::Switched)
            };
            session
                .append(strata_protocol::RecordBody::ProfileSet(record))
                .and_then(|_| session.sync())?;
            tracing::info!(session = %id, profile = %profile_id, "session switched to another profile");
            let fallback = list_item_of_replay(session.state());
            drop(session);
            app.mark_own_write(id);
            catalog::note(&app.paths, id, Note::Appended);
            app.row_after_write(id, fallback)
        })
        .await
    }

    /// `provider_kinds`: [`provider_kinds`], as a command.
    pub async fn provider_kinds(
        self: &Arc<Self>,
        _request: ListProviderKinds,
    ) -> CommandResult<Vec<ProviderKindInfo>> {
        Ok(provider_kinds())
    }

    /// `test_connection`: one small request to the draft's model; the
    /// report's `failure` is the classified error when it did not answer.
    pub async fn test_connection(
        self: &Arc<Self>,
        request: TestConnection,
    ) -> CommandResult<ConnectionReport> {
        let draft = request.draft;
        let model = draft.model.trim().to_owned();
        if draft.kind == ProviderKind::Demo {
            return Ok(ConnectionReport {
                endpoint: "the offline demo model".to_owned(),
                model,
                duration_ms: 0,
                failure: None,
            });
        }
        let target = self.blocking(move |app| app.target_of(&draft)).await?;
        let endpoint = target.shown();
        let client = probe_client(&target.http).map_err(AppError::from)?;
        let result = test_connection(target.kind, client, target.endpoint, &model).await;
        tracing::info!(endpoint = %endpoint, model = %model, ok = result.is_ok(), "connection tested");
        Ok(match result {
            Ok(took) => ConnectionReport {
                endpoint,
                model,
                duration_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
                failure: None,
            },
            Err(error) => ConnectionReport {
                endpoint,
                model,
                duration_ms: 0,
                failure: Some(ProviderFailure::of(&error)),
            },
        })
    }

    /// `list_models`: the models the draft's server lists (OpenAI and
    /// compatible `GET /models`, Anthropic `GET /v1/models`).
    pub async fn list_models(self: &Arc<Self>, request: ListModels) -> CommandResult<ModelList> {
        let mut draft = request.draft;
        if draft.kind == ProviderKind::Demo {
            return Ok(ModelList {
                offered: false,
                models: Vec::new(),
                failure: None,
            });
        }
        // The list does not depend on the model; the draft may not have one yet.
        if draft.model.trim().is_empty() {
            draft.model = draft.kind.default_model().to_owned();
        }
        let target = self.blocking(move |app| app.target_of(&draft)).await?;
        let client = probe_client(&target.http).map_err(AppError::from)?;
        Ok(
            match list_models(target.kind, &client, &target.endpoint).await {
                Ok(Some(models)) => ModelList {
                    offered: true,
                    models,
                    failure: None,
                },
                Ok(None) => ModelList {
                    offered: false,
                    models: Vec::new(),
                    failure: None,
                },
                Err(error) => ModelList {
                    offered: true,
                    models: Vec::new(),
                    failure: Some(ProviderFailure::of(&error)),
                },
            },
        )
    }
}

impl App {
    /// `list_rules`: the user's approval rules and, given a workspace, its
    /// `.strata/rules.toml` (the allow rules not in effect apart).
    pub async fn list_rules(self: &Arc<Self>, request: ListRules) -> CommandResult<RulesListing> {
        self.blocking(move |app| {
            let workspace = request
                .workspace
                .as_deref()
                .map(validate::workspace)
                .transpose()?;
            rules::listing(&app.paths, true, workspace.as_deref())
        })
        .await
    }

    /// `add_rule`: adds a rule to the user's config or the workspace's
    /// file (saved so Strata trusts it); open sessions pick it up at their
    /// next turn. Returns the listing as it is now.
    pub async fn add_rule(self: &Arc<Self>, request: AddRule) -> CommandResult<RulesListing> {
        let AddRule {
            workspace,
            kind,
            list,
            pattern,
        } = request;
        self.edit_rule(workspace, kind, list, pattern, true).await
    }

    /// `remove_rule`: removes a rule, like `add_rule` names it.
    pub async fn remove_rule(self: &Arc<Self>, request: RemoveRule) -> CommandResult<RulesListing> {
        let RemoveRule {
            workspace,
            kind,
            list,
            pattern,
        } = request;
        self.edit_rule(workspace, kind, list, pattern, false).await
    }

    async fn edit_rule(
        self: &Arc<Self>,
        workspace: Option<String>,
        kind: RuleKind,
        list: RuleList,
        pattern: String,
        add: bool,
    ) -> CommandResult<RulesListing> {
        let listing = self
            .blocking(move |app| {
                let workspace = workspace.as_deref().map(validate::workspace).transpose()?;
                let edit = rules::RuleEdit {
                    workspace: workspace.as_deref(),
                    kind,
                    list,
                    pattern: &pattern,
                };
                let edited = rules::edit(&app.paths, edit, add)?;
                tracing::info!(add, changed = edited.changed, file = %edited.file.display(), "approval rules edited");
                rules::listing(&app.paths, true, workspace.as_deref())
            })
            .await?;
        // Open sessions judge by the rules they were opened with: idle ones
        // close now, running ones after their turn.
        self.settings_changed();
        Ok(listing)
    }
}

impl App {
    /// `get_workspace_network`: the workspace's `.strata/network.toml`,
    /// its choice and domains, and whether they apply.
    pub async fn get_workspace_network(
        self: &Arc<Self>,
        request: GetWorkspaceNetwork,
    ) -> CommandResult<WorkspaceNetworkView> {
        self.blocking(move |app| {
            let workspace = validate::workspace(&request.workspace)?;
            network_file::load(&app.paths, &workspace)
        })
        .await
    }

    /// `save_workspace_network`: saves the workspace's network file, as
    /// `strata rules network` does, so Strata trusts it; sessions started
    /// there from now on get its network. Returns the file as it is now.
    pub async fn save_workspace_network(
        self: &Arc<Self>,
        request: SaveWorkspaceNetwork,
    ) -> CommandResult<WorkspaceNetworkView> {
        self.blocking(move |app| {
            let workspace = validate::workspace(&request.workspace)?;
            let place =
                network_file::save(&app.paths, &workspace, request.network, &request.allow_domains)?;
            tracing::info!(network = %request.network, file = %place.display(), "workspace network saved");
            network_file::load(&app.paths, &workspace)
        })
        .await
    }
}
