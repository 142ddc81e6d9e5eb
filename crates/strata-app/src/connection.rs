//! Setting a provider up from the settings screen: `test_connection` sends
//! the draft's model one small request, `list_models` reads the models its
//! server offers. Both work on a profile that is not saved yet, with a key
//! only typed: the key is used for the request and kept nowhere.

use std::sync::Arc;

use strata_protocol::{
    ConnectionReport, ListModels, ModelList, ProviderDraft, ProviderFailure, ProviderKind,
    TestConnection, endpoint_without_secrets,
};
use strata_providers::config::resolve;
use strata_providers::probe::{list_models, probe_client, test_connection};
use strata_providers::{ApiKey, Endpoint, HttpOptions, KeyStore, ProfileFlags, ProviderKindExt};

use crate::error::{AppError, AppResult, CommandResult, invalid_input};
use crate::{App, validate};

/// Where a draft's requests go, and with which key and transport settings.
struct Target {
    kind: ProviderKind,
    endpoint: Endpoint,
    http: HttpOptions,
}

impl Target {
    fn shown(&self) -> String {
        endpoint_without_secrets(&self.endpoint.base_url)
    }
}

impl App {
    /// The endpoint and key a draft names: its base URL or the kind's
    /// default; the typed key, else the saved profile's, else the kind's
    /// environment variable. Opens the key store: call it blocking.
    fn target_of(&self, draft: &ProviderDraft) -> AppResult<Target> {
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
