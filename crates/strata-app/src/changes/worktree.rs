//! The git side of a fork into a new worktree: whether the workspace is in
//! a repository with a commit, where the worktree goes (beside the
//! repository, named for the fork point), and adding or removing it. Only
//! `git worktree add --detach` and `git worktree remove` change anything:
//! the original checkout's branches, index and HEAD are never touched, and
//! the repository's hooks never run.

use std::path::{Path, PathBuf};
use std::process::Command;

use strata_protocol::{ForkPoint, SessionId};

/// The repository a workspace is in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repo {
    /// Its working tree's top folder.
    pub top: PathBuf,
    /// The workspace's place in it (`""` at the top, else `a/b/`).
    pub prefix: String,
}

/// Runs git in `dir` with the person's environment minus whatever would
/// point it at another repository, and with hooks off.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "core.hooksPath=/dev/null"])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_COMMON_DIR")
        .output()
        .map_err(|error| format!("could not run git: {error}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(stderr.trim().chars().take(300).collect())
    }
}

/// The repository `workspace` is in, or why a worktree cannot be made of it.
pub fn repo_of(workspace: &Path) -> Result<Repo, String> {
    let shown = git(
        workspace,
        &["rev-parse", "--show-toplevel", "--show-prefix"],
    )
    .map_err(|_| "the workspace is not in a git repository".to_owned())?;
    let mut lines = shown.lines();
    let top = lines
        .next()
        .filter(|top| !top.is_empty())
        .ok_or_else(|| "the workspace is not in a git repository's working tree".to_owned())?;
    let prefix = lines.next().unwrap_or("").to_owned();
    git(
        workspace,
        &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"],
    )
    .map_err(|_| "the git repository has no commit yet".to_owned())?;
    Ok(Repo {
        top: PathBuf::from(top),
        prefix,
    })
}

/// Where a fork of `parent` at `point` makes its worktree:
/// `<repository>-fork-<8 hex digits of the point>` beside the repository
/// (`-2`, `-3`, … after it while taken), the same until one is made there.
pub fn worktree_path(repo: &Repo, parent: SessionId, point: &ForkPoint) -> PathBuf {
    let key = format!(
        "{parent} {}",
        serde_json::to_string(point).unwrap_or_default()
    );
    let short: String = strata_core::changes::sha256_hex(key.as_bytes())
        .chars()
        .take(8)
        .collect();
    let name = repo
        .top
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".to_owned());
    let base = repo.top.with_file_name(format!("{name}-fork-{short}"));
    let mut candidate = base.clone();
    let mut n = 2;
    while candidate.symlink_metadata().is_ok() {
        candidate = PathBuf::from(format!("{}-{n}", base.display()));
        n += 1;
    }
    candidate
}

/// The workspace's folder inside a worktree of `repo` at `worktree`.
pub fn workspace_in(repo: &Repo, worktree: &Path) -> PathBuf {
    match repo.prefix.trim_end_matches('/') {
        // Joining "" would end the recorded workspace in a slash.
        "" => worktree.to_owned(),
        prefix => worktree.join(prefix),
    }
}

/// `git worktree add --detach <path> HEAD`.
pub fn add(repo: &Repo, path: &Path) -> Result<(), String> {
    let path = path.to_string_lossy();
    git(
        &repo.top,
        &["worktree", "add", "--detach", "--quiet", &path, "HEAD"],
    )
    .map(drop)
    .map_err(|why| format!("git could not add the worktree: {why}"))
}

/// Takes back a worktree this fork made, when the fork did not finish.
pub fn remove(repo: &Repo, path: &Path) {
    let shown = path.to_string_lossy();
    if let Err(error) = git(&repo.top, &["worktree", "remove", "--force", &shown]) {
        tracing::warn!(%error, path = %path.display(), "could not remove the fork's worktree");
    }
}
