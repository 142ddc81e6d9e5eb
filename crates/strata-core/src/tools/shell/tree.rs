//! Which processes belong to one command: a pure decision over a snapshot of
//! `/proc`, so it can be checked without starting processes.
//!
//! A process belongs to the command if it is the command's first process,
//! is in its process group, carries its marker in the environment it was
//! started with, was already found to belong (a zombie no longer shows its
//! environment), or is an unmarked orphan that was reparented to Strata
//! (the subreaper) after the command began from a session some process of
//! the command created; and so does every descendant of one that belongs.

use std::collections::{HashMap, HashSet};

use super::procs::Proc;

/// What identifies one command's processes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Tree {
    /// The value of [`super::supervisor::MARKER_VAR`] in its environment.
    pub marker: Vec<u8>,
    /// The process Strata started; the leader of the command's group.
    pub root: i32,
    /// When it started: nothing older can belong to the command.
    pub root_start: u64,
}

/// Strata's own process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Me {
    pub pid: i32,
    pub sid: i32,
}

/// The command's processes in `procs`. `marker_of` reads a process's marker;
/// `known` keeps every process (id and start) found before, and gains those
/// found now.
pub(super) fn members(
    tree: &Tree,
    me: Me,
    procs: &[Proc],
    marker_of: &mut dyn FnMut(i32) -> Option<Vec<u8>>,
    known: &mut HashSet<(i32, u64)>,
) -> Vec<Proc> {
    let candidates: Vec<&Proc> = procs
        .iter()
        .filter(|p| p.pid != me.pid && p.start >= tree.root_start)
        .collect();
    let mut member: HashSet<i32> = HashSet::new();
    for p in &candidates {
        let seed = (p.pid == tree.root && p.start == tree.root_start)
            || (p.pgid == tree.root && p.pid != tree.root)
            || known.contains(&(p.pid, p.start))
            || match marker_of(p.pid) {
                Some(marker) => marker == tree.marker,
                // Reparented to Strata: a child Strata started itself is
                // either in Strata's session or leads its own.
                None => p.ppid == me.pid && p.sid != me.sid && p.sid != p.pid,
            };
        if seed {
            member.insert(p.pid);
        }
    }
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for p in &candidates {
        children.entry(p.ppid).or_default().push(p.pid);
    }
    let mut queue: Vec<i32> = member.iter().copied().collect();
    while let Some(pid) = queue.pop() {
        for &child in children.get(&pid).into_iter().flatten() {
            if member.insert(child) {
                queue.push(child);
            }
        }
    }
    let found: Vec<Proc> = candidates
        .into_iter()
        .filter(|p| member.contains(&p.pid))
        .copied()
        .collect();
    known.extend(found.iter().map(|p| (p.pid, p.start)));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const ME: Me = Me { pid: 100, sid: 90 };
    const TREE: Tree = Tree {
        marker: Vec::new(),
        root: 200,
        root_start: 1_000,
    };

    fn tree() -> Tree {
        Tree {
            marker: b"run-1".to_vec(),
            ..TREE
        }
    }

    fn p(pid: i32, ppid: i32, pgid: i32, sid: i32, start: u64) -> Proc {
        Proc {
            pid,
            ppid,
            pgid,
            sid,
            start,
            zombie: false,
        }
    }

    fn pids(found: &[Proc]) -> Vec<i32> {
        let mut pids: Vec<i32> = found.iter().map(|p| p.pid).collect();
        pids.sort_unstable();
        pids
    }

    fn run(procs: &[Proc], markers: &[(i32, &str)], known: &mut HashSet<(i32, u64)>) -> Vec<i32> {
        let mut marker_of = |pid: i32| {
            markers
                .iter()
                .find(|(p, _)| *p == pid)
                .map(|(_, m)| m.as_bytes().to_vec())
        };
        pids(&members(&tree(), ME, procs, &mut marker_of, known))
    }

    #[test]
    fn the_root_its_group_and_their_descendants_belong() {
        let procs = [
            p(100, 1, 100, 90, 10),       // Strata
            p(200, 100, 200, 90, 1_000),  // the root
            p(201, 200, 200, 90, 1_001),  // a child in its group
            p(202, 201, 202, 202, 1_002), // a child that called setsid
            p(203, 202, 202, 202, 1_003), // and its child
            p(300, 100, 100, 90, 1_004),  // another child of Strata (not ours)
            p(301, 1, 301, 301, 1_005),   // an unrelated daemon
        ];
        let mut known = HashSet::new();
        assert_eq!(run(&procs, &[], &mut known), [200, 201, 202, 203]);
    }

    #[test]
    fn marked_processes_belong_wherever_they_were_reparented() {
        let procs = [
            p(210, 1, 210, 210, 1_010),   // setsid + double fork, reparented to init
            p(211, 100, 211, 211, 1_011), // reparented to Strata
            p(212, 1, 212, 212, 1_012),   // another command's
        ];
        let markers = [(210, "run-1"), (211, "run-1"), (212, "run-2")];
        assert_eq!(run(&procs, &markers, &mut HashSet::new()), [210, 211]);
    }

    #[test]
    fn unmarked_orphans_reparented_to_strata_from_another_session_belong() {
        let procs = [
            p(220, 100, 219, 219, 1_020), // env cleared, setsid, forked, reparented to Strata
            p(221, 100, 100, 90, 1_021),  // Strata's own helper, in its session
            p(222, 1, 222, 219, 1_022),   // unmarked, reparented to init: not found
            p(223, 100, 223, 223, 1_023), // Strata's own helper that leads a session
        ];
        assert_eq!(run(&procs, &[], &mut HashSet::new()), [220]);
    }

    #[test]
    fn processes_older_than_the_command_never_belong() {
        let procs = [
            p(230, 100, 200, 230, 999), // in the group by id, but older: id reuse
            p(231, 1, 231, 231, 500),   // carries the marker, but older
            p(200, 100, 200, 90, 999),  // the root's id, reused before the command
        ];
        assert_eq!(
            run(&procs, &[(231, "run-1")], &mut HashSet::new()),
            Vec::<i32>::new()
        );
    }

    #[test]
    fn once_found_a_process_stays_found_when_its_environment_is_gone() {
        let alive = [p(240, 1, 240, 240, 1_040)];
        let mut known = HashSet::new();
        assert_eq!(run(&alive, &[(240, "run-1")], &mut known), [240]);
        let zombie = [Proc {
            zombie: true,
            ..alive[0]
        }];
        assert_eq!(run(&zombie, &[], &mut known), [240]);
        // A new process reusing the id is not the one found.
        let reused = [p(240, 1, 240, 240, 2_000)];
        assert_eq!(run(&reused, &[], &mut known), Vec::<i32>::new());
    }
}
