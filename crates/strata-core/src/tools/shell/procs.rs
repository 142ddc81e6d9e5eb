//! The processes of this machine as `/proc` shows them: who their parent,
//! process group and session are, when they started, and one variable of
//! the environment they were started with.

use std::io::Read;

/// One process, from `/proc/PID/stat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Proc {
    pub pid: i32,
    pub ppid: i32,
    pub pgid: i32,
    pub sid: i32,
    /// Clock ticks after boot: with `pid`, names one process even once its
    /// id is reused.
    pub start: u64,
    /// Exited, waiting for its parent to reap it.
    pub zombie: bool,
}

/// Every process still listed. Processes that vanish while being read are
/// left out.
pub(super) fn all() -> Vec<Proc> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(stat)
        .collect()
}

/// The process `pid`, if it is listed (a zombie still is).
pub(super) fn stat(pid: i32) -> Option<Proc> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &text)
}

/// Parses `/proc/PID/stat`. The command name, in parentheses, may itself
/// hold spaces and parentheses, so fields are counted after the last `)`.
fn parse_stat(pid: i32, text: &str) -> Option<Proc> {
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 3.. of proc_pid_stat(5): state, ppid, pgrp, session, ...,
    // starttime (22).
    Some(Proc {
        pid,
        ppid: fields.get(1)?.parse().ok()?,
        pgid: fields.get(2)?.parse().ok()?,
        sid: fields.get(3)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
        zombie: matches!(*fields.first()?, "Z" | "X"),
    })
}

/// The value `pid` was started with for the variable `name`, if it can be
/// read (a zombie's environment is gone; another user's is not readable).
pub(super) fn env_var(pid: i32, name: &str) -> Option<Vec<u8>> {
    let mut environ = Vec::new();
    std::fs::File::open(format!("/proc/{pid}/environ"))
        .ok()?
        .read_to_end(&mut environ)
        .ok()?;
    find_var(&environ, name)
}

fn find_var(environ: &[u8], name: &str) -> Option<Vec<u8>> {
    environ.split(|&byte| byte == 0).find_map(|entry| {
        let value = entry.strip_prefix(name.as_bytes())?.strip_prefix(b"=")?;
        Some(value.to_vec())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_after_the_last_parenthesis() {
        let text = "4242 (evil) (name) Z 1 4200 4100 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 \
                    987654 0 0 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
        assert_eq!(
            parse_stat(4242, text),
            Some(Proc {
                pid: 4242,
                ppid: 1,
                pgid: 4200,
                sid: 4100,
                start: 987_654,
                zombie: true,
            })
        );
        assert_eq!(parse_stat(1, "1 (truncated) S 0"), None);
    }

    #[test]
    fn a_variable_is_found_by_its_whole_name() {
        let environ = b"STRATA_RUNX=no\0PATH=/bin\0STRATA_RUN=1.2.3\0";
        assert_eq!(find_var(environ, "STRATA_RUN"), Some(b"1.2.3".to_vec()));
        assert_eq!(find_var(environ, "STRATA"), None);
        assert_eq!(find_var(b"", "PATH"), None);
    }

    #[test]
    fn this_process_is_listed_with_its_own_group_and_session() {
        let me = std::process::id() as i32;
        let found = all().into_iter().find(|p| p.pid == me);
        let expected = stat(me);
        assert!(found.is_some() && found == expected, "{found:?}");
        let found = found.unwrap();
        assert_eq!(found.ppid, nix::unistd::getppid().as_raw());
        assert_eq!(found.pgid, nix::unistd::getpgrp().as_raw());
        assert!(!found.zombie);
    }
}
