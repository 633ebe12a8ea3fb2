//! How errors become exit codes.

use std::fmt;

/// Bad input: a value the user gave that cannot be used. Exit code 2.
#[derive(Debug)]
pub struct BadInput(pub String);

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// Shorthand for a bad-input error.
pub fn bad(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(BadInput(msg.into()))
}

pub fn exit_code(e: &anyhow::Error) -> u8 {
    if e.chain().any(|c| c.is::<BadInput>()) {
        return 2;
    }
    // A run the store does not have is a run number the user gave.
    if e.chain().any(|c| {
        matches!(
            c.downcast_ref::<icbench_store::StoreError>(),
            Some(icbench_store::StoreError::NoSuchRun { .. })
        )
    }) {
        return 2;
    }
    // A broken pipe on stdout (`icbench show | head`) is not a failure.
    if e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    }) {
        return 0;
    }
    1
}

/// The error and its causes on one line, each cause added only where the
/// text so far does not already say it: a store error names its SQLite
/// source in its own message, and `{e:#}` said "database or disk is full"
/// three times, the last as "Error code 13" (issue #30 item 12).
pub fn one_line(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if c.is_empty() || text.contains(&c) || c.starts_with("Error code ") {
            continue;
        }
        text.push_str(": ");
        text.push_str(&c);
    }
    text.replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Outer(std::io::Error);
    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "storing a cell failed: {}", self.0)
        }
    }
    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_cause_already_said_is_not_said_again() {
        let full = std::io::Error::other("database or disk is full");
        let e = anyhow::Error::new(Outer(full)).context("run 1");
        assert_eq!(one_line(&e), "run 1: storing a cell failed: database or disk is full");
        let e = anyhow::anyhow!("plain").context("outer");
        assert_eq!(one_line(&e), "outer: plain");
    }
}
