//! The one place a resolved profile becomes a model gateway, so every front
//! end (the desktop shell, the command line) talks to the same provider for
//! the same profile.

use std::sync::Arc;

use strata_core::ModelGateway;

use crate::anthropic::AnthropicGateway;
use crate::chat::ChatCompletionsGateway;
use crate::config::{ProviderKind, ResolvedProfile};
use crate::demo::DemoModel;
use crate::error::ProviderError;
use crate::http::{HttpClient, HttpOptions};
use crate::openai_responses::OpenAiResponsesGateway;
use crate::render::Endpoint;

/// The gateway `resolved` names, with the default transport settings.
pub fn gateway_for(resolved: &ResolvedProfile) -> Result<Arc<dyn ModelGateway>, ProviderError> {
    gateway_with(resolved, HttpOptions::default())
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
    Ok(match profile.kind {
        ProviderKind::OpenaiResponses => Arc::new(OpenAiResponsesGateway::new(client, endpoint)),
        ProviderKind::OpenaiChat => Arc::new(ChatCompletionsGateway::new(client, endpoint)),
        ProviderKind::Anthropic => {
            // The Messages API requires an output limit on every request.
            let max_tokens = u32::try_from(profile.max_output_tokens).unwrap_or(u32::MAX);
            Arc::new(AnthropicGateway::new(client, endpoint).with_default_max_tokens(max_tokens))
        }
        ProviderKind::Demo => Arc::new(DemoModel::new()),
    })
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
