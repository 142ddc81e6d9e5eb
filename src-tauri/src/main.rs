// No console window next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    #[cfg(target_os = "linux")]
    {
        let set = strata_desktop::webview::start_environment(|name| std::env::var(name).ok());
        for (name, value) in &set {
            // SAFETY: main's first statement: no other thread exists yet that
            // could read the environment while it changes. WebKitGTK reads
            // these variables only when it starts, so they cannot be set later.
            #[allow(unsafe_code)]
            unsafe {
                std::env::set_var(name, value)
            };
        }
        strata_desktop::webview::remember_start_environment(set);
    }
    match strata_desktop::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("strata-desktop: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
