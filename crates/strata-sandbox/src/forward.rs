//! Inside the sandbox's network namespace: the loopback brought up, and
//! the forwarder that listens on `127.0.0.1:PORT` there and relays each
//! connection over the proxy's UNIX socket (a pathname socket reaches the
//! host's namespace, where the proxy listens).

use std::io::{self, BufRead, BufReader, Write};
use std::net::{Ipv4Addr, TcpListener};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Command, Stdio};

use nix::sys::socket::{
    AddressFamily, MsgFlags, NetlinkAddr, SockFlag, SockProtocol, SockType, recv, sendto, socket,
};

use crate::{SandboxError, SandboxResult};

/// `strata-sandbox-exec --forward SOCKET`: the forwarder's own mode.
pub const FORWARD_FLAG: &str = "--forward";

/// The interface index of `lo` in a new network namespace (it is the only
/// interface there, made first).
const LOOPBACK_INDEX: i32 = 1;

/// Sets `lo` up in the current network namespace over rtnetlink
/// (`RTM_NEWLINK` with `IFF_UP`), and waits for the kernel's answer.
pub fn loopback_up() -> SandboxResult<()> {
    let failed = |what: &str, error: &dyn std::fmt::Display| {
        SandboxError::Namespace(format!("loopback {what}: {error}"))
    };
    const RTM_NEWLINK: u16 = 16;
    const NLM_F_REQUEST: u16 = 1;
    const NLM_F_ACK: u16 = 4;
    const NLMSG_ERROR: u16 = 2;
    const IFF_UP: u32 = 1;
    let fd = socket(
        AddressFamily::Netlink,
        SockType::Raw,
        SockFlag::SOCK_CLOEXEC,
        SockProtocol::NetlinkRoute,
    )
    .map_err(|e| failed("socket", &e))?;
    // struct nlmsghdr (16 bytes) then struct ifinfomsg (16 bytes).
    let mut message = Vec::with_capacity(32);
    message.extend_from_slice(&32u32.to_ne_bytes());
    message.extend_from_slice(&RTM_NEWLINK.to_ne_bytes());
    message.extend_from_slice(&(NLM_F_REQUEST | NLM_F_ACK).to_ne_bytes());
    message.extend_from_slice(&1u32.to_ne_bytes()); // sequence
    message.extend_from_slice(&0u32.to_ne_bytes()); // port id: the kernel's
    message.extend_from_slice(&[0, 0]); // family AF_UNSPEC, padding
    message.extend_from_slice(&0u16.to_ne_bytes()); // device type
    message.extend_from_slice(&LOOPBACK_INDEX.to_ne_bytes());
    message.extend_from_slice(&IFF_UP.to_ne_bytes()); // flags
    message.extend_from_slice(&IFF_UP.to_ne_bytes()); // change mask
    sendto(
        fd.as_raw_fd(),
        &message,
        &NetlinkAddr::new(0, 0),
        MsgFlags::empty(),
    )
    .map_err(|e| failed("request", &e))?;
    let mut answer = [0u8; 128];
    let n =
        recv(fd.as_raw_fd(), &mut answer, MsgFlags::empty()).map_err(|e| failed("answer", &e))?;
    let field = |at: usize, len: usize| answer.get(at..at + len).filter(|_| at + len <= n);
    let kind = field(4, 2)
        .and_then(|b| b.try_into().ok())
        .map(u16::from_ne_bytes);
    let code = field(16, 4)
        .and_then(|b| b.try_into().ok())
        .map(i32::from_ne_bytes);
    match (kind, code) {
        (Some(NLMSG_ERROR), Some(0)) => Ok(()),
        (Some(NLMSG_ERROR), Some(code)) => Err(failed(
            "up",
            &nix::errno::Errno::from_raw(code.saturating_neg()),
        )),
        _ => Err(failed("answer", &"an unexpected netlink message")),
    }
}

/// Starts this launcher again as the forwarder for `socket` (inside the
/// current namespace, before Landlock: it is Strata's code, and the
/// command's Landlock domain cannot signal or trace it); returns the port
/// it listens on.
pub fn start_forwarder(socket: &Path) -> SandboxResult<u16> {
    let exe = std::env::current_exe().map_err(|e| SandboxError::Exec(e.to_string()))?;
    let mut child = Command::new(exe)
        .arg(FORWARD_FLAG)
        .arg(socket)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| SandboxError::Exec(format!("the network forwarder: {e}")))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| SandboxError::Exec("the network forwarder has no output".into()))?;
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| SandboxError::Exec(format!("the network forwarder: {e}")))?;
    line.trim()
        .parse()
        .map_err(|_| SandboxError::Exec("the network forwarder did not start".into()))
}

/// The forwarder's body: prints its port, then relays every connection.
/// Dies with the command (parent-death signal).
pub fn run_forwarder(socket: &Path) -> io::Result<()> {
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)?;
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    let port = listener.local_addr()?.port();
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "{port}")?;
    stdout.flush()?;
    drop(stdout);
    let slots = crate::proxy::ConnectionSlots::default();
    for client in listener.incoming() {
        let Ok(client) = client else { continue };
        // Past the proxy's own limit a connection would only be refused.
        let Some(slot) = slots.take(crate::proxy::MAX_CONNECTIONS) else {
            continue;
        };
        let socket = socket.to_path_buf();
        std::thread::spawn(move || {
            let _slot = slot;
            if let Ok(upstream) = UnixStream::connect(&socket) {
                crate::proxy::relay(client, upstream);
            }
        });
    }
    Ok(())
}

/// The variables that point HTTP clients at the forwarder; `NO_PROXY` is
/// emptied so no host skips the proxy (nothing else is reachable).
pub const PROXY_VARS: [&str; 5] = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "http_proxy",
    "https_proxy",
    "ALL_PROXY",
];

/// The command's environment as `NAME=value` entries: `vars`, and with a
/// forwarder the proxy variables (replacing any the command inherited).
pub fn command_env(
    vars: impl Iterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
    forwarder: Option<u16>,
) -> Vec<std::ffi::OsString> {
    let proxy_names = ["NO_PROXY", "no_proxy"];
    let mut env: Vec<std::ffi::OsString> = vars
        .filter(|(name, _)| {
            forwarder.is_none()
                || !PROXY_VARS
                    .iter()
                    .chain(proxy_names.iter())
                    .any(|proxy| name == proxy)
        })
        .map(|(name, value)| {
            let mut pair = name;
            pair.push("=");
            pair.push(value);
            pair
        })
        .collect();
    if let Some(port) = forwarder {
        let url = format!("http://127.0.0.1:{port}");
        env.extend(PROXY_VARS.iter().map(|name| format!("{name}={url}").into()));
        env.extend(proxy_names.iter().map(|name| format!("{name}=").into()));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forwarder_replaces_inherited_proxy_variables_and_empties_no_proxy() {
        let vars = [
            ("PATH", "/bin"),
            ("https_proxy", "http://elsewhere"),
            ("NO_PROXY", "*"),
        ]
        .map(|(n, v)| (n.into(), v.into()));
        let env = command_env(vars.clone().into_iter(), Some(4242));
        let env: Vec<String> = env.into_iter().map(|e| e.into_string().unwrap()).collect();
        assert!(env.contains(&"PATH=/bin".to_owned()));
        assert!(env.contains(&"https_proxy=http://127.0.0.1:4242".to_owned()));
        assert!(env.contains(&"ALL_PROXY=http://127.0.0.1:4242".to_owned()));
        assert!(env.contains(&"NO_PROXY=".to_owned()));
        assert!(
            !env.iter()
                .any(|e| e.contains("elsewhere") || e == "NO_PROXY=*")
        );
        let untouched = command_env(vars.into_iter(), None);
        assert_eq!(untouched.len(), 3);
    }
}
