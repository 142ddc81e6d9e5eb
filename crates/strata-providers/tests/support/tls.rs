//! Real TLS on loopback for the test server: a throwaway CA and a
//! certificate for 127.0.0.1 it signed, made per test (the client trusts the
//! CA through `HttpClient::trusting`; verification stays on), and a server
//! answering HTTPS and plain HTTP on one port, so an https to http redirect
//! can keep the host and port and change only the scheme.

use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, SanType};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};

use super::{Reply, TestServer, serve};

/// A CA the test made and a server certificate for 127.0.0.1 it signed.
pub struct LoopbackTls {
    /// The CA certificate (DER), for the client's extra roots.
    pub root: Vec<u8>,
    acceptor: TlsAcceptor,
}

impl LoopbackTls {
    pub fn new() -> Self {
        let ca_key = KeyPair::generate().unwrap();
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, "Strata test CA");
        let ca = ca.self_signed(&ca_key).unwrap();

        let server_key = KeyPair::generate().unwrap();
        let mut server = CertificateParams::new(Vec::<String>::new()).unwrap();
        server.subject_alt_names = vec![SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST))];
        server
            .distinguished_name
            .push(DnType::CommonName, "127.0.0.1");
        let server = server.signed_by(&server_key, &ca, &ca_key).unwrap();

        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![server.der().clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(server_key.serialize_der())),
            )
            .unwrap();
        Self {
            root: ca.der().to_vec(),
            acceptor: TlsAcceptor::from(Arc::new(config)),
        }
    }
}

/// One loopback port serving `https://` and `http://` side by side, each
/// with its own replies (one per connection, in order) and its own record
/// of what it received.
pub struct SharedPort {
    pub https: TestServer,
    pub http: TestServer,
}

impl SharedPort {
    pub async fn start(tls: &LoopbackTls, https: Vec<Reply>, http: Vec<Reply>) -> Self {
        Self::start_with(tls, |_| (https, http)).await
    }

    /// Like [`Self::start`], with the replies made from the port's
    /// `http://` base URL (for a redirect to it).
    pub async fn start_with(
        tls: &LoopbackTls,
        replies: impl FnOnce(&str) -> (Vec<Reply>, Vec<Reply>),
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (https, http) = replies(&format!("http://{addr}/v1"));
        let (https_server, https_side) = side(format!("https://{addr}/v1"), https);
        let (http_server, http_side) = side(format!("http://{addr}/v1"), http);
        let acceptor = tls.acceptor.clone();
        tokio::spawn(async move {
            let (mut https_side, mut http_side) = (https_side, http_side);
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                // A TLS connection opens with a handshake record (0x16);
                // an HTTP one with its method.
                let mut first = [0u8; 1];
                let is_tls = matches!(socket.peek(&mut first).await, Ok(1) if first[0] == 0x16);
                let side = if is_tls {
                    &mut https_side
                } else {
                    &mut http_side
                };
                let Some(reply) = side.replies.pop_front() else {
                    continue;
                };
                let (log, disconnects) = (side.log.clone(), side.disconnects.clone());
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    if !is_tls {
                        serve(socket, reply, log, disconnects).await;
                    } else if let Ok(stream) = acceptor.accept(socket).await {
                        serve(stream, reply, log, disconnects).await;
                    }
                });
            }
        });
        Self {
            https: https_server,
            http: http_server,
        }
    }
}

/// What the accept loop keeps for one scheme.
struct Side {
    replies: VecDeque<Reply>,
    log: Arc<Mutex<Vec<super::Received>>>,
    disconnects: mpsc::UnboundedSender<()>,
}

fn side(base_url: String, replies: Vec<Reply>) -> (TestServer, Side) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let (disconnect_tx, disconnects) = mpsc::unbounded_channel();
    let server = TestServer {
        base_url,
        received: received.clone(),
        disconnects,
    };
    let side = Side {
        replies: replies.into(),
        log: received,
        disconnects: disconnect_tx,
    };
    (server, side)
}
