//! What the application's commands return (docs/desktop-commands.md), to
//! the desktop over IPC and to scripts as the command line's `--json`
//! output. Fields are snake_case, like everything else in this crate.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::context::{CompactionPolicy, ThresholdSetting};
use crate::ids::{SessionId, TurnId};
use crate::items::{CompactionSummary, ResponseItem};
use crate::provider::{ProfileSet, ProviderKind};
use crate::reasoning::ReasoningEffort;
use crate::recall::ForkPoint;
use crate::records::{Record, SessionRecordTs, TurnOutcome};
use crate::sandbox::{SandboxMode, SandboxNetwork};
use crate::tools::ApprovalPolicy;
use crate::usage::TokenUsage;

/// Which family of failure a command met; the UI picks its wording and
/// recovery (retry, reopen, fix the form) from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CommandErrorKind {
    NotFound,
    /// Another process holds the session's lock.
    Locked,
    InvalidInput,
    Provider,
    Io,
    /// A turn is running in that session.
    Busy,
    /// The profile a session was made on cannot be used as it is: it no
    /// longer exists, or its endpoint needs a key that is not configured.
    /// Choosing another profile for the session is an explicit act.
    ProfileUnavailable,
    /// The workspace is `/` or the home folder: refused unless the person
    /// confirms it (`create_session`'s `allow_broad_workspace`).
    BroadWorkspace,
    /// The session's file changed outside this app since the app showed
    /// it (the `strata` command line, another window): a write now would
    /// follow records the person has not seen. Nothing was written; reload
    /// the session first.
    Stale,
    Internal,
}

impl CommandErrorKind {
    /// Every kind, in declaration order: the UI's list of the kinds it
    /// recognises is generated from this (ui/src/bindings/Commands.ts).
    pub const ALL: [Self; 10] = [
        Self::NotFound,
        Self::Locked,
        Self::InvalidInput,
        Self::Provider,
        Self::Io,
        Self::Busy,
        Self::ProfileUnavailable,
        Self::BroadWorkspace,
        Self::Stale,
        Self::Internal,
    ];
}

/// Every command's error: a kind and a message a person can read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CommandError {
    pub kind: CommandErrorKind,
    pub message: String,
}

impl CommandError {
    pub fn new(kind: CommandErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CommandError {}

/// A provider profile as the UI sees it. The API key never leaves the
/// keychain: `has_key` only says whether one is stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProfileView {
    pub id: String,
    pub kind: ProviderKind,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    pub model: String,
    /// Ignored when saving settings; keys go through `set_api_key`.
    #[serde(default)]
    pub has_key: bool,
    /// The model's context window in tokens, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// The profile's compaction threshold in tokens: `base` compacts when a
    /// round reports this many context tokens; `layered`'s default is a
    /// fifth of the window (a third of a small one), never above it. An
    /// override replaces both.
    pub compact_threshold: u64,
}

/// The UI's colour scheme.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    Light,
    Dark,
    #[default]
    System,
}

/// What `get_settings` returns and `save_settings` takes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Settings {
    pub profiles: Vec<ProfileView>,
    /// The `id` of the profile new turns use.
    pub active_profile: String,
    pub approval_policy: ApprovalPolicy,
    pub theme: Theme,
    /// The compaction policy new sessions start with (the config file's,
    /// which the command line reads too).
    #[serde(default)]
    pub compaction_policy: CompactionPolicy,
    /// The threshold override new sessions record (`80%`, `12000`,
    /// `left:20000`); none: each profile's own threshold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compact_threshold: Option<ThresholdSetting>,
    /// The sandbox new sessions' shell commands run in (the config file's
    /// `[tools] sandbox`, which the command line reads too;
    /// `workspace-write` when absent).
    #[serde(default)]
    pub sandbox: SandboxMode,
    /// What new sessions' sandboxed commands reach (`[tools]
    /// sandbox_network`; off when absent).
    #[serde(default)]
    pub sandbox_network: SandboxNetwork,
    /// The domains `allow-list` lets through (`[tools]
    /// sandbox_allow_domains`).
    #[serde(default)]
    pub sandbox_allow_domains: Vec<String>,
}

/// What the header, the footer and the first-run banner show.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AppInfo {
    pub version: String,
    pub strata_home: String,
    pub active_profile: ProfileView,
    /// Whether the active profile is the offline demo model.
    pub is_demo: bool,
    /// The debug console's width the person last chose (`save_layout`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub console_width: Option<u32>,
    /// Why this computer cannot sandbox shell commands (the kernel probe's
    /// answer, asked once per process), if it cannot: sessions set to a
    /// sandbox then ask before every command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub sandbox_unavailable: Option<String>,
}

/// One row of the session sidebar (and of `strata sessions list --json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SessionListItem {
    pub id: SessionId,
    /// The last title set, else the start of the first user message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub workspace: String,
    pub provider_kind: String,
    pub model: String,
    pub created_at: DateTime<Utc>,
    /// The timestamp of the session's last record.
    pub updated_at: DateTime<Utc>,
    /// `response_item` records in the file (not the compacted history's length).
    pub item_count: u32,
    pub compaction_count: u32,
    /// Where the session was forked from, when it is a fork (its last
    /// `session_forked` record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<ForkOrigin>,
    /// What the session cost (rounds and summary calls), from the library
    /// index or the file; absent when nothing in it had a price, and in rows
    /// built from a live session's state alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost: Option<crate::Cost>,
}

/// The parent a fork came from and where in it, for the sidebar's lineage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct ForkOrigin {
    pub parent_session_id: SessionId,
    pub point: ForkPoint,
}

/// A read-only snapshot of one session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, TS)]
pub struct SessionView {
    pub summary: SessionListItem,
    /// Every record of the file, in order.
    #[ts(as = "Vec<SessionRecordTs>")]
    pub records: Vec<Record>,
    /// The model-visible history, from the core's replay.
    pub context: Vec<ResponseItem>,
    /// The usage the last round reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_usage: Option<TokenUsage>,
    /// `last_usage`'s context tokens (input + output), the figure the
    /// compaction threshold is compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    pub threshold: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// Whether the session is open for turns in this app.
    pub live: bool,
    /// Whether another process (the `strata` command line, another window)
    /// holds the session open for writing now: the app shows it read-only
    /// until that process lets go. Never set for a session this app holds.
    #[serde(default)]
    pub held_elsewhere: bool,
    /// The profile the session talks to (its last `profile_set`); `None`
    /// for sessions written before that record, which resume on the
    /// provider kind and model of their `session_meta`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileSet>,
    /// The session's reasoning setting: its last `reasoning_set`, else its
    /// profile's; `None` when neither says (the server's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reasoning: Option<ReasoningEffort>,
    /// Whether the session's model takes a reasoning setting (the catalog
    /// says so); the desktop's control is disabled, saying why, when not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>", optional)]
    pub can_reason: bool,
    /// The sandbox the session's shell commands run in: its last
    /// `sandbox_set`; `None` for sessions from before the record, which
    /// resume under the settings' sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub sandbox: Option<SandboxMode>,
    /// The network and domains of its last `sandbox_set` (off for one
    /// that named none).
    #[serde(default, skip_serializing_if = "SandboxNetwork::is_off")]
    #[ts(as = "Option<SandboxNetwork>", optional)]
    pub sandbox_network: SandboxNetwork,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<String>>", optional)]
    pub sandbox_allow_domains: Vec<String>,
    /// Records in the file; `records` holds those from the requested one on,
    /// so the next read can start here.
    pub record_count: u32,
}

/// How a turn started by `send_message` ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TurnReport {
    pub turn_id: TurnId,
    pub outcome: TurnOutcome,
    pub rounds: u32,
}

/// What `compact_now` did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CompactOutcome {
    /// The summary committed, when the history was compacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<CompactionSummary>,
    /// Why nothing was compacted, for a person (e.g. the history is too short).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Items in the history afterwards.
    pub history_items: u32,
}

/// What `send_message` did with the composer's text: a turn, or, for
/// `/compact [focus]`, the compaction `compact_now` runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SendOutcome {
    Turn(TurnReport),
    Compaction(Box<CompactOutcome>),
}

/// The formats `export_session` renders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    Md,
    Json,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn desktop_types_use_snake_case_fields() {
        let profile = ProfileView {
            id: "demo".into(),
            kind: ProviderKind::Demo,
            label: "Offline demo".into(),
            base_url: None,
            model: "strata-demo".into(),
            has_key: false,
            context_window: Some(32_000),
            compact_threshold: 8_000,
        };
        let value = serde_json::to_value(&profile).unwrap();
        assert_eq!(value["kind"], "demo");
        assert_eq!(value["has_key"], false);
        assert_eq!(value["context_window"], 32_000);
        assert_eq!(value["compact_threshold"], 8_000);
        assert!(value.get("base_url").is_none());
        let settings = Settings {
            profiles: vec![profile],
            active_profile: "demo".into(),
            approval_policy: ApprovalPolicy::ReadOnly,
            theme: Theme::System,
            compaction_policy: CompactionPolicy::Layered,
            compact_threshold: Some(ThresholdSetting::Left(20_000)),
            sandbox: SandboxMode::WorkspaceWrite,
            sandbox_network: SandboxNetwork::AllowList,
            sandbox_allow_domains: vec!["crates.io".into()],
        };
        let value = serde_json::to_value(&settings).unwrap();
        assert_eq!(value["sandbox"], "workspace-write");
        assert_eq!(value["sandbox_network"], "allow-list");
        assert_eq!(value["active_profile"], "demo");
        assert_eq!(value["approval_policy"], "read-only");
        assert_eq!(value["theme"], "system");
        assert_eq!(value["compaction_policy"], "layered");
        assert_eq!(value["compact_threshold"], "left:20000");
        assert_eq!(serde_json::from_value::<Settings>(value).unwrap(), settings);
    }

    #[test]
    fn command_errors_carry_a_snake_case_kind_and_a_message() {
        let error = CommandError::new(CommandErrorKind::InvalidInput, "The model is empty.");
        let value = serde_json::to_value(&error).unwrap();
        assert_eq!(value["kind"], "invalid_input");
        assert_eq!(value["message"], "The model is empty.");
        assert_eq!(error.to_string(), "The model is empty.");
        assert_eq!(
            serde_json::to_value(ProviderKind::OpenaiResponses).unwrap(),
            "openai-responses"
        );
        assert_eq!(serde_json::to_value(ExportFormat::Md).unwrap(), "md");
    }
}
