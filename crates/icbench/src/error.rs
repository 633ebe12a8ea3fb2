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
