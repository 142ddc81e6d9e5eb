//! Links out of the app. Model, tool and file text is hostile, so a link the
//! UI shows opens only through [`open_external_link`], after the person
//! confirmed the full URL in the UI; the command checks the URL again here
//! (http, https or mailto only) before the system opener sees it. The
//! webview itself never leaves the app: [`navigation_guard`] refuses every
//! navigation away from the app's own pages.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use tauri::Runtime;
use tauri::plugin::TauriPlugin;
use url::Url;

use strata_app::error::{CommandResult, invalid_input, io};

/// Longer URLs are refused (the UI has the same cap).
pub const MAX_LINK_LENGTH: usize = 8192;

/// Debug builds only: when this variable names a file, confirmed links are
/// appended to it instead of being opened, so end-to-end tests can see what
/// would have opened without starting a browser.
pub const RECORD_LINKS_ENV: &str = "STRATA_E2E_OPENED_LINKS";

/// Why a link is not opened; the message is shown to the person.
pub fn validate_external_link(raw: &str) -> Result<Url, String> {
    if raw.len() > MAX_LINK_LENGTH {
        return Err("The link is too long to open.".to_owned());
    }
    let url = Url::parse(raw)
        .map_err(|_| "Only absolute http, https and mailto links can be opened.".to_owned())?;
    match url.scheme() {
        "http" | "https" => {
            if url.host_str().is_none_or(str::is_empty) {
                return Err("The link has no host.".to_owned());
            }
            if !url.username().is_empty() || url.password().is_some() {
                return Err("Links with a user name or password are not opened.".to_owned());
            }
        }
        "mailto" => {
            if url.path().is_empty() {
                return Err("The mail link has no address.".to_owned());
            }
        }
        other => return Err(format!("{other}: links are not opened.")),
    }
    if url.as_str().len() > MAX_LINK_LENGTH {
        return Err("The link is too long to open.".to_owned());
    }
    Ok(url)
}

/// Where confirmed links go.
pub enum LinkOpener {
    /// The system's default handler (a browser, a mail client).
    System,
    /// Appended to a file, one URL a line (debug builds, for tests).
    Record(PathBuf),
}

impl LinkOpener {
    /// The system opener, or in a debug build the file [`RECORD_LINKS_ENV`] names.
    pub fn from_env(env: strata_app::EnvFn) -> Self {
        match env(RECORD_LINKS_ENV) {
            Some(path) if cfg!(debug_assertions) && !path.is_empty() => {
                Self::Record(PathBuf::from(path))
            }
            _ => Self::System,
        }
    }

    fn open(&self, url: &Url) -> std::io::Result<()> {
        match self {
            Self::System => {
                let mut child = system_opener(url.as_str(), &app_only_env())
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()?;
                // Reap the opener (it returns once the handler has the URL).
                std::thread::spawn(move || child.wait());
                Ok(())
            }
            Self::Record(path) => {
                let mut file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)?;
                writeln!(file, "{url}")
            }
        }
    }
}

/// The variables the app set for its own WebKit, which the programs it
/// starts must not inherit.
fn app_only_env() -> Vec<&'static str> {
    #[cfg(target_os = "linux")]
    return crate::webview::names_set_at_start().collect();
    #[cfg(not(target_os = "linux"))]
    Vec::new()
}

/// The platform's "open with the default application", the URL one argument
/// (no shell), without the variables `unset` names.
fn system_opener(url: &str, unset: &[&str]) -> Command {
    #[cfg(target_os = "macos")]
    let mut command = {
        let mut command = Command::new("/usr/bin/open");
        command.arg(url);
        command
    };
    #[cfg(windows)]
    let mut command = {
        let mut command = Command::new("rundll32.exe");
        command.args(["url.dll,FileProtocolHandler", url]);
        command
    };
    #[cfg(not(any(target_os = "macos", windows)))]
    let mut command = {
        let mut command = Command::new("xdg-open");
        command.arg(url);
        command
    };
    for name in unset {
        command.env_remove(name);
    }
    command
}

/// `open_external_link`: opens a link the person confirmed, after checking
/// it again: only http, https (with a host, without credentials) and mailto
/// URLs.
pub fn open_external_link(opener: &LinkOpener, url: &str) -> CommandResult<()> {
    let url = validate_external_link(url).map_err(invalid_input)?;
    opener
        .open(&url)
        .map_err(|error| io(format!("The link could not be opened: {error}")))?;
    tracing::info!(
        scheme = url.scheme(),
        host = url.host_str().unwrap_or(""),
        "opened a link"
    );
    Ok(())
}

/// Whether the webview may show `url`: only the app's own pages (the bundled
/// UI under `tauri://localhost`, or `http(s)://tauri.localhost` where the
/// platform serves it so).
pub fn is_app_page(url: &Url) -> bool {
    match url.scheme() {
        "tauri" => url.host_str() == Some("localhost"),
        "http" | "https" => url.host_str() == Some("tauri.localhost"),
        _ => false,
    }
}

/// A plugin that refuses every navigation of a webview away from the app.
pub fn navigation_guard<R: Runtime>() -> TauriPlugin<R> {
    tauri::plugin::Builder::new("navigation-guard")
        .on_navigation(|_webview, url| {
            let allowed = is_app_page(url);
            if !allowed {
                tracing::warn!(
                    scheme = url.scheme(),
                    host = url.host_str().unwrap_or(""),
                    "refused a navigation away from the app"
                );
            }
            allowed
        })
        .build()
}

#[cfg(test)]
#[path = "links_tests.rs"]
mod tests;
