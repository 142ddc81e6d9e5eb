use std::fs;

use super::*;
use crate::tools::{OutputCap, ToolConfig};

fn registry(dir: &tempfile::TempDir, cap: OutputCap) -> ToolRegistry {
    let config = ToolConfig {
        output_cap: cap,
        protected_paths: Vec::new(),
        ..ToolConfig::default()
    };
    ToolRegistry::new(dir.path(), config).unwrap()
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("src")).unwrap();
    fs::write(
        dir.path().join("src/lib.rs"),
        "pub fn answer() -> u32 { 42 }\n",
    )
    .unwrap();
    fs::write(dir.path().join(".env"), "API_TOKEN=hunter2\n").unwrap();
    dir
}

#[test]
fn a_mentioned_file_is_appended_in_a_fence_with_its_path() {
    let dir = workspace();
    let sent = registry(&dir, OutputCap::default()).attach_mentions("explain @src/lib.rs");
    assert_eq!(
        sent,
        "explain @src/lib.rs\n\nsrc/lib.rs (attached with @):\n```\npub fn answer() -> u32 { 42 }\n```"
    );
}

#[test]
fn a_mentioned_folder_attaches_its_listing() {
    let dir = workspace();
    let sent = registry(&dir, OutputCap::default()).attach_mentions("what is in @src/");
    assert!(
        sent.ends_with("src/ (attached with @):\n```\nlib.rs\n```"),
        "{sent}"
    );
}

#[test]
fn a_secret_file_attaches_a_refusal_never_its_contents() {
    let dir = workspace();
    let sent = registry(&dir, OutputCap::default()).attach_mentions("use @.env");
    assert!(!sent.contains("hunter2"), "{sent}");
    assert!(sent.contains("looks like a secret file"), "{sent}");
}

#[test]
fn a_link_out_of_the_workspace_attaches_nothing() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("private.txt"), "outside words").unwrap();
    let dir = workspace();
    std::os::unix::fs::symlink(outside.path().join("private.txt"), dir.path().join("p.txt"))
        .unwrap();
    let text = "read @p.txt and @../private.txt";
    let sent = registry(&dir, OutputCap::default()).attach_mentions(text);
    assert_eq!(sent, text);
}

#[test]
fn an_unknown_path_leaves_the_text_as_it_is() {
    let dir = workspace();
    let text = "mail me @nobody/here.rs";
    assert_eq!(
        registry(&dir, OutputCap::default()).attach_mentions(text),
        text
    );
}

#[test]
fn a_long_file_is_cut_at_read_files_caps() {
    let dir = workspace();
    let body: String = (1..=500).map(|n| format!("line {n}\n")).collect();
    fs::write(dir.path().join("long.txt"), body).unwrap();
    let cap = OutputCap {
        max_lines: 50,
        ..OutputCap::default()
    };
    let sent = registry(&dir, cap).attach_mentions("@long.txt");
    assert!(sent.contains("line 49\n"), "{sent}");
    assert!(!sent.contains("line 50\n"), "{sent}");
    assert!(sent.contains("[showing lines 1-49 of 500"), "{sent}");
}

#[test]
fn backticks_in_the_file_get_a_longer_fence() {
    let dir = workspace();
    fs::write(dir.path().join("a.md"), "```rust\nx\n```\n").unwrap();
    let sent = registry(&dir, OutputCap::default()).attach_mentions("@a.md");
    assert!(sent.ends_with("````\n```rust\nx\n```\n````"), "{sent}");
}
