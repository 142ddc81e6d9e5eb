//! How much of a provider's answer Strata will hold, and for how long:
//! every buffer that a provider fills is capped and every response has a
//! deadline, so a hostile or broken endpoint cannot make the process grow
//! or wait without bound (a 4 GB event, an endless error page or answer).

use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use strata_protocol::{ModelError, ModelEvent};

const MIB: usize = 1024 * 1024;

/// Byte caps on what one response may make Strata buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteLimits {
    /// One event-stream line. Real lines are one JSON event; the largest
    /// (`response.completed`, a finished tool call) repeat a whole answer.
    pub sse_line: usize,
    /// One event's `data`, all its lines together.
    pub sse_event: usize,
    /// A failed response's body; the rest is not read.
    pub error_body: usize,
    /// A non-streaming response's JSON body.
    pub json_body: usize,
    /// Text, reasoning and tool-call arguments of one streamed response
    /// together: an endless answer ends here rather than in memory.
    pub response_content: usize,
}

impl Default for ByteLimits {
    fn default() -> Self {
        Self {
            sse_line: 16 * MIB,
            sse_event: 16 * MIB,
            error_body: 64 * 1024,
            json_body: 32 * MIB,
            response_content: 32 * MIB,
        }
    }
}

/// The longest arguments one tool call may stream, and the longest hidden
/// reasoning a decoder gathers before handing it on. Decoders are built per
/// attempt without options, so this one is a constant.
pub const MAX_TOOL_ARGUMENT_BYTES: usize = 8 * MIB;

/// `n` bytes in words for messages: "16 MiB", "64 KiB", "100 bytes".
pub fn describe(n: usize) -> String {
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} bytes")
    }
}

/// The error for a buffer that would pass its cap.
pub fn too_large(what: &str, limit: usize) -> ModelError {
    ModelError::StreamInterrupted {
        message: format!(
            "the provider sent {what} larger than {}; the response was abandoned",
            describe(limit)
        ),
    }
}

/// Appends a tool call's argument fragment unless that would pass
/// [`MAX_TOOL_ARGUMENT_BYTES`].
pub fn push_arguments(arguments: &mut String, fragment: &str) -> Result<(), ModelError> {
    check_arguments(arguments.len().saturating_add(fragment.len()))?;
    arguments.push_str(fragment);
    Ok(())
}

/// Appends a fragment of reasoning kept until its block ends, within the
/// same cap as arguments.
pub fn push_reasoning(reasoning: &mut String, fragment: &str) -> Result<(), ModelError> {
    if reasoning.len().saturating_add(fragment.len()) > MAX_TOOL_ARGUMENT_BYTES {
        return Err(too_large("reasoning", MAX_TOOL_ARGUMENT_BYTES));
    }
    reasoning.push_str(fragment);
    Ok(())
}

/// Refuses arguments of `len` bytes when they pass the cap.
pub fn check_arguments(len: usize) -> Result<(), ModelError> {
    if len > MAX_TOOL_ARGUMENT_BYTES {
        return Err(too_large("tool-call arguments", MAX_TOOL_ARGUMENT_BYTES));
    }
    Ok(())
}

/// Collects at most `limit` bytes of `bytes`, and whether more followed
/// (unread): the caller decides whether a truncated body is still useful.
pub async fn read_capped<S>(bytes: S, limit: usize) -> Result<(Vec<u8>, bool), ModelError>
where
    S: Stream<Item = Result<Bytes, ModelError>>,
{
    let mut body = Vec::new();
    let mut bytes = std::pin::pin!(bytes);
    while let Some(chunk) = bytes.next().await {
        let chunk = chunk?;
        let room = limit - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

/// Ends `stream` with an error once `deadline` has passed since it was
/// first polled; dropping it there drops the request in flight.
pub fn with_deadline(
    stream: impl Stream<Item = Result<ModelEvent, ModelError>> + Send + 'static,
    deadline: Duration,
) -> impl Stream<Item = Result<ModelEvent, ModelError>> + Send + 'static {
    async_stream::stream! {
        let until = tokio::time::Instant::now() + deadline;
        let mut stream = std::pin::pin!(stream);
        loop {
            match tokio::time::timeout_at(until, stream.next()).await {
                Ok(Some(item)) => yield item,
                Ok(None) => return,
                Err(_) => {
                    yield Err(deadline_passed(deadline));
                    return;
                }
            }
        }
    }
}

pub fn deadline_passed(deadline: Duration) -> ModelError {
    ModelError::StreamInterrupted {
        message: format!(
            "no complete response within the {}s response deadline",
            deadline.as_secs_f32()
        ),
    }
}

/// What an event adds to the response Strata holds: its text, reasoning or
/// tool-call arguments.
pub fn content_bytes(event: &ModelEvent) -> usize {
    match event {
        ModelEvent::TextDelta { delta } => delta.len(),
        ModelEvent::ToolCallArgumentsDelta { delta, .. } => delta.len(),
        ModelEvent::ToolCallDone { arguments, .. } => arguments.len(),
        ModelEvent::ToolCallIncomplete {
            partial_arguments, ..
        } => partial_arguments.len(),
        ModelEvent::Reasoning { item } => serde_json::to_string(item).map_or(0, |text| text.len()),
        // The whole item follows and is counted then (the decoder caps
        // what it gathers with `push_reasoning`).
        ModelEvent::ReasoningDelta { .. }
        | ModelEvent::ToolCallStarted { .. }
        | ModelEvent::Usage { .. }
        | ModelEvent::Retrying { .. }
        | ModelEvent::Finished { .. } => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_words() {
        assert_eq!(describe(16 * MIB), "16 MiB");
        assert_eq!(describe(64 * 1024), "64 KiB");
        assert_eq!(describe(1000), "1000 bytes");
    }

    #[test]
    fn arguments_stop_growing_at_the_cap() {
        let mut arguments = "x".repeat(MAX_TOOL_ARGUMENT_BYTES - 1);
        assert!(push_arguments(&mut arguments, "y").is_ok());
        let error = push_arguments(&mut arguments, "z");
        assert!(matches!(error, Err(ModelError::StreamInterrupted { .. })));
        assert_eq!(arguments.len(), MAX_TOOL_ARGUMENT_BYTES);
    }

    #[tokio::test]
    async fn a_capped_read_keeps_the_first_bytes_and_says_there_was_more() {
        let chunks = vec![
            Ok(Bytes::from_static(b"abc")),
            Ok(Bytes::from_static(b"defg")),
            Ok(Bytes::from_static(b"never read")),
        ];
        let (body, more) = read_capped(futures::stream::iter(chunks), 5).await.unwrap();
        assert_eq!((body.as_slice(), more), (&b"abcde"[..], true));
        let whole = vec![Ok(Bytes::from_static(b"abc"))];
        let (body, more) = read_capped(futures::stream::iter(whole), 5).await.unwrap();
        assert_eq!((body.as_slice(), more), (&b"abc"[..], false));
    }
}
