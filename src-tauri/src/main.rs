// No console window next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    // SAFETY: main's first statement: no other thread exists yet that could
    // read the environment while it changes. WebKitGTK reads these variables
    // only when it starts, so they cannot be set later.
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    unsafe {
        strata_desktop::webview::apply_start_environment(|name| std::env::var(name).ok())
    };
    match strata_desktop::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("strata-desktop: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
