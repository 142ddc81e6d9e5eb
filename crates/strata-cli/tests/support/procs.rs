//! Processes as `/proc` shows them: which process groups a test's server
//! runs in, and whether any of their members is left.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

/// The process groups of processes whose command line mentions `marker`.
pub fn groups_mentioning(marker: &str) -> BTreeSet<i32> {
    let mut groups = BTreeSet::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let path = entry.path();
        let Ok(cmdline) = std::fs::read(path.join("cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(marker)
            && let Some(group) = group_of(&path)
        {
            groups.insert(group);
        }
    }
    groups
}

pub fn group_of(proc_dir: &Path) -> Option<i32> {
    let stat = std::fs::read_to_string(proc_dir.join("stat")).ok()?;
    // After the command's closing parenthesis: state, ppid, pgrp.
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    fields.get(2)?.parse().ok()
}

/// The pids of live (not zombie) processes in any of `groups`.
pub fn members_of(groups: &BTreeSet<i32>) -> Vec<u32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let path = entry.path();
        let Some(pid) = path
            .file_name()
            .and_then(|n| n.to_str()?.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(path.join("stat")) else {
            continue;
        };
        let zombie = stat
            .rfind(')')
            .is_some_and(|at| stat[at + 1..].trim_start().starts_with('Z'));
        if !zombie && group_of(&path).is_some_and(|group| groups.contains(&group)) {
            members.push(pid);
        }
    }
    members
}

pub fn assert_all_gone(groups: &BTreeSet<i32>) {
    assert!(!groups.is_empty(), "the server's processes were never seen");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = members_of(groups);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "server processes outlived strata: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
