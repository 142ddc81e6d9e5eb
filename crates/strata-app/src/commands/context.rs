//! The context commands: compact now or up to an item, undo the latest
//! compaction, the policy and its status, the preview and threshold check,
//! every recorded item with pins, and each compaction's before and after.

use std::sync::Arc;

use strata_core::agent::EventHandler;
use strata_core::compaction::resolve_threshold;
use strata_core::recall::recorded_items;
use strata_core::store::{ReadMode, compaction_views as views_of};
use strata_protocol::{
    CONTRACT_FORMAT_VERSION, CheckThreshold, CompactNow, CompactOutcome, CompactUpTo,
    CompactionPolicyRecord, CompactionPreview, CompactionStatus, CompactionUndoneView,
    CompactionView, GetCompactionStatus, GetCompactionViews, ItemPinned, ListSessionItems,
    OutputKind, PinItem, PreviewCompaction, RecordBody, SessionId, SessionItems,
    SetCompactionPolicy, ThresholdCheck, UndoCompaction,
};
use strata_providers::ProfileFlags;
use strata_providers::config::resolve_profile;

use crate::App;
use crate::context::{
    PreviewInputs, circuit_reason, estimate_after_compaction, preview_of, status_of,
    threshold_setting, undo_summary,
};
use crate::error::{AppError, CommandResult, not_found};
use crate::validate;

impl App {
    /// `compact_now`: compacts the session's history now.
    pub async fn compact_now<H>(
        self: &Arc<Self>,
        request: CompactNow,
        sink: H,
    ) -> CommandResult<CompactOutcome>
    where
        H: EventHandler + Send + 'static,
    {
        Ok(self
            .compact_with(request.session_id, request.focus, None, sink)
            .await?)
    }

    /// `compact_up_to`: a partial compaction, its events to `sink`.
    pub async fn compact_up_to<H>(
        self: &Arc<Self>,
        request: CompactUpTo,
        sink: H,
    ) -> CommandResult<CompactOutcome>
    where
        H: EventHandler + Send + 'static,
    {
        Ok(self
            .compact_with(request.session_id, request.focus, Some(request.item), sink)
            .await?)
    }

    /// `undo_compaction`: through the session's live agent.
    pub async fn undo_compaction(
        self: &Arc<Self>,
        request: UndoCompaction,
    ) -> CommandResult<CompactionUndoneView> {
        let id = request.session_id;
        let mut running = self.start_running(id).await?;
        let result = running.agent_mut().agent.undo_compaction();
        self.finished(id, running, false);
        Ok(CompactionUndoneView {
            v: CONTRACT_FORMAT_VERSION,
            kind: OutputKind::CompactionUndone,
            session_id: id,
            undone: result.map_err(AppError::from)?,
        })
    }

    /// `compaction_status`. A live, idle session answers from its agent
    /// (its calibrated estimate, its circuit); otherwise the file does.
    pub async fn compaction_status(
        self: &Arc<Self>,
        request: GetCompactionStatus,
    ) -> CommandResult<CompactionStatus> {
        let id = request.session_id;
        if let Ok(Some(live)) = self.idle_agent(id) {
            let agent = &live.agent;
            let history = agent.history();
            let reported_tokens = history
                .last_usage()
                .and_then(|usage| usage.context_tokens());
            return Ok(CompactionStatus {
                policy: agent.policy(),
                threshold_setting: agent.config().threshold_setting,
                threshold: agent.threshold(),
                context_window: agent.config().context_window,
                reported_tokens,
                estimated_tokens: estimate_after_compaction(agent.session().state()),
                circuit_open: agent.compaction_circuit_open(),
                circuit_reason: circuit_reason(agent.session().state()),
                undo_summary: undo_summary(history),
            });
        }
        self.blocking(move |app| {
            let replay = app.replay_from_tail(id)?;
            let profile = app.view_profile(&replay);
            Ok(status_of(&replay, profile.as_ref()))
        })
        .await
    }

    /// `set_compaction_policy`: a `compaction_policy` record keeping the
    /// session's recorded threshold; a live session closes so its next turn
    /// resumes under it. Refused while something runs in the session.
    pub async fn set_compaction_policy(
        self: &Arc<Self>,
        request: SetCompactionPolicy,
    ) -> CommandResult<CompactionStatus> {
        let id = request.session_id;
        {
            let _opening = self.live.opening.lock().await;
            self.close_locked(id)?;
            self.blocking(move |app| {
                let mut session = app.store.open_writer(id)?;
                app.check_not_stale(id)?;
                let state = session.state();
                let threshold = state.policy_record().and_then(|record| record.threshold);
                if state.policy() != request.policy || state.policy_record().is_none() {
                    session
                        .append(RecordBody::CompactionPolicy(CompactionPolicyRecord {
                            policy: request.policy,
                            threshold,
                        }))
                        .and_then(|_| session.sync())?;
                    tracing::info!(session = %id, policy = request.policy.as_str(), "compaction policy set");
                }
                drop(session);
                app.mark_own_write(id);
                Ok(())
            })
            .await?;
        }
        self.compaction_status(GetCompactionStatus { session_id: id })
            .await
    }

    /// `preview_compaction`: [`preview_of`] the session on the profile it
    /// would resume on, under the desktop's approval policy. Reads the file
    /// without a lock and writes nothing.
    pub async fn preview_compaction(
        self: &Arc<Self>,
        request: PreviewCompaction,
    ) -> CommandResult<CompactionPreview> {
        let id: SessionId = request.session_id;
        self.blocking(move |app| {
            let read = app.browse(id)?;
            let profile = app.view_profile(&read.replay()).ok_or_else(|| {
                not_found("No profile can be resolved for this session's preview.")
            })?;
            Ok(preview_of(
                &read,
                &PreviewInputs {
                    profile: &profile,
                    setting: None,
                    policy: None,
                    approval: app.prefs().approval_policy,
                },
            ))
        })
        .await
    }

    /// `check_threshold`: the text parsed in one of its three forms and
    /// resolved against the window of profile `profile_id` (else the
    /// active one), as the trigger would.
    pub async fn check_threshold(
        self: &Arc<Self>,
        request: CheckThreshold,
    ) -> CommandResult<ThresholdCheck> {
        let setting = threshold_setting(&request.threshold)?;
        self.blocking(move |app| {
            let config = app.config()?;
            let flags = match request.profile_id.as_deref().map(str::trim) {
                Some(id) if config.profiles.contains_key(id) => ProfileFlags {
                    profile: Some(id.to_owned()),
                    ..Default::default()
                },
                _ => ProfileFlags::default(),
            };
            let profile = resolve_profile(&config, &flags, app.env())?;
            Ok(ThresholdCheck {
                setting,
                tokens: resolve_threshold(
                    config.compaction_policy.unwrap_or_default(),
                    Some(setting),
                    profile.compaction_threshold,
                    Some(profile.context_window),
                    u32::try_from(profile.max_output_tokens).ok(),
                ),
                context_window: Some(profile.context_window),
            })
        })
        .await
    }

    /// `session_items`.
    pub async fn session_items(
        self: &Arc<Self>,
        request: ListSessionItems,
    ) -> CommandResult<SessionItems> {
        self.blocking(move |app| {
            let read = app
                .store()
                .open_reader(request.session_id, ReadMode::Browsing)?;
            let replay = read.replay();
            let tally = strata_core::store::session_cost(&read.meta.model, &read.records);
            Ok(SessionItems {
                v: CONTRACT_FORMAT_VERSION,
                kind: OutputKind::SessionItems,
                session_id: request.session_id,
                items: recorded_items(&read.records, replay.history()),
                cost: tally.total.as_ref().map(Into::into),
                unpriced_rounds: u32::try_from(tally.unpriced_rounds).unwrap_or(u32::MAX),
            })
        })
        .await
    }

    /// `pin_item`: through the session's live agent (resumed if needed);
    /// `busy` while a turn runs.
    pub async fn pin_item(self: &Arc<Self>, request: PinItem) -> CommandResult<ItemPinned> {
        let id = request.session_id;
        let query = validate::item_query(&request.item)?;
        let mut running = self.start_running(id).await?;
        let result = running.agent_mut().agent.pin(&query, request.pinned);
        self.finished(id, running, false);
        let pin = result.map_err(AppError::from)?;
        Ok(ItemPinned {
            v: CONTRACT_FORMAT_VERSION,
            kind: OutputKind::ItemPinned,
            session_id: id,
            item_id: pin.item_id,
            pinned: pin.pinned,
        })
    }

    /// `compaction_views`: every compaction of the session, in order, with
    /// the history before and after it, sized as the gauge sizes a history.
    pub async fn compaction_views(
        self: &Arc<Self>,
        request: GetCompactionViews,
    ) -> CommandResult<Vec<CompactionView>> {
        self.blocking(move |app| {
            let read = app.browse(request.session_id)?;
            Ok(views_of(
                &read.meta,
                &read.records,
                crate::context::recorded_estimate,
            ))
        })
        .await
    }
}
