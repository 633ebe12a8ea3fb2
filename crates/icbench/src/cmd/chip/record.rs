//! What `icbench chip` does with each cell as the engine finishes it: the
//! cell is stored at once, so that a chip run killed or cut off at its
//! N-th cell keeps the N − 1 before it, as `icbench run` does (before, the
//! cells were stored after the last one: a `kill -9` lost them all); and
//! how far the run is goes to stderr when stderr is a terminal (piped, a
//! log got one line of carriage returns).

use std::io::IsTerminal;
use std::sync::atomic::Ordering;

use icbench_engine::Observer;
use icbench_model::{CellKey, CellResult};
use icbench_store::{RunId, Store};

use crate::cmd::run::STOP;

/// Stores each finished cell, keeps the engine's notes, and says how far
/// the run is.
pub(super) struct Recorder<'s> {
    store: &'s mut Store,
    run: RunId,
    /// Every finished cell, stored or not.
    pub cells: Vec<CellResult>,
    total: usize,
    /// The engine's notes for the run.
    pub notes: Vec<String>,
    /// Whether progress is drawn (stderr is a terminal).
    progress: bool,
    /// Why a cell could not be stored; measuring stops at the first.
    pub error: Option<anyhow::Error>,
}

impl<'s> Recorder<'s> {
    pub fn new(store: &'s mut Store, run: RunId, total: usize) -> Recorder<'s> {
        let progress = std::io::stderr().is_terminal();
        Recorder { store, run, cells: Vec::new(), total, notes: Vec::new(), progress, error: None }
    }

    /// Ends the progress line, if one was drawn.
    pub fn end(&self) {
        if self.progress {
            crate::errln!("");
        }
    }
}

impl Observer for Recorder<'_> {
    fn cell_started(&mut self, key: &CellKey) {
        if !self.progress {
            return;
        }
        let f = |n: &str| key.factor(n).unwrap_or("").to_string();
        crate::errout!(
            "\ricbench: cell {}/{}: {} {} B {} {} {}   ",
            self.cells.len() + 1,
            self.total,
            key.pattern,
            key.size_bytes,
            f("direction"),
            f("region"),
            f("notify")
        );
    }

    fn cell_finished(&mut self, r: &CellResult) {
        if self.error.is_none()
            && let Err(e) = self.store.insert_cell(self.run, r)
        {
            self.error = Some(e.into());
            // The engine stops after this cell, as on Ctrl-C.
            STOP.store(true, Ordering::SeqCst);
        }
        self.cells.push(r.clone());
    }

    fn run_note(&mut self, note: &str) {
        self.notes.push(note.to_string());
    }
}
