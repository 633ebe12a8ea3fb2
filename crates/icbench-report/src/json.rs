//! JSON for scripts: the view model as it is, with its `schema_version`.

use std::io::Write;

use crate::RunView;

pub fn run(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, view)?;
    writeln!(out)
}
