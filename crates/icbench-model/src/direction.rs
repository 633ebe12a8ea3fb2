//! Which way a one-way cell's messages travel: host → peer or peer → host.
//!
//! The 002 paper (shared/references) reports Cortex-M7 → M4 and M4 → M7
//! separately because the two directions differ (caches, which core polls,
//! which memory is local); a one-way cell therefore measures one direction
//! only and records it as the cell's `direction` factor (issue 7).

use serde::{Deserialize, Serialize};

/// The direction of a one-way cell, as recorded in `CellKey::factors`
/// under [`Direction::FACTOR`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Direction {
    /// Host end sends, peer receives (`h2p`).
    #[serde(rename = "h2p")]
    H2P,
    /// Peer sends, host end receives (`p2h`).
    #[serde(rename = "p2h")]
    P2H,
}

impl Direction {
    /// Both directions, host → peer first.
    pub const BOTH: [Direction; 2] = [Direction::H2P, Direction::P2H];

    /// The factor name a cell's direction is recorded under.
    pub const FACTOR: &'static str = "direction";

    pub fn as_str(self) -> &'static str {
        match self {
            Direction::H2P => "h2p",
            Direction::P2H => "p2h",
        }
    }

    /// In words, for table headings: `host → peer`.
    pub fn describe(self) -> &'static str {
        match self {
            Direction::H2P => "host → peer",
            Direction::P2H => "peer → host",
        }
    }
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown direction '{0}': use h2p (host-to-peer) or p2h (peer-to-host)")]
pub struct DirectionParseError(pub String);

impl std::str::FromStr for Direction {
    type Err = DirectionParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "h2p" | "host-to-peer" => Ok(Direction::H2P),
            "p2h" | "peer-to-host" => Ok(Direction::P2H),
            other => Err(DirectionParseError(other.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_long_forms_parse() {
        for d in Direction::BOTH {
            assert_eq!(d.as_str().parse::<Direction>(), Ok(d));
            assert_eq!(d.to_string(), d.as_str());
        }
        assert_eq!("host-to-peer".parse::<Direction>(), Ok(Direction::H2P));
        assert_eq!("peer-to-host".parse::<Direction>(), Ok(Direction::P2H));
        let e = "both".parse::<Direction>().unwrap_err();
        assert!(e.to_string().contains("'both'") && e.to_string().contains("h2p"));
        assert_eq!(serde_json::to_string(&Direction::P2H).unwrap(), "\"p2h\"");
    }

    #[test]
    fn the_oneway_pattern_is_named_and_stored_as_oneway() {
        use crate::Pattern;
        assert_eq!("oneway".parse::<Pattern>(), Ok(Pattern::OneWay));
        assert_eq!(Pattern::OneWay.as_str(), "oneway");
        assert_eq!(Pattern::OneWay.metric(), "oneway");
        assert_eq!(serde_json::to_string(&Pattern::OneWay).unwrap(), "\"oneway\"");
        assert!(!Pattern::ALL.contains(&Pattern::OneWay));
    }
}
