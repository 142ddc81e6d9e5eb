//! Where a request may be redirected. Credentials (`Authorization`,
//! `x-api-key`, any header Strata adds) are sent only to the configured
//! origin, so a redirect is followed only within that origin (same scheme,
//! host and port: an https to http redirect is another origin). Any other
//! redirect is not followed and the request fails, naming where it pointed.

use reqwest::Url;
use reqwest::header::HeaderMap;
use reqwest::redirect::{Attempt, Policy};
use strata_protocol::ModelError;

/// Redirects a request follows within its origin before giving up.
const MAX_SAME_ORIGIN_REDIRECTS: usize = 5;

/// The client's redirect policy: same-origin hops only, a few at most.
pub(crate) fn same_origin_only() -> Policy {
    Policy::custom(|attempt| {
        if follows(&attempt) {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

fn follows(attempt: &Attempt<'_>) -> bool {
    let previous = attempt.previous();
    previous.len() <= MAX_SAME_ORIGIN_REDIRECTS
        && previous
            .first()
            .is_some_and(|first| same_origin(first, attempt.url()))
}

fn same_origin(a: &Url, b: &Url) -> bool {
    a.origin() == b.origin() && a.origin().is_tuple()
}

/// `scheme://host:port` of `url`, for messages: no path, query or userinfo.
pub(crate) fn origin_of(url: &str) -> String {
    Url::parse(url).map_or_else(
        |_| "an unparsable address".to_string(),
        |url| url.origin().ascii_serialization(),
    )
}

/// The error for a redirect the policy did not follow, from the response's
/// `status` and `location`, sent by a request to `url`.
pub(crate) fn refused(status: u16, headers: &HeaderMap, url: &str) -> ModelError {
    let target = headers
        .get(reqwest::header::LOCATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|location| Url::parse(url).ok()?.join(location).ok());
    let message = match target {
        Some(target) if same_origin_str(url, target.as_str()) => {
            format!("HTTP {status}: more than {MAX_SAME_ORIGIN_REDIRECTS} redirects; not followed")
        }
        Some(target) => format!(
            "HTTP {status}: redirect to {} not followed; credentials go only to {}",
            target.origin().ascii_serialization(),
            origin_of(url)
        ),
        None => format!("HTTP {status}: a redirect without a usable location"),
    };
    ModelError::InvalidRequest { message }
}

fn same_origin_str(a: &str, b: &str) -> bool {
    match (Url::parse(a), Url::parse(b)) {
        (Ok(a), Ok(b)) => same_origin(&a, &b),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn origins_differ_by_scheme_host_or_port() {
        let base = url("https://api.example.com/v1/messages");
        assert!(same_origin(&base, &url("https://api.example.com/v2/x?y=1")));
        assert!(!same_origin(
            &base,
            &url("http://api.example.com/v1/messages")
        ));
        assert!(!same_origin(&base, &url("https://evil.example.com/v1")));
        assert!(!same_origin(&base, &url("https://api.example.com:8443/v1")));
    }

    #[test]
    fn a_refused_redirect_names_both_origins_and_no_path() {
        let mut headers = HeaderMap::new();
        headers.insert(
            reqwest::header::LOCATION,
            HeaderValue::from_static("http://127.0.0.1:9/steal?key=1"),
        );
        let error = refused(307, &headers, "https://api.example.com/v1/messages");
        assert_eq!(
            error,
            ModelError::InvalidRequest {
                message: "HTTP 307: redirect to http://127.0.0.1:9 not followed; \
                          credentials go only to https://api.example.com"
                    .into()
            }
        );
        assert!(!error.is_retryable());
    }
}
