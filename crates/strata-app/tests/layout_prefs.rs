//! `save_layout`: the debug console's chosen width is kept in the desktop
//! preferences, comes back in `app_info` on the next run, survives a save of
//! the settings form, and a width no window could show is refused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use strata_app::App;
use strata_core::StrataPaths;
use strata_protocol::{CommandErrorKind, GetAppInfo, GetSettings, SaveLayout, SaveSettings};
use support::runtime;

/// The console width `app_info` reports.
async fn kept_width(app: &Arc<App>) -> Option<u32> {
    app.app_info(GetAppInfo {}).await.unwrap().console_width
}

#[test]
fn the_console_width_comes_back_on_the_next_run_and_survives_saving_the_settings() {
    let home = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    runtime().block_on(async {
        let app = Arc::new(App::new(paths.clone(), |_| None));
        assert_eq!(kept_width(&app).await, None);
        app.save_layout(SaveLayout { console_width: 612 })
            .await
            .unwrap();

        let next_run = Arc::new(App::new(paths.clone(), |_| None));
        assert_eq!(kept_width(&next_run).await, Some(612));
        let settings = next_run.get_settings(GetSettings {}).await.unwrap();
        next_run
            .save_settings(SaveSettings {
                settings,
                api_keys: Vec::new(),
            })
            .await
            .unwrap();
        assert_eq!(kept_width(&next_run).await, Some(612));
    });
}

#[test]
fn a_console_width_no_window_could_show_is_refused_and_nothing_is_kept() {
    let home = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    runtime().block_on(async {
        let app = Arc::new(App::new(paths.clone(), |_| None));
        let error = app
            .save_layout(SaveLayout {
                console_width: 99_999,
            })
            .await
            .unwrap_err();
        assert_eq!(error.kind, CommandErrorKind::InvalidInput);
        assert_eq!(kept_width(&app).await, None);
    });
}
