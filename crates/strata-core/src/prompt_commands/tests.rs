#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use super::*;

/// A workspace and a config folder, each with the given prompt files.
struct Scene {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    config: PathBuf,
}

impl Scene {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("project");
        let config = dir.path().join("config");
        std::fs::create_dir_all(workspace.join(WORKSPACE_COMMANDS_FOLDER)).unwrap();
        std::fs::create_dir_all(config.join(OWN_COMMANDS_FOLDER)).unwrap();
        Self {
            _dir: dir,
            workspace,
            config,
        }
    }

    fn workspace_file(&self, name: &str) -> PathBuf {
        self.workspace.join(WORKSPACE_COMMANDS_FOLDER).join(name)
    }

    fn own_file(&self, name: &str) -> PathBuf {
        self.config.join(OWN_COMMANDS_FOLDER).join(name)
    }

    fn discover(&self) -> PromptCommands {
        discover(&self.workspace, Some(&self.config), &["compact", "help"])
    }

    fn find(&self, name: &str) -> Result<Option<PromptCommand>> {
        find(
            &self.workspace,
            Some(&self.config),
            &["compact", "help"],
            name,
        )
    }
}

fn names(found: &PromptCommands) -> Vec<&str> {
    found.commands.iter().map(|c| c.name.as_str()).collect()
}

fn problem<'a>(found: &'a PromptCommands, file_ends: &str) -> &'a str {
    found
        .problems
        .iter()
        .find(|p| p.file.ends_with(file_ends))
        .map(|p| p.reason.as_str())
        .unwrap_or_else(|| panic!("no problem for {file_ends}: {:?}", found.problems))
}

#[test]
fn names_are_one_to_32_ascii_letters_digits_dashes_or_underscores() {
    for good in ["review", "fix-bug", "Test_2", &"a".repeat(32)] {
        assert_eq!(name_problem(good), None, "{good}");
    }
    for bad in ["", "has space", "dot.name", "ünï", "a/b", &"a".repeat(33)] {
        assert!(name_problem(bad).is_some(), "{bad:?}");
    }
}

#[test]
fn a_slash_and_a_valid_name_at_the_start_is_an_invocation() {
    assert_eq!(invocation("/review"), Some(("review", "")));
    assert_eq!(
        invocation("  /review   the parser \n"),
        Some(("review", "the parser"))
    );
    assert_eq!(
        invocation("/fix\tline one\nline two"),
        Some(("fix", "line one\nline two"))
    );
    for text in [
        "/src/main.rs fails",
        "/",
        "please /review",
        "review",
        "/a.b",
    ] {
        assert_eq!(invocation(text), None, "{text:?}");
    }
}

#[test]
fn front_matter_gives_the_description_and_hint_and_is_not_in_the_body() {
    let parsed = parse_prompt(
        "---\ndescription: \"Review the diff\"\nargument-hint: [focus]\nallowed-tools: x\n---\n\nReview $ARGUMENTS\n",
    )
    .unwrap();
    assert_eq!(parsed.description, "Review the diff");
    assert_eq!(parsed.argument_hint.as_deref(), Some("[focus]"));
    assert_eq!(parsed.body, "Review $ARGUMENTS");
}

#[test]
fn without_front_matter_the_first_line_is_the_description_heading_marks_dropped() {
    let parsed = parse_prompt("\n\n## Write the tests\n\nFor $ARGUMENTS.").unwrap();
    assert_eq!(parsed.description, "Write the tests");
    assert_eq!(parsed.body, "## Write the tests\n\nFor $ARGUMENTS.");
    let parsed = parse_prompt("Explain this code").unwrap();
    assert_eq!(parsed.description, "Explain this code");
    // An unclosed block is no front matter: all of it is the body.
    let parsed = parse_prompt("---\ndescription: x\nbody").unwrap();
    assert_eq!(parsed.body, "---\ndescription: x\nbody");
}

#[test]
fn a_description_is_one_line_without_control_characters_and_cut() {
    let parsed = parse_prompt("---\ndescription: red \u{1b}[31m text\u{7}\n---\nbody").unwrap();
    assert_eq!(parsed.description, "red [31m text");
    let parsed = parse_prompt(&format!("# {}\nbody", "word ".repeat(60))).unwrap();
    assert_eq!(
        parsed.description.chars().count(),
        parse::DESCRIPTION_MAX_CHARS
    );
    assert!(parsed.description.ends_with('…'));
}

#[test]
fn a_blank_body_is_no_prompt() {
    assert_eq!(parse_prompt("  \n"), None);
    assert_eq!(parse_prompt("---\ndescription: only this\n---\n\n"), None);
}

#[test]
fn arguments_replace_every_placeholder_or_follow_a_body_without_one() {
    assert_eq!(
        expand("Review $ARGUMENTS, then $ARGUMENTS again", " parser "),
        "Review parser, then parser again"
    );
    assert_eq!(expand("Review $ARGUMENTS.", ""), "Review .");
    assert_eq!(
        expand("Run the tests.", "only unit"),
        "Run the tests.\n\nonly unit"
    );
    assert_eq!(expand("Run the tests.", "  "), "Run the tests.");
}

#[test]
fn both_folders_give_commands_by_name_the_workspace_file_winning() {
    let scene = Scene::new();
    std::fs::write(
        scene.workspace_file("review.md"),
        "# Team review\nReview $ARGUMENTS",
    )
    .unwrap();
    std::fs::write(scene.own_file("review.md"), "My review").unwrap();
    std::fs::write(scene.own_file("explain.md"), "Explain $ARGUMENTS").unwrap();
    std::fs::write(scene.workspace_file("notes.txt"), "not a prompt").unwrap();
    let found = scene.discover();
    assert_eq!(names(&found), ["explain", "review"]);
    let review = &found.commands[1];
    assert_eq!(review.source, SlashCommandSource::Workspace);
    assert_eq!(review.file, ".strata/commands/review.md");
    assert_eq!(review.description, "Team review");
    assert_eq!(
        review.expand("the parser"),
        "# Team review\nReview the parser"
    );
    assert_eq!(found.commands[0].source, SlashCommandSource::User);
    assert_eq!(
        problem(&found, "config/commands/review.md"),
        "hidden by .strata/commands/review.md"
    );
    assert_eq!(found.problems.len(), 1);

    let found = scene.find("review").unwrap().unwrap();
    assert_eq!(found.source, SlashCommandSource::Workspace);
    assert_eq!(
        scene.find("explain").unwrap().unwrap().body,
        "Explain $ARGUMENTS"
    );
    assert_eq!(scene.find("missing").unwrap(), None);
}

#[test]
fn bad_names_built_in_names_and_blank_files_are_ignored_with_a_reason() {
    let scene = Scene::new();
    std::fs::write(scene.workspace_file("has space.md"), "x").unwrap();
    std::fs::write(scene.workspace_file(&format!("{}.md", "a".repeat(33))), "x").unwrap();
    std::fs::write(scene.workspace_file("compact.md"), "x").unwrap();
    std::fs::write(scene.workspace_file("blank.md"), " \n").unwrap();
    std::fs::write(scene.workspace_file("binary.md"), [0xff, 0xfe, 0x00]).unwrap();
    let found = scene.discover();
    assert!(found.commands.is_empty(), "{:?}", found.commands);
    assert!(problem(&found, "has space.md").contains("only letters, digits"));
    assert!(problem(&found, "aaaa.md").contains("longer than 32"));
    assert_eq!(
        problem(&found, "compact.md"),
        "/compact is a built-in command"
    );
    assert_eq!(problem(&found, "blank.md"), "it is blank");
    assert_eq!(problem(&found, "binary.md"), "it is not UTF-8 text");
    assert_eq!(scene.find("compact").unwrap(), None);
    let error = scene.find("blank").unwrap_err().to_string();
    assert_eq!(
        error,
        "/blank cannot be used: .strata/commands/blank.md: it is blank"
    );
}

#[test]
fn a_link_out_of_the_folder_is_refused_and_one_inside_it_followed() {
    let scene = Scene::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "PRIVATE").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        scene.workspace_file("leak.md"),
    )
    .unwrap();
    // Inside the workspace but out of the commands folder: refused too.
    std::fs::write(scene.workspace.join("README.md"), "readme").unwrap();
    std::os::unix::fs::symlink("../../README.md", scene.workspace_file("readme.md")).unwrap();
    std::fs::write(scene.workspace_file("real.md"), "Real prompt").unwrap();
    std::os::unix::fs::symlink("real.md", scene.workspace_file("alias.md")).unwrap();
    let found = scene.discover();
    assert_eq!(names(&found), ["alias", "real"]);
    assert_eq!(found.commands[0].body, "Real prompt");
    assert!(problem(&found, "leak.md").contains("leads out of its folder"));
    assert!(problem(&found, "readme.md").contains("leads out of its folder"));
    let error = scene.find("leak").unwrap_err().to_string();
    assert!(
        error.starts_with("/leak cannot be used: .strata/commands/leak.md: "),
        "{error}"
    );
    assert!(!error.contains("PRIVATE"));
}

#[test]
fn a_commands_folder_linked_out_of_the_workspace_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("project");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(workspace.join(".strata")).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("evil.md"), "Do harm").unwrap();
    std::os::unix::fs::symlink(&elsewhere, workspace.join(WORKSPACE_COMMANDS_FOLDER)).unwrap();
    let found = discover(&workspace, None, &[]);
    assert!(found.commands.is_empty());
    assert!(problem(&found, ".strata/commands/").contains("escapes the workspace"));
    assert!(find(&workspace, None, &[], "evil").is_err());
}

#[test]
fn a_fifo_is_refused_without_blocking_and_a_huge_file_unread() {
    let scene = Scene::new();
    let status = std::process::Command::new("mkfifo")
        .arg(scene.workspace_file("pipe.md"))
        .status()
        .unwrap();
    assert!(status.success());
    let file = std::fs::File::create(scene.own_file("huge.md")).unwrap();
    // Sparse: 4 GiB that must never be read.
    file.set_len(4 << 30).unwrap();
    std::fs::write(
        scene.own_file("edge.md"),
        "x".repeat(PROMPT_FILE_MAX_BYTES as usize),
    )
    .unwrap();
    let found = scene.discover();
    assert_eq!(names(&found), ["edge"]);
    assert!(problem(&found, "pipe.md").contains("not a regular file"));
    assert!(problem(&found, "huge.md").contains("over the 32768-byte limit"));
    let error = scene.find("huge").unwrap_err().to_string();
    assert!(error.contains("config/commands/huge.md"), "{error}");
    assert!(scene.find("pipe").is_err());
}

#[test]
fn missing_folders_give_nothing_and_no_problem() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-config");
    let found = discover(dir.path(), Some(&missing), &[]);
    assert_eq!(found, PromptCommands::default());
    assert_eq!(find(dir.path(), Some(&missing), &[], "x").unwrap(), None);
    assert_eq!(
        find(Path::new("/nonexistent/ws"), None, &[], "x").unwrap(),
        None
    );
}
