//! Property: whatever tree of folders, files and symlinks a workspace holds
//! (links inside and out, relative and absolute, chains and loops) and
//! whatever path a model sends (`..` after missing folders, absolute paths,
//! `.`), nothing resolves to, opens, lists or writes anything outside the
//! root, with the kernel's openat2 and with the portable walk alike.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::json;
use strata_core::tools::{
    CancellationToken, LIST_DIRECTORY, OpenStrategy, READ_FILE, SEARCH_TEXT, ToolConfig,
    ToolRegistry, WRITE_FILE, resolve_beneath,
};

const SENTINEL: &str = "OUTSIDE-SENTINEL";
const NAMES: &[&str] = &["a", "b", "c", "..", ".", "missing", "out", "secret.txt"];

#[derive(Clone, Debug)]
enum Target {
    Relative(Vec<&'static str>),
    InsideAbsolute(Vec<&'static str>),
    OutsideAbsolute(Vec<&'static str>),
    FilesystemRoot,
}

#[derive(Clone, Debug)]
enum Kind {
    Dir,
    File,
    Link(Target),
}

fn components(max: usize) -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(prop::sample::select(NAMES), 1..=max)
}

fn target() -> impl Strategy<Value = Target> {
    prop_oneof![
        4 => components(4).prop_map(Target::Relative),
        1 => components(3).prop_map(Target::InsideAbsolute),
        1 => components(2).prop_map(Target::OutsideAbsolute),
        1 => Just(Target::FilesystemRoot),
    ]
}

fn entry() -> impl Strategy<Value = (Vec<&'static str>, Kind)> {
    let name = prop::sample::select(&["a", "b", "c", "out", "secret.txt"][..]);
    let kind = prop_oneof![
        2 => Just(Kind::Dir),
        2 => Just(Kind::File),
        3 => target().prop_map(Kind::Link),
    ];
    (prop::collection::vec(name, 1..=3), kind)
}

#[derive(Clone, Debug)]
enum Prefix {
    None,
    Root,
    Outside,
    Slash,
}

fn raw_path() -> impl Strategy<Value = (Prefix, Vec<&'static str>)> {
    let prefix = prop_oneof![
        6 => Just(Prefix::None),
        2 => Just(Prefix::Root),
        1 => Just(Prefix::Outside),
        1 => Just(Prefix::Slash),
    ];
    (prefix, components(5))
}

/// Creates `rel` under `root` only through real folders, never following a
/// link (setting up must not write outside either).
fn create(root: &Path, outside: &Path, rel: &[&str], kind: &Kind) {
    let mut dir = root.to_path_buf();
    let (last, parents) = rel.split_last().unwrap();
    for name in parents {
        dir.push(name);
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return,
            Err(_) => std::fs::create_dir(&dir).unwrap(),
        }
    }
    let path = dir.join(last);
    if std::fs::symlink_metadata(&path).is_ok() {
        return;
    }
    match kind {
        Kind::Dir => std::fs::create_dir(&path).unwrap(),
        Kind::File => {
            let mut file = std::fs::File::create_new(&path).unwrap();
            file.write_all(b"inside\n").unwrap();
        }
        Kind::Link(target) => {
            let target = match target {
                Target::Relative(parts) => parts.iter().collect::<PathBuf>(),
                Target::InsideAbsolute(parts) => root.join(parts.iter().collect::<PathBuf>()),
                Target::OutsideAbsolute(parts) => outside.join(parts.iter().collect::<PathBuf>()),
                Target::FilesystemRoot => PathBuf::from("/"),
            };
            symlink(target, &path).unwrap();
        }
    }
}

/// Everything under `dir`, links not followed: path -> content or link text.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let value = if meta.is_dir() {
                stack.push(path.clone());
                "dir".to_owned()
            } else if meta.file_type().is_symlink() {
                format!("-> {}", std::fs::read_link(&path).unwrap().display())
            } else {
                std::fs::read_to_string(&path).unwrap()
            };
            out.insert(path, value);
        }
    }
    out
}

fn raw(prefix: &Prefix, parts: &[&str], root: &Path, outside: &Path) -> String {
    let joined = parts.join("/");
    match prefix {
        Prefix::None => joined,
        Prefix::Root => format!("{}/{joined}", root.display()),
        Prefix::Outside => format!("{}/{joined}", outside.display()),
        Prefix::Slash => format!("/{joined}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn nothing_resolves_opens_lists_or_writes_outside_the_root(
        tree in prop::collection::vec(entry(), 0..14),
        paths in prop::collection::vec(raw_path(), 1..10),
    ) {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("ws");
        let outside = base.path().join("out");
        std::fs::create_dir_all(outside.join("a")).unwrap();
        std::fs::write(outside.join("secret.txt"), SENTINEL).unwrap();
        std::fs::write(outside.join("a/secret.txt"), SENTINEL).unwrap();
        std::fs::create_dir(&root).unwrap();
        for (rel, kind) in &tree {
            create(&root, &outside, rel, kind);
        }
        let root = root.canonicalize().unwrap();
        let before = snapshot(&outside);
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();

        for strategy in [OpenStrategy::Kernel, OpenStrategy::Walk] {
            let config = ToolConfig { open_strategy: strategy, ..ToolConfig::default() };
            let tools = ToolRegistry::new(&root, config).unwrap();
            for (n, (prefix, parts)) in paths.iter().enumerate() {
                let path = raw(prefix, parts, &root, &outside);
                if let Ok(resolved) = resolve_beneath(&root, &path, strategy) {
                    prop_assert!(resolved.starts_with(&root), "{path} -> {resolved:?}");
                    if std::fs::symlink_metadata(&resolved).is_ok() {
                        prop_assert_eq!(resolved.canonicalize().ok(), Some(resolved.clone()), "{}", path);
                    }
                }
                let content = format!("WRITTEN-{n}\n");
                for (name, arguments) in [
                    (READ_FILE, json!({"path": path})),
                    (LIST_DIRECTORY, json!({"path": path})),
                    (WRITE_FILE, json!({"path": path, "content": content})),
                ] {
                    let output = runtime.block_on(async {
                        match tools.prepare(name, &arguments.to_string()) {
                            Ok(call) => tools.execute(&call, &CancellationToken::new()).await.output,
                            Err(error) => error.to_string(),
                        }
                    });
                    prop_assert!(!output.contains(SENTINEL), "{name} {path}: {output}");
                }
            }
            let search = json!({"pattern": "SENTINEL"}).to_string();
            let output = runtime.block_on(async {
                let call = tools.prepare(SEARCH_TEXT, &search).unwrap();
                tools.execute(&call, &CancellationToken::new()).await.output
            });
            prop_assert!(!output.contains(SENTINEL), "search: {output}");
        }
        prop_assert_eq!(snapshot(&outside), before);
    }
}
