//! Where approval requests wait for a person's answer.
//!
//! The loop registers a request before it announces it (so an answer sent
//! as soon as the event arrives finds it), then awaits the answer or the
//! turn's cancellation. A front end answers with [`ApprovalBroker::answer`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use strata_protocol::{ApprovalDecision, RuleKind};
use tokio::sync::oneshot;

/// What "always allow" would save for a waiting request: patterns of one
/// kind (a shell command's prefixes, an MCP tool on its launch spec).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProposedRules {
    pub kind: RuleKind,
    pub patterns: Vec<String>,
}

/// A cloneable handle to the approval requests of one agent.
#[derive(Clone, Debug)]
pub struct ApprovalBroker {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    interactive: bool,
    /// Tells a request from a newer one that reused its call id.
    next_ticket: AtomicU64,
    pending: Mutex<HashMap<String, Waiting>>,
}

/// A request waiting: its ticket, where its answer goes, and the rules
/// "always allow" would save for it.
#[derive(Debug)]
struct Waiting {
    ticket: u64,
    sender: oneshot::Sender<ApprovalDecision>,
    proposed_rules: ProposedRules,
}

impl ApprovalBroker {
    /// A broker whose requests wait for [`Self::answer`].
    pub fn interactive() -> Self {
        Self::with(true)
    }

    /// A broker with no one to ask (e.g. the CLI without a terminal): every
    /// request is refused at once, and the call's output says approval was
    /// needed and no one could answer.
    pub fn non_interactive() -> Self {
        Self::with(false)
    }

    fn with(interactive: bool) -> Self {
        Self {
            inner: Arc::new(Inner {
                interactive,
                next_ticket: AtomicU64::new(0),
                pending: Mutex::new(HashMap::new()),
            }),
        }
    }

    pub fn is_interactive(&self) -> bool {
        self.inner.interactive
    }

    /// Answers the request for `call_id`. `false` when no request for it is
    /// waiting (already answered, cancelled, or never asked).
    pub fn answer(&self, call_id: &str, decision: ApprovalDecision) -> bool {
        let sender = self.pending().remove(call_id);
        // The waiting side may have been cancelled between our removal and
        // this send; then the answer came too late.
        sender.is_some_and(|waiting| waiting.sender.send(decision).is_ok())
    }

    /// The rules "always allow" would save for the request waiting for
    /// `call_id`: `None` when none waits, no patterns when nothing is
    /// proposed. The front end's answer saves these, never rules it names
    /// itself.
    pub fn proposed_rules(&self, call_id: &str) -> Option<ProposedRules> {
        self.pending()
            .get(call_id)
            .map(|waiting| waiting.proposed_rules.clone())
    }

    /// The call ids waiting for an answer, sorted.
    pub fn pending_call_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.pending().keys().cloned().collect();
        ids.sort();
        ids
    }

    /// Registers a request with what "always allow" would save for it;
    /// `None` when there is no one to ask.
    pub(crate) fn register(
        &self,
        call_id: &str,
        proposed_rules: ProposedRules,
    ) -> Option<PendingApproval> {
        if !self.inner.interactive {
            return None;
        }
        let (tx, rx) = oneshot::channel();
        let ticket = self.inner.next_ticket.fetch_add(1, Ordering::Relaxed);
        // A reused call id replaces the stale entry; its waiter sees a
        // closed channel, which counts as no answer.
        self.pending().insert(
            call_id.to_owned(),
            Waiting {
                ticket,
                sender: tx,
                proposed_rules,
            },
        );
        Some(PendingApproval {
            broker: self.clone(),
            call_id: call_id.to_owned(),
            ticket,
            rx,
        })
    }

    fn pending(&self) -> MutexGuard<'_, HashMap<String, Waiting>> {
        // The map stays valid whatever a panicking holder was doing.
        self.inner
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// A registered request. Dropping it unregisters the request, so a
/// cancelled wait leaves nothing behind for [`ApprovalBroker::answer`].
#[derive(Debug)]
pub(crate) struct PendingApproval {
    broker: ApprovalBroker,
    call_id: String,
    ticket: u64,
    rx: oneshot::Receiver<ApprovalDecision>,
}

impl PendingApproval {
    /// The answer; `None` if the request was dropped from the broker
    /// without one.
    pub(crate) async fn decision(&mut self) -> Option<ApprovalDecision> {
        (&mut self.rx).await.ok()
    }
}

impl Drop for PendingApproval {
    fn drop(&mut self) {
        let mut pending = self.broker.pending();
        // Only our own entry: a newer request may reuse the call id.
        if pending
            .get(&self.call_id)
            .is_some_and(|waiting| waiting.ticket == self.ticket)
        {
            pending.remove(&self.call_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none() -> ProposedRules {
        ProposedRules {
            kind: RuleKind::Command,
            patterns: Vec::new(),
        }
    }

    #[tokio::test]
    async fn an_answer_reaches_the_waiting_request_once() {
        let broker = ApprovalBroker::interactive();
        let mut pending = broker.register("call_1", none()).unwrap();
        assert_eq!(broker.pending_call_ids(), vec!["call_1".to_owned()]);
        assert!(broker.answer("call_1", ApprovalDecision::AllowOnce));
        assert!(!broker.answer("call_1", ApprovalDecision::Deny));
        assert_eq!(pending.decision().await, Some(ApprovalDecision::AllowOnce));
        assert!(broker.pending_call_ids().is_empty());
    }

    #[test]
    fn a_dropped_request_is_unregistered() {
        let broker = ApprovalBroker::interactive();
        let pending = broker.register("call_1", none()).unwrap();
        drop(pending);
        assert!(broker.pending_call_ids().is_empty());
        assert!(!broker.answer("call_1", ApprovalDecision::AllowOnce));
    }

    #[test]
    fn a_non_interactive_broker_registers_nothing() {
        let broker = ApprovalBroker::non_interactive();
        assert!(!broker.is_interactive());
        assert!(broker.register("call_1", none()).is_none());
        assert!(!broker.answer("call_1", ApprovalDecision::AllowOnce));
    }

    #[tokio::test]
    async fn a_reused_call_id_replaces_the_stale_request() {
        let broker = ApprovalBroker::interactive();
        let mut stale = broker.register("call_1", none()).unwrap();
        let mut fresh = broker.register("call_1", none()).unwrap();
        assert_eq!(stale.decision().await, None);
        drop(stale);
        assert!(broker.answer("call_1", ApprovalDecision::Deny));
        assert_eq!(fresh.decision().await, Some(ApprovalDecision::Deny));
    }

    #[test]
    fn a_waiting_request_keeps_its_proposed_rules_until_answered() {
        let broker = ApprovalBroker::interactive();
        let proposed = ProposedRules {
            kind: RuleKind::Command,
            patterns: vec!["cargo test*".to_owned()],
        };
        let _pending = broker.register("call_1", proposed.clone()).unwrap();
        assert_eq!(broker.proposed_rules("call_1"), Some(proposed));
        assert_eq!(broker.proposed_rules("call_2"), None);
        assert!(broker.answer("call_1", ApprovalDecision::AlwaysAllow));
        assert_eq!(broker.proposed_rules("call_1"), None);
    }
}
