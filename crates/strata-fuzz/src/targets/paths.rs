//! Paths through the workspace resolver, by its current public entry point
//! (the file tools: `prepare` then `execute`), against a fixed tree with
//! symlinks that lead inside, outside, up, nowhere and round in a loop.
//! Nothing outside the workspace may be read, listed or written.
//!
//! [`through_tools`] is the one adapter to switch when the resolver gets a
//! public API of its own.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use strata_core::tools::{CancellationToken, ToolConfig, ToolRegistry};
use strata_protocol::ToolCallStatus;

use super::{Shape, shape_of};

/// In every file outside the workspace, and in no file inside.
const SENTINEL: &str = "OUTSIDE-SENTINEL-7c1f";
/// A file outside that paths can name (so error messages may echo it).
const OUTSIDE_NAME: &str = "outside-only.txt";
/// A file outside that no fuzzed path can spell: seeing it means a listing
/// reached outside.
const UNSPELLABLE: &str = "zz-listed-only-from-outside";

/// The resolver's current public entry point: runs `tool` on `path` through
/// the file tools; the output when it ran.
fn through_tools(tree: &Tree, tool: &str, path: &str) -> Option<(ToolCallStatus, String)> {
    let arguments = match tool {
        "write_file" => serde_json::json!({"path": path, "content": "fuzz write\n"}),
        "search_text" => serde_json::json!({"path": path, "pattern": "SENTINEL"}),
        _ => serde_json::json!({"path": path}),
    };
    let call = tree.tools.prepare(tool, &arguments.to_string()).ok()?;
    let outcome = tree
        .runtime
        .block_on(tree.tools.execute(&call, &CancellationToken::new()));
    Some((outcome.status, outcome.output))
}

struct Tree {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    outside: PathBuf,
    tools: ToolRegistry,
    runtime: tokio::runtime::Runtime,
}

thread_local! {
    static TREE: RefCell<Option<Tree>> = const { RefCell::new(None) };
}

fn must<T, E: std::fmt::Display>(result: Result<T, E>) -> T {
    result.unwrap_or_else(|error| panic!("building the fuzz tree: {error}"))
}

fn build() -> Tree {
    let dir = must(super::scratch_dir());
    let root = must(dir.path().canonicalize());
    let workspace = root.join("ws");
    let outside = root.join("outside");
    must(std::fs::create_dir_all(outside.join("dir")));
    must(std::fs::write(outside.join(OUTSIDE_NAME), SENTINEL));
    must(std::fs::write(
        outside.join("dir").join(OUTSIDE_NAME),
        SENTINEL,
    ));
    must(std::fs::write(outside.join(UNSPELLABLE), SENTINEL));
    must(std::fs::write(
        outside.join("dir").join(UNSPELLABLE),
        SENTINEL,
    ));
    lay_workspace(&workspace, &outside);
    let tools = must(ToolRegistry::new(&workspace, ToolConfig::default()));
    let runtime = must(
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
    );
    Tree {
        _dir: dir,
        workspace,
        outside,
        tools,
        runtime,
    }
}

fn lay_workspace(workspace: &Path, outside: &Path) {
    use std::os::unix::fs::symlink;
    must(std::fs::create_dir_all(workspace.join("a/b")));
    must(std::fs::write(workspace.join("a/b/file.txt"), "inside\n"));
    must(symlink("a", workspace.join("link_in")));
    must(symlink("../outside", workspace.join("link_out")));
    must(symlink(
        outside.join(OUTSIDE_NAME),
        workspace.join("link_abs"),
    ));
    must(symlink("..", workspace.join("a/link_up")));
    must(symlink("../../..", workspace.join("a/b/link_up3")));
    must(symlink("../outside/none", workspace.join("dangling")));
    must(symlink("loop", workspace.join("loop")));
}

/// Every file under `dir` with its contents, symlinks not followed.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => stack.push(path),
                _ => files.push((path.clone(), std::fs::read(&path).unwrap_or_default())),
            }
        }
    }
    files.sort();
    files
}

const COMPONENTS: &[&str] = &[
    "..",
    ".",
    "a",
    "b",
    "file.txt",
    "link_in",
    "link_out",
    "link_abs",
    "link_up",
    "link_up3",
    "dangling",
    "missing",
    OUTSIDE_NAME,
    "outside",
    "dir",
    "loop",
    "",
    "ws",
];

/// The path the bytes spell: each byte picks a component, or (from 0xf0)
/// a raw separator or character.
fn path_of(data: &[u8], tree: &Tree) -> String {
    let mut path = String::new();
    for &byte in data {
        match byte {
            0xf0 => path.push('/'),
            0xf1 => path.push_str(&tree.workspace.display().to_string()),
            0xf2 => path.push_str(&tree.outside.display().to_string()),
            0xf3 => path.push('\\'),
            0xf4 => path.push('~'),
            0xf5..=0xff => path.push(char::from(byte - 0xf5 + b'.')),
            _ => {
                if !path.is_empty() && !path.ends_with('/') {
                    path.push('/');
                }
                path.push_str(COMPONENTS[usize::from(byte) % COMPONENTS.len()]);
            }
        }
    }
    path
}

pub fn seeds() -> Vec<Vec<u8>> {
    vec![
        vec![2, 3, 4],
        vec![6, 12],
        vec![11, 0, 2, 3, 4],
        vec![15],
        vec![0xf0, 0xf2],
    ]
}

pub fn run(data: &[u8]) -> Shape {
    // Taken out of its cell while in use: a run that panics (or writes)
    // drops it, and the next run lays a fresh tree.
    let tree = TREE
        .with(|cell| cell.borrow_mut().take())
        .unwrap_or_else(build);
    let path = path_of(data, &tree);
    let mut statuses = Vec::new();
    for tool in ["read_file", "list_directory", "search_text"] {
        let Some((status, output)) = through_tools(&tree, tool, &path) else {
            statuses.push(None);
            continue;
        };
        assert!(
            !output.contains(SENTINEL) && !output.contains(UNSPELLABLE),
            "reached outside the workspace: {tool} on {path:?}: {output:?}"
        );
        statuses.push(Some(status));
    }
    let outside_before = snapshot(&tree.outside);
    match through_tools(&tree, "write_file", &path) {
        Some((status, _)) => {
            assert_eq!(
                snapshot(&tree.outside),
                outside_before,
                "write_file changed a file outside the workspace: {path:?}"
            );
            statuses.push(Some(status));
        }
        None => TREE.with(|cell| *cell.borrow_mut() = Some(tree)),
    }
    shape_of(statuses)
}
