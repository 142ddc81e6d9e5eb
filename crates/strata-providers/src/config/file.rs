//! The TOML config file (`config/config.toml`):
//!
//! ```toml
//! default_profile = "work"
//! key_store = "auto"            # or "keychain" / "file"
//!
//! [profiles.work]
//! kind = "openai-responses"     # openai-chat / anthropic / demo
//! model = "gpt-5.4"
//! base_url = "https://api.openai.com/v1"
//! api_key = { env = "OPENAI_API_KEY" }   # or { keychain = "work" } / { file = "key.txt" } / "none"
//! context_window = 400000
//! max_output_tokens = 32000
//! compaction_threshold = 300000
//! store = false                 # openai-responses: let the server keep responses (default false)
//!
//! [profiles.claude]
//! kind = "anthropic"
//! cache_ttl = "1h"              # prompt-cache TTL: "5m" (default) or "1h"
//! reasoning = "high"            # off / low / medium / high / max (default: the server's)
//!
//! [profiles.claude.price]       # optional, dollars per MTok (see `price.rs`);
//! input = 3.0                   # else the built-in table's price for the model,
//! output = 15.0                 # and a model without one shows "no price"
//!
//! [models."my-local-model"]    # limits of models the catalog lacks
//! context_window = 32768
//! max_output_tokens = 4096
//!
//! [network]                     # timeouts and retries, see `network.rs`
//! response_deadline_ms = 1800000
//! [rules]                       # approval rules, see docs/SECURITY.md
//! allow = ["cargo test*", "git status"]
//! deny = ["git push*"]
//! write_allow = ["src/**"]
//!
//! [tools]
//! shell_env = ["GOPATH", "CARGO_HOME"]   # run_shell gets these besides PATH, HOME, LANG, LC_*, ...
//! allow_secret_files = [".env.local", "secrets/"]   # secret files the tools may use (workspace-relative)
//! sandbox = "workspace-write"   # new sessions' run_shell sandbox: workspace-write, read-only or off
//! sandbox_network = "allow-list"   # what sandboxed commands reach: off (default), allow-list or on
//! sandbox_allow_domains = ["crates.io", "*.npmjs.org"]   # allow-list: only these, through Strata's proxy
//! ```
//!
//! Keys themselves never go in this file, and nothing here can hold one.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use strata_protocol::{CompactionPolicy, ReasoningEffort, RulesConfig};

pub use super::tools::ToolsConfig;
use super::{NetworkConfig, PriceConfig, ProviderKind, ProviderKindExt, catalog, write_atomically};
use crate::cache::{CacheTtl, PromptCacheRetention};
use crate::error::{ProviderError, Result};
use crate::keys::{KeyStoreChoice, line_of};

/// The whole config file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StrataConfig {
    /// The profile used when no flag names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_profile: Option<String>,
    #[serde(default, skip_serializing_if = "KeyStoreChoice::is_auto")]
    pub key_store: KeyStoreChoice,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub profiles: BTreeMap<String, ProfileConfig>,
    /// Limits of models by id, over the built-in catalog.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<String, ModelOverride>,
    /// Timeouts, the response deadline and retries.
    #[serde(default, skip_serializing_if = "NetworkConfig::is_default")]
    pub network: NetworkConfig,
    #[serde(default, skip_serializing_if = "ToolsConfig::is_empty")]
    pub tools: ToolsConfig,
    /// The user's approval rules (`[rules]`): `allow`, `ask`, `deny`
    /// command patterns and `write_allow`, `write_ask`, `write_deny` paths.
    #[serde(default, skip_serializing_if = "RulesConfig::is_empty")]
    pub rules: RulesConfig,
    /// The compaction policy new sessions start with (`layered` when
    /// absent); a resumed session keeps the one it recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction_policy: Option<CompactionPolicy>,
    /// `[mcp_servers.NAME]` tables, kept as written: strata-app reads each
    /// on its own, so a broken one is an error naming it that does not stop
    /// the others (or the app).
    #[serde(default, skip_serializing_if = "McpServerTables::is_empty")]
    pub mcp_servers: McpServerTables,
}

/// The `[mcp_servers]` tables as written, by server name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct McpServerTables(pub BTreeMap<String, toml::Value>);

// Floats aside (a NaN timeout is refused when a table is read), the tables
// compare as values.
impl Eq for McpServerTables {}

impl McpServerTables {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// One provider profile as written in the file; absent fields take the
/// kind's or the catalog's defaults at resolution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileConfig {
    pub kind: ProviderKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<ApiKeySource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction_threshold: Option<u64>,
    /// Anthropic prompt-cache TTL, `"5m"` (the default) or `"1h"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_ttl: Option<CacheTtl>,
    /// Responses API: let the server keep responses (`store: true`); off by
    /// default, so sessions are stateless.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<bool>,
    /// How hard the model thinks: `off`, `low`, `medium`, `high` or `max`
    /// (each provider's form; nothing is sent to models that do not reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningEffort>,
    /// OpenAI prompt-cache retention, `"in_memory"` or `"24h"` (Responses
    /// and Chat Completions; sent where the model accepts it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_retention: Option<PromptCacheRetention>,
    /// The profile's own price, dollars per million tokens (`price.rs`);
    /// else the built-in table's for its model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<PriceConfig>,
}

impl ProfileConfig {
    pub fn new(kind: ProviderKind) -> Self {
        Self {
            kind,
            model: None,
            base_url: None,
            api_key: None,
            context_window: None,
            max_output_tokens: None,
            compaction_threshold: None,
            cache_ttl: None,
            store: None,
            reasoning: None,
            prompt_cache_retention: None,
            price: None,
        }
    }
}

/// A model's limits given in the config's `[models]` table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelOverride {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
}

/// Where a profile's API key comes from. Never the key itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApiKeySource {
    /// No key (local servers, the demo model).
    None,
    /// An environment variable, by name.
    Env(String),
    /// The key store (OS keychain or its fallback file), by account name.
    Keychain(String),
    /// A file holding only the key; relative paths are under the config
    /// folder.
    File(PathBuf),
}

impl fmt::Display for ApiKeySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApiKeySource::None => f.write_str("no key"),
            ApiKeySource::Env(name) => write!(f, "environment variable {name}"),
            ApiKeySource::Keychain(account) => write!(f, "key store account {account:?}"),
            ApiKeySource::File(path) => write!(f, "key file {}", path.display()),
        }
    }
}

const API_KEY_SHAPE: &str = "api_key must be \"none\" or a table with one of env, keychain or file, \
     such as { env = \"OPENAI_API_KEY\" }; the key itself never goes in the config file";

// Written by hand so a key pasted into `api_key` is never echoed back in the
// error, as serde's "unknown variant" message would.
impl<'de> Deserialize<'de> for ApiKeySource {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SourceVisitor;

        impl<'de> Visitor<'de> for SourceVisitor {
            type Value = ApiKeySource;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(API_KEY_SHAPE)
            }

            fn visit_str<E: de::Error>(self, value: &str) -> Result<ApiKeySource, E> {
                if value == "none" {
                    Ok(ApiKeySource::None)
                } else {
                    Err(E::custom(API_KEY_SHAPE))
                }
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ApiKeySource, A::Error> {
                let Some(tag) = map.next_key::<String>()? else {
                    return Err(de::Error::custom(API_KEY_SHAPE));
                };
                let value: String = map.next_value()?;
                let source = match tag.as_str() {
                    "env" => ApiKeySource::Env(value),
                    "keychain" => ApiKeySource::Keychain(value),
                    "file" => ApiKeySource::File(PathBuf::from(value)),
                    _ => return Err(de::Error::custom(API_KEY_SHAPE)),
                };
                if map.next_key::<String>()?.is_some() {
                    return Err(de::Error::custom(API_KEY_SHAPE));
                }
                Ok(source)
            }
        }

        deserializer.deserialize_any(SourceVisitor)
    }
}

impl StrataConfig {
    /// Reads and validates the file at `path`; a missing file is an empty
    /// config.
    pub fn load(path: &Path) -> Result<Self> {
        // An older Strata wrote the config readable by others.
        for owned in [Some(path), path.parent()].into_iter().flatten() {
            if let Err(error) = strata_core::private::tighten(owned) {
                tracing::warn!(path = %owned.display(), %error, "cannot make the config owner-only");
            }
        }
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&text, path),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(err) => Err(ProviderError::io("read", path)(err)),
        }
    }

    /// Parses and validates `text`; `path` only labels errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self> {
        let config: StrataConfig = toml::from_str(text).map_err(|err| {
            // toml's Display quotes the offending line, which could hold a
            // pasted key: report the position and the message only.
            ProviderError::ConfigParse {
                path: path.to_path_buf(),
                line: line_of(text, err.span().map(|s| s.start)),
                message: err.message().trim().to_string(),
            }
        })?;
        config.validate(path)?;
        Ok(config)
    }

    /// Validates, then replaces the file at `path` atomically. An invalid
    /// config is rejected and nothing is written.
    pub fn save(&self, path: &Path) -> Result<()> {
        self.validate(path)?;
        let text = self.to_toml()?;
        write_atomically(path, text.as_bytes())
    }

    pub fn to_toml(&self) -> Result<String> {
        toml::to_string_pretty(self).map_err(|err| ProviderError::ConfigEncode {
            message: err.to_string(),
        })
    }

    /// Every problem at once, so one edit can fix them all.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if let Some(name) = &self.default_profile
            && !self.profiles.contains_key(name)
        {
            problems.push(format!(
                "default_profile {name:?} is not one of the profiles ({})",
                self.profile_names().join(", ")
            ));
        }
        if self.default_profile.is_none() && self.profiles.len() > 1 {
            problems.push(format!(
                "default_profile must name the profile to use when there are several ({})",
                self.profile_names().join(", ")
            ));
        }
        for (name, profile) in &self.profiles {
            check_profile(self, name, profile, &mut problems);
        }
        for (model, limits) in &self.models {
            let at = format!("models.{model:?}");
            if model.trim().is_empty() {
                problems.push("models: a model id is empty".into());
            }
            check_limits(
                &at,
                limits.context_window,
                limits.max_output_tokens,
                None,
                &mut problems,
            );
        }
        problems.extend(self.network.problems());
        self.tools.problems(&mut problems);
        let user = [(strata_protocol::RuleSource::User, &self.rules)];
        if let Err(problem) = strata_core::tools::rules::RuleSet::from_configs(&user) {
            problems.push(format!("rules: {problem}"));
        }
        problems
    }

    pub fn validate(&self, path: &Path) -> Result<()> {
        let problems = self.problems();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ProviderError::ConfigInvalid {
                path: path.to_path_buf(),
                problems,
            })
        }
    }

    pub fn profile_names(&self) -> Vec<String> {
        self.profiles.keys().cloned().collect()
    }
}

fn check_profile(
    config: &StrataConfig,
    name: &str,
    profile: &ProfileConfig,
    problems: &mut Vec<String>,
) {
    let at = format!("profiles.{name}");
    if profile.cache_ttl.is_some() && profile.kind != ProviderKind::Anthropic {
        problems.push(format!(
            "{at}.cache_ttl: only anthropic profiles set a prompt-cache TTL"
        ));
    }
    if profile.store.is_some() && profile.kind != ProviderKind::OpenaiResponses {
        problems.push(format!(
            "{at}.store: only openai-responses profiles can let the server store responses"
        ));
    }
    if profile.prompt_cache_retention.is_some()
        && !matches!(
            profile.kind,
            ProviderKind::OpenaiResponses | ProviderKind::OpenaiChat
        )
    {
        problems.push(format!(
            "{at}.prompt_cache_retention: only openai-responses and openai-chat profiles set an OpenAI prompt-cache retention"
        ));
    }
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        problems.push(format!(
            "profile name {name:?} may only hold letters, digits, '-', '_' and '.'"
        ));
    }
    if let Some(model) = &profile.model
        && model.trim().is_empty()
    {
        problems.push(format!("{at}.model is empty"));
    }
    if profile.kind == ProviderKind::Demo {
        if profile.base_url.is_some() {
            problems.push(format!(
                "{at}.base_url: the demo model runs offline and takes no base_url"
            ));
        }
        if matches!(&profile.api_key, Some(source) if *source != ApiKeySource::None) {
            problems.push(format!("{at}.api_key: the demo model takes no key"));
        }
    }
    if let Some(url) = &profile.base_url
        && let Err(why) = check_base_url(url)
    {
        problems.push(format!("{at}.base_url {url:?} {why}"));
    }
    match &profile.api_key {
        Some(ApiKeySource::Env(var)) if !is_env_name(var) => problems.push(format!(
            "{at}.api_key.env {var:?} is not an environment variable name"
        )),
        Some(ApiKeySource::Keychain(account)) if account.trim().is_empty() => {
            problems.push(format!("{at}.api_key.keychain is empty"))
        }
        Some(ApiKeySource::File(path)) if path.as_os_str().is_empty() => {
            problems.push(format!("{at}.api_key.file is empty"))
        }
        _ => {}
    }
    // Limits are checked as they will take effect, catalog values included.
    let model = profile
        .model
        .clone()
        .unwrap_or_else(|| profile.kind.default_model().to_string());
    let user = config.models.get(&model);
    let info = catalog::lookup_model(&model);
    let window = profile
        .context_window
        .or(user.and_then(|u| u.context_window))
        .or(info.map(|i| i.context_window));
    let output = profile
        .max_output_tokens
        .or(user.and_then(|u| u.max_output_tokens))
        .or(info.map(|i| i.max_output_tokens));
    check_limits(&at, window, output, profile.compaction_threshold, problems);
}

fn check_limits(
    at: &str,
    window: Option<u64>,
    output: Option<u64>,
    threshold: Option<u64>,
    problems: &mut Vec<String>,
) {
    for (field, value) in [
        ("context_window", window),
        ("max_output_tokens", output),
        ("compaction_threshold", threshold),
    ] {
        if value == Some(0) {
            problems.push(format!("{at}.{field} must be greater than 0"));
        }
    }
    if let (Some(window), Some(output)) = (window, output)
        && window > 0
        && output >= window
    {
        problems.push(format!(
            "{at}: max_output_tokens ({output}) must be less than context_window ({window})"
        ));
    }
    if let (Some(window), Some(threshold)) = (window, threshold)
        && window > 0
        && threshold >= window
    {
        problems.push(format!(
            "{at}: compaction_threshold ({threshold}) must be less than context_window ({window})"
        ));
    }
}

/// Why `url` cannot be a base URL, if it cannot.
pub(crate) fn check_base_url(url: &str) -> std::result::Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|err| format!("is not a URL: {err}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err("must start with http:// or https://".into());
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err("has no host".into());
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err("must not have a query or fragment".into());
    }
    Ok(())
}

pub(super) fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The path a relative key file resolves to.
pub(crate) fn key_file_path(path: &Path, config_dir: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        config_dir.join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_names_follow_shell_rules() {
        assert!(is_env_name("OPENAI_API_KEY"));
        assert!(is_env_name("_X1"));
        assert!(!is_env_name("1X"));
        assert!(!is_env_name("MY-KEY"));
        assert!(!is_env_name(""));
    }

    #[test]
    fn base_urls_must_be_http_with_a_host() {
        assert!(check_base_url("http://localhost:8080/v1").is_ok());
        assert!(check_base_url("https://api.openai.com/v1").is_ok());
        assert!(check_base_url("ftp://x").is_err());
        assert!(check_base_url("api.openai.com").is_err());
        assert!(check_base_url("https://x/v1?y=1").is_err());
    }

    #[test]
    fn key_source_accepts_each_documented_shape() {
        #[derive(Deserialize)]
        struct Holder {
            api_key: ApiKeySource,
        }
        let parse = |text: &str| toml::from_str::<Holder>(text).map(|h| h.api_key);
        assert_eq!(parse("api_key = \"none\"").unwrap(), ApiKeySource::None);
        assert_eq!(
            parse("api_key = { env = \"K\" }").unwrap(),
            ApiKeySource::Env("K".into())
        );
        assert_eq!(
            parse("api_key = { keychain = \"work\" }").unwrap(),
            ApiKeySource::Keychain("work".into())
        );
        assert_eq!(
            parse("[api_key]\nfile = \"k.txt\"").unwrap(),
            ApiKeySource::File("k.txt".into())
        );
        assert!(parse("api_key = { env = \"K\", file = \"x\" }").is_err());
        assert!(parse("api_key = { url = \"K\" }").is_err());
    }
}
