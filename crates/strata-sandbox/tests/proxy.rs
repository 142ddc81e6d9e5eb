//! The domain allow-list: a sandboxed command with the network off reaches
//! an allowed name only through the session's proxy (over the forwarder on
//! its own loopback and the proxy's UNIX socket); an unlisted name is
//! refused and named, and a direct connection reaches nothing.

#![allow(clippy::unwrap_used)]

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;

use common::{Sandbox, has_program, supported};
use strata_sandbox::proxy::{Proxy, Resolver};
use strata_sandbox::{AllowList, Refusal, SandboxMode};

/// A local HTTP server answering every request with `arrived`, on its own
/// thread for as long as the test runs.
fn http_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\narrived\n",
            );
        }
    });
    addr
}

/// A proxy allowing `allowed.test`, which the resolver maps to `server`
/// whatever port was asked; every other name resolves nowhere.
fn proxy_for(server: SocketAddr, dir: &std::path::Path) -> Proxy {
    let resolver: Resolver = Arc::new(move |host, _port| {
        if host == "allowed.test" {
            Ok(vec![server])
        } else {
            Err(std::io::Error::other("not mapped"))
        }
    });
    let allow = AllowList::parse(&["allowed.test", "*.also-allowed.test"]).unwrap();
    Proxy::start_with_resolver(&dir.join("proxy.sock"), allow, resolver).unwrap()
}

fn proxied_sandbox(proxy: &Proxy) -> Sandbox {
    let mut sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    sandbox.policy.proxy = Some(proxy.socket().to_path_buf());
    sandbox
}

fn ready(test: &str) -> bool {
    supported(test, true) && has_program(test, "curl") && has_program(test, "bash")
}

#[test]
fn an_allowed_name_arrives_through_the_proxy_by_plain_http_and_by_connect() {
    let test = "an_allowed_name_arrives_through_the_proxy_by_plain_http_and_by_connect";
    if !ready(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let proxy = proxy_for(http_server(), dir.path());
    let sandbox = proxied_sandbox(&proxy);
    let plain = sandbox.run("curl -sSf http://allowed.test/");
    assert_eq!(plain.code, Some(0), "{}", plain.output);
    assert_eq!(plain.output, "arrived\n");
    // `--proxytunnel` makes curl CONNECT, as it does for https.
    let tunnel = sandbox.run("curl -sSf --proxytunnel http://allowed.test/");
    assert_eq!(tunnel.code, Some(0), "{}", tunnel.output);
    assert_eq!(tunnel.output, "arrived\n");
    assert!(proxy.refusals_since(0).is_empty());
}

#[test]
fn an_unlisted_name_is_refused_and_named_in_the_explanation() {
    let test = "an_unlisted_name_is_refused_and_named_in_the_explanation";
    if !ready(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let proxy = proxy_for(http_server(), dir.path());
    let sandbox = proxied_sandbox(&proxy);
    let mark = proxy.refusal_count();
    let ran = sandbox.run("curl -sSf --proxytunnel https://Example.COM/");
    assert_ne!(ran.code, Some(0), "{}", ran.output);
    assert!(!ran.output.contains("arrived"), "{}", ran.output);
    let refusals = proxy.refusals_since(mark);
    assert_eq!(refusals, vec![Refusal::NotListed("example.com".into())]);
    assert_eq!(
        refusals[0].explanation(),
        "[sandbox: network to example.com is not on the allow-list]"
    );
    // A listed name on a port the list does not name is refused too.
    let mark = proxy.refusal_count();
    let ran = sandbox.run("curl -sSf http://allowed.test:8080/");
    assert_ne!(ran.code, Some(0), "{}", ran.output);
    assert_eq!(
        proxy.refusals_since(mark),
        vec![Refusal::Port("allowed.test".into(), 8080)]
    );
}

#[test]
fn a_direct_connection_without_the_proxy_reaches_nothing() {
    let test = "a_direct_connection_without_the_proxy_reaches_nothing";
    if !ready(test) {
        return;
    }
    let server = http_server();
    let dir = tempfile::tempdir().unwrap();
    let proxy = proxy_for(server, dir.path());
    let sandbox = proxied_sandbox(&proxy);
    let direct = sandbox.run(&format!(
        "curl -sSf --noproxy '*' http://127.0.0.1:{}/",
        server.port()
    ));
    assert_ne!(direct.code, Some(0), "{}", direct.output);
    assert!(!direct.output.contains("arrived"), "{}", direct.output);
    let raw = sandbox.run(&format!(
        "bash -c 'echo GET > /dev/tcp/127.0.0.1/{}'",
        server.port()
    ));
    assert_ne!(raw.code, Some(0), "{}", raw.output);
    assert_eq!(
        raw.explained(&sandbox),
        vec!["[sandbox: the network is reached only through Strata's proxy (HTTP_PROXY), to the allowed domains]".to_owned()]
    );
}

/// What the proxy answers a plain GET of `allowed.test` sent straight to
/// its socket (no sandbox needed): its status line and body.
fn get_through(proxy: &Proxy) -> String {
    let mut client = std::os::unix::net::UnixStream::connect(proxy.socket()).unwrap();
    client
        .write_all(b"GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    client.read_to_string(&mut answer).unwrap();
    answer
}

#[test]
fn past_its_connection_limit_the_proxy_answers_503_at_once_and_serves_again_once_one_closes() {
    use strata_sandbox::proxy::MAX_CONNECTIONS;
    let dir = tempfile::tempdir().unwrap();
    let proxy = proxy_for(http_server(), dir.path());
    assert!(get_through(&proxy).ends_with("arrived\n"));
    // Connections that never send a head each hold a slot.
    let held: Vec<_> = (0..MAX_CONNECTIONS)
        .map(|_| std::os::unix::net::UnixStream::connect(proxy.socket()).unwrap())
        .collect();
    let busy = get_through(&proxy);
    assert!(busy.starts_with("HTTP/1.1 503"), "{busy}");
    assert!(
        busy.contains(&format!(
            "the proxy serves at most {MAX_CONNECTIONS} at once"
        )),
        "{busy}"
    );
    assert!(
        proxy
            .refusals_since(0)
            .contains(&Refusal::Busy(MAX_CONNECTIONS))
    );
    drop(held);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let answer = get_through(&proxy);
        if answer.ends_with("arrived\n") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still refused after the held connections closed: {answer}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
