//! The config file, the model catalog and profile resolution. The
//! environment is always a map passed in, never the process's.

// Helpers panic on setup failures; that is how a test reports them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::fs;

use strata_core::StrataPaths;
use strata_providers::config::{
    ApiKeySource, EnvLookup, MetadataSource, ModelOverride, ProfileConfig, ProfileFlags,
    ProfileOrigin, ProviderKind, ResolvedProfile, StrataConfig, load_and_resolve, lookup_model,
    resolve, resolve_profile,
};
use strata_providers::{DEMO_MODEL, KeyStore, KeyStoreChoice, ProviderError};

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name: &str| map.get(name).cloned()
}

fn no_env() -> impl Fn(&str) -> Option<String> {
    env_of(&[])
}

/// Resolves `model` (flagged, or none) with no config file and an empty
/// key file, so only the environment and the catalog count.
fn resolve_unconfigured(
    model: Option<&str>,
    env: EnvLookup<'_>,
) -> Result<ResolvedProfile, ProviderError> {
    let dir = tempfile::tempdir().unwrap();
    let keys = KeyStore::file(dir.path().join("keys.toml"));
    let flags = ProfileFlags {
        model: model.map(str::to_string),
        ..ProfileFlags::default()
    };
    resolve(&StrataConfig::default(), &flags, env, &keys, dir.path())
}

fn sample_config() -> StrataConfig {
    let mut work = ProfileConfig::new(ProviderKind::OpenaiResponses);
    work.model = Some("gpt-5.1-codex-max".into());
    work.api_key = Some(ApiKeySource::Keychain("work".into()));
    work.compaction_threshold = Some(300_000);
    let mut local = ProfileConfig::new(ProviderKind::OpenaiChat);
    local.model = Some("qwen3-coder".into());
    local.base_url = Some("http://localhost:8080/v1".into());
    local.api_key = Some(ApiKeySource::None);
    local.context_window = Some(32_768);
    local.max_output_tokens = Some(4_096);
    let mut claude = ProfileConfig::new(ProviderKind::Anthropic);
    claude.api_key = Some(ApiKeySource::Env("MY_CLAUDE_KEY".into()));
    let mut config = StrataConfig {
        default_profile: Some("work".into()),
        key_store: KeyStoreChoice::File,
        ..StrataConfig::default()
    };
    config.profiles.insert("work".into(), work);
    config.profiles.insert("local".into(), local);
    config.profiles.insert("claude".into(), claude);
    config.models.insert(
        "my-model".into(),
        ModelOverride {
            context_window: Some(8_000),
            max_output_tokens: Some(1_000),
        },
    );
    config.tools.shell_env = vec!["GOPATH".into()];
    config
}

#[test]
fn config_round_trips_through_the_file_under_strata_home() {
    let home = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    let path = paths.config_file();
    assert_eq!(path, home.path().join("config/config.toml"));

    let config = sample_config();
    config.save(&path).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains("default_profile = \"work\""), "{text}");
    assert!(text.contains("kind = \"openai-responses\""), "{text}");
    assert_eq!(StrataConfig::load(&path).unwrap(), config);

    // Saving again replaces the file whole.
    let mut changed = config.clone();
    changed.default_profile = Some("local".into());
    changed.save(&path).unwrap();
    assert_eq!(StrataConfig::load(&path).unwrap(), changed);
}

#[test]
fn a_missing_config_file_is_an_empty_config() {
    let home = tempfile::tempdir().unwrap();
    let path = StrataPaths::under(home.path()).config_file();
    assert_eq!(StrataConfig::load(&path).unwrap(), StrataConfig::default());
}

#[test]
fn the_documented_example_parses() {
    let text = r#"
default_profile = "work"
key_store = "auto"

[profiles.work]
kind = "openai-responses"
model = "gpt-5.4"
base_url = "https://api.openai.com/v1"
api_key = { env = "OPENAI_API_KEY" }
context_window = 400000
max_output_tokens = 32000
compaction_threshold = 300000

[profiles.home]
kind = "anthropic"
api_key = { keychain = "home" }

[profiles.offline]
kind = "demo"
api_key = "none"

[models."my-local-model"]
context_window = 32768
max_output_tokens = 4096
"#;
    let config = StrataConfig::parse(text, "config.toml".as_ref()).unwrap();
    assert_eq!(config.profiles.len(), 3);
    assert_eq!(
        config.profiles["home"].api_key,
        Some(ApiKeySource::Keychain("home".into()))
    );
}

#[test]
fn an_invalid_config_is_rejected_with_every_problem_and_nothing_is_saved() {
    let home = tempfile::tempdir().unwrap();
    let path = StrataPaths::under(home.path()).config_file();
    let mut config = sample_config();
    config.default_profile = Some("nope".into());
    let work = config.profiles.get_mut("work").unwrap();
    work.base_url = Some("ftp://example.com".into());
    work.compaction_threshold = Some(500_000);
    config.profiles.get_mut("claude").unwrap().api_key = Some(ApiKeySource::Env("MY-KEY".into()));

    let err = config.save(&path).unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, ProviderError::ConfigInvalid { .. }));
    assert!(
        message
            .contains("default_profile \"nope\" is not one of the profiles (claude, local, work)"),
        "{message}"
    );
    assert!(
        message.contains(
            "profiles.work.base_url \"ftp://example.com\" must start with http:// or https://"
        ),
        "{message}"
    );
    assert!(
        message.contains(
            "profiles.work: compaction_threshold (500000) must be less than context_window (400000)"
        ),
        "{message}"
    );
    assert!(
        message
            .contains("profiles.claude.api_key.env \"MY-KEY\" is not an environment variable name"),
        "{message}"
    );
    assert!(!path.exists(), "an invalid config is never written");

    // An existing file is left as it was.
    sample_config().save(&path).unwrap();
    let before = fs::read_to_string(&path).unwrap();
    assert!(config.save(&path).is_err());
    assert_eq!(fs::read_to_string(&path).unwrap(), before);
}

#[test]
fn a_malformed_file_reports_its_line_and_the_problem() {
    let text = "default_profile = \"a\"\n\n[profiles.a]\nkind = \"openai\"\n";
    let err = StrataConfig::parse(text, "/x/config.toml".as_ref()).unwrap_err();
    let message = err.to_string();
    assert!(message.starts_with("/x/config.toml:4: "), "{message}");
    assert!(message.contains("unknown variant `openai`"), "{message}");

    let err = StrataConfig::parse("colour = 1\n", "c.toml".as_ref()).unwrap_err();
    assert!(err.to_string().contains("unknown field `colour`"), "{err}");

    let text = "[profiles.a]\nkind = \"demo\"\nbase_url = \"http://x\"\n";
    let err = StrataConfig::parse(text, "c.toml".as_ref()).unwrap_err();
    assert!(
        err.to_string()
            .contains("profiles.a.base_url: the demo model runs offline and takes no base_url"),
        "{err}"
    );
}

#[test]
fn a_key_pasted_into_the_config_is_never_echoed() {
    let secret = "sk-proj-PASTEDSECRET1234567890";
    let text = format!("[profiles.a]\nkind = \"openai-chat\"\napi_key = \"{secret}\"\n");
    let err = StrataConfig::parse(&text, "c.toml".as_ref()).unwrap_err();
    let message = err.to_string();
    assert!(!message.contains(secret), "{message}");
    assert!(!format!("{err:?}").contains(secret));
    assert!(message.contains("c.toml:3:"), "{message}");
    assert!(
        message.contains("the key itself never goes in the config file"),
        "{message}"
    );
}

#[test]
fn catalog_lookups_give_limits_and_kinds() {
    let sonnet = lookup_model("claude-sonnet-4-5").unwrap();
    assert_eq!(sonnet.kind, ProviderKind::Anthropic);
    assert_eq!(sonnet.context_window, 200_000);
    assert_eq!(
        lookup_model("claude-sonnet-4-5-20250929").unwrap().id,
        "claude-sonnet-4-5"
    );
    assert_eq!(lookup_model("gpt-4o").unwrap().max_output_tokens, 16_384);
    let groq = lookup_model("llama-3.3-70b-versatile").unwrap();
    assert_eq!(groq.base_url, Some("https://api.groq.com/openai/v1"));
    assert_eq!(groq.api_key_env, Some("GROQ_API_KEY"));
    for id in [
        "gpt-5.4",
        "gpt-5.1-codex-max",
        "gpt-4.1-mini",
        "claude-opus-4-6",
        "claude-sonnet-4-6",
        "claude-haiku-4-5",
        "claude-opus-4-1",
        "deepseek-chat",
        "grok-3-mini",
        DEMO_MODEL,
    ] {
        assert!(lookup_model(id).is_some(), "{id}");
    }
    assert!(lookup_model("no-such-model").is_none());
}

#[test]
fn with_nothing_configured_the_demo_model_is_used() {
    let profile = resolve_profile(
        &StrataConfig::default(),
        &ProfileFlags::default(),
        &no_env(),
    )
    .unwrap();
    assert_eq!(profile.kind, ProviderKind::Demo);
    assert_eq!(profile.origin, ProfileOrigin::DemoDefault);
    assert_eq!(profile.model, DEMO_MODEL);
    assert_eq!(profile.model_label, "demo");
    assert_eq!(profile.base_url, None);
    assert_eq!(profile.api_key_source, ApiKeySource::None);
    assert!(profile.compaction_threshold < profile.context_window);
}

#[test]
fn an_openai_key_in_the_environment_works_without_a_file() {
    let env = env_of(&[("OPENAI_API_KEY", "sk-env-0123456789abcdef")]);
    let resolved = resolve_unconfigured(None, &env).unwrap();
    let profile = &resolved.profile;
    assert_eq!(profile.origin, ProfileOrigin::Environment);
    assert_eq!(profile.kind, ProviderKind::OpenaiResponses);
    assert_eq!(profile.model, "gpt-5.4");
    assert_eq!(
        profile.base_url.as_deref(),
        Some("https://api.openai.com/v1")
    );
    assert_eq!(profile.context_window, 1_050_000);
    assert_eq!(profile.metadata_source, MetadataSource::Catalog);
    assert_eq!(
        resolved.api_key.as_ref().map(|k| k.expose()),
        Some("sk-env-0123456789abcdef")
    );
}

#[test]
fn an_anthropic_key_alone_selects_anthropic() {
    let env = env_of(&[("ANTHROPIC_API_KEY", "sk-ant-xyz")]);
    let profile =
        resolve_profile(&StrataConfig::default(), &ProfileFlags::default(), &env).unwrap();
    assert_eq!(profile.kind, ProviderKind::Anthropic);
    assert_eq!(profile.model, "claude-sonnet-4-5");
    assert_eq!(
        profile.base_url.as_deref(),
        Some("https://api.anthropic.com/v1")
    );
    assert_eq!(
        profile.api_key_source,
        ApiKeySource::Env("ANTHROPIC_API_KEY".into())
    );
}

#[test]
fn openai_base_url_of_a_local_server_selects_chat_completions_without_a_key() {
    let env = env_of(&[("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1/")]);
    let resolved = resolve_unconfigured(Some("qwen3-coder"), &env).unwrap();
    assert_eq!(resolved.profile.kind, ProviderKind::OpenaiChat);
    assert_eq!(
        resolved.profile.base_url.as_deref(),
        Some("http://127.0.0.1:8080/v1")
    );
    assert!(!resolved.profile.api_key_required);
    assert!(resolved.api_key.is_none());
    assert_eq!(resolved.profile.metadata_source, MetadataSource::Fallback);
}

#[test]
fn a_missing_cloud_key_names_the_variable_to_set() {
    let err = resolve_unconfigured(Some("claude-opus-4-1"), &no_env()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "profile \"flags\" needs an API key: set the environment variable ANTHROPIC_API_KEY"
    );
}

#[test]
fn flags_beat_the_config_file_which_beats_the_environment() {
    let config = sample_config();
    let env = env_of(&[
        ("OPENAI_API_KEY", "sk-env"),
        ("OPENAI_BASE_URL", "http://proxy.local/v1"),
    ]);

    // The config's default profile wins over the environment's kind, but the
    // environment's base URL fills what the profile leaves open.
    let profile = resolve_profile(&config, &ProfileFlags::default(), &env).unwrap();
    assert_eq!(profile.name, "work");
    assert_eq!(profile.origin, ProfileOrigin::ConfigFile);
    assert_eq!(profile.model, "gpt-5.1-codex-max");
    assert_eq!(profile.base_url.as_deref(), Some("http://proxy.local/v1"));
    assert_eq!(
        profile.api_key_source,
        ApiKeySource::Keychain("work".into())
    );
    assert_eq!(profile.compaction_threshold, 300_000);

    // Flags pick another profile and override its model and base URL.
    let flags = ProfileFlags {
        profile: Some("local".into()),
        model: Some("my-model".into()),
        base_url: Some("http://10.0.0.2:9000/v1".into()),
        ..ProfileFlags::default()
    };
    let profile = resolve_profile(&config, &flags, &env).unwrap();
    assert_eq!(profile.name, "local");
    assert_eq!(profile.model, "my-model");
    assert_eq!(profile.base_url.as_deref(), Some("http://10.0.0.2:9000/v1"));
    // The profile's limits were for its own model; the [models] table's
    // limits for the flagged model apply instead.
    assert_eq!(profile.context_window, 8_000);
    assert_eq!(profile.max_output_tokens, 1_000);
    assert_eq!(profile.metadata_source, MetadataSource::Config);

    let flags = ProfileFlags {
        profile: Some("lcoal".into()),
        ..ProfileFlags::default()
    };
    let err = resolve_profile(&config, &flags, &env).unwrap_err();
    assert_eq!(
        err.to_string(),
        "no provider profile named \"lcoal\"; configured profiles: claude, local, work"
    );
}

#[test]
fn profile_overrides_beat_the_catalog() {
    let config = sample_config();
    let flags = ProfileFlags {
        profile: Some("local".into()),
        ..ProfileFlags::default()
    };
    let profile = resolve_profile(&config, &flags, &no_env()).unwrap();
    assert_eq!(profile.context_window, 32_768);
    assert_eq!(profile.max_output_tokens, 4_096);
    // 80% of the window, as no threshold is configured.
    assert_eq!(profile.compaction_threshold, 26_214);
    assert_eq!(profile.api_key_source, ApiKeySource::None);
}

#[test]
fn a_catalog_model_from_another_host_brings_its_endpoint_and_key_variable() {
    let env = env_of(&[("XAI_API_KEY", "xai-secret")]);
    let resolved = resolve_unconfigured(Some("grok-3-mini"), &env).unwrap();
    assert_eq!(resolved.profile.kind, ProviderKind::OpenaiChat);
    assert_eq!(
        resolved.profile.base_url.as_deref(),
        Some("https://api.x.ai/v1")
    );
    assert_eq!(resolved.api_key.unwrap().expose(), "xai-secret");
}

#[test]
fn keys_come_from_the_key_store_and_key_files() {
    let dir = tempfile::tempdir().unwrap();
    let keys = KeyStore::open(KeyStoreChoice::File, dir.path());
    keys.set("work", &"sk-stored-abcdefgh".into()).unwrap();
    let resolve_with = |config: &StrataConfig| {
        resolve(
            config,
            &ProfileFlags::default(),
            &no_env(),
            &keys,
            dir.path(),
        )
    };
    let mut config = sample_config();
    let resolved = resolve_with(&config).unwrap();
    assert_eq!(resolved.api_key.unwrap().expose(), "sk-stored-abcdefgh");

    fs::write(dir.path().join("work.key"), "  sk-from-file \n").unwrap();
    config.profiles.get_mut("work").unwrap().api_key = Some(ApiKeySource::File("work.key".into()));
    let resolved = resolve_with(&config).unwrap();
    assert_eq!(resolved.api_key.unwrap().expose(), "sk-from-file");

    config.profiles.get_mut("work").unwrap().api_key =
        Some(ApiKeySource::Keychain("absent".into()));
    let err = resolve_with(&config).unwrap_err();
    assert!(
        err.to_string()
            .contains("no key is stored for account \"absent\""),
        "{err}"
    );
}

#[test]
fn the_demo_kind_takes_no_other_model_or_base_url() {
    let flags = ProfileFlags {
        kind: Some(ProviderKind::Demo),
        model: Some("gpt-4o".into()),
        ..ProfileFlags::default()
    };
    let err = resolve_profile(&StrataConfig::default(), &flags, &no_env()).unwrap_err();
    assert!(err.to_string().contains("only has the model"), "{err}");
    let flags = ProfileFlags {
        model: Some("demo".into()),
        ..ProfileFlags::default()
    };
    let profile = resolve_profile(&StrataConfig::default(), &flags, &no_env()).unwrap();
    assert_eq!(profile.kind, ProviderKind::Demo);
    assert_eq!(profile.model, DEMO_MODEL);
}

#[test]
fn an_unknown_model_without_a_kind_is_an_error_not_the_demo() {
    let flags = ProfileFlags {
        model: Some("mystery-7b".into()),
        ..ProfileFlags::default()
    };
    let err = resolve_profile(&StrataConfig::default(), &flags, &no_env()).unwrap_err();
    assert!(
        err.to_string()
            .contains("\"mystery-7b\" is not in the model catalog"),
        "{err}"
    );
}

#[test]
fn load_and_resolve_reads_the_config_under_strata_home() {
    let home = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    let (config, resolved) = load_and_resolve(&paths, &ProfileFlags::default(), &no_env()).unwrap();
    assert_eq!(config, StrataConfig::default());
    assert_eq!(resolved.profile.kind, ProviderKind::Demo);

    let mut config = sample_config();
    config.default_profile = Some("claude".into());
    config.save(&paths.config_file()).unwrap();
    let env = env_of(&[("MY_CLAUDE_KEY", "sk-ant-home")]);
    let (loaded, resolved) = load_and_resolve(&paths, &ProfileFlags::default(), &env).unwrap();
    assert_eq!(loaded, config);
    assert_eq!(resolved.profile.name, "claude");
    assert_eq!(resolved.api_key.unwrap().expose(), "sk-ant-home");

    fs::write(paths.config_file(), "default_profile = 3\n").unwrap();
    let err = load_and_resolve(&paths, &ProfileFlags::default(), &env).unwrap_err();
    assert!(err.to_string().contains("config.toml:1:"), "{err}");
}

#[test]
fn tools_shell_env_names_the_variables_run_shell_gets() {
    let home = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    fs::create_dir_all(&paths.config).unwrap();
    fs::write(
        paths.config_file(),
        "[tools]\nshell_env = [\"GOPATH\", \"CARGO_HOME\"]\n",
    )
    .unwrap();
    let (config, resolved) = load_and_resolve(&paths, &ProfileFlags::default(), &no_env()).unwrap();
    assert_eq!(config.tools.shell_env, ["GOPATH", "CARGO_HOME"]);
    let tools = strata_providers::tool_config(&resolved, &no_env());
    assert_eq!(tools.shell_env, ["GOPATH", "CARGO_HOME"]);

    let error = StrataConfig::parse(
        "[tools]\nshell_env = [\"GOPATH\", \"NOT A NAME\"]\n",
        &paths.config_file(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("tools.shell_env: \"NOT A NAME\" is not an environment variable name"),
        "{error}"
    );
}

#[test]
fn compaction_policy_names_the_policy_new_sessions_start_with() {
    let path = std::path::Path::new("config.toml");
    let config = StrataConfig::parse("compaction_policy = \"base\"\n", path).unwrap();
    assert_eq!(
        config.compaction_policy,
        Some(strata_protocol::CompactionPolicy::Base)
    );
    assert_eq!(
        StrataConfig::parse("", path).unwrap().compaction_policy,
        None
    );
    let error = StrataConfig::parse("compaction_policy = \"eager\"\n", path).unwrap_err();
    assert!(error.to_string().contains("eager"), "{error}");
}
