//! What the allow-list proxy costs a command, side by side in one run:
//! `curl` of a local HTTP server from the sandbox with the network on
//! (direct), and under an allow-list (through the forwarder and the proxy),
//! plus `true` with the network off (the launcher and namespace alone).
//! Alternates the three, `ROUNDS` times each, and prints medians and p90.
//!
//! `cargo build -p strata-sandbox && cargo run -p strata-sandbox --release --example proxy_cost`

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use strata_sandbox::proxy::Proxy;
use strata_sandbox::{AllowList, SandboxMode, SandboxPolicy};

const ROUNDS: usize = 40;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn serve(listener: TcpListener) {
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
            head.push(byte[0]);
        }
        let _ = stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n");
    }
}

fn launcher() -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    exe.ancestors()
        .skip(1)
        .take(3)
        .map(|dir| dir.join(strata_sandbox::LAUNCHER_NAME))
        .find(|path| path.is_file())
        .ok_or_else(|| "build strata-sandbox-exec first (cargo build -p strata-sandbox)".into())
}

fn time_one(launcher: &Path, policy: &SandboxPolicy, command: &str) -> Result<Duration> {
    let started = Instant::now();
    let status = strata_sandbox::launcher_command(launcher, policy, command)?
        .current_dir(&policy.workspace)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    let took = started.elapsed();
    if !status.success() {
        return Err(format!("{command} failed: {status}").into());
    }
    Ok(took)
}

fn summary(out: &mut impl Write, label: &str, times: &mut [Duration]) -> Result<()> {
    times.sort_unstable();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0;
    writeln!(out, "| {label} | {:.1} ms | {:.1} ms |", at(0.5), at(0.9))?;
    Ok(())
}

fn main() -> Result<()> {
    let launcher = launcher()?;
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    std::thread::spawn(move || serve(listener));
    let root = tempfile::tempdir()?;
    let base = std::fs::canonicalize(root.path())?;
    let (workspace, temp) = (base.join("ws"), base.join("tmp"));
    std::fs::create_dir_all(&workspace)?;
    std::fs::create_dir_all(&temp)?;
    let proxy = Proxy::start(
        &base.join("proxy.sock"),
        AllowList::parse(&[format!("localhost:{port}")])?,
    )?;

    let mut on = SandboxPolicy::new(SandboxMode::WorkspaceWrite, &workspace, &temp, None);
    on.network = true;
    let mut listed = on.clone();
    listed.network = false;
    listed.proxy = Some(proxy.socket().to_path_buf());
    let off = SandboxPolicy {
        network: false,
        ..on.clone()
    };
    let direct = format!("curl -sSf http://localhost:{port}/");
    let (mut t_on, mut t_listed, mut t_off) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        t_on.push(time_one(&launcher, &on, &direct)?);
        t_listed.push(time_one(&launcher, &listed, &direct)?);
        t_off.push(time_one(&launcher, &off, "true")?);
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "| {ROUNDS} runs each, alternating | median | p90 |\n|---|---|---|"
    )?;
    summary(
        &mut out,
        "`true`, network off (launcher + namespace)",
        &mut t_off,
    )?;
    summary(
        &mut out,
        "`curl` local server, network on (direct)",
        &mut t_on,
    )?;
    summary(
        &mut out,
        "`curl` local server, allow-list (forwarder + proxy)",
        &mut t_listed,
    )?;
    Ok(())
}
