//! Setting a provider up through the application layer over real local
//! HTTP: the connection test and the model list work on a profile that is
//! not saved yet with a key only typed, use a saved profile's stored key
//! otherwise, and report a closed port as a failure a person can read;
//! one Save stores a new profile and its key.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use strata_app::App;
use strata_core::StrataPaths;
use strata_protocol::{
    FailureKind, GetSettings, ListModels, ProviderDraft, ProviderKind, SaveSettings, SetApiKey,
    TestConnection,
};
use support::runtime;

const KEY: &str = "sk-typed-0123456789abcdef";

/// One request as the server saw it: `GET /v1/models`, its bearer header, its body.
#[derive(Clone, Debug)]
struct Seen {
    line: String,
    authorization: Option<String>,
    body: String,
}

/// An OpenAI-compatible server: `GET /v1/models` lists two models, a chat
/// completion answers one token; every request is kept.
fn server() -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            let Ok(mut socket) = socket else { return };
            let mut reader = BufReader::new(socket.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let (mut length, mut authorization) = (0, None);
            loop {
                let mut header = String::new();
                reader.read_line(&mut header).unwrap();
                let header = header.trim_end();
                if header.is_empty() {
                    break;
                }
                let (name, value) = header.split_once(':').unwrap();
                match name.to_ascii_lowercase().as_str() {
                    "content-length" => length = value.trim().parse().unwrap(),
                    "authorization" => authorization = Some(value.trim().to_owned()),
                    _ => {}
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let line = line.trim_end().to_owned();
            let reply = if line.starts_with("GET /v1/models") {
                r#"{"object":"list","data":[{"id":"qwen3:8b","object":"model"},{"id":"llama3.2","object":"model"}]}"#
            } else {
                r#"{"id":"c","object":"chat.completion","model":"qwen3:8b","choices":[{"index":0,"message":{"role":"assistant","content":"p"},"finish_reason":"length"}]}"#
            };
            log.lock().unwrap().push(Seen {
                line,
                authorization,
                body: String::from_utf8(body).unwrap(),
            });
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                reply.len()
            );
            socket.write_all(head.as_bytes()).unwrap();
            socket.write_all(reply.as_bytes()).unwrap();
        }
    });
    (base_url, seen)
}

fn draft(base_url: &str, profile_id: Option<&str>, api_key: Option<&str>) -> ProviderDraft {
    ProviderDraft {
        kind: ProviderKind::OpenaiChat,
        base_url: Some(base_url.to_owned()),
        model: "qwen3:8b".into(),
        profile_id: profile_id.map(str::to_owned),
        api_key: api_key.map(str::to_owned),
    }
}

#[test]
fn an_unsaved_profile_with_a_typed_key_is_tested_and_lists_its_models_then_one_save_stores_both() {
    let home = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    let app = Arc::new(App::new(paths.clone(), |_| None));
    let (base_url, seen) = server();
    let rt = runtime();

    let report = rt
        .block_on(app.test_connection(TestConnection {
            draft: draft(&base_url, Some("profile-2"), Some(KEY)),
        }))
        .unwrap();
    assert_eq!(report.failure, None, "{report:?}");
    assert_eq!(report.endpoint, base_url);
    let list = rt
        .block_on(app.list_models(ListModels {
            draft: draft(&base_url, None, Some(KEY)),
        }))
        .unwrap();
    assert!(list.offered);
    assert_eq!(list.models, ["llama3.2", "qwen3:8b"]);
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 2);
        assert!(seen[0].line.starts_with("POST /v1/chat/completions"));
        assert!(
            seen[0].body.contains(r#""max_tokens":1"#),
            "{}",
            seen[0].body
        );
        assert_eq!(seen[1].line, "GET /v1/models HTTP/1.1");
        for request in seen.iter() {
            assert_eq!(
                request.authorization.as_deref(),
                Some(&*format!("Bearer {KEY}"))
            );
        }
    }
    // Nothing was written by the checks: no config file, no key.
    assert!(!paths.config_file().exists());

    // One Save: the new profile and its key.
    let mut settings = rt.block_on(app.get_settings(GetSettings {})).unwrap();
    let mut local = settings.profiles[0].clone();
    local.id = "profile-2".into();
    local.label = "Local Ollama".into();
    local.kind = ProviderKind::OpenaiChat;
    local.model = "qwen3:8b".into();
    local.base_url = Some(base_url.clone());
    settings.profiles.push(local);
    let saved = rt
        .block_on(app.save_settings(SaveSettings {
            settings,
            api_keys: vec![SetApiKey {
                profile_id: "profile-2".into(),
                key: KEY.into(),
            }],
        }))
        .unwrap();
    let stored = saved.profiles.iter().find(|p| p.id == "profile-2").unwrap();
    assert!(stored.has_key, "{stored:?}");
    assert_eq!(stored.label, "Local Ollama");
    let config = std::fs::read_to_string(paths.config_file()).unwrap();
    assert!(!config.contains(KEY), "the key is not in the config file");

    // Now the saved profile's stored key is used when none is typed.
    let report = rt
        .block_on(app.test_connection(TestConnection {
            draft: draft(&base_url, Some("profile-2"), None),
        }))
        .unwrap();
    assert_eq!(report.failure, None);
    let last = seen.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        last.authorization.as_deref(),
        Some(&*format!("Bearer {KEY}"))
    );
}

#[test]
fn a_closed_port_comes_back_as_an_unreachable_failure_not_an_error() {
    let home = tempfile::tempdir().unwrap();
    let app = Arc::new(App::new(StrataPaths::under(home.path()), |_| None));
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let base_url = format!("http://127.0.0.1:{port}/v1");
    let rt = runtime();
    let report = rt
        .block_on(app.test_connection(TestConnection {
            draft: draft(&base_url, None, None),
        }))
        .unwrap();
    let failure = report.failure.unwrap();
    assert_eq!(failure.kind, FailureKind::Unreachable);
    assert_eq!(
        failure.sentence,
        format!("Can't reach 127.0.0.1:{port} — is the server running?")
    );
    let list = rt
        .block_on(app.list_models(ListModels {
            draft: draft(&base_url, None, None),
        }))
        .unwrap();
    assert_eq!(list.failure.map(|f| f.kind), Some(FailureKind::Unreachable));
    // A draft without a model is refused before any request.
    let mut empty = draft(&base_url, None, None);
    empty.model = " ".into();
    let refused = rt
        .block_on(app.test_connection(TestConnection { draft: empty }))
        .unwrap_err();
    assert!(refused.message.contains("model"), "{refused:?}");
}
