//! The one ordered event stream of an agent. Mainline and debug events go
//! through the same emitter, so their relative order is the order things
//! happened in.

use strata_protocol::{
    AgentEvent, DebugEvent, EVENT_FORMAT_VERSION, EventEnvelope, MainlineEvent, SessionId,
};
use tokio::sync::mpsc;
use tokio::time::Instant;

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

    /// When the events a handler holds back (to send several at once) must
    /// go out even if no other event comes; `None` when it holds none.
    fn flush_at(&self) -> Option<Instant> {
        None
    }

    /// Sends whatever the handler holds back: at [`Self::flush_at`], and
    /// once the work has ended.
    fn flush(&mut self) -> impl Future<Output = ()> + Send {
        std::future::ready(())
    }
}

/// Drives `work` (a turn or a compaction) while handing each event it emits
/// to `handler`, then the events still queued when it finished: every event
/// is handled, in order, and the handler flushed, before this returns.
pub async fn forward_events<F: Future>(
    work: F,
    events: &mut EventReceiver,
    handler: &mut impl EventHandler,
) -> F::Output {
    let mut work = std::pin::pin!(work);
    let output = loop {
        let flush_at = handler.flush_at();
        // A timer only while the handler holds something back.
        let due = async move {
            match flush_at {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            Some(envelope) = events.recv() => handler.handle(envelope).await,
            () = due => handler.flush().await,
            output = &mut work => break output,
        }
    };
    while let Ok(envelope) = events.try_recv() {
        handler.handle(envelope).await;
    }
    handler.flush().await;
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

    /// Holds every event back until flushed, like a batching front end.
    #[derive(Default)]
    struct Holding {
        held: Vec<u64>,
        sent: Vec<Vec<u64>>,
        flushed: Option<tokio::sync::oneshot::Sender<()>>,
    }

    impl EventHandler for Holding {
        async fn handle(&mut self, envelope: EventEnvelope) {
            self.held.push(envelope.seq);
        }

        fn flush_at(&self) -> Option<Instant> {
            (!self.held.is_empty()).then(|| Instant::now() + std::time::Duration::from_millis(5))
        }

        async fn flush(&mut self) {
            if !self.held.is_empty() {
                self.sent.push(std::mem::take(&mut self.held));
                if let Some(flushed) = self.flushed.take() {
                    let _ = flushed.send(());
                }
            }
        }
    }

    #[tokio::test]
    async fn held_back_events_go_out_when_due_while_the_work_still_runs() {
        let (tx, mut rx) = event_channel();
        let mut emitter = EventEmitter::new(tx, SessionId::new());
        let (flushed_tx, flushed_rx) = tokio::sync::oneshot::channel();
        // The work waits for the flush of its first event: it would wait
        // forever if only a later event or the work's end flushed.
        let work = async move {
            emitter.debug(ineffective());
            flushed_rx.await.unwrap();
            emitter.debug(ineffective());
        };
        let mut holding = Holding {
            flushed: Some(flushed_tx),
            ..Holding::default()
        };
        tokio::time::timeout(
            std::time::Duration::from_secs(30),
            forward_events(work, &mut rx, &mut holding),
        )
        .await
        .expect("the held event was never flushed");
        assert_eq!(holding.sent, [vec![0], vec![1]]);
        assert!(holding.held.is_empty(), "flushed once the work ended");
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
