//! The fuzz targets. Each takes any bytes, panics when an invariant breaks,
//! and otherwise returns a small "shape" of what the input did (which
//! records, events or errors it produced): the mutation loop keeps inputs
//! with a shape it has not seen, a cheap stand-in for coverage feedback.

mod import;
mod paths;
mod record_reader;
mod replay;
mod streams;

use std::path::Path;

use strata_import::Tool;
use strata_providers::WireFormat;

/// A shape: inputs with different shapes exercised different behaviour.
pub type Shape = u64;

/// Hashes what an input did into a [`Shape`].
pub fn shape_of(parts: impl std::hash::Hash) -> Shape {
    use std::hash::{DefaultHasher, Hasher};
    let mut hasher = DefaultHasher::new();
    parts.hash(&mut hasher);
    hasher.finish()
}

/// A temporary folder, in memory where the machine has one: the targets
/// that write files sync them, which on a disk would dominate each run.
pub(crate) fn scratch_dir() -> std::io::Result<tempfile::TempDir> {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Session files through the strict and browsing readers.
    RecordReader,
    /// Bytes through the SSE layer and the OpenAI Responses decoder.
    ResponsesStream,
    /// Bytes through the SSE layer and the Chat Completions decoder.
    ChatStream,
    /// Bytes through the SSE layer and the Anthropic Messages decoder.
    AnthropicStream,
    /// Record sequences (compactions included) through replay, the store and
    /// a resume.
    Replay,
    /// Paths through the file tools' workspace resolver.
    Paths,
    /// Bytes through the Codex rollout reader.
    CodexSession,
    /// Bytes through the Claude Code session reader.
    ClaudeSession,
    /// Bytes through the Copilot CLI events reader.
    CopilotSession,
}

impl Target {
    pub const ALL: [Target; 9] = [
        Target::RecordReader,
        Target::ResponsesStream,
        Target::ChatStream,
        Target::AnthropicStream,
        Target::Replay,
        Target::Paths,
        Target::CodexSession,
        Target::ClaudeSession,
        Target::CopilotSession,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::RecordReader => "record-reader",
            Target::ResponsesStream => "responses-stream",
            Target::ChatStream => "chat-stream",
            Target::AnthropicStream => "anthropic-stream",
            Target::Replay => "replay",
            Target::Paths => "paths",
            Target::CodexSession => "codex-session",
            Target::ClaudeSession => "claude-session",
            Target::CopilotSession => "copilot-session",
        }
    }

    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|target| target.name() == name)
    }

    /// Runs one input; panics when an invariant breaks.
    pub fn run(self, data: &[u8]) -> Shape {
        match self {
            Target::RecordReader => record_reader::run(data),
            Target::ResponsesStream => streams::run(WireFormat::OpenAiResponses, data),
            Target::ChatStream => streams::run(WireFormat::ChatCompletions, data),
            Target::AnthropicStream => streams::run(WireFormat::AnthropicMessages, data),
            Target::Replay => replay::run(data),
            Target::Paths => paths::run(data),
            Target::CodexSession => import::run(Tool::Codex, data),
            Target::ClaudeSession => import::run(Tool::ClaudeCode, data),
            Target::CopilotSession => import::run(Tool::CopilotCli, data),
        }
    }

    /// Starting inputs, from the repository's fixtures (`repo` is its root)
    /// or the recorded provider streams (`wire`, `../shared/fixtures/wire`).
    pub fn seeds(self, repo: &Path, wire: &Path) -> Vec<Vec<u8>> {
        match self {
            Target::RecordReader => record_reader::seeds(repo),
            Target::ResponsesStream => streams::seeds(wire, "openai-responses"),
            Target::ChatStream => streams::seeds(wire, "chat-completions"),
            Target::AnthropicStream => streams::seeds(wire, "anthropic"),
            Target::Replay => replay::seeds(),
            Target::Paths => paths::seeds(),
            Target::CodexSession => import::seeds(Tool::Codex),
            Target::ClaudeSession => import::seeds(Tool::ClaudeCode),
            Target::CopilotSession => import::seeds(Tool::CopilotCli),
        }
    }

    /// Whether the seeds come from the recorded streams beside the
    /// repository rather than from the repository itself.
    pub fn seeds_from_wire(self) -> bool {
        match self {
            Target::ResponsesStream | Target::ChatStream | Target::AnthropicStream => true,
            Target::RecordReader
            | Target::Replay
            | Target::Paths
            | Target::CodexSession
            | Target::ClaudeSession
            | Target::CopilotSession => false,
        }
    }

    /// Tokens the mutator inserts.
    pub fn dictionary(self) -> &'static [&'static [u8]] {
        match self {
            Target::RecordReader => record_reader::DICTIONARY,
            Target::ResponsesStream | Target::ChatStream | Target::AnthropicStream => {
                streams::DICTIONARY
            }
            Target::CodexSession | Target::ClaudeSession | Target::CopilotSession => {
                import::DICTIONARY
            }
            Target::Replay | Target::Paths => &[],
        }
    }
}
