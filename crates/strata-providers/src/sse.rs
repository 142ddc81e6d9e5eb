//! A small Server-Sent Events decoder over a byte stream.
//!
//! It follows the WHATWG event-stream rules (any line ending, comments,
//! `field: value` with one optional space, multi-line `data`), with one
//! deliberate difference: an event still pending when the bytes end without
//! a trailing blank line is dispatched, not dropped. Real providers and
//! recorded fixtures end that way, and the dropped event is usually the
//! terminal one. There is no reconnection: a POST is never re-sent here.
//!
//! A line or an event longer than its cap ends the stream with an error, so
//! an endless line (a 4 GB event without a line end) is never held.

use bytes::Bytes;
use futures::{Stream, StreamExt};
use strata_protocol::ModelError;

use crate::limits::{ByteLimits, too_large};

/// One dispatched event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, `"message"` when absent.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last `id:` field seen, if any.
    pub id: Option<String>,
}

/// An incremental decoder: push byte chunks in, take events out.
#[derive(Debug)]
pub struct SseDecoder {
    max_line: usize,
    max_event: usize,
    line: Vec<u8>,
    /// The previous chunk ended in `\r`; a `\n` that starts the next chunk
    /// belongs to the same line ending.
    after_cr: bool,
    started: bool,
    event: String,
    data: String,
    has_data: bool,
    id: Option<String>,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::with_limits(&ByteLimits::default())
    }
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder that refuses lines and events over `limits`' caps.
    pub fn with_limits(limits: &ByteLimits) -> Self {
        Self {
            max_line: limits.sse_line,
            max_event: limits.sse_event,
            line: Vec::new(),
            after_cr: false,
            started: false,
            event: String::new(),
            data: String::new(),
            has_data: false,
            id: None,
        }
    }

    /// Feeds one chunk and returns the events it completed, or an error once
    /// a line or an event passes its cap.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, ModelError> {
        let mut events = Vec::new();
        let mut rest = chunk;
        while let Some((&byte, tail)) = rest.split_first() {
            if self.after_cr {
                self.after_cr = false;
                if byte == b'\n' {
                    rest = tail;
                    continue;
                }
            }
            // Copy the run up to the next line end in one go.
            let run = rest
                .iter()
                .position(|&b| b == b'\r' || b == b'\n')
                .unwrap_or(rest.len());
            if self.line.len().saturating_add(run) > self.max_line {
                return Err(too_large("an event-stream line", self.max_line));
            }
            self.line.extend_from_slice(&rest[..run]);
            rest = &rest[run..];
            if let Some((&end, tail)) = rest.split_first() {
                self.after_cr = end == b'\r';
                self.end_line(&mut events)?;
                rest = tail;
            }
        }
        Ok(events)
    }

    /// The bytes ended: processes an unterminated last line and dispatches
    /// the pending event, if any.
    pub fn finish(&mut self) -> Result<Option<SseEvent>, ModelError> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut events)?;
        }
        self.dispatch(&mut events);
        Ok(events.pop())
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) -> Result<(), ModelError> {
        let mut line = std::mem::take(&mut self.line);
        if !self.started {
            self.started = true;
            // A UTF-8 byte-order mark may open the stream.
            if line.starts_with(&[0xEF, 0xBB, 0xBF]) {
                line.drain(..3);
            }
        }
        if line.is_empty() {
            self.dispatch(events);
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&line);
        let (field, value) = match text.find(':') {
            Some(at) => {
                let value = &text[at + 1..];
                (&text[..at], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (text.as_ref(), ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => {
                if self.data.len().saturating_add(value.len()) > self.max_event {
                    return Err(too_large("an event", self.max_event));
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            // An id holding NUL is ignored, as the spec says.
            "id" if !value.contains('\0') => self.id = Some(value.to_string()),
            // `retry` only matters to a reconnecting client, which this is not.
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        let event = std::mem::take(&mut self.event);
        if !self.has_data {
            return;
        }
        self.has_data = false;
        events.push(SseEvent {
            event: if event.is_empty() {
                "message".to_string()
            } else {
                event
            },
            data: std::mem::take(&mut self.data),
            id: self.id.clone(),
        });
    }
}

/// Decodes a stream of byte chunks into events, within `limits`. Errors
/// from the byte stream, and a line or event over its cap, end the stream.
pub fn sse_stream<S>(
    bytes: S,
    limits: ByteLimits,
) -> impl Stream<Item = Result<SseEvent, ModelError>> + Send
where
    S: Stream<Item = Result<Bytes, ModelError>> + Send,
{
    async_stream::stream! {
        let mut decoder = SseDecoder::with_limits(&limits);
        let mut bytes = std::pin::pin!(bytes);
        while let Some(chunk) = bytes.next().await {
            let decoded = chunk.and_then(|chunk| decoder.push(&chunk));
            match decoded {
                Ok(events) => {
                    for event in events {
                        yield Ok(event);
                    }
                }
                Err(error) => {
                    yield Err(error);
                    return;
                }
            }
        }
        match decoder.finish() {
            Ok(Some(event)) => yield Ok(event),
            Ok(None) => {}
            Err(error) => yield Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(input: &[u8]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut events = decoder.push(input).unwrap();
        events.extend(decoder.finish().unwrap());
        events
    }

    fn decode_bytewise(input: &[u8]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut events = Vec::new();
        for byte in input {
            events.extend(decoder.push(std::slice::from_ref(byte)).unwrap());
        }
        events.extend(decoder.finish().unwrap());
        events
    }

    fn small(line: usize, event: usize) -> SseDecoder {
        SseDecoder::with_limits(&ByteLimits {
            sse_line: line,
            sse_event: event,
            ..ByteLimits::default()
        })
    }

    #[test]
    fn a_line_without_an_end_stops_at_the_line_cap() {
        let mut decoder = small(64, 1024);
        assert!(decoder.push(b"data: ").unwrap().is_empty());
        let mut fed = 6;
        let error = loop {
            match decoder.push(&[b'x'; 10]) {
                Ok(events) => assert!(events.is_empty()),
                Err(error) => break error,
            }
            fed += 10;
            assert!(fed < 200, "the cap never stopped the line");
        };
        assert!(decoder.line.len() <= 64);
        assert!(
            error.to_string().contains("larger than 64 bytes"),
            "{error}"
        );
    }

    #[test]
    fn many_short_data_lines_stop_at_the_event_cap() {
        let mut decoder = small(64, 100);
        let lines = "data: 0123456789\n".repeat(20);
        let error = decoder.push(lines.as_bytes()).unwrap_err();
        assert!(decoder.data.len() < 100);
        assert!(
            error.to_string().contains("an event larger than 100 bytes"),
            "{error}"
        );
    }

    #[test]
    fn comments_do_not_count_toward_the_event_cap() {
        let mut decoder = small(64, 100);
        let comments = ": keep-alive\n".repeat(100);
        assert!(decoder.push(comments.as_bytes()).unwrap().is_empty());
        assert_eq!(
            decoder.push(b"data: x\n\n").unwrap(),
            vec![event("message", "x")]
        );
    }

    fn event(name: &str, data: &str) -> SseEvent {
        SseEvent {
            event: name.to_string(),
            data: data.to_string(),
            id: None,
        }
    }

    #[test]
    fn events_are_split_on_blank_lines_with_named_types() {
        let input = b"event: a\ndata: {\"x\":1}\n\ndata: two\n\n";
        assert_eq!(
            decode_all(input),
            vec![event("a", "{\"x\":1}"), event("message", "two")]
        );
    }

    #[test]
    fn a_pending_event_without_trailing_blank_line_is_dispatched_at_the_end() {
        let input = b"event: message_delta\ndata: {}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}";
        let events = decode_bytewise(input);
        assert_eq!(events.len(), 2);
        assert_eq!(
            events[1],
            event("message_stop", "{\"type\":\"message_stop\"}")
        );
    }

    #[test]
    fn crlf_split_across_chunks_is_one_line_ending() {
        let input = b"data: a\r\n\r\ndata: b\r\n\r\n";
        assert_eq!(decode_bytewise(input), decode_all(input));
        assert_eq!(
            decode_all(input),
            vec![event("message", "a"), event("message", "b")]
        );
    }

    #[test]
    fn bare_cr_line_endings_are_accepted() {
        assert_eq!(decode_all(b"data: a\r\rdata: b\r\r").len(), 2);
    }

    #[test]
    fn comments_and_unknown_fields_are_ignored_and_multiline_data_is_joined() {
        let input = b": keep-alive\nretry: 10\nfoo: bar\ndata: one\ndata:two\nid: 7\n\n";
        assert_eq!(
            decode_all(input),
            vec![SseEvent {
                event: "message".into(),
                data: "one\ntwo".into(),
                id: Some("7".into()),
            }]
        );
    }

    #[test]
    fn an_event_without_data_is_not_dispatched_and_its_type_is_reset() {
        let input = b"event: ping\n\ndata: x\n\n";
        assert_eq!(decode_all(input), vec![event("message", "x")]);
    }

    #[test]
    fn a_byte_order_mark_and_split_utf8_are_handled() {
        let input = "\u{feff}data: caf\u{e9} \u{1f600}\n\n".as_bytes();
        assert_eq!(
            decode_bytewise(input),
            vec![event("message", "caf\u{e9} \u{1f600}")]
        );
    }

    #[tokio::test]
    async fn the_stream_adapter_dispatches_the_pending_event_at_eof() {
        let chunks: Vec<Result<Bytes, ModelError>> = vec![
            Ok(Bytes::from_static(b"data: 1\n\nda")),
            Ok(Bytes::from_static(b"ta: 2")),
        ];
        let events: Vec<_> = sse_stream(futures::stream::iter(chunks), ByteLimits::default())
            .collect()
            .await;
        assert_eq!(
            events,
            vec![Ok(event("message", "1")), Ok(event("message", "2"))]
        );
    }

    #[tokio::test]
    async fn the_stream_adapter_stops_at_a_byte_stream_error() {
        let reset = || ModelError::StreamInterrupted {
            message: "reset".into(),
        };
        let chunks: Vec<Result<Bytes, ModelError>> = vec![
            Ok(Bytes::from_static(b"data: 1\n\ndata: 2")),
            Err(reset()),
            Ok(Bytes::from_static(b"\n\n")),
        ];
        let events: Vec<_> = sse_stream(futures::stream::iter(chunks), ByteLimits::default())
            .collect()
            .await;
        assert_eq!(events, vec![Ok(event("message", "1")), Err(reset())]);
    }
}
