//! The profile keys for caching and server-side state: `cache_ttl`
//! (Anthropic) and `store` (Responses), from the file to the request body.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use strata_providers::config::{ProfileFlags, ResolvedProfile, StrataConfig, resolve_profile};
use strata_providers::{ApiKey, CacheTtl, PromptCacheRetention, gateway_with};
use support::histories::round_request;
use support::*;

fn parse(text: &str) -> StrataConfig {
    StrataConfig::parse(text, "config.toml".as_ref()).unwrap()
}

/// What the config check says about `text`, which it must refuse.
fn problems(text: &str) -> Vec<String> {
    match StrataConfig::parse(text, "config.toml".as_ref()) {
        Err(strata_providers::ProviderError::ConfigInvalid { problems, .. }) => problems,
        other => panic!("{other:?}"),
    }
}

fn resolved(config: &StrataConfig, name: &str) -> ResolvedProfile {
    let flags = ProfileFlags {
        profile: Some(name.into()),
        ..ProfileFlags::default()
    };
    ResolvedProfile {
        profile: resolve_profile(config, &flags, &|_| None).unwrap(),
        api_key: Some(ApiKey::new("k")),
        http: fast_options(1),
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

fn two_profiles(base_url: &str, extra: &str) -> String {
    format!(
        r#"
default_profile = "claude"

[profiles.claude]
kind = "anthropic"
model = "claude-sonnet-4-5"
base_url = "{base_url}"
api_key = {{ env = "ANTHROPIC_API_KEY" }}
{extra}

[profiles.gpt]
kind = "openai-responses"
model = "gpt-5.4"
base_url = "{base_url}"
api_key = {{ env = "OPENAI_API_KEY" }}
"#
    )
}

#[test]
fn profiles_cache_for_five_minutes_and_store_nothing_unless_they_say_so() {
    let config = parse(&two_profiles("http://127.0.0.1:9/v1", ""));
    let claude = resolved(&config, "claude").profile;
    assert_eq!(
        (claude.cache_ttl, claude.store),
        (CacheTtl::FiveMinutes, false)
    );
    let gpt = resolved(&config, "gpt").profile;
    assert!(!gpt.store);

    let text = two_profiles("http://127.0.0.1:9/v1", "cache_ttl = \"1h\"").replace(
        "api_key = { env = \"OPENAI_API_KEY\" }",
        "api_key = { env = \"OPENAI_API_KEY\" }\nstore = true",
    );
    let config = parse(&text);
    assert_eq!(
        resolved(&config, "claude").profile.cache_ttl,
        CacheTtl::OneHour
    );
    assert!(resolved(&config, "gpt").profile.store);
    // The keys survive a save.
    let again = parse(&config.to_toml().unwrap());
    assert_eq!(again, config);
}

#[test]
fn cache_keys_on_the_wrong_kind_or_with_an_unknown_ttl_are_refused() {
    let text = r#"
default_profile = "gpt"

[profiles.gpt]
kind = "openai-responses"
cache_ttl = "1h"

[profiles.claude]
kind = "anthropic"
store = true
"#;
    let problems = problems(text);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("profiles.gpt.cache_ttl")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("profiles.claude.store")),
        "{problems:?}"
    );
    let bad = "[profiles.claude]\nkind = \"anthropic\"\ncache_ttl = \"10m\"\n";
    assert!(StrataConfig::parse(bad, "config.toml".as_ref()).is_err());
}

#[tokio::test]
async fn the_profiles_choices_reach_the_request_body() {
    let server = TestServer::start(vec![Reply::status(400, "{}"), Reply::status(400, "{}")]).await;
    let text = two_profiles(&server.base_url, "cache_ttl = \"1h\"").replace(
        "api_key = { env = \"OPENAI_API_KEY\" }",
        "api_key = { env = \"OPENAI_API_KEY\" }\nstore = true",
    );
    let config = parse(&text);
    for (name, model) in [("claude", "claude-sonnet-4-5"), ("gpt", "gpt-5.4")] {
        let profile = resolved(&config, name);
        let gateway = gateway_with(&profile, fast_options(1)).unwrap();
        let _ = collect(gateway.stream_response(round_request(model, 2, true))).await;
    }
    let received = server.received();
    let claude = received[0].json();
    assert_eq!(claude["system"][0]["cache_control"]["ttl"], "1h");
    let gpt = received[1].json();
    assert_eq!(gpt["store"], true);
}

#[tokio::test]
async fn prompt_cache_retention_is_an_openai_profile_option_that_reaches_the_body() {
    let server = TestServer::start(vec![Reply::status(400, "{}")]).await;
    let text = two_profiles(&server.base_url, "").replace(
        "api_key = { env = \"OPENAI_API_KEY\" }",
        "api_key = { env = \"OPENAI_API_KEY\" }\nprompt_cache_retention = \"24h\"",
    );
    let config = parse(&text);
    let gpt = resolved(&config, "gpt");
    assert_eq!(
        gpt.profile.prompt_cache_retention,
        Some(PromptCacheRetention::Extended)
    );
    assert_eq!(
        resolved(&config, "claude").profile.prompt_cache_retention,
        None
    );
    assert_eq!(parse(&config.to_toml().unwrap()), config);
    let gateway = gateway_with(&gpt, fast_options(1)).unwrap();
    let _ = collect(gateway.stream_response(round_request("gpt-5.4", 2, true))).await;
    assert_eq!(server.received()[0].json()["prompt_cache_retention"], "24h");

    // Not on an Anthropic profile, and only the API's two values.
    let wrong = "[profiles.claude]\nkind = \"anthropic\"\nprompt_cache_retention = \"24h\"\n";
    let problems = problems(wrong);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("profiles.claude.prompt_cache_retention")),
        "{problems:?}"
    );
    let bad = "[profiles.gpt]\nkind = \"openai-chat\"\nprompt_cache_retention = \"1h\"\n";
    assert!(StrataConfig::parse(bad, "config.toml".as_ref()).is_err());
}
