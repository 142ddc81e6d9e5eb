//! The page's WebKit settings on Linux (WebKitGTK), set as the app starts,
//! for what Strata's one page is: text, SVG and a 2D canvas chart, loaded
//! from the app itself, never navigated away from.
//!
//! - WebGL and WebAudio off: nothing in the page uses them (wry turns them on).
//! - Cache model: document viewer. The memory cache and the back/forward
//!   page cache are for browsing many pages; this one is local.
//!
//! - The DMA-BUF renderer off (`WEBKIT_DISABLE_DMABUF_RENDERER=1`, read by
//!   WebKitGTK as it starts, so it is set by `main` before anything else):
//!   the page's frames then reach the window through shared memory. Measured
//!   under Xvfb with the 1,002-session library listed, the web process's
//!   PSS fell from about 210 MB to 123 MB, and while a model streams no
//!   frame waits long any more (docs/PERFORMANCE.md, Desktop). A value the
//!   person set already is left as it is, and the programs the app starts
//!   do not inherit what it set ([`names_set_at_start`]).
//!
//! Compositing stays on: turning it off as well saved nothing more (the
//! whole process tree: 242.4 MB with both off, 242.3 MB with the DMA-BUF
//! renderer alone).
//!
//! `STRATA_WEBVIEW_DEFAULTS=1` keeps every WebKit default.

use std::sync::OnceLock;

use strata_app::EnvFn;
use tauri::Manager;
use webkit2gtk::{CacheModel, SettingsExt, WebContextExt, WebViewExt};

/// Whether the person asked to keep every WebKit default.
pub fn keeps_webkit_defaults(env: EnvFn) -> bool {
    env("STRATA_WEBVIEW_DEFAULTS").is_some_and(|value| value == "1")
}

/// WebKitGTK reads this as it starts: `1` turns its DMA-BUF renderer off.
pub const DMABUF_RENDERER_OFF: &str = "WEBKIT_DISABLE_DMABUF_RENDERER";

/// What `main` set for WebKitGTK as the app started.
static SET_AT_START: OnceLock<Vec<(&'static str, &'static str)>> = OnceLock::new();

/// Sets [`start_environment`]'s variables in this process, for WebKitGTK
/// to read as it starts, and remembers them ([`names_set_at_start`]).
///
/// # Safety
/// No other thread may read or change the environment meanwhile: call it
/// as `main`'s first statement, before any thread exists.
#[allow(unsafe_code)]
pub unsafe fn apply_start_environment(env: EnvFn) {
    let set = start_environment(env);
    for (name, value) in &set {
        // SAFETY: the caller's promise: no other thread exists yet.
        unsafe { std::env::set_var(name, value) };
    }
    // Set once; a second call changes nothing.
    let _ = SET_AT_START.set(set);
}

/// The names of the variables `main` set: meant for this process's WebKit,
/// so they are taken out of the programs the app starts (the link opener),
/// which would otherwise inherit them (a WebKitGTK browser among them).
pub fn names_set_at_start() -> impl Iterator<Item = &'static str> {
    SET_AT_START
        .get()
        .into_iter()
        .flatten()
        .map(|(name, _)| *name)
}

/// The variables to set in the process's environment before WebKitGTK
/// starts: none when the person keeps WebKit's defaults or already chose.
pub fn start_environment(env: EnvFn) -> Vec<(&'static str, &'static str)> {
    if keeps_webkit_defaults(env) || env(DMABUF_RENDERER_OFF).is_some() {
        return Vec::new();
    }
    vec![(DMABUF_RENDERER_OFF, "1")]
}

/// Applies the settings to the main window's webview, if there is one.
pub fn tune(app: &tauri::App, env: EnvFn) {
    if keeps_webkit_defaults(env) {
        tracing::info!("STRATA_WEBVIEW_DEFAULTS=1: WebKit's default settings");
        return;
    }
    let Some(window) = app.get_webview_window("main") else {
        tracing::warn!("no main window to tune");
        return;
    };
    let applied = window.with_webview(|webview| {
        let view = webview.inner();
        if let Some(settings) = WebViewExt::settings(&view) {
            settings.set_enable_webgl(false);
            settings.set_enable_webaudio(false);
        }
        if let Some(context) = view.context() {
            context.set_cache_model(CacheModel::DocumentViewer);
        }
    });
    if let Err(error) = applied {
        tracing::warn!(%error, "could not apply the webview settings");
    }
}

#[cfg(test)]
mod tests {
    use super::{DMABUF_RENDERER_OFF, keeps_webkit_defaults, start_environment};

    fn asked(name: &str) -> Option<String> {
        (name == "STRATA_WEBVIEW_DEFAULTS").then(|| "1".to_owned())
    }

    #[test]
    fn webkit_defaults_only_when_asked_with_one() {
        assert!(!keeps_webkit_defaults(|_| None));
        assert!(!keeps_webkit_defaults(|_| Some("0".into())));
        assert!(keeps_webkit_defaults(asked));
    }

    #[test]
    fn the_dmabuf_renderer_is_turned_off_unless_the_person_chose_or_keeps_defaults() {
        assert_eq!(
            start_environment(|_| None),
            vec![(DMABUF_RENDERER_OFF, "1")]
        );
        assert!(start_environment(asked).is_empty());
        let chose_on = |name: &str| (name == DMABUF_RENDERER_OFF).then(|| "0".to_owned());
        assert!(start_environment(chose_on).is_empty());
    }
}
