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

    #[test]
    fn a_closed_receiver_is_ignored() {
        let (tx, rx) = event_channel();
        drop(rx);
        let mut emitter = EventEmitter::new(tx, SessionId::new());
        emitter.debug(ineffective());
        assert_eq!(emitter.next_seq, 1);
    }
}
