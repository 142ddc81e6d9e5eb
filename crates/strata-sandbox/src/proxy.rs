//! The session's network proxy: an HTTP CONNECT and plain-HTTP proxy on a
//! UNIX socket (pathname sockets cross network namespaces; the launcher's
//! forwarder relays the sandbox's `127.0.0.1:PORT` to it) that lets through
//! only the hosts its [`AllowList`] allows and remembers every refusal.
//!
//! Blocking threads, one per connection: a session's commands open few,
//! and at most [`MAX_CONNECTIONS`] are served at once (a command opening
//! connections without end gets `503` for the rest instead of costing
//! Strata a thread each).

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::allow::{AllowList, Refusal};

/// The longest request head the proxy reads before refusing.
const MAX_HEAD: usize = 16 * 1024;
/// A client that sends no complete head in this long is dropped.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// The most connections a proxy (and a forwarder) serves at once.
pub const MAX_CONNECTIONS: usize = 64;
/// How long a refused-busy client's input is read off before closing.
const BUSY_DRAIN: Duration = Duration::from_millis(200);

/// Connections being served, up to a limit; a slot is freed when its
/// [`Slot`] is dropped (the connection's thread ended).
#[derive(Clone, Debug, Default)]
pub struct ConnectionSlots(Arc<AtomicUsize>);

/// One connection's place among [`ConnectionSlots`].
#[derive(Debug)]
pub struct Slot(Arc<AtomicUsize>);

impl ConnectionSlots {
    /// A slot, or `None` when `max` connections are being served.
    pub fn take(&self, max: usize) -> Option<Slot> {
        self.0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |used| {
                (used < max).then_some(used + 1)
            })
            .ok()
            .map(|_| Slot(Arc::clone(&self.0)))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Turns an allowed host and port into addresses; the system resolver
/// unless a test maps names itself.
pub type Resolver = Arc<dyn Fn(&str, u16) -> io::Result<Vec<SocketAddr>> + Send + Sync>;

/// A running proxy; dropping it stops accepting and removes the socket.
pub struct Proxy {
    socket: PathBuf,
    shared: Arc<Shared>,
}

struct Shared {
    allow: AllowList,
    resolver: Resolver,
    refusals: Mutex<Vec<Refusal>>,
    stopped: AtomicBool,
    slots: ConnectionSlots,
}

impl Proxy {
    /// Listens on `socket` (which must not exist) with the system resolver.
    pub fn start(socket: &Path, allow: AllowList) -> io::Result<Self> {
        let system: Resolver =
            Arc::new(|host, port| (host, port).to_socket_addrs().map(Vec::from_iter));
        Self::start_with_resolver(socket, allow, system)
    }

    /// Listens on `socket`, resolving allowed hosts with `resolver`.
    pub fn start_with_resolver(
        socket: &Path,
        allow: AllowList,
        resolver: Resolver,
    ) -> io::Result<Self> {
        let listener = UnixListener::bind(socket)?;
        let shared = Arc::new(Shared {
            allow,
            resolver,
            refusals: Mutex::new(Vec::new()),
            stopped: AtomicBool::new(false),
            slots: ConnectionSlots::default(),
        });
        let accepting = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("strata-proxy".into())
            .spawn(move || accept_loop(&listener, &accepting))?;
        Ok(Self {
            socket: socket.to_path_buf(),
            shared,
        })
    }

    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// How many refusals there have been: a mark for [`Self::refusals_since`].
    pub fn refusal_count(&self) -> usize {
        self.lock_refusals().len()
    }

    /// The refusals after `mark`, each once, in order.
    pub fn refusals_since(&self, mark: usize) -> Vec<Refusal> {
        let all = self.lock_refusals();
        let mut seen: Vec<Refusal> = Vec::new();
        for refusal in all.iter().skip(mark) {
            if !seen.contains(refusal) {
                seen.push(refusal.clone());
            }
        }
        seen
    }

    fn lock_refusals(&self) -> std::sync::MutexGuard<'_, Vec<Refusal>> {
        self.shared
            .refusals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field("socket", &self.socket)
            .finish()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the flag.
        let _ = UnixStream::connect(&self.socket);
        let _ = std::fs::remove_file(&self.socket);
    }
}

fn accept_loop(listener: &UnixListener, shared: &Arc<Shared>) {
    let busy = refuse_busy(Arc::clone(shared));
    for client in listener.incoming() {
        if shared.stopped.load(Ordering::SeqCst) {
            return;
        }
        let Ok(client) = client else { continue };
        let Some(slot) = shared.slots.take(MAX_CONNECTIONS) else {
            // Full queue: closed unanswered (dropped here).
            let _ = busy.try_send(client);
            continue;
        };
        let shared = Arc::clone(shared);
        let spawned = std::thread::Builder::new()
            .name("strata-proxy-conn".into())
            .spawn(move || {
                let _slot = slot;
                serve(client, &shared);
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "the network proxy could not serve a connection");
        }
    }
}

/// A parsed request head: where it goes and what to send on.
struct Request {
    host: String,
    port: u16,
    /// `None` for CONNECT (the client speaks once the tunnel is up);
    /// otherwise the head rewritten for the origin, and the body bytes
    /// read with it.
    forward: Option<Vec<u8>>,
}

fn serve(mut client: UnixStream, shared: &Shared) {
    let _ = client.set_read_timeout(Some(HEAD_TIMEOUT));
    let request = match read_request(&mut client) {
        Ok(request) => request,
        Err(()) => {
            refuse(&mut client, shared, Refusal::Invalid);
            return;
        }
    };
    let host = match shared.allow.check(&request.host, request.port) {
        Ok(host) => host,
        Err(refusal) => {
            refuse(&mut client, shared, refusal);
            return;
        }
    };
    let name = host.to_string();
    let name = name.trim_start_matches('[').trim_end_matches(']');
    let upstream = (shared.resolver)(name, request.port).and_then(|addrs| connect_any(&addrs));
    let mut upstream = match upstream {
        Ok(upstream) => upstream,
        Err(error) => {
            tracing::info!(%host, port = request.port, %error, "the network proxy could not reach an allowed host");
            let _ = client.write_all(
                b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
            return;
        }
    };
    let _ = client.set_read_timeout(None);
    let started = match &request.forward {
        None => client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n"),
        Some(head) => upstream.write_all(head),
    };
    if started.is_ok() {
        relay(client, upstream);
    }
}

fn connect_any(addrs: &[SocketAddr]) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address");
    for addr in addrs {
        match TcpStream::connect(addr) {
            Ok(stream) => return Ok(stream),
            Err(error) => last = error,
        }
    }
    Err(last)
}

fn refuse(client: &mut UnixStream, shared: &Shared, refusal: Refusal) {
    refuse_with(client, shared, refusal, "403 Forbidden");
}

/// Records the refusal, then answers it: in that order, so a command that
/// ends on the answer finds the refusal recorded (its output's
/// explanation line is read from the record as the command ends).
fn refuse_with(client: &mut UnixStream, shared: &Shared, refusal: Refusal, status: &str) {
    tracing::warn!(refusal = %refusal, "the network proxy refused a request");
    let body = format!("strata: {refusal}\n");
    shared
        .refusals
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(refusal);
    let _ = write!(
        client,
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// Answers connections past the limit, one at a time on one thread: the
/// 503, then what the client sent is read off (briefly) before closing, as
/// closing a UNIX socket with unread input resets it and the client would
/// see a reset instead of the answer. More waiting than its queue holds
/// are closed unanswered.
fn refuse_busy(shared: Arc<Shared>) -> std::sync::mpsc::SyncSender<UnixStream> {
    let (send, receive) = std::sync::mpsc::sync_channel::<UnixStream>(MAX_CONNECTIONS);
    let spawned = std::thread::Builder::new()
        .name("strata-proxy-busy".into())
        .spawn(move || {
            for mut client in receive {
                refuse_with(
                    &mut client,
                    &shared,
                    Refusal::Busy(MAX_CONNECTIONS),
                    "503 Service Unavailable",
                );
                let _ = client.shutdown(std::net::Shutdown::Write);
                let _ = client.set_read_timeout(Some(BUSY_DRAIN));
                let _ = io::copy(&mut (&client).take(MAX_HEAD as u64), &mut io::sink());
            }
        });
    if let Err(error) = spawned {
        tracing::warn!(%error, "the network proxy cannot answer connections past its limit");
    }
    send
}

/// Reads one request head; `Err` for anything that is not a CONNECT or an
/// absolute-form HTTP request within [`MAX_HEAD`].
fn read_request(client: &mut UnixStream) -> Result<Request, ()> {
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let n = client.read(&mut chunk).map_err(|_| ())?;
        if n == 0 {
            return Err(());
        }
        buffer.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut parsed = httparse::Request::new(&mut headers);
        match parsed.parse(&buffer) {
            Ok(httparse::Status::Complete(length)) => {
                return build_request(&parsed, &buffer[length..]);
            }
            Ok(httparse::Status::Partial) if buffer.len() < MAX_HEAD => {}
            Ok(httparse::Status::Partial) | Err(_) => return Err(()),
        }
    }
}

fn build_request(parsed: &httparse::Request<'_, '_>, rest: &[u8]) -> Result<Request, ()> {
    let (Some(method), Some(target)) = (parsed.method, parsed.path) else {
        return Err(());
    };
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = split_authority(target, None)?;
        return Ok(Request {
            host,
            port,
            forward: None,
        });
    }
    // Plain HTTP through a proxy: `GET http://host[:port]/path HTTP/1.1`.
    let rest_of_url = target
        .strip_prefix("http://")
        .or_else(|| target.strip_prefix("HTTP://"))
        .ok_or(())?;
    let (authority, path) = match rest_of_url.find(['/', '?']) {
        Some(at) => (&rest_of_url[..at], &rest_of_url[at..]),
        None => (rest_of_url, "/"),
    };
    if authority.contains('@') {
        return Err(());
    }
    let (host, port) = split_authority(authority, Some(80))?;
    let path = if path.starts_with('?') {
        format!("/{path}")
    } else {
        path.to_owned()
    };
    let mut head = format!("{method} {path} HTTP/1.1\r\n").into_bytes();
    for header in parsed.headers.iter() {
        let name = header.name.to_ascii_lowercase();
        // One request per connection, so a kept-alive connection can never
        // carry a request for another host past the check.
        if name.starts_with("proxy-") || name == "connection" || name == "keep-alive" {
            continue;
        }
        head.extend_from_slice(header.name.as_bytes());
        head.extend_from_slice(b": ");
        head.extend_from_slice(header.value);
        head.extend_from_slice(b"\r\n");
    }
    head.extend_from_slice(b"Connection: close\r\n\r\n");
    head.extend_from_slice(rest);
    Ok(Request {
        host,
        port,
        forward: Some(head),
    })
}

/// `host:port` (or `[v6]:port`); `default` when the port is left out.
fn split_authority(authority: &str, default: Option<u16>) -> Result<(String, u16), ()> {
    let (host, port) = match authority.rfind(':') {
        Some(at) if !authority[at..].contains(']') => {
            (&authority[..at], Some(&authority[at + 1..]))
        }
        _ => (authority, None),
    };
    let port = match port {
        Some(port) => port.parse::<u16>().map_err(|_| ())?,
        None => default.ok_or(())?,
    };
    if host.is_empty() || port == 0 {
        return Err(());
    }
    Ok((host.to_owned(), port))
}

/// A stream that can be split into a reading and a writing half.
pub(crate) trait Duplex: Read + Write + Send + Sized + 'static {
    fn split(&self) -> io::Result<Self>;
    fn close_write(&self);
}

impl Duplex for TcpStream {
    fn split(&self) -> io::Result<Self> {
        self.try_clone()
    }
    fn close_write(&self) {
        let _ = self.shutdown(std::net::Shutdown::Write);
    }
}

impl Duplex for UnixStream {
    fn split(&self) -> io::Result<Self> {
        self.try_clone()
    }
    fn close_write(&self) {
        let _ = self.shutdown(std::net::Shutdown::Write);
    }
}

/// Copies both ways until both sides have closed.
pub(crate) fn relay<A: Duplex, B: Duplex>(a: A, b: B) {
    let (Ok(a_back), Ok(b_back)) = (a.split(), b.split()) else {
        return;
    };
    let forth = std::thread::spawn(move || {
        let (mut from, mut to) = (a, b);
        let _ = io::copy(&mut from, &mut to);
        to.close_write();
    });
    let (mut from, mut to) = (b_back, a_back);
    let _ = io::copy(&mut from, &mut to);
    to.close_write();
    let _ = forth.join();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(head: &str) -> Result<Request, ()> {
        let mut headers = [httparse::EMPTY_HEADER; 16];
        let mut parsed = httparse::Request::new(&mut headers);
        let Ok(httparse::Status::Complete(n)) = parsed.parse(head.as_bytes()) else {
            return Err(());
        };
        build_request(&parsed, &head.as_bytes()[n..])
    }

    #[test]
    fn a_connect_names_its_host_and_port() {
        let request =
            parse("CONNECT crates.io:443 HTTP/1.1\r\nHost: crates.io:443\r\n\r\n").unwrap();
        assert_eq!((request.host.as_str(), request.port), ("crates.io", 443));
        assert!(request.forward.is_none());
        assert!(parse("CONNECT crates.io HTTP/1.1\r\n\r\n").is_err());
    }

    #[test]
    fn a_plain_request_is_rewritten_to_its_path_with_one_request_per_connection() {
        let request = parse(
            "GET http://example.com/a?b HTTP/1.1\r\nHost: example.com\r\nProxy-Authorization: x\r\nConnection: keep-alive\r\n\r\nBODY",
        )
        .unwrap();
        assert_eq!((request.host.as_str(), request.port), ("example.com", 80));
        let head = String::from_utf8(request.forward.unwrap()).unwrap();
        assert_eq!(
            head,
            "GET /a?b HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\nBODY"
        );
    }

    #[test]
    fn origin_form_credentials_in_the_url_and_other_schemes_are_not_proxied() {
        assert!(parse("GET /a HTTP/1.1\r\nHost: example.com\r\n\r\n").is_err());
        assert!(parse("GET http://user@example.com/ HTTP/1.1\r\n\r\n").is_err());
        assert!(parse("GET ftp://example.com/ HTTP/1.1\r\n\r\n").is_err());
        let v6 = parse("GET http://[::1]:8080/ HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("[::1]", 8080));
    }
}
