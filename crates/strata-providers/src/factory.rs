//! The one place a resolved profile becomes a model gateway and an agent's
//! parts, so every front end (the desktop shell, the command line) talks to
//! the same provider with the same limits for the same profile.

use std::sync::Arc;

use strata_core::agent::{AgentConfig, AgentParts, ApprovalBroker, EventReceiver, event_channel};
use strata_core::{ModelGateway, SessionApprovals, ToolConfig, ToolRegistry};

use crate::cache::CacheOptions;
use crate::client::{HttpClient, HttpOptions};
use crate::config::{
    ANTHROPIC_API_KEY_ENV, EnvLookup, OPENAI_API_KEY_ENV, ProviderKind, ProviderProfile,
    ResolvedProfile,
};
use crate::demo::DemoModel;
use crate::error::ProviderError;
use crate::probe::http_gateway_with;
use crate::render::Endpoint;

/// The gateway `resolved` names, with its transport settings (the config's
/// `[network]` table over the defaults).
pub fn gateway_for(resolved: &ResolvedProfile) -> Result<Arc<dyn ModelGateway>, ProviderError> {
    gateway_with(resolved, resolved.http.clone())
}

/// The gateway `resolved` names, over an HTTP client with `options`.
pub fn gateway_with(
    resolved: &ResolvedProfile,
    options: HttpOptions,
) -> Result<Arc<dyn ModelGateway>, ProviderError> {
    let profile = &resolved.profile;
    if profile.kind == ProviderKind::Demo {
        return Ok(Arc::new(DemoModel::new()));
    }
    let base_url = profile
        .base_url
        .clone()
        .ok_or_else(|| ProviderError::InvalidArgument {
            what: "base URL",
            message: format!("profile {:?} has no base URL", profile.name),
        })?;
    let client = HttpClient::new(options)?;
    let endpoint = Endpoint::new(base_url, resolved.api_key.clone());
    // The Messages API requires an output limit on every request.
    let max_tokens = u32::try_from(profile.max_output_tokens).unwrap_or(u32::MAX);
    let cache = CacheOptions {
        ttl: profile.cache_ttl,
        store: profile.store,
        retention: profile.prompt_cache_retention,
    };
    Ok(http_gateway_with(
        profile.kind,
        client,
        endpoint,
        max_tokens,
        cache,
    ))
}

/// The agent settings a profile implies: its provider kind and model, its
/// compaction threshold, context window and output limit.
pub fn agent_config(profile: &ProviderProfile) -> AgentConfig {
    AgentConfig {
        compact_threshold: profile.compaction_threshold,
        context_window: Some(profile.context_window),
        max_output_tokens: u32::try_from(profile.max_output_tokens).ok(),
        reasoning: profile.reasoning,
        price: profile.price.clone(),
        ..AgentConfig::new(profile.kind.as_str(), profile.model.clone())
    }
}

/// Tool settings for a session on `resolved`: tool output is scrubbed of
/// the profile's key and of the provider keys set in `env`, `run_shell`
/// gets the variables the config's `[tools] shell_env` names, the secret
/// files `[tools] allow_secret_files` names are usable, and the profile's
/// key file is refused wherever it lies.
pub fn tool_config(resolved: &ResolvedProfile, env: EnvLookup<'_>) -> ToolConfig {
    let mut secrets: Vec<String> = [OPENAI_API_KEY_ENV, ANTHROPIC_API_KEY_ENV]
        .into_iter()
        .filter_map(env)
        .collect();
    secrets.extend(resolved.api_key.iter().map(|key| key.expose().to_owned()));
    secrets.retain(|secret| !secret.is_empty());
    let mut config = ToolConfig {
        secrets,
        shell_env: resolved.shell_env.clone(),
        allowed_secret_files: resolved.allow_secret_files.clone(),
        ..ToolConfig::default()
    };
    config.protected_paths.extend(resolved.key_file.clone());
    config
}

/// An agent's parts on `resolved` (its gateway, and [`agent_config`] with
/// the config's turn deadline) with
/// `tools` (built over [`tool_config`]), and where its events arrive.
pub fn agent_parts(
    resolved: &ResolvedProfile,
    tools: ToolRegistry,
    approvals: SessionApprovals,
    broker: ApprovalBroker,
) -> Result<(AgentParts, EventReceiver), ProviderError> {
    let (events, received) = event_channel();
    let parts = AgentParts {
        gateway: gateway_for(resolved)?,
        tools,
        approvals,
        config: AgentConfig {
            turn_deadline: resolved.turn_deadline,
            ..agent_config(&resolved.profile)
        },
        events,
        broker,
    };
    Ok((parts, received))
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;
    use strata_protocol::{ModelEvent, ModelRequest, ResponseItem};

    use super::*;
    use crate::config::{ProfileFlags, StrataConfig, resolve_profile};

    fn resolved(flags: ProfileFlags) -> ResolvedProfile {
        let profile = resolve_profile(&StrataConfig::default(), &flags, &|_| None).unwrap();
        ResolvedProfile {
            profile,
            api_key: None,
            http: HttpOptions::default(),
            shell_env: Vec::new(),
            allow_secret_files: Vec::new(),
            sandbox: None,
            sandbox_network: None,
            sandbox_allow_domains: Vec::new(),
            key_file: None,
            turn_deadline: strata_core::agent::DEFAULT_TURN_DEADLINE,
            rules: Default::default(),
        }
    }

    #[tokio::test]
    async fn the_demo_profile_answers_offline() {
        let gateway = gateway_for(&resolved(ProfileFlags::default())).unwrap();
        let request = ModelRequest {
            model: crate::demo::DEMO_MODEL.into(),
            input: vec![ResponseItem::user("Hello there")],
            tools: Vec::new(),
            tool_choice: None,
            max_output_tokens: None,
            session_id: None,
            reasoning: None,
            cache_anchors: Vec::new(),
        };
        let events: Vec<_> = gateway.stream_response(request).collect().await;
        assert!(
            events
                .iter()
                .any(|event| matches!(event, Ok(ModelEvent::Finished { .. }))),
            "{events:?}"
        );
    }

    #[test]
    fn agents_get_the_profiles_limits_and_scrub_its_key_and_the_environments() {
        let mut profile = resolved(ProfileFlags::default());
        profile.api_key = Some(crate::ApiKey::new("sk-profile"));
        let env = |name: &str| (name == OPENAI_API_KEY_ENV).then(|| "sk-env".to_owned());
        assert_eq!(
            tool_config(&profile, &env).secrets,
            ["sk-env", "sk-profile"]
        );
        let config = agent_config(&profile.profile);
        assert_eq!(config.model, profile.profile.model);
        assert_eq!(config.provider_kind, profile.profile.kind.as_str());
        assert_eq!(
            config.compact_threshold,
            profile.profile.compaction_threshold
        );
        assert_eq!(config.context_window, Some(profile.profile.context_window));
        assert!(config.max_output_tokens.is_some());
    }

    #[test]
    fn an_http_profile_without_a_base_url_is_refused() {
        let mut profile = resolved(ProfileFlags {
            kind: Some(ProviderKind::OpenaiChat),
            base_url: Some("http://127.0.0.1:9/v1".into()),
            ..Default::default()
        });
        assert!(gateway_for(&profile).is_ok());
        profile.profile.base_url = None;
        let error = gateway_for(&profile).err().map(|e| e.to_string());
        assert!(
            error.as_deref().is_some_and(|e| e.contains("no base URL")),
            "{error:?}"
        );
    }
}
