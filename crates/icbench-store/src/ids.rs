//! Identifiers the store hands out, and where a run came from.

use std::fmt;
use std::str::FromStr;

/// A run's id in the results database: a positive integer, shown to users
/// (`icbench show 3`) and never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RunId(pub i64);

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A string that is not a run id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a run id: expected a positive integer such as 3 (`icbench runs` lists them)")]
pub struct ParseRunIdError(pub String);

impl FromStr for RunId {
    type Err = ParseRunIdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        // Digits only: i64::from_str would also take "+3".
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ParseRunIdError(s.to_string()));
        }
        match t.parse::<i64>() {
            Ok(n) if n > 0 => Ok(RunId(n)),
            _ => Err(ParseRunIdError(s.to_string())),
        }
    }
}

/// A cell's id in the results database (unique across runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CellId(pub i64);

impl fmt::Display for CellId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Where a run's data came from: measured by icbench, or imported from
/// another tool's log (seed logs, xmit-p, cyclictest …).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RunSource {
    Measured,
    /// Imported; the string names the format (e.g. `dimtass`).
    Imported(String),
}

impl fmt::Display for RunSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunSource::Measured => f.write_str("measured"),
            RunSource::Imported(format) => write!(f, "imported:{format}"),
        }
    }
}

/// A string that is not a run source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a run source: expected 'measured' or 'imported:<format>'")]
pub struct ParseRunSourceError(pub String);

impl FromStr for RunSource {
    type Err = ParseRunSourceError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "measured" {
            return Ok(RunSource::Measured);
        }
        match s.strip_prefix("imported:") {
            Some(format) if !format.is_empty() => Ok(RunSource::Imported(format.to_string())),
            _ => Err(ParseRunSourceError(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_id_parses_positive_integers_only() {
        assert_eq!("3".parse::<RunId>(), Ok(RunId(3)));
        assert_eq!(" 42 ".parse::<RunId>(), Ok(RunId(42)));
        for bad in ["", "0", "-1", "+3", "x", "3.0", "99999999999999999999"] {
            let err = bad.parse::<RunId>().unwrap_err();
            assert!(err.to_string().contains("icbench runs"), "{err}");
        }
        assert_eq!(RunId(17).to_string().parse::<RunId>(), Ok(RunId(17)));
    }

    #[test]
    fn run_source_round_trips_through_text() {
        for s in [RunSource::Measured, RunSource::Imported("dimtass".into())] {
            assert_eq!(s.to_string().parse::<RunSource>(), Ok(s));
        }
        assert!("imported:".parse::<RunSource>().is_err());
        assert!("guessed".parse::<RunSource>().is_err());
    }
}
