//! The one ordered event stream of an agent. Mainline and debug events go
//! through the same emitter, so their relative order is the order things
//! happened in.

use strata_protocol::{
    AgentEvent, DebugEvent, EVENT_FORMAT_VERSION, EventEnvelope, MainlineEvent, SessionId,
};
use tokio::sync::mpsc;

/// Where an agent sends its events. Unbounded so a fast stream never waits
/// on a slow front end and nothing is dropped.
pub type EventSender = mpsc::UnboundedSender<EventEnvelope>;

/// What a front end reads an agent's events from.
pub type EventReceiver = mpsc::UnboundedReceiver<EventEnvelope>;

/// A channel for one agent's events.
pub fn event_channel() -> (EventSender, EventReceiver) {
    mpsc::unbounded_channel()
}

/// What a front end does with each event of a turn or a compaction (see
/// [`forward_events`]).
pub trait EventHandler {
    /// Shows or sends one event; the agent waits meanwhile.
    fn handle(&mut self, envelope: EventEnvelope) -> impl Future<Output = ()> + Send;
}

/// Drives `work` (a turn or a compaction) while handing each event it emits
/// to `handler`, then the events still queued when it finished: every event
/// is handled, in order, before this returns.
pub async fn forward_events<F: Future>(
    work: F,
    events: &mut EventReceiver,
    handler: &mut impl EventHandler,
) -> F::Output {
    let mut work = std::pin::pin!(work);
    let output = loop {
        tokio::select! {
            biased;
            Some(envelope) = events.recv() => handler.handle(envelope).await,
            output = &mut work => break output,
        }
    };
    while let Ok(envelope) = events.try_recv() {
        handler.handle(envelope).await;
    }
    output
}

/// Stamps each event with the session id and the next sequence number.
#[derive(Debug)]
pub(crate) struct EventEmitter {
    tx: EventSender,
    session_id: SessionId,
    next_seq: u64,
}

impl EventEmitter {
    pub(crate) fn new(tx: EventSender, session_id: SessionId) -> Self {
        Self {
            tx,
            session_id,
            next_seq: 0,
        }
    }

    pub(crate) fn emit(&mut self, event: AgentEvent) {
        let envelope = EventEnvelope {
            v: EVENT_FORMAT_VERSION,
            seq: self.next_seq,
            session_id: self.session_id,
            event,
        };
        self.next_seq += 1;
        // A front end that went away must not stop the agent: the session
        // file still records the turn.
        let _ = self.tx.send(envelope);
    }

    pub(crate) fn mainline(&mut self, event: MainlineEvent) {
        self.emit(AgentEvent::Mainline(event));
    }

    pub(crate) fn debug(&mut self, event: DebugEvent) {
        self.emit(AgentEvent::Debug(event));
    }
}

#[cfg(test)]
mod tests {
    use strata_protocol::ItemId;

    use super::*;

    fn ineffective() -> DebugEvent {
        DebugEvent::CompactionIneffective {
            summary_item_id: ItemId::new(),
            estimated_tokens: 1,
            threshold: 1,
        }
    }

    #[test]
    fn sequence_numbers_start_at_zero_and_increase_by_one() {
        let (tx, mut rx) = event_channel();
        let session_id = SessionId::new();
        let mut emitter = EventEmitter::new(tx, session_id);
        for _ in 0..3 {
            emitter.debug(ineffective());
        }
        let seqs: Vec<u64> = std::iter::from_fn(|| rx.try_recv().ok())
            .inspect(|envelope| {
                assert_eq!(envelope.session_id, session_id);
                assert_eq!(envelope.v, EVENT_FORMAT_VERSION);
            })
            .map(|envelope| envelope.seq)
            .collect();
        assert_eq!(seqs, vec![0, 1, 2]);
    }

    #[tokio::test]
    async fn forwarding_hands_over_every_event_in_order_before_returning() {
        let (tx, mut rx) = event_channel();
        let mut emitter = EventEmitter::new(tx, SessionId::new());
        let work = async move {
            for _ in 0..3 {
                emitter.debug(ineffective());
                tokio::task::yield_now().await;
            }
            // Still queued when the work ends.
            emitter.debug(ineffective());
            emitter.debug(ineffective());
            "done"
        };
        struct Seen(Vec<u64>);
        impl EventHandler for Seen {
            async fn handle(&mut self, envelope: EventEnvelope) {
                self.0.push(envelope.seq);
            }
        }
        let mut seen = Seen(Vec::new());
        let output = forward_events(work, &mut rx, &mut seen).await;
        assert_eq!(output, "done");
        assert_eq!(seen.0, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_closed_receiver_is_ignored() {
        let (tx, rx) = event_channel();
        drop(rx);
        let mut emitter = EventEmitter::new(tx, SessionId::new());
        emitter.debug(ineffective());
        assert_eq!(emitter.next_seq, 1);
    }
}
