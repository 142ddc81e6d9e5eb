//! Bytes through the SSE layer and one provider's stream decoder, by the
//! public [`strata_providers::replay`] entry point the providers use: the
//! same bytes cut into different chunks yield the same events and the same
//! error, nothing follows an error, and the SSE decoder alone agrees with
//! itself fed whole or byte by byte.

use std::path::Path;
use std::sync::OnceLock;

use bytes::Bytes;
use futures::StreamExt;
use regex::Regex;
use strata_protocol::{ModelError, ModelEvent};
use strata_providers::sse::{SseDecoder, SseEvent};
use strata_providers::{WireFormat, replay};

use super::{Shape, shape_of};

pub const DICTIONARY: &[&[u8]] = &[
    b"data: ",
    b"event: ",
    b"id: ",
    b": keep-alive\n\n",
    b"\n\n",
    b"\r\n",
    b"data: [DONE]\n\n",
    b"{\"type\":\"response.output_text.delta\",\"delta\":\"x\"}",
    b"{\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}",
    b"{\"type\":\"response.failed\",\"response\":{\"error\":{\"code\":\"x\"}}}",
    b"{\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"function_call\",\"call_id\":\"c\",\"name\":\"f\",\"arguments\":\"\"}}",
    b"{\"type\":\"response.function_call_arguments.delta\",\"output_index\":0,\"delta\":\"{\"}",
    b"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}",
    b"{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{\"}}]}}]}",
    b"\"finish_reason\":\"tool_calls\"",
    b"\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}",
    b"{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}",
    b"{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}",
    b"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}",
    b"{\"type\":\"content_block_stop\",\"index\":0}",
    b"{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"}}",
    b"{\"type\":\"message_stop\"}",
    b"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}",
    b"\xef\xbb\xbf",
];

/// The recorded `.sse` streams of one wire format (`folder` in `wire`), each
/// behind a control byte (see [`run`]); none when `wire` is missing.
pub fn seeds(wire: &Path, folder: &str) -> Vec<Vec<u8>> {
    let dir = wire.join(folder);
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "sse"))
        .collect();
    names.sort();
    names
        .iter()
        .filter_map(|path| std::fs::read(path).ok())
        .map(|body| [&[7u8][..], &body].concat())
        .collect()
}

/// What a stream yielded: its events, normalised (fresh ids replaced), and
/// its error.
#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<String>,
    error: Option<ModelError>,
}

/// The first byte picks the chunk sizes of the second reading; the rest is
/// the body.
pub fn run(format: WireFormat, data: &[u8]) -> Shape {
    let Some((&control, body)) = data.split_first() else {
        return 0;
    };
    let whole = decode(format, vec![body.to_vec()]);
    let mut rng = fastrand::Rng::with_seed(u64::from(control));
    let mut chunks = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let size = if control % 2 == 0 {
            1
        } else {
            rng.usize(1..=32)
        }
        .min(rest.len());
        let (chunk, tail) = rest.split_at(size);
        chunks.push(chunk.to_vec());
        rest = tail;
    }
    let chunked = decode(format, chunks);
    assert_eq!(
        whole, chunked,
        "the same bytes in other chunks decoded differently"
    );

    assert_eq!(
        sse_alone(body, false),
        sse_alone(body, true),
        "the SSE decoder depends on chunking"
    );

    let mut kinds: Vec<&str> = whole
        .events
        .iter()
        .map(|event| event.split('"').nth(3).unwrap_or(""))
        .collect();
    kinds.dedup();
    shape_of((
        kinds,
        whole
            .error
            .as_ref()
            .map(|error| format!("{:?}", std::mem::discriminant(error))),
    ))
}

/// The SSE decoder alone, fed `body` whole or byte by byte.
fn sse_alone(body: &[u8], bytewise: bool) -> Result<Vec<SseEvent>, ModelError> {
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    if bytewise {
        for byte in body {
            events.extend(decoder.push(std::slice::from_ref(byte))?);
        }
    } else {
        events.extend(decoder.push(body)?);
    }
    events.extend(decoder.finish()?);
    Ok(events)
}

fn decode(format: WireFormat, chunks: Vec<Vec<u8>>) -> Outcome {
    let stream = futures::stream::iter(
        chunks
            .into_iter()
            .map(|chunk| Ok::<Bytes, ModelError>(Bytes::from(chunk))),
    );
    let items: Vec<Result<ModelEvent, ModelError>> =
        futures::executor::block_on(replay(format, stream).collect());
    let mut outcome = Outcome {
        events: Vec::new(),
        error: None,
    };
    for item in items {
        assert!(outcome.error.is_none(), "the stream went on after an error");
        match item {
            Ok(event) => outcome.events.push(normalised(&event)),
            Err(error) => outcome.error = Some(error),
        }
    }
    outcome
}

/// The event as JSON with the ids decoders make up (uuids) blanked.
fn normalised(event: &ModelEvent) -> String {
    static UUID: OnceLock<Regex> = OnceLock::new();
    let uuid = UUID.get_or_init(|| {
        Regex::new("[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}")
            .unwrap_or_else(|error| panic!("{error}"))
    });
    let text = serde_json::to_string(event).unwrap_or_else(|error| panic!("{error}"));
    uuid.replace_all(&text, "<id>").into_owned()
}
