//! Layered context management: the compaction policy a session records, the
//! person's threshold override, and the records of the layered steps
//! (tool-output eviction, summary with a state sheet). Each record stores
//! what was decided, so replay applies the stored result, not the algorithm.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::ids::ItemId;
use crate::items::{CompactionSummary, CompactionTrigger, Message};

/// How a session manages its context.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CompactionPolicy {
    /// Never compacts automatically; an overflow is an error suggesting `/compact`.
    Off,
    /// One summary at the threshold (the behaviour of sessions with no policy record).
    Base,
    /// Tool-output eviction first, then a summary with a state sheet.
    #[default]
    Layered,
}

impl CompactionPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            CompactionPolicy::Off => "off",
            CompactionPolicy::Base => "base",
            CompactionPolicy::Layered => "layered",
        }
    }
}

impl FromStr for CompactionPolicy {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim() {
            "off" => Ok(CompactionPolicy::Off),
            "base" => Ok(CompactionPolicy::Base),
            "layered" => Ok(CompactionPolicy::Layered),
            other => Err(format!(
                "unknown compaction policy {other:?}: use off, base or layered"
            )),
        }
    }
}

/// The person's compaction threshold: `80%` of the window, a token count
/// (`12000`), or tokens left in the window (`left:20000`). On the wire it is
/// that same text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, TS)]
#[ts(type = "string")]
pub enum ThresholdSetting {
    /// A percentage of the context window, 1 to 100.
    Percent(u8),
    Tokens(u64),
    /// Compact when fewer than this many tokens of the window are left.
    Left(u64),
}

impl fmt::Display for ThresholdSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThresholdSetting::Percent(percent) => write!(f, "{percent}%"),
            ThresholdSetting::Tokens(tokens) => write!(f, "{tokens}"),
            ThresholdSetting::Left(tokens) => write!(f, "left:{tokens}"),
        }
    }
}

impl FromStr for ThresholdSetting {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let number = |digits: &str| -> Result<u64, String> {
            digits
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("invalid threshold {text:?}: use 80%, 12000 or left:20000"))
        };
        if let Some(percent) = text.strip_suffix('%') {
            let value = number(percent)?;
            return u8::try_from(value)
                .ok()
                .filter(|p| *p <= 100)
                .map(ThresholdSetting::Percent)
                .ok_or_else(|| format!("invalid threshold {text:?}: a percentage is 1% to 100%"));
        }
        if let Some(left) = text.strip_prefix("left:") {
            return number(left).map(ThresholdSetting::Left);
        }
        number(text).map(ThresholdSetting::Tokens)
    }
}

impl Serialize for ThresholdSetting {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ThresholdSetting {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// `compaction_policy` record: the session's policy from here on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CompactionPolicyRecord {
    pub policy: CompactionPolicy,
    /// The person's threshold override, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<ThresholdSetting>,
}

/// One tool output replaced by a placeholder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct EvictedOutput {
    /// The `function_call_output` item; its original stays in the file.
    pub item_id: ItemId,
    pub call_id: String,
    pub tool: String,
    /// Characters of the output that was replaced.
    pub chars: u64,
    /// The text the model sees instead.
    pub placeholder: String,
}

/// `tool_outputs_evicted` record: older tool outputs replaced, in one batch,
/// by placeholders. No model call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ToolOutputsEvicted {
    pub trigger: CompactionTrigger,
    /// The reported usage that triggered it, when a round reported one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    pub threshold: u64,
    /// The estimate eviction aimed below.
    pub low_water: u64,
    /// Estimated tokens of the history before and after (estimates, not reports).
    pub estimated_before: u64,
    pub estimated_after: u64,
    /// Oldest first.
    pub evicted: Vec<EvictedOutput>,
}

/// A file the session touched and the last thing done to it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SheetFile {
    pub path: String,
    /// `read`, `listed`, `searched`, `written`, `edited`, or `shell`.
    pub last_action: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SheetCommand {
    pub command: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SheetError {
    /// What failed: the tool and its path or command.
    pub subject: String,
    /// The first line of the error.
    pub message: String,
    /// Whether a later call of the same subject succeeded.
    pub fixed: bool,
}

/// Files past the sheet's budget, shown to the model as a folder and a count;
/// `paths` lists them in full here.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SheetGroup {
    pub folder: String,
    pub paths: Vec<String>,
}

/// Characters of the latest finished turn's final message a state sheet keeps.
pub const SHEET_FINAL_MESSAGE_CHARS: usize = 2_000;

/// The deterministic state sheet attached to a layered summary: built with
/// no model call from the previous sheet plus what the compacted span adds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct StateSheet {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_request: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latest_request: Option<String>,
    /// Constraints in force: the approval policy, rules by reference, and
    /// every rule the person stated.
    pub rules: Vec<String>,
    /// Every file, oldest first (grouped ones included).
    pub files: Vec<SheetFile>,
    pub commands: Vec<SheetCommand>,
    pub errors: Vec<SheetError>,
    /// The next step: the plan's step in progress (or first pending) when
    /// there is a plan, else the last plan or next step the assistant
    /// stated, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_step: Option<String>,
    /// The plan the latest `update_plan` call set, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub plan: Option<crate::Plan>,
    /// The final assistant message of the latest finished turn, verbatim up
    /// to [`SHEET_FINAL_MESSAGE_CHARS`] characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub final_message: Option<String>,
    /// Files the text shows only as a folder and a count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grouped: Vec<SheetGroup>,
    /// The text the model sees, right after the summary.
    pub text: String,
}

/// What the removed span mentioned that neither the summary nor the state
/// sheet carries (for paths and commands it must be empty).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LossAudit {
    pub paths: Vec<String>,
    pub commands: Vec<String>,
    pub errors: Vec<String>,
}

/// `layered_compaction` record: a summary with its state sheet. Replay
/// rebuilds the history as `leading`, the summary, the sheet message, then
/// `kept`, all by id from the history so far.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LayeredCompaction {
    pub summary: CompactionSummary,
    /// The message carrying the sheet's text (a user-role message).
    pub sheet_message: Message,
    pub state_sheet: StateSheet,
    /// Leading system and developer messages, in order.
    pub leading: Vec<ItemId>,
    /// Items kept verbatim after the summary and sheet, in order.
    pub kept: Vec<ItemId>,
    /// Oldest originals of the span left out of the summarizer's input.
    pub folded_out: u32,
    /// Estimated tokens of the history before and after.
    pub estimated_before: u64,
    pub estimated_after: u64,
    pub loss_audit: LossAudit,
}

/// What a compaction would do now, computed without a model call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CompactionPreview {
    pub policy: CompactionPolicy,
    pub threshold: u64,
    /// Reported context tokens of the last round, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_tokens: Option<u64>,
    /// Cached input tokens the last round reported; a compaction gives them up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens_given_up: Option<u64>,
    /// Estimates (labelled so wherever shown).
    pub estimated_before: u64,
    pub estimated_after_eviction: u64,
    /// After the summary too, counting the sheet but not the summary text,
    /// which does not exist yet.
    pub estimated_after_summary: u64,
    pub evicted: Vec<EvictedOutput>,
    /// Whether eviction alone would not be enough and a summary would follow.
    pub summary_needed: bool,
    /// Items the summary would replace.
    pub summarized: Vec<ItemId>,
    /// Items kept verbatim.
    pub kept: Vec<ItemId>,
    /// The pinned items among them (a pinned output's call included).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pinned: Vec<ItemId>,
    pub state_sheet: StateSheet,
}

/// A session's compaction state as the app's gauge, footer and console show
/// it (`compaction_status`, `set_compaction_policy`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CompactionStatus {
    pub policy: CompactionPolicy,
    /// The threshold override the session recorded, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_setting: Option<ThresholdSetting>,
    /// The threshold in tokens (`resolve_threshold` of the session's policy
    /// and setting).
    pub threshold: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// Context tokens the last round reported, when no compaction changed
    /// the history since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_tokens: Option<u64>,
    /// An estimate of the history when a compaction (or eviction) changed it
    /// after the last report: shown, labelled as an estimate, until the next
    /// round reports. Never the pre-compaction figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_tokens: Option<u64>,
    /// Automatic compaction is held off after repeated failed summaries
    /// until the person retries (a manual compaction that succeeds).
    pub circuit_open: bool,
    /// While the circuit is open: what the last failed summary reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub circuit_reason: Option<String>,
    /// The summary of the compaction `undo_compaction` would undo now: the
    /// latest, unless it was undone since (none then, or before any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo_summary: Option<ItemId>,
}

/// What `check_threshold` makes of the person's threshold text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ThresholdCheck {
    pub setting: ThresholdSetting,
    /// The threshold in tokens for the profile checked against.
    pub tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_parse_in_three_forms_and_print_back() {
        for (text, setting) in [
            ("80%", ThresholdSetting::Percent(80)),
            ("12000", ThresholdSetting::Tokens(12_000)),
            ("left:20000", ThresholdSetting::Left(20_000)),
        ] {
            assert_eq!(text.parse::<ThresholdSetting>(), Ok(setting));
            assert_eq!(setting.to_string(), text);
            let json = serde_json::to_string(&setting).unwrap();
            assert_eq!(json, format!("\"{text}\""));
            assert_eq!(
                serde_json::from_str::<ThresholdSetting>(&json).unwrap(),
                setting
            );
        }
        for bad in ["0", "101%", "left:", "-5", "eighty", "0%"] {
            assert!(bad.parse::<ThresholdSetting>().is_err(), "{bad}");
        }
    }

    #[test]
    fn policies_parse_by_name() {
        for policy in [
            CompactionPolicy::Off,
            CompactionPolicy::Base,
            CompactionPolicy::Layered,
        ] {
            assert_eq!(policy.as_str().parse::<CompactionPolicy>(), Ok(policy));
        }
        assert!("smart".parse::<CompactionPolicy>().is_err());
        assert_eq!(CompactionPolicy::default(), CompactionPolicy::Layered);
    }
}
