//! The domain allow-list the network proxy judges each request by: a pure
//! decision on a host and port.
//!
//! An entry is a domain (`crates.io`), a suffix (`*.npmjs.org`: any name
//! under it, not the name itself), or an IP literal (`127.0.0.1`,
//! `[::1]`), optionally with `:PORT`. Without a port an entry allows 80 and
//! 443; with one, that port only. Names are compared in their IDNA ASCII
//! form, lower case, without a trailing dot; a name IDNA refuses is refused.

use std::net::IpAddr;

/// Ports an entry without its own port allows: HTTP and HTTPS.
pub const DEFAULT_PORTS: [u16; 2] = [80, 443];

#[derive(Clone, Debug, PartialEq, Eq)]
enum Pattern {
    Exact(String),
    /// `*.example.com`, kept as `.example.com`.
    Suffix(String),
    Ip(IpAddr),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    pattern: Pattern,
    port: Option<u16>,
}

/// The domains a session's commands may reach through the proxy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowList {
    entries: Vec<Entry>,
}

/// Why a request was refused; its `Display` is the explanation line's
/// middle, and never repeats text that is not a normalised name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The host is not on the list (in its normalised form).
    NotListed(String),
    /// The host is listed, but not with this port.
    Port(String, u16),
    /// Not a host name IDNA accepts, or not a request the proxy reads.
    Invalid,
    /// The proxy was already serving its most connections at once.
    Busy(usize),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotListed(host) => write!(f, "network to {host} is not on the allow-list"),
            Self::Port(host, port) => {
                write!(f, "network to {host} port {port} is not on the allow-list")
            }
            Self::Invalid => f.write_str("network to a name that is not a valid domain is refused"),
            Self::Busy(max) => write!(
                f,
                "a network connection was refused: the proxy serves at most {max} at once"
            ),
        }
    }
}

impl Refusal {
    /// The line the command's output gains.
    pub fn explanation(&self) -> String {
        format!("[sandbox: {self}]")
    }
}

/// The host as the list compares it: an IP literal, or an IDNA ASCII
/// name (lower case, no trailing dot); `None` when it is neither.
pub fn normalize_host(host: &str) -> Option<Host> {
    let bare = host
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .unwrap_or(host);
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Some(Host::Ip(ip));
    }
    let name = host.strip_suffix('.').unwrap_or(host);
    if name.is_empty() || name.contains(['[', ']', ':']) {
        return None;
    }
    let ascii = idna::domain_to_ascii_strict(name).ok()?;
    // An all-numeric dotted name that is not an IP literal (`127.1`) is one
    // to resolvers: refused rather than guessed.
    let numeric = ascii
        .split('.')
        .all(|label| label.bytes().all(|b| b.is_ascii_digit()));
    (!ascii.is_empty() && !numeric).then_some(Host::Name(ascii))
}

/// A host in the form the list compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Host {
    Name(String),
    Ip(IpAddr),
}

impl std::fmt::Display for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Name(name) => f.write_str(name),
            Self::Ip(IpAddr::V6(ip)) => write!(f, "[{ip}]"),
            Self::Ip(ip) => write!(f, "{ip}"),
        }
    }
}

impl AllowList {
    /// Reads `entries`; an entry that is not a domain, a `*.` suffix or an
    /// IP literal (with an optional port) is an error naming it.
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<Self, String> {
        let entries = entries
            .iter()
            .map(|entry| parse_entry(entry.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { entries })
    }

    /// Whether `host:port` may be reached; the refusal otherwise.
    pub fn check(&self, host: &str, port: u16) -> Result<Host, Refusal> {
        let host = normalize_host(host).ok_or(Refusal::Invalid)?;
        let mut listed = false;
        for entry in &self.entries {
            let matches = match (&entry.pattern, &host) {
                (Pattern::Exact(name), Host::Name(host)) => name == host,
                (Pattern::Suffix(suffix), Host::Name(host)) => host.ends_with(suffix.as_str()),
                (Pattern::Ip(ip), Host::Ip(host)) => ip == host,
                (Pattern::Exact(_) | Pattern::Suffix(_), Host::Ip(_))
                | (Pattern::Ip(_), Host::Name(_)) => false,
            };
            if !matches {
                continue;
            }
            listed = true;
            let port_ok = match entry.port {
                Some(allowed) => allowed == port,
                None => DEFAULT_PORTS.contains(&port),
            };
            if port_ok {
                return Ok(host);
            }
        }
        Err(if listed {
            Refusal::Port(host.to_string(), port)
        } else {
            Refusal::NotListed(host.to_string())
        })
    }
}

fn parse_entry(entry: &str) -> Result<Entry, String> {
    let invalid = || format!("{entry:?} is not a domain, a *.domain or an IP address");
    let trimmed = entry.trim();
    let (host, port) = split_port(trimmed).ok_or_else(invalid)?;
    let pattern = match host.strip_prefix("*.") {
        Some(suffix) => match normalize_host(suffix) {
            Some(Host::Name(name)) => Pattern::Suffix(format!(".{name}")),
            Some(Host::Ip(_)) | None => return Err(invalid()),
        },
        None => match normalize_host(host).ok_or_else(invalid)? {
            Host::Name(name) => Pattern::Exact(name),
            Host::Ip(ip) => Pattern::Ip(ip),
        },
    };
    Ok(Entry { pattern, port })
}

/// `host`, `host:PORT`, `[v6]`, `[v6]:PORT` or a bare IPv6 address.
fn split_port(entry: &str) -> Option<(&str, Option<u16>)> {
    if entry.parse::<IpAddr>().is_ok() {
        return Some((entry, None));
    }
    if let Some(rest) = entry.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        return match after.strip_prefix(':') {
            Some(port) => Some((&entry[..inside.len() + 2], Some(port.parse().ok()?))),
            None if after.is_empty() => Some((entry, None)),
            None => None,
        };
    }
    match entry.rsplit_once(':') {
        Some((host, port)) => Some((host, Some(port.parse().ok().filter(|p| *p != 0)?))),
        None => Some((entry, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(entries: &[&str]) -> AllowList {
        AllowList::parse(entries).unwrap()
    }

    #[test]
    fn exact_names_match_case_insensitively_and_without_a_trailing_dot() {
        let allow = list(&["crates.io"]);
        assert!(allow.check("crates.io", 443).is_ok());
        assert!(allow.check("CRATES.IO.", 80).is_ok());
        assert_eq!(
            allow.check("static.crates.io", 443),
            Err(Refusal::NotListed("static.crates.io".into()))
        );
        assert_eq!(
            allow.check("crates.io.evil.com", 443),
            Err(Refusal::NotListed("crates.io.evil.com".into()))
        );
    }

    #[test]
    fn a_suffix_matches_names_under_it_but_not_itself_nor_a_lookalike() {
        let allow = list(&["*.npmjs.org"]);
        assert!(allow.check("registry.npmjs.org", 443).is_ok());
        assert!(allow.check("a.b.npmjs.org", 443).is_ok());
        assert!(allow.check("npmjs.org", 443).is_err());
        assert!(allow.check("evilnpmjs.org", 443).is_err());
    }

    #[test]
    fn only_ports_80_and_443_unless_an_entry_names_its_port() {
        let allow = list(&["crates.io", "localhost:8080"]);
        assert_eq!(
            allow.check("crates.io", 22),
            Err(Refusal::Port("crates.io".into(), 22))
        );
        assert!(allow.check("localhost", 8080).is_ok());
        assert_eq!(
            allow.check("localhost", 443),
            Err(Refusal::Port("localhost".into(), 443))
        );
    }

    #[test]
    fn ip_literals_are_refused_unless_listed_themselves() {
        let allow = list(&["localhost", "10.0.0.1", "[::1]:8443"]);
        assert_eq!(
            allow.check("127.0.0.1", 80),
            Err(Refusal::NotListed("127.0.0.1".into()))
        );
        assert!(allow.check("10.0.0.1", 443).is_ok());
        assert!(allow.check("[::1]", 8443).is_ok());
        assert!(allow.check("::1", 8443).is_ok());
        // A resolver reads `127.1` as an address: refused, never guessed.
        assert_eq!(allow.check("127.1", 80), Err(Refusal::Invalid));
    }

    #[test]
    fn names_are_compared_in_their_idna_form_and_invalid_ones_are_refused() {
        let allow = list(&["bücher.example"]);
        assert!(allow.check("xn--bcher-kva.example", 443).is_ok());
        assert!(allow.check("BÜCHER.example", 443).is_ok());
        for hostile in ["exa mple.com", "a\u{1b}[31m.com", "", "a_b.com", "host:1"] {
            assert_eq!(
                allow.check(hostile, 443),
                Err(Refusal::Invalid),
                "{hostile:?}"
            );
        }
    }

    #[test]
    fn an_entry_that_is_no_domain_is_an_error_naming_it() {
        for bad in [
            "*.",
            "*",
            "a b",
            "*.10.0.0.1",
            "x.com:0",
            "x.com:http",
            "[::1",
        ] {
            let error = AllowList::parse(&[bad]).unwrap_err();
            assert!(error.contains(&format!("{bad:?}")), "{error}");
        }
    }

    #[test]
    fn a_refusal_explains_itself_in_one_line() {
        assert_eq!(
            Refusal::NotListed("example.com".into()).explanation(),
            "[sandbox: network to example.com is not on the allow-list]"
        );
    }
}
