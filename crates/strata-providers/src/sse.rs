//! A small Server-Sent Events decoder over a byte stream.
//!
//! It follows the WHATWG event-stream rules (any line ending, comments,
//! `field: value` with one optional space, multi-line `data`), with one
//! deliberate difference: an event still pending when the bytes end without
//! a trailing blank line is dispatched, not dropped. Real providers and
//! recorded fixtures end that way, and the dropped event is usually the
//! terminal one. There is no reconnection: a POST is never re-sent here.

use bytes::Bytes;
use futures::{Stream, StreamExt};

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
#[derive(Debug, Default)]
pub struct SseDecoder {
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

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one chunk and returns the events it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &byte in chunk {
            if self.after_cr {
                self.after_cr = false;
                if byte == b'\n' {
                    continue;
                }
            }
            match byte {
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut events);
                }
                b'\n' => self.end_line(&mut events),
                _ => self.line.push(byte),
            }
        }
        events
    }

    /// The bytes ended: processes an unterminated last line and dispatches
    /// the pending event, if any.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut events);
        }
        self.dispatch(&mut events);
        events.pop()
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
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
            return;
        }
        if line[0] == b':' {
            return;
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

/// Decodes a stream of byte chunks into events. Errors from the byte stream
/// are passed through and end the stream.
pub fn sse_stream<S, E>(bytes: S) -> impl Stream<Item = Result<SseEvent, E>> + Send
where
    S: Stream<Item = Result<Bytes, E>> + Send,
    E: Send,
{
    async_stream::stream! {
        let mut decoder = SseDecoder::new();
        let mut bytes = std::pin::pin!(bytes);
        while let Some(chunk) = bytes.next().await {
            match chunk {
                Ok(chunk) => {
                    for event in decoder.push(&chunk) {
                        yield Ok(event);
                    }
                }
                Err(error) => {
                    yield Err(error);
                    return;
                }
            }
        }
        if let Some(event) = decoder.finish() {
            yield Ok(event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(input: &[u8]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut events = decoder.push(input);
        events.extend(decoder.finish());
        events
    }

    fn decode_bytewise(input: &[u8]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut events = Vec::new();
        for byte in input {
            events.extend(decoder.push(std::slice::from_ref(byte)));
        }
        events.extend(decoder.finish());
        events
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
        let chunks: Vec<Result<Bytes, ()>> = vec![
            Ok(Bytes::from_static(b"data: 1\n\nda")),
            Ok(Bytes::from_static(b"ta: 2")),
        ];
        let events: Vec<_> = sse_stream(futures::stream::iter(chunks)).collect().await;
        assert_eq!(
            events,
            vec![Ok(event("message", "1")), Ok(event("message", "2"))]
        );
    }

    #[tokio::test]
    async fn the_stream_adapter_stops_at_a_byte_stream_error() {
        let chunks: Vec<Result<Bytes, &str>> = vec![
            Ok(Bytes::from_static(b"data: 1\n\ndata: 2")),
            Err("reset"),
            Ok(Bytes::from_static(b"\n\n")),
        ];
        let events: Vec<_> = sse_stream(futures::stream::iter(chunks)).collect().await;
        assert_eq!(events, vec![Ok(event("message", "1")), Err("reset")]);
    }
}
