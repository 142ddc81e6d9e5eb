//! What the application layer's integration tests share: a runtime, and
//! sessions created and driven through the app as a front end does.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};

use strata_app::App;
use strata_core::StrataPaths;
use strata_core::agent::EventHandler;
use strata_protocol::{
    CompactNow, CompactOutcome, CreateSession, EventEnvelope, SendMessage, SendOutcome, SessionId,
    TurnReport,
};

/// Keeps every event of a turn.
#[derive(Clone, Default)]
pub struct Collect(pub Arc<Mutex<Vec<EventEnvelope>>>);

impl EventHandler for Collect {
    async fn handle(&mut self, envelope: EventEnvelope) {
        self.0.lock().unwrap().push(envelope);
    }
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A new session in `workspace`.
pub async fn create(app: &Arc<App>, workspace: &Path) -> SessionId {
    app.create_session(CreateSession {
        workspace: workspace.display().to_string(),
        allow_broad_workspace: false,
        ..Default::default()
    })
    .await
    .unwrap()
    .id
}

/// One turn of `text`, its events to `sink`.
pub async fn send(
    app: &Arc<App>,
    id: SessionId,
    text: &str,
    sink: impl EventHandler + Send + 'static,
) -> TurnReport {
    let outcome = app
        .send_message(
            SendMessage {
                session_id: id,
                text: text.into(),
            },
            sink,
        )
        .await
        .unwrap();
    turn_of(outcome)
}

/// The turn `send_message` ran; panics when it compacted instead.
pub fn turn_of(outcome: SendOutcome) -> TurnReport {
    match outcome {
        SendOutcome::Turn(report) => report,
        SendOutcome::Compaction(outcome) => panic!("compacted, not a turn: {outcome:?}"),
    }
}

/// `/compact` now, its events dropped.
pub async fn compact_now(app: &Arc<App>, id: SessionId) -> CompactOutcome {
    app.compact_now(
        CompactNow {
            session_id: id,
            focus: None,
        },
        Collect::default(),
    )
    .await
    .unwrap()
}

/// The JSON body of one HTTP request read from `socket` (its headers
/// skipped, `content-length` bytes read).
pub fn read_json_body(socket: &mut TcpStream) -> serde_json::Value {
    let mut reader = BufReader::new(socket.try_clone().unwrap());
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    serde_json::from_slice(&body).unwrap()
}

/// Answers one HTTP request with a streamed Chat Completions reply: one
/// chunk with `delta`, one ending it with `finish_reason`, the usage, and
/// `[DONE]`.
pub fn write_chat_reply(socket: &mut TcpStream, delta: serde_json::Value, finish_reason: &str) {
    let chunk = |v: serde_json::Value| format!("data: {v}\n\n");
    let sse = [
        chunk(serde_json::json!({"choices": [{"index": 0, "delta": delta, "finish_reason": null}]})),
        chunk(serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": finish_reason}]})),
        chunk(serde_json::json!({"choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 2, "total_tokens": 42}})),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        sse.len()
    );
    let _ = socket.write_all(head.as_bytes());
    let _ = socket.write_all(sse.as_bytes());
}

/// A local server answering every request with one streamed Chat
/// Completions reply ("Noted."), keeping each request's JSON body.
pub struct ChatServer {
    pub base_url: String,
    bodies: Arc<Mutex<Vec<serde_json::Value>>>,
}

impl ChatServer {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&bodies);
        std::thread::spawn(move || {
            for socket in listener.incoming() {
                let Ok(mut socket) = socket else { return };
                let request = read_json_body(&mut socket);
                seen.lock().unwrap().push(request);
                write_chat_reply(
                    &mut socket,
                    serde_json::json!({"role": "assistant", "content": "Noted."}),
                    "stop",
                );
            }
        });
        Self { base_url, bodies }
    }

    /// Each request's body, in the order they came.
    pub fn bodies(&self) -> Vec<serde_json::Value> {
        self.bodies.lock().unwrap().clone()
    }

    /// Each request's model.
    pub fn models(&self) -> Vec<String> {
        self.bodies()
            .iter()
            .map(|body| body["model"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    /// Each request's last user message.
    pub fn last_user_messages(&self) -> Vec<String> {
        self.bodies()
            .iter()
            .filter_map(|body| {
                body["messages"]
                    .as_array()?
                    .iter()
                    .rfind(|message| message["role"] == "user")
                    .map(|message| message["content"].as_str().unwrap_or_default().to_owned())
            })
            .collect()
    }
}

/// A Strata home with a config file and a workspace, both temporary.
pub struct Fixture {
    /// Kept for its lifetime: the folder goes when the fixture does.
    _home: tempfile::TempDir,
    pub workspace: tempfile::TempDir,
    pub paths: StrataPaths,
}

impl Fixture {
    pub fn new(config: &str) -> Self {
        let home = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        let paths = StrataPaths::under(home.path());
        std::fs::create_dir_all(&paths.config).unwrap();
        std::fs::write(paths.config_file(), config).unwrap();
        Self {
            _home: home,
            workspace,
            paths,
        }
    }

    /// A home whose default profile is a Chat Completions model served by
    /// `server`.
    pub fn chat(server: &ChatServer) -> Self {
        Self::new(&format!(
            "default_profile = \"local\"\n\
             [profiles.local]\nkind = \"openai-chat\"\nmodel = \"qwen3-coder\"\nbase_url = \"{}\"\n",
            server.base_url
        ))
    }

    /// An app over this home, with an empty environment.
    pub fn app(&self) -> Arc<App> {
        Arc::new(App::new(self.paths.clone(), |_| None))
    }
}
