//! With the network off a command reaches nothing, not even a server on
//! this machine's loopback; with it on, it does.

#![allow(clippy::unwrap_used)]

mod common;

use std::io::Read;
use std::net::{TcpListener, UdpSocket};
use std::time::Duration;

use common::{Sandbox, has_program, supported};
use strata_sandbox::SandboxMode;

const NETWORK_RULE: &str = "[sandbox: network is off for this session]";

/// Whether a TCP client the sandboxed command starts reaches a listener
/// this test holds.
fn tcp_reaches_local_listener(network: bool) -> (bool, Vec<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite).with_network(network);
    let ran = sandbox.run(&format!("bash -c 'echo hello > /dev/tcp/127.0.0.1/{port}'"));
    let reached = match listener.accept() {
        Ok((mut stream, _)) => {
            stream.set_nonblocking(false).unwrap();
            let mut text = String::new();
            let _ = stream.read_to_string(&mut text);
            text == "hello\n"
        }
        Err(_) => false,
    };
    (reached, ran.explained(&sandbox))
}

#[test]
fn connecting_to_a_local_tcp_listener_is_refused_with_network_off_and_works_with_it_on() {
    let test =
        "connecting_to_a_local_tcp_listener_is_refused_with_network_off_and_works_with_it_on";
    if !supported(test, true) || !has_program(test, "bash") {
        return;
    }
    let (reached, explained) = tcp_reaches_local_listener(false);
    assert!(
        !reached,
        "the sandbox reached the listener with the network off"
    );
    assert_eq!(explained, vec![NETWORK_RULE.to_owned()]);
    let (reached, explained) = tcp_reaches_local_listener(true);
    assert!(
        reached,
        "the sandbox could not reach the listener with the network on"
    );
    assert!(explained.is_empty());
}

/// Whether a datagram (what a name lookup sends to its resolver) from the
/// sandboxed command reaches a socket this test holds.
fn udp_reaches_local_resolver(network: bool) -> (bool, Vec<String>) {
    let resolver = UdpSocket::bind("127.0.0.1:0").unwrap();
    resolver
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let port = resolver.local_addr().unwrap().port();
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite).with_network(network);
    let ran = sandbox.run(&format!("bash -c 'echo query > /dev/udp/127.0.0.1/{port}'"));
    let mut buffer = [0u8; 64];
    let reached = resolver
        .recv(&mut buffer)
        .is_ok_and(|n| &buffer[..n] == b"query\n");
    (reached, ran.explained(&sandbox))
}

#[test]
fn a_name_lookup_datagram_is_refused_with_network_off_and_arrives_with_it_on() {
    let test = "a_name_lookup_datagram_is_refused_with_network_off_and_arrives_with_it_on";
    if !supported(test, true) || !has_program(test, "bash") {
        return;
    }
    let (reached, explained) = udp_reaches_local_resolver(false);
    assert!(!reached, "a datagram left the sandbox with the network off");
    assert_eq!(explained, vec![NETWORK_RULE.to_owned()]);
    let (reached, _) = udp_reaches_local_resolver(true);
    assert!(reached, "no datagram arrived with the network on");
}

#[test]
fn resolving_a_name_through_the_resolver_fails_with_network_off() {
    let test = "resolving_a_name_through_the_resolver_fails_with_network_off";
    if !supported(test, true) || !has_program(test, "getent") {
        return;
    }
    // Not in /etc/hosts, so only a resolver could answer.
    let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite);
    let ran = sandbox.run("getent ahosts strata-sandbox-check.example.com");
    assert_ne!(ran.code, Some(0), "{}", ran.output);
    assert!(ran.output.is_empty(), "{}", ran.output);
}
