//! Setting a provider up: the profile as the form holds it (maybe not saved
//! yet, its key maybe only typed), "Test connection" and the server's model
//! list. Keys go in and never come back out.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::failure::ProviderFailure;
use crate::provider::ProviderKind;

/// A profile being set up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProviderDraft {
    pub kind: ProviderKind,
    /// Empty or absent: the kind's default endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub base_url: Option<String>,
    pub model: String,
    /// The saved profile this draft edits, whose stored key is used when no
    /// key is typed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub profile_id: Option<String>,
    /// A key typed into the form and not stored yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub api_key: Option<String>,
}

/// `test_connection`: one small request (one output token where the API
/// allows it) to the draft's model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TestConnection {
    pub draft: ProviderDraft,
}

/// What the connection test found: `failure` is `None` when the model
/// answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ConnectionReport {
    /// The endpoint asked, without userinfo or query.
    pub endpoint: String,
    pub model: String,
    /// How long the answer took, or the failure.
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub failure: Option<ProviderFailure>,
}

/// `list_models`: the models the draft's server offers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ListModels {
    pub draft: ProviderDraft,
}

/// The server's models; `offered` is false when it has no list (the demo
/// model, or a server answering 404), and `failure` says why a list that
/// should be there could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ModelList {
    pub offered: bool,
    pub models: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub failure: Option<ProviderFailure>,
}
