//! The HTTP client every provider shares (its transport settings) and one
//! request prepared to be sent as many times as the retry policy allows.

use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use strata_protocol::ModelError;

use crate::error::ProviderError;
use crate::limits::ByteLimits;
use crate::render::Endpoint;
use crate::retry::RetryPolicy;
use crate::secret::ApiKey;

/// Transport settings shared by all HTTP providers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpOptions {
    pub retry: RetryPolicy,
    /// An attempt fails when no event arrives for this long, waiting for the
    /// response headers included. Only events count: keep-alive comments do
    /// not reset it. Reasoning models can think quietly for minutes, so the
    /// default is generous.
    pub idle_timeout: Duration,
    /// How long a non-streaming request may take to answer: such a response
    /// sends nothing until the whole answer is written.
    pub response_timeout: Duration,
    pub connect_timeout: Duration,
    /// The longest one model response may take, from its first request to
    /// its last event, every retry and wait included. A stream that keeps
    /// sending (endless text, a trickle of events) ends here.
    pub response_deadline: Duration,
    pub limits: ByteLimits,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            retry: RetryPolicy::default(),
            idle_timeout: Duration::from_secs(300),
            response_timeout: Duration::from_secs(600),
            connect_timeout: Duration::from_secs(15),
            response_deadline: Duration::from_secs(1800),
            limits: ByteLimits::default(),
        }
    }
}

/// A reqwest client (rustls, no system OpenSSL) plus the transport settings.
/// Cheap to clone; clones share connections.
#[derive(Clone, Debug)]
pub struct HttpClient {
    pub(crate) client: reqwest::Client,
    pub(crate) options: HttpOptions,
}

impl HttpClient {
    pub fn new(options: HttpOptions) -> Result<Self, ProviderError> {
        Self::trusting(options, &[])
    }

    /// Like [`Self::new`], also trusting `extra_roots` (DER certificates)
    /// beside the system's and the bundled roots. Certificates are still
    /// verified; this lets tests serve real TLS on loopback with a
    /// certificate they made. Nothing in the config reaches it.
    pub fn trusting(options: HttpOptions, extra_roots: &[Vec<u8>]) -> Result<Self, ProviderError> {
        let settings_error = |error: reqwest::Error| ProviderError::InvalidArgument {
            what: "HTTP client settings",
            message: error.to_string(),
        };
        let mut builder = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .user_agent(concat!("strata/", env!("CARGO_PKG_VERSION")))
            .redirect(crate::redirect::same_origin_only());
        for der in extra_roots {
            builder = builder
                .add_root_certificate(reqwest::Certificate::from_der(der).map_err(settings_error)?);
        }
        let client = builder.build().map_err(settings_error)?;
        Ok(Self { client, options })
    }

    pub fn options(&self) -> &HttpOptions {
        &self.options
    }
}

/// One POST, ready to be sent as many times as the retry policy allows.
#[derive(Clone)]
pub(crate) struct PreparedRequest {
    pub method: reqwest::Method,
    pub url: String,
    pub headers: HeaderMap,
    pub body: Bytes,
    /// Only for scrubbing provider messages; the header already holds it.
    pub key: Option<ApiKey>,
}

impl PreparedRequest {
    /// A JSON POST of `body` to `path` under `endpoint`. The endpoint's key
    /// is kept for scrubbing; [`Self::bearer_auth`] or [`Self::key_header`]
    /// sends it.
    pub fn post(
        endpoint: &Endpoint,
        path: &str,
        body: &impl serde::Serialize,
    ) -> Result<Self, ModelError> {
        let body = serde_json::to_vec(body).map_err(|error| ModelError::InvalidRequest {
            message: format!("the request could not be encoded ({error})"),
        })?;
        let mut headers = HeaderMap::new();
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        Ok(Self {
            method: reqwest::Method::POST,
            url: endpoint.url(path),
            headers,
            body: Bytes::from(body),
            key: endpoint.key().cloned(),
        })
    }

    /// A GET of `path` under `endpoint` (a model list), with no body.
    pub fn get(endpoint: &Endpoint, path: &str) -> Self {
        Self {
            method: reqwest::Method::GET,
            url: endpoint.url(path),
            headers: HeaderMap::new(),
            body: Bytes::new(),
            key: endpoint.key().cloned(),
        }
    }

    /// Sends the key, when there is one, as `Authorization: Bearer <key>`.
    pub fn bearer_auth(self) -> Result<Self, ModelError> {
        match self.key.clone() {
            Some(key) => self.header("authorization", &format!("Bearer {}", key.expose())),
            None => Ok(self),
        }
    }

    /// Sends the key, when there is one, as the value of header `name`.
    pub fn key_header(self, name: &'static str) -> Result<Self, ModelError> {
        match self.key.clone() {
            Some(key) => self.header(name, key.expose()),
            None => Ok(self),
        }
    }

    /// Adds a header; a value that is not a valid header (say, a key with a
    /// newline pasted in) is an invalid request, reported without the value.
    pub fn header(mut self, name: &'static str, value: &str) -> Result<Self, ModelError> {
        let mut value = HeaderValue::from_str(value).map_err(|_| ModelError::InvalidRequest {
            message: format!("the {name} header value has characters a header cannot hold"),
        })?;
        if name.eq_ignore_ascii_case("authorization") || name.eq_ignore_ascii_case("x-api-key") {
            value.set_sensitive(true);
        }
        self.headers.insert(HeaderName::from_static(name), value);
        Ok(self)
    }
}

impl std::fmt::Debug for PreparedRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedRequest")
            .field("url", &self.url)
            .field("body_bytes", &self.body.len())
            .finish_non_exhaustive()
    }
}
