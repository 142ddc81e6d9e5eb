//! Resolution of the one profile a session uses: explicit flags over the
//! config file over the environment over the demo model.
//!
//! The environment is passed in as a lookup function so callers (and tests)
//! decide what it holds; [`process_env`] reads the real one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use strata_core::StrataPaths;
use strata_protocol::PriceQuote;
use strata_protocol::ReasoningEffort;
use strata_protocol::SandboxMode;

use super::catalog::{self, ModelInfo};
use super::file::{ApiKeySource, ProfileConfig, StrataConfig, check_base_url, key_file_path};
use super::{ProviderKind, ProviderKindExt};
use crate::cache::{CacheTtl, PromptCacheRetention};
use crate::client::HttpOptions;
use crate::error::{ProviderError, Result};
use crate::keys::KeyStore;
use crate::secret::ApiKey;

pub const OPENAI_API_KEY_ENV: &str = "OPENAI_API_KEY";
pub const ANTHROPIC_API_KEY_ENV: &str = "ANTHROPIC_API_KEY";
pub const OPENAI_BASE_URL_ENV: &str = "OPENAI_BASE_URL";

/// Reads an environment variable; empty values count as unset.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The process environment, with empty values treated as unset.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

fn lookup(env: EnvLookup<'_>, name: &str) -> Option<String> {
    env(name)
        .map(|value| value.trim().to_string())
        .filter(|value| !value.is_empty())
}

/// What the command line (or the app's settings screen) asked for
/// explicitly; each set field beats the config file and the environment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProfileFlags {
    pub profile: Option<String>,
    pub kind: Option<ProviderKind>,
    pub model: Option<String>,
    pub base_url: Option<String>,
}

/// Which layer chose the profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProfileOrigin {
    /// A named profile of the config file.
    ConfigFile,
    /// Flags alone (a kind, or a catalog model), no profile.
    Flags,
    /// `OPENAI_API_KEY` / `OPENAI_BASE_URL` / `ANTHROPIC_API_KEY`.
    Environment,
    /// Nothing configured: the offline demo model.
    DemoDefault,
}

/// Where the context window and output limit came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MetadataSource {
    Catalog,
    /// The profile or the config's `[models]` table.
    Config,
    /// Neither knew the model: conservative defaults.
    Fallback,
}

/// A resolved profile without its key: safe to show, log and serialise.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProviderProfile {
    /// The config profile's name, or `env`, `flags` or `demo`.
    pub name: String,
    pub origin: ProfileOrigin,
    pub kind: ProviderKind,
    /// The id sent to the provider.
    pub model: String,
    /// What the UI shows for the model ("demo" for the demo model).
    pub model_label: String,
    /// Includes the version segment (`https://api.openai.com/v1`); endpoints
    /// are `base_url + "/responses"`, `"/chat/completions"` or
    /// `"/messages"`. `None` for the demo model.
    pub base_url: Option<String>,
    pub api_key_source: ApiKeySource,
    /// Whether a missing key is an error: keys named in the config, and the
    /// default key of a known cloud host, are required; local servers reached
    /// through `OPENAI_BASE_URL` may have none.
    pub api_key_required: bool,
    pub context_window: u64,
    pub max_output_tokens: u64,
    /// The profile's compaction threshold: `base` compacts when a round
    /// reports this many `context_tokens`; it caps `layered`'s lower default
    /// (see `strata_core::compaction::resolve_threshold`).
    pub compaction_threshold: u64,
    pub metadata_source: MetadataSource,
    /// Anthropic prompt-cache TTL (the profile's `cache_ttl`, else 5m).
    pub cache_ttl: CacheTtl,
    /// Responses API `store` (the profile's `store`, else `false`).
    pub store: bool,
    /// The profile's `reasoning`; `None` sends no setting (the server's
    /// default) until a session sets one.
    pub reasoning: Option<ReasoningEffort>,
    /// OpenAI `prompt_cache_retention` (the profile's, else the server's
    /// default).
    pub prompt_cache_retention: Option<PromptCacheRetention>,
    /// What its rounds cost: the profile's `price` (kept only while the
    /// profile's model is used), else the built-in table's for the model;
    /// `None` when neither prices it.
    pub price: Option<PriceQuote>,
}

/// A profile with its key loaded, and the transport settings of the config
/// it came from. Not serialisable, and its `Debug` shows the key as
/// redacted.
#[derive(Clone, Debug)]
pub struct ResolvedProfile {
    pub profile: ProviderProfile,
    pub api_key: Option<ApiKey>,
    /// Timeouts, deadline, retries and byte caps (the config's `[network]`).
    pub http: HttpOptions,
    /// The config's `[tools] shell_env`, for [`crate::tool_config`].
    pub shell_env: Vec<String>,
    /// The config's `[tools] allow_secret_files`, for [`crate::tool_config`].
    pub allow_secret_files: Vec<String>,
    /// The config's `[tools] sandbox`: sessions that recorded no mode get it.
    pub sandbox: Option<SandboxMode>,
    /// The config's `[tools] sandbox_network` and `sandbox_allow_domains`.
    pub sandbox_network: Option<strata_protocol::SandboxNetwork>,
    pub sandbox_allow_domains: Vec<String>,
    /// The key file of an `api_key = { file = ... }` profile (absolute), which
    /// the tools refuse wherever it lies.
    pub key_file: Option<PathBuf>,
    /// The config's `[network] turn_deadline_ms`, for [`crate::agent_parts`].
    pub turn_deadline: Duration,
    /// The config's `[rules]`: the user's approval rules.
    pub rules: strata_protocol::RulesConfig,
}

impl ResolvedProfile {
    /// `profile` of `config` with its loaded key; `config_dir` anchors a
    /// relative key file.
    pub fn new(
        config: &StrataConfig,
        profile: ProviderProfile,
        api_key: Option<ApiKey>,
        config_dir: &Path,
    ) -> Self {
        let key_file = match &profile.api_key_source {
            ApiKeySource::File(path) => Some(key_file_path(path, config_dir)),
            ApiKeySource::None | ApiKeySource::Env(_) | ApiKeySource::Keychain(_) => None,
        };
        Self {
            profile,
            api_key,
            http: config.network.options(),
            shell_env: config.tools.shell_env.clone(),
            allow_secret_files: config.tools.allowed_secret_files(),
            sandbox: config.tools.sandbox,
            sandbox_network: config.tools.sandbox_network,
            sandbox_allow_domains: config.tools.sandbox_allow_domains.clone(),
            key_file,
            turn_deadline: config.network.turn_deadline(),
            rules: config.rules.clone(),
        }
    }
}

/// Resolves the profile and loads its key from `keys` (or the environment,
/// or a key file relative to `config_dir`).
pub fn resolve(
    config: &StrataConfig,
    flags: &ProfileFlags,
    env: EnvLookup<'_>,
    keys: &KeyStore,
    config_dir: &Path,
) -> Result<ResolvedProfile> {
    let profile = resolve_profile(config, flags, env)?;
    let api_key = profile.load_api_key(env, keys, config_dir)?;
    Ok(ResolvedProfile::new(config, profile, api_key, config_dir))
}

/// What a command line or app does at startup: reads the config file under
/// `paths` (a missing file is an empty config), opens the key store it
/// selects, and resolves the profile with its key. Touches the OS keychain,
/// which may block briefly: call it off any async executor's threads.
pub fn load_and_resolve(
    paths: &StrataPaths,
    flags: &ProfileFlags,
    env: EnvLookup<'_>,
) -> Result<(StrataConfig, ResolvedProfile)> {
    let config = StrataConfig::load(&paths.config_file())?;
    let profile = resolve_profile(&config, flags, env)?;
    let resolved = with_key(paths, &config, profile, env)?;
    Ok((config, resolved))
}

/// `profile` (resolved from `config`) with its key loaded. Blocking: see
/// [`load_and_resolve`].
pub fn with_key(
    paths: &StrataPaths,
    config: &StrataConfig,
    profile: ProviderProfile,
    env: EnvLookup<'_>,
) -> Result<ResolvedProfile> {
    // Probing the keychain can take a while on a desktop without one; only
    // profiles that keep their key in the store pay for it.
    let keys = match profile.api_key_source {
        ApiKeySource::Keychain(_) => KeyStore::open(config.key_store, &paths.config),
        _ => KeyStore::file(paths.config.join(crate::keys::KEY_FILE_NAME)),
    };
    let api_key = profile.load_api_key(env, &keys, &paths.config)?;
    Ok(ResolvedProfile::new(
        config,
        profile,
        api_key,
        &paths.config,
    ))
}

/// Resolves which provider, model, endpoint, key source and limits to use,
/// without reading any key.
pub fn resolve_profile(
    config: &StrataConfig,
    flags: &ProfileFlags,
    env: EnvLookup<'_>,
) -> Result<ProviderProfile> {
    check_flags(flags)?;
    let (name, origin, base) = choose_base(config, flags, env)?;
    let kind = flags.kind.unwrap_or(base.kind);
    // A flag that changes the kind or model makes the profile's endpoint,
    // key and limits meaningless, so they apply only while both stand.
    let same_kind = kind == base.kind;
    let model = resolve_model(kind, flags, &base, same_kind)?;
    let same_model = same_kind && base.model.as_deref().is_none_or(|m| m == model);
    let info = catalog::lookup_model(&model);

    let (base_url, from_catalog) = resolve_base_url(kind, flags, &base, same_kind, info, env)?;
    let explicit_key = base.api_key.clone().filter(|_| same_kind);
    let api_key_source = match (&explicit_key, kind) {
        (_, ProviderKind::Demo) => ApiKeySource::None,
        (Some(source), _) => source.clone(),
        (None, _) => from_catalog
            .and_then(|info| info.api_key_env)
            .or(kind.default_api_key_env())
            .map_or(ApiKeySource::None, |var| ApiKeySource::Env(var.to_string())),
    };
    let api_key_required = match (&api_key_source, explicit_key.is_some()) {
        (ApiKeySource::None, _) => false,
        (_, true) => true,
        (_, false) => base_url.as_deref().is_some_and(is_known_cloud_host),
    };

    let user = config.models.get(&model);
    let profile_limits =
        |field: fn(&ProfileConfig) -> Option<u64>| field(&base).filter(|_| same_model);
    let configured_window =
        profile_limits(|p| p.context_window).or(user.and_then(|u| u.context_window));
    let configured_output =
        profile_limits(|p| p.max_output_tokens).or(user.and_then(|u| u.max_output_tokens));
    let metadata_source = if configured_window.is_some() || configured_output.is_some() {
        MetadataSource::Config
    } else if info.is_some() {
        MetadataSource::Catalog
    } else {
        tracing::warn!(
            %model,
            context_window = catalog::FALLBACK_CONTEXT_WINDOW,
            "the model is not in the catalog; assuming a small context window (set context_window in its profile)"
        );
        MetadataSource::Fallback
    };
    let context_window = configured_window
        .or(info.map(|i| i.context_window))
        .unwrap_or(catalog::FALLBACK_CONTEXT_WINDOW)
        .max(2);
    let max_output_tokens = configured_output
        .or(info.map(|i| i.max_output_tokens))
        .unwrap_or(catalog::FALLBACK_MAX_OUTPUT_TOKENS)
        .clamp(1, context_window - 1);
    let compaction_threshold = profile_limits(|p| p.compaction_threshold)
        .unwrap_or_else(|| catalog::default_compaction_threshold(context_window, max_output_tokens))
        .clamp(1, context_window - 1);

    let price = super::profile_price(base.price.as_ref().filter(|_| same_model), &model);
    Ok(ProviderProfile {
        name,
        origin,
        kind,
        model_label: catalog::model_label(&model).to_owned(),
        model,
        base_url,
        api_key_source,
        api_key_required,
        context_window,
        max_output_tokens,
        compaction_threshold,
        metadata_source,
        cache_ttl: base.cache_ttl.filter(|_| same_kind).unwrap_or_default(),
        store: base.store.filter(|_| same_kind).unwrap_or(false),
        reasoning: base.reasoning,
        prompt_cache_retention: base.prompt_cache_retention.filter(|_| same_kind),
        price,
    })
}

fn check_flags(flags: &ProfileFlags) -> Result<()> {
    if let Some(model) = &flags.model
        && model.trim().is_empty()
    {
        return Err(ProviderError::InvalidArgument {
            what: "model",
            message: "the model name is empty".into(),
        });
    }
    if let Some(url) = &flags.base_url {
        check_base_url(url).map_err(|why| ProviderError::InvalidArgument {
            what: "base URL",
            message: format!("{url:?} {why}"),
        })?;
    }
    Ok(())
}

fn choose_base(
    config: &StrataConfig,
    flags: &ProfileFlags,
    env: EnvLookup<'_>,
) -> Result<(String, ProfileOrigin, ProfileConfig)> {
    let named = flags
        .profile
        .as_ref()
        .or(config.default_profile.as_ref())
        .or_else(|| match config.profiles.keys().collect::<Vec<_>>()[..] {
            [only] => Some(only),
            _ => None,
        });
    if let Some(name) = named {
        let profile = config
            .profiles
            .get(name)
            .ok_or_else(|| ProviderError::UnknownProfile {
                name: name.clone(),
                available: config.profile_names(),
            })?;
        return Ok((name.clone(), ProfileOrigin::ConfigFile, profile.clone()));
    }
    let flag_kind = flags.kind.or_else(|| {
        flags
            .model
            .as_deref()
            .and_then(catalog::lookup_model)
            .map(|info| info.kind)
    });
    if let Some(kind) = flag_kind {
        return Ok((
            "flags".into(),
            ProfileOrigin::Flags,
            ProfileConfig::new(kind),
        ));
    }
    if let Some(kind) = env_kind(env) {
        return Ok((
            "env".into(),
            ProfileOrigin::Environment,
            ProfileConfig::new(kind),
        ));
    }
    if let Some(model) = &flags.model {
        return Err(ProviderError::InvalidArgument {
            what: "model",
            message: format!(
                "{model:?} is not in the model catalog; name its provider kind too, or configure a profile"
            ),
        });
    }
    Ok((
        "demo".into(),
        ProfileOrigin::DemoDefault,
        ProfileConfig::new(ProviderKind::Demo),
    ))
}

/// The kind the environment points at: an OpenAI key or base URL (Chat
/// Completions when the base URL is not OpenAI's, as local servers rarely
/// speak the Responses API), else an Anthropic key.
fn env_kind(env: EnvLookup<'_>) -> Option<ProviderKind> {
    let base_url = lookup(env, OPENAI_BASE_URL_ENV);
    if let Some(url) = &base_url
        && host_of(url).is_none_or(|host| host != "api.openai.com")
    {
        return Some(ProviderKind::OpenaiChat);
    }
    if base_url.is_some() || lookup(env, OPENAI_API_KEY_ENV).is_some() {
        return Some(ProviderKind::OpenaiResponses);
    }
    lookup(env, ANTHROPIC_API_KEY_ENV).map(|_| ProviderKind::Anthropic)
}

fn resolve_model(
    kind: ProviderKind,
    flags: &ProfileFlags,
    base: &ProfileConfig,
    same_kind: bool,
) -> Result<String> {
    let wanted = flags
        .model
        .clone()
        .or_else(|| base.model.clone().filter(|_| same_kind));
    if kind == ProviderKind::Demo {
        return match wanted.as_deref().map(catalog::lookup_model) {
            None
            | Some(Some(ModelInfo {
                kind: ProviderKind::Demo,
                ..
            })) => Ok(crate::demo::DEMO_MODEL.to_string()),
            Some(_) => Err(ProviderError::InvalidArgument {
                what: "model",
                message: format!(
                    "the demo provider only has the model {:?}",
                    crate::demo::DEMO_MODEL
                ),
            }),
        };
    }
    Ok(wanted
        .map(|model| match catalog::lookup_model(&model) {
            // "demo" names the demo model by its label; other ids are kept
            // verbatim (dated snapshots included).
            Some(info) if info.label == model && info.id != model => info.id.to_string(),
            _ => model,
        })
        .unwrap_or_else(|| kind.default_model().to_string()))
}

/// The base URL, and the catalog entry when it supplied it.
fn resolve_base_url(
    kind: ProviderKind,
    flags: &ProfileFlags,
    base: &ProfileConfig,
    same_kind: bool,
    info: Option<&'static ModelInfo>,
    env: EnvLookup<'_>,
) -> Result<(Option<String>, Option<&'static ModelInfo>)> {
    if kind == ProviderKind::Demo {
        if flags.base_url.is_some() {
            return Err(ProviderError::InvalidArgument {
                what: "base URL",
                message: "the demo model runs offline and takes no base URL".into(),
            });
        }
        return Ok((None, None));
    }
    if let Some(url) = flags
        .base_url
        .clone()
        .or_else(|| base.base_url.clone().filter(|_| same_kind))
    {
        return Ok((Some(trim_slash(&url)), None));
    }
    let openai = matches!(
        kind,
        ProviderKind::OpenaiResponses | ProviderKind::OpenaiChat
    );
    if openai && let Some(url) = lookup(env, OPENAI_BASE_URL_ENV) {
        check_base_url(&url).map_err(|why| ProviderError::InvalidArgument {
            what: "OPENAI_BASE_URL",
            message: format!("{url:?} {why}"),
        })?;
        return Ok((Some(trim_slash(&url)), None));
    }
    if let Some(info) = info.filter(|i| i.kind == kind)
        && let Some(url) = info.base_url
    {
        return Ok((Some(url.to_string()), Some(info)));
    }
    Ok((kind.default_base_url().map(str::to_string), None))
}

fn trim_slash(url: &str) -> String {
    url.trim_end_matches('/').to_string()
}

fn host_of(url: &str) -> Option<String> {
    reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
}

/// Hosts that always want a key: the kinds' defaults and the catalog's
/// hosted models.
fn is_known_cloud_host(url: &str) -> bool {
    let Some(host) = host_of(url) else {
        return false;
    };
    ProviderKind::ALL
        .iter()
        .filter_map(|kind| kind.default_base_url())
        .chain(catalog::MODEL_CATALOG.iter().filter_map(|i| i.base_url))
        .filter_map(host_of)
        .any(|known| known == host)
}

impl ProviderProfile {
    pub fn is_demo(&self) -> bool {
        self.kind == ProviderKind::Demo
    }

    /// Reads the key from its source. A required key that is missing is a
    /// [`ProviderError::MissingApiKey`] saying where it was looked for.
    pub fn load_api_key(
        &self,
        env: EnvLookup<'_>,
        keys: &KeyStore,
        config_dir: &Path,
    ) -> Result<Option<ApiKey>> {
        let key = match &self.api_key_source {
            ApiKeySource::None => None,
            ApiKeySource::Env(var) => lookup(env, var).map(ApiKey::new),
            ApiKeySource::Keychain(account) => keys.get(account)?,
            ApiKeySource::File(path) => read_key_file(&key_file_path(path, config_dir))?,
        };
        if key.is_none() && self.api_key_required {
            let hint = match &self.api_key_source {
                ApiKeySource::Env(var) => format!("set the environment variable {var}"),
                ApiKeySource::Keychain(account) => {
                    format!(
                        "no key is stored for account {account:?} in {}",
                        keys.describe()
                    )
                }
                ApiKeySource::File(path) => format!(
                    "the key file {} is empty",
                    key_file_path(path, config_dir).display()
                ),
                ApiKeySource::None => "no key source is configured".into(),
            };
            return Err(ProviderError::MissingApiKey {
                profile: self.name.clone(),
                hint,
            });
        }
        Ok(key)
    }
}

/// A file holding only a key (surrounding whitespace ignored).
fn read_key_file(path: &Path) -> Result<Option<ApiKey>> {
    let text =
        std::fs::read_to_string(path).map_err(ProviderError::io("read the key file", path))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path)
            && meta.permissions().mode() & 0o077 != 0
        {
            tracing::warn!(path = %path.display(), "the API key file is readable by other users; chmod 600 it");
        }
    }
    let key = text.trim();
    Ok((!key.is_empty()).then(|| ApiKey::new(key)))
}
