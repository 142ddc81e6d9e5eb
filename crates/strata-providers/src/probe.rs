//! Checking a provider before a session uses it: "Test connection" sends a
//! one-token request, and the model list comes from the server where it
//! offers one (OpenAI and compatible servers `GET /models`, Anthropic
//! `GET /v1/models`). Both make one attempt: a person waiting on a button
//! wants the answer, not five retries.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;
use strata_core::ModelGateway;
use strata_protocol::{ModelError, ModelRequest, ProviderKind, ResponseItem};

use crate::anthropic::{ANTHROPIC_VERSION, AnthropicGateway};
use crate::cache::CacheOptions;
use crate::chat::ChatCompletionsGateway;
use crate::client::{HttpClient, HttpOptions, PreparedRequest};
use crate::demo::DemoModel;
use crate::error::ProviderError;
use crate::http::json_with_retries;
use crate::openai_responses::OpenAiResponsesGateway;
use crate::render::Endpoint;
use crate::retry::RetryPolicy;

/// The most models one list keeps (Anthropic pages at 1000).
const MAX_MODELS: usize = 1000;

/// `GET /models` of OpenAI and compatible servers, and Anthropic's
/// `GET /v1/models`: both are `{"data": [{"id": ...}, ...]}`.
#[derive(Debug, Deserialize)]
struct ModelsPage {
    data: Vec<ModelEntry>,
}

#[derive(Debug, Deserialize)]
struct ModelEntry {
    id: String,
}

/// The gateway of `kind` at `endpoint` over `client`; Anthropic requests
/// carry `max_tokens` (the Messages API requires one).
pub fn http_gateway(
    kind: ProviderKind,
    client: HttpClient,
    endpoint: Endpoint,
    max_tokens: u32,
) -> Arc<dyn ModelGateway> {
    http_gateway_with(kind, client, endpoint, max_tokens, CacheOptions::default())
}

/// [`http_gateway`] with a profile's caching and storage choices.
pub fn http_gateway_with(
    kind: ProviderKind,
    client: HttpClient,
    endpoint: Endpoint,
    max_tokens: u32,
    cache: CacheOptions,
) -> Arc<dyn ModelGateway> {
    match kind {
        ProviderKind::OpenaiResponses => Arc::new(
            OpenAiResponsesGateway::new(client, endpoint)
                .with_store(cache.store)
                .with_prompt_cache_retention(cache.retention),
        ),
        ProviderKind::OpenaiChat => Arc::new(
            ChatCompletionsGateway::new(client, endpoint)
                .with_prompt_cache_retention(cache.retention),
        ),
        ProviderKind::Anthropic => Arc::new(
            AnthropicGateway::new(client, endpoint)
                .with_default_max_tokens(max_tokens)
                .with_cache_ttl(cache.ttl),
        ),
        ProviderKind::Demo => Arc::new(DemoModel::new()),
    }
}

/// A client for checks: `options` with one attempt and short waits.
pub fn probe_client(options: &HttpOptions) -> Result<HttpClient, ProviderError> {
    HttpClient::new(HttpOptions {
        retry: RetryPolicy {
            max_attempts: 1,
            ..options.retry.clone()
        },
        connect_timeout: options.connect_timeout.min(Duration::from_secs(10)),
        idle_timeout: options.idle_timeout.min(Duration::from_secs(30)),
        response_timeout: options.response_timeout.min(Duration::from_secs(30)),
        response_deadline: options.response_deadline.min(Duration::from_secs(45)),
        ..options.clone()
    })
}

/// The output limit of the connection test: one token, except on the
/// Responses API, whose smallest accepted `max_output_tokens` is 16.
pub fn test_output_limit(kind: ProviderKind) -> u32 {
    match kind {
        ProviderKind::OpenaiResponses => 16,
        ProviderKind::OpenaiChat | ProviderKind::Anthropic | ProviderKind::Demo => 1,
    }
}

/// Sends `model` a one-word prompt with [`test_output_limit`] and returns
/// how long the answer took.
pub async fn test_connection(
    kind: ProviderKind,
    client: HttpClient,
    endpoint: Endpoint,
    model: &str,
) -> Result<Duration, ModelError> {
    let limit = test_output_limit(kind);
    let gateway = http_gateway(kind, client, endpoint, limit);
    let started = Instant::now();
    gateway
        .create_response(ModelRequest {
            model: model.to_owned(),
            input: vec![ResponseItem::user("ping")],
            tools: Vec::new(),
            tool_choice: None,
            max_output_tokens: Some(limit),
            session_id: None,
            reasoning: None,
            cache_anchors: Vec::new(),
        })
        .await?;
    Ok(started.elapsed())
}

/// The models the server at `endpoint` offers, sorted; `None` when it has
/// no list (HTTP 404 or 405) or the kind has no server.
pub async fn list_models(
    kind: ProviderKind,
    client: &HttpClient,
    endpoint: &Endpoint,
) -> Result<Option<Vec<String>>, ModelError> {
    let request = match kind {
        ProviderKind::Demo => return Ok(None),
        ProviderKind::OpenaiResponses | ProviderKind::OpenaiChat => {
            PreparedRequest::get(endpoint, "/models").bearer_auth()?
        }
        ProviderKind::Anthropic => PreparedRequest::get(endpoint, "/models?limit=1000")
            .header("anthropic-version", ANTHROPIC_VERSION)?
            .key_header("x-api-key")?,
    };
    match json_with_retries(client, &request, parse_models).await {
        Ok(models) => Ok(Some(models)),
        Err(ModelError::InvalidRequest { message })
            if message.starts_with("HTTP 404") || message.starts_with("HTTP 405") =>
        {
            Ok(None)
        }
        Err(error) => Err(error),
    }
}

fn parse_models(body: &Value) -> Result<Vec<String>, ModelError> {
    let page = ModelsPage::deserialize(body).map_err(|error| ModelError::InvalidRequest {
        message: format!("the model list is not in the expected shape ({error})"),
    })?;
    let mut models: Vec<String> = page
        .data
        .into_iter()
        .map(|entry| entry.id)
        .filter(|id| !id.trim().is_empty())
        .take(MAX_MODELS)
        .collect();
    models.sort_unstable();
    models.dedup();
    Ok(models)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_and_anthropic_lists_read_the_same_and_come_sorted() {
        let openai = serde_json::json!({"object": "list", "data": [
            {"id": "gpt-4.1", "object": "model", "created": 1, "owned_by": "openai"},
            {"id": "gpt-4.1-mini", "object": "model", "created": 1, "owned_by": "openai"},
            {"id": "babbage-002", "object": "model", "created": 1, "owned_by": "openai"}
        ]});
        assert_eq!(
            parse_models(&openai).unwrap(),
            ["babbage-002", "gpt-4.1", "gpt-4.1-mini"]
        );
        let anthropic = serde_json::json!({"data": [
            {"type": "model", "id": "claude-sonnet-4-5", "display_name": "Claude Sonnet 4.5", "created_at": "2025-09-29T00:00:00Z"}
        ], "has_more": false, "first_id": "claude-sonnet-4-5", "last_id": "claude-sonnet-4-5"});
        assert_eq!(parse_models(&anthropic).unwrap(), ["claude-sonnet-4-5"]);
    }

    #[test]
    fn a_body_without_a_data_list_is_refused_with_a_reason() {
        let error = parse_models(&serde_json::json!({"models": []})).unwrap_err();
        assert!(error.to_string().contains("expected shape"), "{error}");
    }
}
