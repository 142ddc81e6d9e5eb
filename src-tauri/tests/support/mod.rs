//! Shared by the desktop command tests: the app on Tauri's mock runtime (no
//! display) with a temporary Strata home, and its commands invoked through
//! IPC as the UI invokes them.

// Helpers outside #[test] functions panic on purpose: a broken fixture is a
// failed test.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use serde::de::DeserializeOwned;
use serde_json::Value;
use strata_core::StrataPaths;
use strata_protocol::CommandError;
use tauri::ipc::{CallbackFn, InvokeBody, InvokeResponseBody};
use tauri::test::{INVOKE_KEY, MockRuntime, mock_builder, mock_context, noop_assets};
use tauri::webview::InvokeRequest;
use tauri::{App, Context, WebviewWindow, WebviewWindowBuilder};

/// A command's IPC arguments, as the UI's `call` sends them: the request
/// as `request`.
pub fn args(request: Value) -> Value {
    serde_json::json!({ "request": request })
}

/// The app with a temporary home, no environment and its main window.
pub struct MockApp {
    pub home: tempfile::TempDir,
    pub paths: StrataPaths,
    pub app: App<MockRuntime>,
    pub window: WebviewWindow<MockRuntime>,
}

impl MockApp {
    /// With no access control: every command of the app is reachable.
    pub fn new() -> Self {
        Self::with_context(mock_context(noop_assets()))
    }

    /// With `context`'s configuration and access control (the real one's:
    /// `tauri::generate_context!`).
    pub fn with_context(context: Context<MockRuntime>) -> Self {
        let home = tempfile::tempdir().unwrap();
        let paths = StrataPaths::under(home.path());
        let app = strata_desktop::configure(mock_builder(), paths.clone(), |_| None)
            .build(context)
            .unwrap();
        let window = WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .unwrap();
        Self {
            home,
            paths,
            app,
            window,
        }
    }

    /// The command's response body, or its error as JSON.
    pub fn invoke_raw(&self, cmd: &str, args: Value) -> Result<InvokeResponseBody, Value> {
        self.invoke_with(cmd, InvokeBody::Json(args), Default::default())
    }

    /// Any request body and headers (the fs plugin takes a file's bytes
    /// as the body and its path in a header).
    pub fn invoke_with(
        &self,
        cmd: &str,
        body: InvokeBody,
        headers: tauri::http::HeaderMap,
    ) -> Result<InvokeResponseBody, Value> {
        tauri::test::get_ipc_response(
            &self.window,
            InvokeRequest {
                cmd: cmd.into(),
                callback: CallbackFn(0),
                error: CallbackFn(1),
                url: "tauri://localhost".parse().unwrap(),
                body,
                headers,
                invoke_key: INVOKE_KEY.to_string(),
            },
        )
    }

    /// The command's result as JSON, or its error as JSON.
    pub fn call(&self, cmd: &str, request: Value) -> Result<Value, Value> {
        self.invoke_raw(cmd, args(request))
            .map(|body| body.deserialize::<Value>().unwrap())
    }

    /// The command's result; panics if it fails.
    pub fn invoke<T: DeserializeOwned>(&self, cmd: &str, request: Value) -> T {
        self.invoke_args(cmd, args(request))
    }

    /// The command's structured error; panics if it succeeds.
    pub fn fail(&self, cmd: &str, request: Value) -> CommandError {
        self.fail_args(cmd, args(request))
    }

    /// [`Self::invoke`] with the whole arguments (a request and a channel).
    pub fn invoke_args<T: DeserializeOwned>(&self, cmd: &str, args: Value) -> T {
        match self.invoke_raw(cmd, args) {
            Ok(body) => body.deserialize().unwrap(),
            Err(error) => panic!("{cmd} failed: {error}"),
        }
    }

    /// [`Self::fail`] with the whole arguments.
    pub fn fail_args(&self, cmd: &str, args: Value) -> CommandError {
        match self.invoke_raw(cmd, args) {
            Ok(_) => panic!("{cmd} should have failed"),
            Err(error) => serde_json::from_value(error).unwrap(),
        }
    }
}
