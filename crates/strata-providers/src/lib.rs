//! Model gateways for Strata: real HTTP providers that stream, report usage
//! and classify their errors, and the offline demo model.

pub mod config;
pub mod demo;
mod error;
mod estimator;
mod factory;
pub mod keys;
mod secret;

pub mod anthropic;
mod cache;
pub mod chat;
mod classify;
mod client;
mod http;
mod limits;
pub mod openai_responses;
pub mod probe;
pub mod reasoning;
mod redirect;
mod render;
mod retry;
pub mod sse;
mod wire;

pub use anthropic::AnthropicGateway;
pub use cache::{CacheOptions, CacheTtl, anthropic_min_cacheable_tokens, prompt_cache_key};
pub use chat::{ChatCompletionsGateway, MaxTokensField};
pub use classify::redact;
pub use client::{HttpClient, HttpOptions};
pub use config::{
    ApiKeySource, ProfileConfig, ProfileFlags, ProviderKind, ProviderKindExt, ProviderProfile,
    ResolvedProfile, StrataConfig,
};
pub use demo::{DEMO_MODEL, DEMO_MODEL_LABEL, DemoModel, LIST_DIRECTORY_TOOL, READ_FILE_TOOL};
pub use error::ProviderError;
pub use estimator::{TiktokenEstimator, estimator_for};
pub use factory::{agent_config, agent_parts, gateway_for, gateway_with, tool_config};
pub use http::HttpGateway;
pub use keys::{KeyStore, KeyStoreChoice, KeyStoreKind};
pub use limits::{ByteLimits, MAX_TOOL_ARGUMENT_BYTES};
pub use openai_responses::OpenAiResponsesGateway;
pub use reasoning::{ReasoningForm, reasoning_form};
pub use render::Endpoint;
pub use retry::RetryPolicy;
pub use secret::ApiKey;
pub use strata_protocol::COMPACTION_SUMMARY_PREFIX;
pub use wire::{WireFormat, replay};
