//! A turn's live events on their way to the webview: [`TranscriptFeed`]
//! folds each into the transcript updates it makes (and the console's) and
//! gathers them into batches ([`LiveBatcher`]). A model streaming
//! 2,000 text deltas a second would otherwise cost 2,000 IPC messages a
//! second, each evaluated in the page on its own; a frame's worth of deltas
//! travels as one [`LiveBatch`] instead. Only streamed text waits, and at
//! most [`BATCH_WINDOW`]: every other event (a tool call, an approval
//! request, the turn's end, an error) goes out at once, with the deltas
//! before it, so nothing the person must act on is delayed. The batcher is
//! pure: the caller says what time it is.

use std::time::Duration;

use strata_core::agent::EventHandler;
use strata_protocol::{AgentEvent, EventEnvelope, LiveBatch, LiveEvent, MainlineEvent};
use tokio::time::Instant;

use super::TranscriptFold;

/// How long the first held delta may wait: about one frame at 60 Hz.
pub const BATCH_WINDOW: Duration = Duration::from_millis(16);

/// The most events one batch holds, so a burst never makes one huge message.
pub const BATCH_MAX_EVENTS: usize = 256;

/// Consecutive live events, held while they are streamed text.
#[derive(Debug, Default)]
pub struct LiveBatcher {
    held: Vec<LiveEvent>,
    /// When the first held event arrived.
    since: Option<Instant>,
}

/// Whether an event may wait for the next ones: streamed text only.
fn may_wait(event: &LiveEvent) -> bool {
    match &event.envelope.event {
        AgentEvent::Mainline(MainlineEvent::TextDelta { .. }) => true,
        AgentEvent::Mainline(_) | AgentEvent::Debug(_) => false,
    }
}

impl LiveBatcher {
    /// Takes `event`, which arrived at `now`; returns the batch to send now,
    /// if any: the held events and this one, when this one may not wait,
    /// the batch is full or the first held event has waited its window.
    pub fn push(&mut self, event: LiveEvent, now: Instant) -> Option<LiveBatch> {
        let urgent = !may_wait(&event);
        self.held.push(event);
        let since = *self.since.get_or_insert(now);
        let due = urgent
            || self.held.len() >= BATCH_MAX_EVENTS
            || now.saturating_duration_since(since) >= BATCH_WINDOW;
        if due { self.take() } else { None }
    }

    /// When the held events must go out even if nothing else arrives.
    pub fn flush_at(&self) -> Option<Instant> {
        self.since.map(|since| since + BATCH_WINDOW)
    }

    /// Every held event, in order; `None` when none is held.
    pub fn take(&mut self) -> Option<LiveBatch> {
        self.since = None;
        if self.held.is_empty() {
            return None;
        }
        Some(LiveBatch {
            events: std::mem::take(&mut self.held),
        })
    }
}

/// An event sink that sends each event with the transcript updates it
/// makes, streamed text gathered into batches of about a frame
/// ([`LiveBatcher`]): the agent's order, nothing dropped, and every held
/// event sent by the time the turn's work returns.
pub struct TranscriptFeed<F> {
    fold: TranscriptFold,
    batcher: LiveBatcher,
    /// The debug console's updates, when the front end shows one.
    console: Option<crate::console::ConsoleTail>,
    send: F,
}

impl<F: FnMut(LiveBatch) + Send> TranscriptFeed<F> {
    pub fn new(send: F) -> Self {
        Self {
            fold: TranscriptFold::live(),
            batcher: LiveBatcher::default(),
            console: None,
            send,
        }
    }

    /// Each event also carries what it changed in an open debug console.
    pub fn with_console(mut self, console: crate::console::ConsoleTail) -> Self {
        self.console = Some(console);
        self
    }
}

impl<F: FnMut(LiveBatch) + Send> EventHandler for TranscriptFeed<F> {
    async fn handle(&mut self, envelope: EventEnvelope) {
        self.fold.apply_event(&envelope);
        let updates = self.fold.take_updates();
        let console = self
            .console
            .as_ref()
            .and_then(|tail| tail.update(&envelope));
        let event = LiveEvent {
            envelope,
            updates,
            console,
        };
        if let Some(batch) = self.batcher.push(event, Instant::now()) {
            (self.send)(batch);
        }
    }

    fn flush_at(&self) -> Option<Instant> {
        self.batcher.flush_at()
    }

    async fn flush(&mut self) {
        if let Some(batch) = self.batcher.take() {
            (self.send)(batch);
        }
    }
}

#[cfg(test)]
mod tests {
    use strata_protocol::{
        DebugEvent, EVENT_FORMAT_VERSION, EventEnvelope, ItemId, RoundId, SessionId, TurnId,
        TurnOutcome,
    };

    use super::*;

    /// One turn's events: the same ids in every event, as the agent sends.
    struct Turn {
        session: SessionId,
        turn: TurnId,
        round: RoundId,
    }

    impl Turn {
        fn new() -> Self {
            Self {
                session: SessionId::new(),
                turn: TurnId::new(),
                round: RoundId::new(),
            }
        }

        fn live(&self, seq: u64, event: AgentEvent) -> LiveEvent {
            LiveEvent {
                envelope: EventEnvelope {
                    v: EVENT_FORMAT_VERSION,
                    seq,
                    session_id: self.session,
                    event,
                },
                updates: Vec::new(),
                console: None,
            }
        }

        fn delta(&self, seq: u64) -> LiveEvent {
            self.live(
                seq,
                AgentEvent::Mainline(MainlineEvent::TextDelta {
                    turn_id: self.turn,
                    round_id: self.round,
                    delta: format!("word{seq} "),
                }),
            )
        }

        fn finished(&self, seq: u64) -> LiveEvent {
            self.live(
                seq,
                AgentEvent::Mainline(MainlineEvent::TurnFinished {
                    turn_id: self.turn,
                    outcome: TurnOutcome::Completed,
                    rounds: 1,
                }),
            )
        }

        fn debug(&self, seq: u64) -> LiveEvent {
            self.live(
                seq,
                AgentEvent::Debug(DebugEvent::CompactionIneffective {
                    summary_item_id: ItemId::new(),
                    estimated_tokens: 1,
                    threshold: 1,
                }),
            )
        }
    }

    fn seqs(batch: &LiveBatch) -> Vec<u64> {
        batch.events.iter().map(|e| e.envelope.seq).collect()
    }

    #[test]
    fn deltas_within_a_frame_are_held_and_sent_together_in_order() {
        let (turn, mut batcher) = (Turn::new(), LiveBatcher::default());
        let start = Instant::now();
        for seq in 0..5 {
            let at = start + Duration::from_millis(seq * 3);
            assert_eq!(
                batcher.push(turn.delta(seq), at),
                None,
                "delta {seq} is held"
            );
        }
        assert_eq!(batcher.flush_at(), Some(start + BATCH_WINDOW));
        let batch = batcher.push(turn.delta(5), start + BATCH_WINDOW).unwrap();
        assert_eq!(seqs(&batch), [0, 1, 2, 3, 4, 5]);
        assert_eq!(batch.events[3], turn.delta(3), "events travel unchanged");
        assert_eq!(batcher.flush_at(), None);
        assert_eq!(batcher.take(), None);
    }

    #[test]
    fn any_other_event_goes_out_at_once_behind_the_held_deltas() {
        let (turn, mut batcher) = (Turn::new(), LiveBatcher::default());
        let now = Instant::now();
        assert_eq!(batcher.push(turn.delta(0), now), None);
        assert_eq!(batcher.push(turn.delta(1), now), None);
        let batch = batcher.push(turn.finished(2), now).unwrap();
        assert_eq!(seqs(&batch), [0, 1, 2]);
        assert_eq!(seqs(&batcher.push(turn.debug(3), now).unwrap()), [3]);
        assert_eq!(batcher.flush_at(), None, "nothing held");
    }

    #[test]
    fn a_lone_delta_is_due_one_window_after_it_arrived() {
        let (turn, mut batcher) = (Turn::new(), LiveBatcher::default());
        let now = Instant::now();
        assert_eq!(batcher.push(turn.delta(7), now), None);
        assert_eq!(batcher.flush_at(), Some(now + BATCH_WINDOW));
        assert_eq!(seqs(&batcher.take().unwrap()), [7]);
        // The next one starts a new window.
        let later = now + Duration::from_secs(1);
        assert_eq!(batcher.push(turn.delta(8), later), None);
        assert_eq!(batcher.flush_at(), Some(later + BATCH_WINDOW));
    }

    #[test]
    fn a_full_batch_goes_out_before_its_window_ends() {
        let (turn, mut batcher) = (Turn::new(), LiveBatcher::default());
        let now = Instant::now();
        let mut sent = Vec::new();
        for seq in 0..(BATCH_MAX_EVENTS as u64 * 2 + 1) {
            sent.extend(batcher.push(turn.delta(seq), now));
        }
        assert_eq!(sent.len(), 2);
        assert!(sent.iter().all(|b| b.events.len() == BATCH_MAX_EVENTS));
        let rest = batcher.take().unwrap();
        let all: Vec<u64> = sent.iter().chain([&rest]).flat_map(seqs).collect();
        assert_eq!(all, (0..all.len() as u64).collect::<Vec<_>>());
    }
}
