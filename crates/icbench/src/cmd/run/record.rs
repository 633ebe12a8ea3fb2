//! The engine's observer during a run: every finished cell is stored at
//! once, with its plan factors and plan index (so nothing measured is lost
//! and `--resume` knows where to go on), streamed as one JSON line when
//! asked (`--json-stream`), and shown on the progress bar with the last
//! cell's median.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use icbench_engine::Observer;
use icbench_model::{CellKey, CellOutcome, CellResult};
use icbench_plan::PlanCell;
use icbench_store::{RunId, Store};
use indicatif::{ProgressBar, ProgressStyle};

use super::STOP;

pub(crate) struct Recorder<'a> {
    store: &'a mut Store,
    run: RunId,
    bar: ProgressBar,
    /// The plan cells handed to the engine, in the order it reports them.
    pending: VecDeque<PlanCell>,
    /// Cells in the whole plan (for `--json-stream`'s `of`).
    total: usize,
    json_stream: bool,
    /// What the last finished cell measured, for the bar.
    last: String,
    pub error: Option<anyhow::Error>,
    pub stored: usize,
    /// Run notes the engine reported (the common-clock check of oneway).
    pub notes: Vec<String>,
    /// The plan cells stored as disturbed (the kernel's counters crossed a
    /// threshold), with their counters, to measure again
    /// ([`Recorder::to_measure_again`]).
    disturbed: Vec<(PlanCell, CellKey, icbench_model::Disturbance)>,
    /// Every measured cell's key and counters, for each link's own work.
    counters: Vec<(CellKey, icbench_model::Disturbance)>,
    /// Cells added to the plan's (disturbed blocks measured again).
    pub extra: usize,
    /// State probes taken (issue #28) and their time, ns; cells measured
    /// on one session share its probe, counted once.
    pub probes: (usize, u64),
    last_probe: Option<icbench_model::StateProbe>,
}

impl<'a> Recorder<'a> {
    /// `done`: cells already stored (a resumed run); `todo`: cells to measure.
    pub fn new(
        store: &'a mut Store,
        run: RunId,
        total: usize,
        done: usize,
        json_stream: bool,
    ) -> Recorder<'a> {
        let bar = ProgressBar::new(total as u64);
        bar.set_style(
            ProgressStyle::with_template(
                // wide_msg: the message is cut to the terminal's width, so
                // the bar stays one line at 80 columns.
                "{bar:30} {pos}/{len} cells, {elapsed} elapsed, ETA {eta}  {wide_msg}",
            )
            .expect("static template"),
        );
        bar.set_position(done as u64);
        // The ETA counts only what this invocation measures.
        bar.reset_eta();
        Recorder {
            store,
            run,
            bar,
            pending: VecDeque::new(),
            total,
            json_stream,
            last: String::new(),
            probes: (0, 0),
            last_probe: None,
            error: None,
            stored: 0,
            notes: Vec::new(),
            disturbed: Vec::new(),
            counters: Vec::new(),
            extra: 0,
        }
    }

    /// The plan cells of the next call to the engine.
    pub fn expect(&mut self, cells: &[PlanCell]) {
        self.pending = cells.iter().cloned().collect();
    }

    /// `n` more cells than the plan's are to be measured.
    pub fn add_cells(&mut self, n: usize) {
        self.extra += n;
        self.total += n;
        self.bar.inc_length(n as u64);
    }

    /// Ends the bar; returns the engine's notes and any storing error.
    pub fn finish(self) -> (Vec<String>, Option<anyhow::Error>) {
        self.bar.finish_and_clear();
        (self.notes, self.error)
    }

    fn store(&mut self, plan: &PlanCell, result: &CellResult) -> anyhow::Result<()> {
        self.insert_waiting_for_lock(plan, result)?;
        self.stored += 1;
        if self.json_stream {
            let mut out = crate::term::stdout();
            let sent = icbench_report::json::cell_line(
                self.run.0, plan.index, self.total, result, &mut out,
            )
            .and_then(|()| out.flush());
            match sent {
                Ok(()) => {}
                // The reader went away (`--json-stream | head`): the run goes
                // on, storing every cell, and says so once (issue #30 item 7:
                // it used to end there, silently, with exit 0).
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                    self.json_stream = false;
                    let note = format!(
                        "the --json-stream reader closed its end after {} of {} cells; the run \
                         went on and stored every cell (`icbench show {} --json` has them)",
                        self.stored - 1,
                        self.total,
                        self.run.0
                    );
                    crate::say::say(&note);
                    self.run_note(&note);
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }
}

/// How long a measured cell waits in memory for another process's lock on
/// the database before the run stops (on top of each attempt's own busy
/// timeout): a user once held it 8 s with a shell open on the file, and a
/// cell measured for minutes must not be lost to that (issue #15).
pub(crate) const LOCK_WAIT: Duration = Duration::from_secs(60);

impl Recorder<'_> {
    /// The disturbed plan cells worth measuring again: those disturbed
    /// beyond their link's own work (issue #28 item 4), judged on every
    /// block measured so far — the pty's own flush work is in all of its
    /// blocks, and another block would have it too.
    pub fn to_measure_again(&self) -> Vec<PlanCell> {
        let key = |k: &CellKey| format!("{}|{}", k.link, k.pattern);
        let keyed: Vec<(String, &icbench_model::Disturbance)> =
            self.counters.iter().map(|(k, d)| (key(k), d)).collect();
        let own = icbench_stats::disturbance::own_work(keyed.iter().map(|(k, d)| (k.as_str(), *d)));
        self.disturbed
            .iter()
            .filter(|(_, k, d)| {
                let o = own.get(&key(k)).copied().unwrap_or_default();
                !icbench_stats::disturbance::causes_beyond(d, o).is_empty()
            })
            .map(|(p, _, _)| p.clone())
            .collect()
    }

    /// Stores the cell, trying again while another connection holds the
    /// database's lock, for up to [`LOCK_WAIT`]; says once who holds it.
    fn insert_waiting_for_lock(
        &mut self,
        plan: &PlanCell,
        result: &CellResult,
    ) -> anyhow::Result<()> {
        let started = Instant::now();
        let mut said = false;
        loop {
            let err = match self.store.insert_plan_cell(self.run, result, Some(plan.index)) {
                Ok(_) => {
                    if said {
                        let waited = started.elapsed().as_secs_f64();
                        self.bar.suspend(|| {
                            crate::errln!("icbench: stored after waiting {waited:.0} s")
                        });
                    }
                    return Ok(());
                }
                Err(e) if e.is_locked() => e,
                Err(e) => return Err(e.into()),
            };
            let db = std::path::PathBuf::from(self.store.path());
            let holders: Vec<String> = crate::claim::db_writers(&db)
                .into_iter()
                .map(|(pid, comm)| format!("process {pid} ({comm})"))
                .collect();
            let who =
                if holders.is_empty() { "another process".to_string() } else { holders.join(", ") };
            if started.elapsed() >= LOCK_WAIT {
                let k = &result.key;
                anyhow::bail!(
                    "{} stayed locked by {who} for {} s; the run stops here: the cell just \
                     measured ({} {} {}) is not stored, every earlier one is; free the lock and \
                     `icbench run --resume {}` goes on ({err})",
                    db.display(),
                    LOCK_WAIT.as_secs(),
                    k.link,
                    k.pattern,
                    icbench_report::format::bytes(k.size_bytes),
                    self.run
                );
            }
            if !said {
                said = true;
                self.bar.suspend(|| {
                    crate::errln!(
                        "icbench: {} is locked by {who}; the cell is kept in memory and stored \
                         once the lock is free (waiting up to {} s)",
                        db.display(),
                        LOCK_WAIT.as_secs()
                    )
                });
            }
            // Each attempt already waited the store's busy timeout; a short
            // pause keeps a lock that fails at once from spinning.
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// A few words on what a cell measured: its median, or its throughput.
fn last_of(result: &CellResult) -> String {
    let k = &result.key;
    let what = match &result.outcome {
        CellOutcome::Measured(d) => {
            match d.latency.as_ref().and_then(icbench_stats::Summary::from_histogram) {
                Some(s) => format!("p50 {}", icbench_report::format::ns(s.p50)),
                None => icbench_report::format::rate(d.bytes_per_s(), "B/s"),
            }
        }
        CellOutcome::Failed { .. } => "failed".to_string(),
        CellOutcome::NotApplicable { .. } => "n/a".to_string(),
    };
    format!("last: {} {} {} {what}", k.link, k.pattern, icbench_report::format::bytes(k.size_bytes))
}

impl Observer for Recorder<'_> {
    fn run_note(&mut self, note: &str) {
        // Stored at once too, so a run killed later keeps it. No dedup: the
        // engine checks (and notes) each CPU pair's clock once a run.
        if let Err(e) = self.store.add_run_note(self.run, note) {
            self.error.get_or_insert(e.into());
        }
        self.notes.push(note.to_string());
    }

    fn cell_started(&mut self, key: &CellKey) {
        let extra: Vec<String> = self
            .pending
            .front()
            .map(|p| p.factors.iter().map(|(k, v)| format!("{k}={v}")).collect())
            .unwrap_or_default();
        self.bar.set_message(format!(
            "{} {} {} {}  ({})",
            key.link,
            key.pattern,
            icbench_report::format::bytes(key.size_bytes),
            extra.join(" "),
            self.last
        ));
    }

    fn cell_finished(&mut self, result: &CellResult) {
        self.bar.inc(1);
        self.last = last_of(result);
        let Some(plan) = self.pending.pop_front() else {
            self.error = Some(anyhow::anyhow!("the engine reported more cells than it was given"));
            STOP.store(true, Ordering::SeqCst);
            return;
        };
        if self.error.is_some() {
            return;
        }
        let mut result = result.clone();
        result.key.factors.extend(plan.factors.iter().map(|(k, v)| (k.clone(), v.clone())));
        if let Err(e) = self.store(&plan, &result) {
            self.error = Some(e);
            STOP.store(true, Ordering::SeqCst);
            return;
        }
        if let CellOutcome::Measured(d) = &result.outcome
            && let Some(p) = d.state
            && self.last_probe != Some(p)
        {
            self.last_probe = Some(p);
            self.probes = (self.probes.0 + 1, self.probes.1.saturating_add(p.cost_ns));
        }
        if let CellOutcome::Measured(d) = &result.outcome
            && let Some(x) = d.disturbance
        {
            self.counters.push((result.key.clone(), x));
            if !icbench_stats::disturbance::causes(&x).is_empty() {
                self.disturbed.push((plan, result.key.clone(), x));
            }
        }
    }
}
