use strata_protocol::ProviderKind as ViewKind;

use super::*;

fn no_env(_: &str) -> Option<String> {
    None
}

fn paths() -> (tempfile::TempDir, StrataPaths) {
    let home = tempfile::tempdir().unwrap();
    let paths = StrataPaths::under(home.path());
    (home, paths)
}

fn view(id: &str, kind: ViewKind, model: &str) -> ProfileView {
    ProfileView {
        id: id.into(),
        kind,
        label: String::new(),
        base_url: None,
        model: model.into(),
        has_key: false,
        context_window: None,
        compact_threshold: 1_000,
    }
}

fn settings(profiles: Vec<ProfileView>, active: &str) -> Settings {
    Settings {
        profiles,
        active_profile: active.into(),
        approval_policy: ApprovalPolicy::Ask,
        theme: Theme::Dark,
        compaction_policy: strata_protocol::CompactionPolicy::Layered,
        compact_threshold: None,
        sandbox: strata_protocol::SandboxMode::default(),
        sandbox_network: strata_protocol::SandboxNetwork::Off,
        sandbox_allow_domains: Vec::new(),
    }
}

#[test]
fn an_empty_config_shows_the_demo_profile_as_active() {
    let (_home, paths) = paths();
    let config = StrataConfig::default();
    let mut keys = KeyPresence::new(&config, &paths, &no_env);
    let settings = settings_of(&config, DesktopPrefs::default(), &no_env, &mut keys).unwrap();
    assert_eq!(settings.active_profile, "demo");
    assert_eq!(settings.profiles.len(), 1);
    let demo = &settings.profiles[0];
    assert_eq!(demo.kind, ViewKind::Demo);
    assert_eq!(demo.label, "Offline demo");
    assert!(!demo.has_key);
    assert!(demo.compact_threshold < demo.context_window.unwrap());
    assert_eq!(settings.theme, Theme::System);
}

#[test]
fn saved_settings_read_back_the_same_and_leave_defaults_out_of_the_file() {
    let (_home, paths) = paths();
    let mut work = view("work", ViewKind::Anthropic, "claude-sonnet-4-5");
    work.base_url = Some("https://api.anthropic.com/v1".into());
    work.context_window = Some(200_000);
    work.compact_threshold = 120_000;
    let mut local = view("local", ViewKind::OpenaiChat, "qwen3-coder");
    local.base_url = Some(" http://127.0.0.1:11434/v1 ".into());
    local.context_window = Some(32_768);
    local.compact_threshold = 24_000;
    let wanted = settings(vec![work, local], "work");
    let config = config_from_settings(&wanted, &StrataConfig::default()).unwrap();
    let text = config.to_toml().unwrap();
    // The default endpoint and the catalog window are not repeated.
    assert!(!text.contains("api.anthropic.com"), "{text}");
    assert!(!text.contains("200000"), "{text}");
    assert!(text.contains("compaction_threshold = 120000"), "{text}");
    assert!(text.contains("http://127.0.0.1:11434/v1"), "{text}");
    assert_eq!(config.default_profile.as_deref(), Some("work"));

    let mut keys = KeyPresence::new(&config, &paths, &no_env);
    let read = settings_of(&config, DesktopPrefs::default(), &no_env, &mut keys).unwrap();
    let work = read.profiles.iter().find(|p| p.id == "work").unwrap();
    assert_eq!(work.compact_threshold, 120_000);
    assert_eq!(work.context_window, Some(200_000));
    assert_eq!(work.label, "Anthropic · claude-sonnet-4-5");
    let local = read.profiles.iter().find(|p| p.id == "local").unwrap();
    assert_eq!(local.base_url.as_deref(), Some("http://127.0.0.1:11434/v1"));
    assert_eq!(local.context_window, Some(32_768));
    // The demo profile is always offered.
    assert!(read.profiles.iter().any(|p| p.kind == ViewKind::Demo));
}

#[test]
fn every_problem_is_reported_and_nothing_is_built() {
    let mut bad_url = view("work", ViewKind::OpenaiChat, "gpt-4o");
    bad_url.base_url = Some("ftp://example.com".into());
    let mut too_high = view("big", ViewKind::OpenaiChat, "gpt-4o");
    too_high.context_window = Some(10_000);
    too_high.compact_threshold = 10_000;
    let empty_model = view("empty", ViewKind::Anthropic, "  ");
    let problems = config_from_settings(
        &settings(vec![bad_url, too_high, empty_model], "missing"),
        &StrataConfig::default(),
    )
    .unwrap_err();
    let all = problems.join("\n");
    assert!(all.contains("ftp://example.com"), "{all}");
    assert!(all.contains("compaction_threshold (10000)"), "{all}");
    assert!(all.contains("the model is empty"), "{all}");
    assert!(all.contains("The active profile \"missing\""), "{all}");
}

#[test]
fn duplicate_and_blank_names_are_refused() {
    let problems = config_from_settings(
        &settings(
            vec![
                view("a", ViewKind::Demo, "strata-demo"),
                view("a", ViewKind::Demo, "strata-demo"),
                view(" ", ViewKind::Demo, "strata-demo"),
            ],
            "a",
        ),
        &StrataConfig::default(),
    )
    .unwrap_err();
    let all = problems.join("\n");
    assert!(all.contains("Two profiles are named \"a\""), "{all}");
    assert!(all.contains("needs a name"), "{all}");
    assert!(config_from_settings(&settings(Vec::new(), "a"), &StrataConfig::default()).is_err());
}

#[test]
fn a_profiles_key_source_survives_a_save() {
    let mut existing = StrataConfig::default();
    let mut work = ProfileConfig::new(ProviderKind::OpenaiResponses);
    work.api_key = Some(ApiKeySource::Keychain("work".into()));
    existing.profiles.insert("work".into(), work);
    let saved = config_from_settings(
        &settings(
            vec![view("work", ViewKind::OpenaiResponses, "gpt-5.4")],
            "work",
        ),
        &existing,
    )
    .unwrap();
    assert_eq!(
        saved.profiles["work"].api_key,
        Some(ApiKeySource::Keychain("work".into()))
    );
    // A kind change drops it: the old key belongs to another provider.
    let switched = config_from_settings(
        &settings(
            vec![view("work", ViewKind::Anthropic, "claude-haiku-4-5")],
            "work",
        ),
        &existing,
    )
    .unwrap();
    assert_eq!(switched.profiles["work"].api_key, None);
}

#[test]
fn keys_in_the_environment_count_as_present() {
    let (_home, paths) = paths();
    let config = StrataConfig::default();
    let env = |name: &str| (name == "OPENAI_API_KEY").then(|| "sk-test".to_owned());
    let mut keys = KeyPresence::new(&config, &paths, &env);
    let (views, active) = profile_views(&config, &env, &mut keys, &BTreeMap::new()).unwrap();
    assert_eq!(active, "env");
    let from_env = views.iter().find(|v| v.id == "env").unwrap();
    assert!(from_env.has_key);
    assert_eq!(from_env.kind, ViewKind::OpenaiResponses);
}

#[test]
fn desktop_preferences_round_trip_and_default_when_damaged() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(DesktopPrefs::load(dir.path()), DesktopPrefs::default());
    let prefs = DesktopPrefs {
        theme: Theme::Light,
        approval_policy: ApprovalPolicy::ReadOnly,
        labels: BTreeMap::from([("work".to_owned(), "Work account".to_owned())]),
        compact_threshold: Some(strata_protocol::ThresholdSetting::Left(20_000)),
        console_width: Some(640),
        imported: crate::imported::ImportPrefs {
            asked: true,
            tools: vec![strata_protocol::ImportSource::ClaudeCode],
            extra_paths: vec!["/data/sessions".to_owned()],
            hidden: vec!["/h/.codex/sessions/rollout-a.jsonl".to_owned()],
        },
    };
    prefs.save(dir.path()).unwrap();
    assert_eq!(DesktopPrefs::load(dir.path()), prefs);
    std::fs::write(dir.path().join(DESKTOP_FILE), "theme = 3").unwrap();
    assert_eq!(DesktopPrefs::load(dir.path()), DesktopPrefs::default());
}

#[test]
fn only_names_a_person_changed_are_kept_and_shown() {
    let (_home, paths) = paths();
    let mut wanted = settings(vec![view("demo", ViewKind::Demo, "strata-demo")], "demo");
    let config = config_from_settings(&wanted, &StrataConfig::default()).unwrap();
    let mut keys = KeyPresence::new(&config, &paths, &no_env);
    let (derived, _) = profile_views(&config, &no_env, &mut keys, &BTreeMap::new()).unwrap();
    wanted.profiles[0].label = "Offline demo".into();
    assert!(custom_labels(&wanted, &derived).is_empty());
    wanted.profiles[0].label = "  Try   it ".into();
    let labels = custom_labels(&wanted, &derived);
    assert_eq!(labels.get("demo").map(String::as_str), Some("Try it"));
    let prefs = DesktopPrefs {
        labels,
        ..DesktopPrefs::default()
    };
    let shown = settings_of(&config, prefs, &no_env, &mut keys).unwrap();
    assert_eq!(shown.profiles[0].label, "Try it");
}

#[test]
fn the_default_compaction_policy_goes_to_the_config_file_and_reads_back() {
    use strata_protocol::{CompactionPolicy, ThresholdSetting};
    let (_home, paths) = paths();
    let existing = StrataConfig::default();
    // The default policy left as it is writes nothing.
    let same = config_from_settings(
        &settings(vec![view("demo", ViewKind::Demo, "")], "demo"),
        &existing,
    )
    .unwrap();
    assert_eq!(same.compaction_policy, None);
    let mut chosen = settings(vec![view("demo", ViewKind::Demo, "")], "demo");
    chosen.compaction_policy = CompactionPolicy::Off;
    chosen.compact_threshold = Some(ThresholdSetting::Percent(70));
    let config = config_from_settings(&chosen, &existing).unwrap();
    assert_eq!(config.compaction_policy, Some(CompactionPolicy::Off));
    let prefs = DesktopPrefs {
        compact_threshold: chosen.compact_threshold,
        ..DesktopPrefs::default()
    };
    let mut keys = KeyPresence::new(&config, &paths, &no_env);
    let read = settings_of(&config, prefs, &no_env, &mut keys).unwrap();
    assert_eq!(read.compaction_policy, CompactionPolicy::Off);
    assert_eq!(read.compact_threshold, Some(ThresholdSetting::Percent(70)));
}

#[test]
fn a_chosen_sandbox_goes_to_the_config_files_tools_table_and_reads_back() {
    use strata_protocol::SandboxMode;
    let (_home, paths) = paths();
    let existing = StrataConfig::default();
    let demo = || settings(vec![view("demo", ViewKind::Demo, "")], "demo");
    // The default (workspace-write), never chosen: nothing written.
    let same = config_from_settings(&demo(), &existing).unwrap();
    assert_eq!(same.tools.sandbox, None);
    let mut chosen = demo();
    chosen.sandbox = SandboxMode::ReadOnly;
    let config = config_from_settings(&chosen, &existing).unwrap();
    assert_eq!(config.tools.sandbox, Some(SandboxMode::ReadOnly));
    let text = toml::to_string(&config).unwrap();
    assert!(text.contains("[tools]\nsandbox = \"read-only\""), "{text}");
    let mut keys = KeyPresence::new(&config, &paths, &no_env);
    let read = settings_of(&config, DesktopPrefs::default(), &no_env, &mut keys).unwrap();
    assert_eq!(read.sandbox, SandboxMode::ReadOnly);
    // Nothing in the file reads as the default.
    let read = settings_of(&existing, DesktopPrefs::default(), &no_env, &mut keys).unwrap();
    assert_eq!(read.sandbox, SandboxMode::WorkspaceWrite);
    // Turned off after another was chosen: written, so it stays off.
    chosen.sandbox = SandboxMode::Off;
    let off = config_from_settings(&chosen, &config).unwrap();
    assert_eq!(off.tools.sandbox, Some(SandboxMode::Off));
}
