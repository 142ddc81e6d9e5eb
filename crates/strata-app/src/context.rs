//! Context management as the front ends show it: a session's compaction
//! status (the gauge's figure, reported or, right after a compaction, an
//! estimate), its per-session policy, the compaction preview that
//! `strata compact --preview` and the app's Preview button both print, and
//! the settings screen's threshold check. The threshold is always
//! [`resolve_threshold`], the function the trigger uses.

use std::sync::Arc;

use strata_core::agent::CIRCUIT_BREAKER_FAILURES;
use strata_core::compaction::{
    Calibration, Estimate, SheetContext, TokenEstimator, preview_compaction, resolve_threshold,
};
use strata_core::store::original_items;
use strata_core::{History, Replay, SessionRead};
use strata_protocol::{
    ApprovalPolicy, CompactionPolicy, CompactionPreview, CompactionStatus, ItemId, ResponseItem,
    Role, ThresholdSetting,
};
use strata_providers::config::resolve_profile;
use strata_providers::{ProfileFlags, ProviderProfile, estimator_for};

use crate::error::{AppResult, invalid_input};
use crate::{App, profile};

/// The person's threshold text in one of its three forms, or why not.
pub fn threshold_setting(text: &str) -> AppResult<ThresholdSetting> {
    text.parse::<ThresholdSetting>().map_err(invalid_input)
}

/// The estimate calibrated, as the live agent's is, against the last
/// reported usage and the part of the history it described.
pub fn calibration(history: &History, estimator: &dyn TokenEstimator) -> Calibration {
    let raw = Estimate::new(estimator, Calibration::default());
    let reported_part = &history.items()[..history.len() - history.items_since_last_usage().len()];
    history
        .last_usage()
        .and_then(|usage| usage.context_tokens())
        .map_or_else(Calibration::default, |reported| {
            Calibration::from_report(reported, raw.items(reported_part))
        })
}

/// The figure every front end shows right after a compaction, until the
/// next round reports: [`strata_core::compaction::estimate_after_compaction`]
/// with the recorded model's estimator, uncalibrated (after a base summary
/// no report describes the history), as the live agent computes it, so the
/// live gauge, the reopened session and `strata context` agree.
pub fn estimate_after_compaction(replay: &Replay) -> Option<u64> {
    strata_core::compaction::estimate_after_compaction(replay, |items| {
        recorded_estimate(replay, items)
    })
}

/// `items` counted, uncalibrated, by the estimator of the model `replay`
/// recorded (characters / 4 only when no model is known): the figure after a
/// compaction and the console's before/after sizes.
pub fn recorded_estimate(replay: &Replay, items: &[ResponseItem]) -> u64 {
    let estimator = recorded_estimator(replay);
    Estimate::new(estimator.as_ref(), Calibration::default()).items(items)
}

/// The estimator of the model `replay` recorded (characters / 4 when none).
pub fn recorded_estimator(replay: &Replay) -> Arc<dyn TokenEstimator> {
    match replay
        .profile()
        .cloned()
        .or_else(|| profile::legacy_profile(replay.meta()))
    {
        Some(recorded) => estimator_for(recorded.provider_kind, &recorded.model),
        None => Arc::new(strata_core::compaction::CharEstimator),
    }
}

/// While the session's auto-compaction circuit is open, what the last
/// failed summary reported (the banner names it).
pub(crate) fn circuit_reason(replay: &Replay) -> Option<String> {
    let guards = replay.compaction_guards();
    (guards.failures_in_a_row() >= CIRCUIT_BREAKER_FAILURES)
        .then(|| guards.last_failure().unwrap_or_default().to_owned())
}

/// The compaction an undo would undo now, as the core decides it
/// ([`strata_core::context_ops::decide_undo`]): the transcript's divider and
/// the console offer Undo on it alone.
pub(crate) fn undo_summary(history: &History) -> Option<ItemId> {
    history.undo_point().map(|point| point.summary_item_id)
}

/// What the preview of `read` needs besides the file: the profile the
/// session would run on, and the overrides a person gave.
pub struct PreviewInputs<'a> {
    pub profile: &'a ProviderProfile,
    /// A threshold override; none: the session's recorded one.
    pub setting: Option<ThresholdSetting>,
    /// A policy override; none: the session's recorded one.
    pub policy: Option<CompactionPolicy>,
    pub approval: ApprovalPolicy,
}

/// What a compaction of `read` would do now: no model call, no write.
pub fn preview_of(read: &SessionRead, inputs: &PreviewInputs<'_>) -> CompactionPreview {
    let state = read.replay();
    let history = state.history();
    let profile = inputs.profile;
    let setting = inputs
        .setting
        .or_else(|| state.policy_record().and_then(|record| record.threshold));
    let policy = inputs.policy.unwrap_or(state.policy());
    let threshold = resolve_threshold(
        policy,
        setting,
        profile.compaction_threshold,
        Some(profile.context_window),
        u32::try_from(profile.max_output_tokens).ok(),
    );
    let estimator = estimator_for(profile.kind, &profile.model);
    let sheet_context = SheetContext {
        approval_policy: inputs.approval.as_str().to_owned(),
        has_agents_file: history
            .items()
            .iter()
            .take_while(|item| !matches!(item, ResponseItem::Message(m) if m.role == Role::User))
            .any(|item| item.is_message_with_role(Role::Developer)),
        ..SheetContext::default()
    }
    .with_history(history.items());
    preview_compaction(
        history,
        policy,
        threshold,
        Estimate::new(estimator.as_ref(), calibration(history, estimator.as_ref())),
        &sheet_context,
        state.last_state_sheet(),
        &original_items(&read.records),
    )
}

/// The status of a session that is not live (or busy): from its file and
/// the profile it would resume on.
pub(crate) fn status_of(replay: &Replay, profile: Option<&ProviderProfile>) -> CompactionStatus {
    let history = replay.history();
    let setting = replay.policy_record().and_then(|record| record.threshold);
    let (threshold, context_window) = match profile {
        Some(profile) => (
            resolve_threshold(
                replay.policy(),
                setting,
                profile.compaction_threshold,
                Some(profile.context_window),
                u32::try_from(profile.max_output_tokens).ok(),
            ),
            Some(profile.context_window),
        ),
        None => (0, None),
    };
    let reported_tokens = history
        .last_usage()
        .and_then(|usage| usage.context_tokens());
    CompactionStatus {
        policy: replay.policy(),
        threshold_setting: setting,
        threshold,
        context_window,
        reported_tokens,
        estimated_tokens: estimate_after_compaction(replay),
        circuit_open: circuit_reason(replay).is_some(),
        circuit_reason: circuit_reason(replay),
        undo_summary: undo_summary(history),
    }
}

impl App {
    /// The profile a session that is not live would resume on, without its
    /// key (the active profile when its recorded one cannot be resolved).
    pub(crate) fn view_profile(&self, replay: &Replay) -> Option<ProviderProfile> {
        let config = self.config().unwrap_or_default();
        let current = replay
            .profile()
            .cloned()
            .or_else(|| profile::legacy_profile(replay.meta()));
        let flags = profile::switch_flags(current.as_ref(), &ProfileFlags::default());
        resolve_profile(&config, &flags, self.env())
            .or_else(|_| resolve_profile(&config, &ProfileFlags::default(), self.env()))
            .ok()
    }
}
