//! Link spec strings: `kind[:path][?key=value&key=value]`, e.g. `pipe`,
//! `shm?wait=futex&copy=zero`, `tty:/dev/ttyRPMSG0`.
//!
//! Parsing checks the kind and the parameter names and values against what
//! each kind accepts, so a typo is caught before anything is measured, with a
//! message that lists what is allowed.

use std::collections::BTreeMap;
use std::fmt;

/// A kind of link, the parameters it accepts, and a line for `--help`.
#[derive(Debug)]
pub struct KindInfo {
    pub name: &'static str,
    /// Accepted parameters: (name, allowed values or "" for a number, help).
    pub params: &'static [(&'static str, &'static [&'static str], &'static str)],
    pub help: &'static str,
    /// Part of the default `icbench run`.
    pub default: bool,
    /// Takes a device path (`kind:PATH`) and must be given one.
    pub path: bool,
}

/// Every link kind this build knows.
pub const KINDS: &[KindInfo] = &[
    KindInfo {
        name: "shm",
        params: &[
            ("wait", &["spin", "yield", "futex"], "how an empty or full ring is waited on"),
            ("copy", &["copy", "zero"], "zero: the sender builds the message in the ring"),
            ("slots", &[], "messages the ring holds per direction (power of two)"),
        ],
        help: "SPSC ring in shared memory between the two processes",
        default: true,
        path: false,
    },
    KindInfo {
        name: "pipe",
        params: &[],
        help: "two pipes, one per direction",
        default: true,
        path: false,
    },
    KindInfo {
        name: "unix",
        params: &[],
        help: "unix stream socket pair",
        default: true,
        path: false,
    },
    KindInfo {
        name: "seqpacket",
        params: &[],
        help: "unix SOCK_SEQPACKET pair (message boundaries)",
        default: true,
        path: false,
    },
    KindInfo {
        name: "mq",
        params: &[],
        help: "two POSIX message queues",
        default: true,
        path: false,
    },
    KindInfo {
        name: "tcp",
        params: &[],
        help: "TCP over loopback, TCP_NODELAY",
        default: true,
        path: false,
    },
    KindInfo {
        name: "netlink",
        params: &[],
        help: "NETLINK_USERSOCK unicast between two sockets",
        default: true,
        path: false,
    },
    KindInfo {
        name: "netlink-bridge",
        params: &[],
        help: "generic netlink family icbench_bridge, bridged by kernel/netlink_bridge to a \
               remote's rpmsg channel (scripts/vm-rig); the peer is the remote \
               (needs --protocol icb|dimtass|raw)",
        default: false,
        path: false,
    },
    KindInfo {
        name: "pty",
        params: &[],
        help: "pseudo-terminal pair in raw mode (stand-in for /dev/ttyRPMSGn)",
        default: true,
        path: false,
    },
    KindInfo {
        name: "tty",
        params: &[],
        help: "a terminal device in raw mode (/dev/ttyRPMSGn, a pty); the peer is \
               whatever answers there (needs --protocol icb|dimtass|raw)",
        default: false,
        path: true,
    },
    KindInfo {
        name: "serial",
        params: &[("baud", &[], "line speed, e.g. 115200 (default: leave it as it is)")],
        help: "a UART to an MCU board, raw 8N1; the peer is its firmware \
               (needs --protocol icb|dimtass|raw)",
        default: false,
        path: true,
    },
];

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("unknown link '{kind}': use one of {}", kind_list())]
    UnknownKind { kind: String },
    #[error("link '{kind}' has no parameter '{param}'{}", allowed_params(kind))]
    UnknownParam { kind: String, param: String },
    #[error("link '{kind}': {param}={value} is not allowed: {allowed}")]
    BadValue { kind: String, param: String, value: String, allowed: String },
    #[error("link spec '{0}' is malformed: write kind[:path][?key=value&…]")]
    Malformed(String),
    #[error("link '{kind}' takes no path")]
    UnexpectedPath { kind: String },
    #[error("link '{kind}' needs a device path: write {kind}:/dev/…")]
    MissingPath { kind: String },
}

fn kind_list() -> String {
    KINDS.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
}

fn allowed_params(kind: &str) -> String {
    match KINDS.iter().find(|k| k.name == kind) {
        Some(k) if !k.params.is_empty() => {
            let names: Vec<_> = k.params.iter().map(|p| p.0).collect();
            format!(": it takes {}", names.join(", "))
        }
        _ => ": it takes none".to_string(),
    }
}

/// A parsed, validated link spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkSpec {
    pub kind: String,
    pub path: Option<String>,
    pub params: BTreeMap<String, String>,
}

impl LinkSpec {
    pub fn parse(s: &str) -> Result<LinkSpec, SpecError> {
        let (head, query) = match s.split_once('?') {
            Some((h, q)) => (h, Some(q)),
            None => (s, None),
        };
        let (kind, path) = match head.split_once(':') {
            Some((k, p)) => (k, Some(p.to_string())),
            None => (head, None),
        };
        if kind.is_empty() {
            return Err(SpecError::Malformed(s.to_string()));
        }
        let info = KINDS
            .iter()
            .find(|k| k.name == kind)
            .ok_or_else(|| SpecError::UnknownKind { kind: kind.to_string() })?;
        match (&path, info.path) {
            (Some(_), false) => return Err(SpecError::UnexpectedPath { kind: kind.to_string() }),
            (None, true) => return Err(SpecError::MissingPath { kind: kind.to_string() }),
            (Some(p), true) if p.is_empty() => {
                return Err(SpecError::MissingPath { kind: kind.to_string() });
            }
            _ => {}
        }
        let mut params = BTreeMap::new();
        for kv in query.into_iter().flat_map(|q| q.split('&')).filter(|kv| !kv.is_empty()) {
            let (k, v) = kv.split_once('=').ok_or_else(|| SpecError::Malformed(s.to_string()))?;
            let (_, allowed, _) = info.params.iter().find(|p| p.0 == k).ok_or_else(|| {
                SpecError::UnknownParam { kind: kind.to_string(), param: k.to_string() }
            })?;
            let ok = if allowed.is_empty() {
                v.parse::<u64>().is_ok_and(|n| n > 0)
            } else {
                allowed.contains(&v)
            };
            if !ok {
                let allowed = if allowed.is_empty() {
                    "a positive whole number".to_string()
                } else {
                    format!("use {}", allowed.join(" or "))
                };
                return Err(SpecError::BadValue {
                    kind: kind.to_string(),
                    param: k.to_string(),
                    value: v.to_string(),
                    allowed,
                });
            }
            params.insert(k.to_string(), v.to_string());
        }
        Ok(LinkSpec { kind: kind.to_string(), path, params })
    }

    pub fn param(&self, key: &str) -> Option<&str> {
        self.params.get(key).map(String::as_str)
    }

    /// Whether the link ends at a device whose peer is not ours to start
    /// (`tty:`, `serial:`, `netlink-bridge`): the firmware on the other side.
    pub fn is_remote(&self) -> bool {
        // The netlink bridge has no device path (its address is a generic
        // netlink family) but its peer is the remote behind it all the same.
        KINDS.iter().any(|k| k.name == self.kind && k.path) || self.kind == "netlink-bridge"
    }

    /// The specs `icbench run` measures when no `--link` is given.
    pub fn defaults() -> Vec<LinkSpec> {
        let mut v: Vec<LinkSpec> = KINDS
            .iter()
            .filter(|k| k.default)
            .map(|k| LinkSpec::parse(k.name).expect("built-in kinds parse"))
            .collect();
        // The futex ring is the one a real application would use; spin is the
        // floor-chasing one. Measure both.
        v.insert(1, LinkSpec::parse("shm?wait=futex").expect("built-in spec parses"));
        v
    }
}

impl fmt::Display for LinkSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind)?;
        if let Some(p) = &self.path {
            write!(f, ":{p}")?;
        }
        for (i, (k, v)) in self.params.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { '?' } else { '&' })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kind_and_params_and_prints_them_back() {
        let s = LinkSpec::parse("shm?wait=futex&copy=zero").unwrap();
        assert_eq!(s.kind, "shm");
        assert_eq!(s.param("wait"), Some("futex"));
        assert_eq!(s.to_string(), "shm?copy=zero&wait=futex");
        assert_eq!(LinkSpec::parse("pipe").unwrap().to_string(), "pipe");
    }

    #[test]
    fn unknown_kind_lists_the_kinds() {
        let e = LinkSpec::parse("carrier-pigeon").unwrap_err().to_string();
        assert!(e.contains("unknown link 'carrier-pigeon'"), "{e}");
        assert!(e.contains("shm, pipe, unix"), "{e}");
    }

    #[test]
    fn bad_params_are_named() {
        let e = LinkSpec::parse("shm?wait=sleep").unwrap_err().to_string();
        assert_eq!(e, "link 'shm': wait=sleep is not allowed: use spin or yield or futex");
        let e = LinkSpec::parse("pipe?wait=spin").unwrap_err().to_string();
        assert_eq!(e, "link 'pipe' has no parameter 'wait': it takes none");
        let e = LinkSpec::parse("shm?slots=0").unwrap_err().to_string();
        assert!(e.contains("a positive whole number"), "{e}");
        assert!(matches!(LinkSpec::parse("shm?wait"), Err(SpecError::Malformed(_))));
        assert!(matches!(LinkSpec::parse(""), Err(SpecError::Malformed(_))));
        assert!(matches!(LinkSpec::parse("pipe:/x"), Err(SpecError::UnexpectedPath { .. })));
        assert!(matches!(LinkSpec::parse("tty"), Err(SpecError::MissingPath { .. })));
        assert!(matches!(LinkSpec::parse("serial:"), Err(SpecError::MissingPath { .. })));
        let e = LinkSpec::parse("serial:/dev/ttyUSB0?baud=fast").unwrap_err().to_string();
        assert!(e.contains("a positive whole number"), "{e}");
    }

    #[test]
    fn remote_links_keep_their_path() {
        let s = LinkSpec::parse("serial:/dev/ttyUSB0?baud=115200").unwrap();
        assert_eq!((s.path.as_deref(), s.param("baud")), (Some("/dev/ttyUSB0"), Some("115200")));
        assert_eq!(s.to_string(), "serial:/dev/ttyUSB0?baud=115200");
        assert_eq!(LinkSpec::parse("tty:/dev/pts/3").unwrap().to_string(), "tty:/dev/pts/3");
    }

    #[test]
    fn defaults_cover_every_default_kind() {
        let d = LinkSpec::defaults();
        for k in KINDS.iter().filter(|k| k.default) {
            assert!(d.iter().any(|s| s.kind == k.name), "{} missing", k.name);
        }
        assert!(d.iter().any(|s| s.param("wait") == Some("futex")));
    }
}
