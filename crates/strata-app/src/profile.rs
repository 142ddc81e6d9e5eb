//! Which provider a session talks to. A session records the profile it was
//! created on (a `profile_set` record: kind, endpoint without userinfo or
//! query, model, the config profile's name; never a key) and resumes there.
//! Another profile is only ever chosen explicitly, and the choice is
//! recorded as its own `profile_set`. When the recorded profile cannot be
//! used as it is (its config profile is gone, or its endpoint needs a key
//! that is not configured), resuming fails with
//! [`CommandErrorKind::ProfileUnavailable`](strata_protocol::CommandErrorKind)
//! instead of falling back to a default.

use strata_core::StrataPaths;
use strata_protocol::{
    ProfileChange, ProfileSet, ProviderKind, SessionMeta, endpoint_without_secrets,
};
use strata_providers::config::{EnvLookup, ProfileOrigin, resolve_profile, with_key};
use strata_providers::{
    ProfileFlags, ProviderError, ProviderProfile, ResolvedProfile, StrataConfig,
};

use crate::error::{AppError, AppResult, profile_unavailable};

/// How to choose another profile, named in every refusal.
pub const HOW_TO_SWITCH: &str = "Choose another profile for the session explicitly: give `strata resume` --provider, --base-url and --model, or pick one with Switch profile in the app.";

/// The record for a session on `profile`.
pub fn profile_set(profile: &ProviderProfile, change: ProfileChange) -> ProfileSet {
    ProfileSet {
        provider_kind: profile.kind,
        base_url: profile.base_url.as_deref().map(endpoint_without_secrets),
        model: profile.model.clone(),
        profile: (profile.origin == ProfileOrigin::ConfigFile).then(|| profile.name.clone()),
        change,
        approval: None,
    }
}

/// What a session from before `profile_set` records: the kind and model of
/// its `session_meta`, no endpoint.
pub fn legacy_profile(meta: &SessionMeta) -> Option<ProfileSet> {
    let kind = meta.provider_kind.parse::<ProviderKind>().ok()?;
    Some(ProfileSet {
        provider_kind: kind,
        base_url: None,
        model: meta.model.clone(),
        profile: None,
        change: ProfileChange::Created,
        approval: None,
    })
}

/// Whether two records name the same endpoint and model.
pub fn same_target(a: &ProfileSet, b: &ProfileSet) -> bool {
    a.provider_kind == b.provider_kind && a.base_url == b.base_url && a.model == b.model
}

/// The flags an explicit choice resolves with, over the session's current
/// profile: a flag that changes the kind drops the recorded endpoint, model
/// and config profile; otherwise unset flags keep the recorded values.
pub fn switch_flags(current: Option<&ProfileSet>, explicit: &ProfileFlags) -> ProfileFlags {
    let Some(current) = current else {
        return explicit.clone();
    };
    let kind = explicit.kind.unwrap_or(current.provider_kind);
    let same_kind = kind == current.provider_kind;
    ProfileFlags {
        profile: explicit
            .profile
            .clone()
            .or_else(|| current.profile.clone().filter(|_| same_kind)),
        kind: Some(kind),
        model: explicit
            .model
            .clone()
            .or_else(|| Some(current.model.clone()).filter(|_| same_kind)),
        base_url: explicit
            .base_url
            .clone()
            .or_else(|| current.base_url.clone().filter(|_| same_kind)),
    }
}

/// Whether any profile flag was given.
pub fn is_explicit(flags: &ProfileFlags) -> bool {
    flags.profile.is_some()
        || flags.kind.is_some()
        || flags.model.is_some()
        || flags.base_url.is_some()
}

/// The profile a session resumes on, and the `profile_set` to append when
/// the person chose another one.
pub struct Chosen {
    pub resolved: ResolvedProfile,
    /// A switch to record (an explicit choice that differs from the
    /// session's current profile).
    pub switched: Option<ProfileSet>,
    /// The session predates `profile_set`: it resumed on its
    /// `session_meta`'s kind and model.
    pub legacy: bool,
}

/// Resolves the profile for resuming a session whose records say
/// `recorded` (its last `profile_set`, if any), with `explicit` flags a
/// person gave (none: go back where it was made). Blocking: it may read
/// the OS keychain.
pub fn for_resume(
    paths: &StrataPaths,
    env: EnvLookup<'_>,
    meta: &SessionMeta,
    recorded: Option<&ProfileSet>,
    explicit: &ProfileFlags,
) -> AppResult<Chosen> {
    let config = StrataConfig::load(&paths.config_file())?;
    let legacy = recorded.is_none();
    let current = recorded.cloned().or_else(|| legacy_profile(meta));
    if is_explicit(explicit) {
        let flags = switch_flags(current.as_ref(), explicit);
        let profile = resolve_profile(&config, &flags, env)?;
        let resolved = with_key(paths, &config, profile, env)?;
        let chosen = profile_set(&resolved.profile, ProfileChange::Switched);
        let switched = match &current {
            Some(current) if same_target(current, &chosen) => None,
            _ => Some(chosen),
        };
        return Ok(Chosen {
            resolved,
            switched,
            legacy,
        });
    }
    let Some(recorded) = recorded else {
        // As before profile_set existed: the meta's kind and model, on
        // whatever endpoint the configuration gives them.
        let flags = switch_flags(current.as_ref(), &ProfileFlags::default());
        let profile = resolve_profile(&config, &flags, env)?;
        let resolved = with_key(paths, &config, profile, env)?;
        return Ok(Chosen {
            resolved,
            switched: None,
            legacy,
        });
    };
    let profile = recorded_profile(&config, env, recorded)?;
    let resolved = with_key(paths, &config, profile, env).map_err(|error| match error {
        ProviderError::MissingApiKey { hint, .. } => profile_unavailable(format!(
            "The session was made on {}, which needs an API key that is not configured ({hint}). {HOW_TO_SWITCH}",
            target(recorded)
        )),
        other => AppError::from(other),
    })?;
    Ok(Chosen {
        resolved,
        switched: None,
        legacy,
    })
}

/// The recorded profile, resolved against today's configuration but on the
/// recorded endpoint and model.
fn recorded_profile(
    config: &StrataConfig,
    env: EnvLookup<'_>,
    recorded: &ProfileSet,
) -> AppResult<ProviderProfile> {
    if let Some(name) = &recorded.profile
        && !config.profiles.contains_key(name)
    {
        return Err(profile_unavailable(format!(
            "The session was made on profile {name:?} ({}), which no longer exists. {HOW_TO_SWITCH}",
            target(recorded)
        )));
    }
    let mut flags = ProfileFlags {
        profile: recorded.profile.clone(),
        kind: Some(recorded.provider_kind),
        model: Some(recorded.model.clone()),
        base_url: None,
    };
    let unusable = |error: ProviderError| {
        profile_unavailable(format!(
            "The session was made on {}, which today's configuration cannot reach: {error}. {HOW_TO_SWITCH}",
            target(recorded)
        ))
    };
    let profile = resolve_profile(config, &flags, env).map_err(unusable)?;
    if profile.base_url.as_deref().map(endpoint_without_secrets) == recorded.base_url {
        return Ok(profile);
    }
    // The configuration points elsewhere now: go back to the recorded
    // endpoint all the same.
    flags.base_url.clone_from(&recorded.base_url);
    resolve_profile(config, &flags, env).map_err(unusable)
}

/// "openai-chat · qwen3 at http://127.0.0.1:8080/v1".
fn target(profile: &ProfileSet) -> String {
    let at = profile
        .base_url
        .as_deref()
        .map(|url| format!(" at {url}"))
        .unwrap_or_default();
    format!("{} · {}{at}", profile.provider_kind, profile.model)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(kind: ProviderKind, url: Option<&str>, model: &str) -> ProfileSet {
        ProfileSet {
            provider_kind: kind,
            base_url: url.map(str::to_owned),
            model: model.to_owned(),
            profile: Some("local".into()),
            change: ProfileChange::Created,
            approval: None,
        }
    }

    #[test]
    fn unset_flags_keep_the_recorded_endpoint_and_a_new_kind_drops_it() {
        let current = recorded(
            ProviderKind::OpenaiChat,
            Some("http://127.0.0.1:9/v1"),
            "qwen3",
        );
        let model_only = ProfileFlags {
            model: Some("llama3".into()),
            ..Default::default()
        };
        let flags = switch_flags(Some(&current), &model_only);
        assert_eq!(flags.kind, Some(ProviderKind::OpenaiChat));
        assert_eq!(flags.base_url.as_deref(), Some("http://127.0.0.1:9/v1"));
        assert_eq!(flags.model.as_deref(), Some("llama3"));
        assert_eq!(flags.profile.as_deref(), Some("local"));

        let other_kind = ProfileFlags {
            kind: Some(ProviderKind::Anthropic),
            ..Default::default()
        };
        let flags = switch_flags(Some(&current), &other_kind);
        assert_eq!(flags.base_url, None);
        assert_eq!(flags.model, None);
        assert_eq!(flags.profile, None);
    }

    #[test]
    fn records_keep_no_userinfo_or_query() {
        let profile = resolve_profile(
            &StrataConfig::default(),
            &ProfileFlags {
                kind: Some(ProviderKind::OpenaiChat),
                base_url: Some("http://me:sk-secret@127.0.0.1:9/v1".into()),
                model: Some("qwen3".into()),
                ..Default::default()
            },
            &|_| None,
        )
        .unwrap();
        let set = profile_set(&profile, ProfileChange::Created);
        assert_eq!(set.base_url.as_deref(), Some("http://127.0.0.1:9/v1"));
        assert_eq!(set.profile, None);
        let json = serde_json::to_string(&set).unwrap();
        assert!(!json.contains("sk-"), "{json}");
    }
}
