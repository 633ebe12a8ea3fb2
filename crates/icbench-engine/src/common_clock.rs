//! The common-clock check before oneway cells, once per CPU pair per run.
//!
//! A one-way time is the difference of two clock reads on two CPUs, so
//! before the first oneway cell on a pair of CPUs the engine checks that the
//! clock never goes backwards between them (`rt::clockcheck`: 10 000
//! hand-overs each way, a few ms) and says so in the run's notes. The check
//! involves the two CPUs, not the link, and bounces readings both ways, so
//! its outcome holds for the pair in either order for the life of a run.
//! [`ClockChecks`] keeps it: the caller owns one for the run and hands the
//! same value to every [`crate::run_link`], so a plan in random order —
//! which calls the engine once per group of cells, many times per pair —
//! checks each pair once and notes it once. State lives with the caller,
//! never in a static: two runs in one process check afresh.

use std::collections::HashMap;

use crate::{EngineConfig, Observer, rt};

/// Rounds of the common-clock check (`rt::clockcheck`): a few ms on a
/// machine whose CPUs answer at once.
const CLOCK_CHECK_ROUNDS: u64 = 10_000;

/// The outcome of the common-clock check per CPU pair, for one run. `Err`:
/// why oneway cells on that pair cannot be trusted.
#[derive(Debug, Default)]
pub struct ClockChecks {
    by_pair: HashMap<(u32, u32), Result<(), String>>,
}

impl ClockChecks {
    pub fn new() -> ClockChecks {
        ClockChecks::default()
    }

    /// CPU pairs checked so far (a pair in either order counts once).
    pub fn pairs_checked(&self) -> usize {
        self.by_pair.len()
    }

    /// The check for `cfg`'s CPU pair: run (and noted to `obs`) the first
    /// time the pair is met, the kept outcome after that.
    pub(crate) fn check(
        &mut self,
        cfg: &EngineConfig,
        obs: &mut dyn Observer,
    ) -> Result<(), String> {
        self.get_or_check(cfg.host_cpu, cfg.peer_cpu, || check_clock(cfg, obs))
    }

    /// The kept outcome for CPUs `a` and `b` (in either order), or
    /// `check()`'s, kept.
    fn get_or_check(
        &mut self,
        a: u32,
        b: u32,
        check: impl FnOnce() -> Result<(), String>,
    ) -> Result<(), String> {
        self.by_pair.entry((a.min(b), a.max(b))).or_insert_with(check).clone()
    }
}

/// Checks that host and peer CPU read one clock, and says so in the run's
/// notes. `Err`: why oneway cells between them cannot be trusted.
fn check_clock(cfg: &EngineConfig, obs: &mut dyn Observer) -> Result<(), String> {
    let (a, b) = (cfg.host_cpu, cfg.peer_cpu);
    let check = rt::clockcheck::check_common_clock(a, b, CLOCK_CHECK_ROUNDS, cfg.timeout);
    let (note, result) = match check {
        Ok(_) if a == b => {
            (format!("oneway: host and peer on CPU {a}, one clock by construction"), Ok(()))
        }
        Ok(c) if c.ok() => (
            format!(
                "oneway: common clock checked between CPUs {a} and {b}: {} hand-overs each way, \
                 never backwards",
                c.rounds
            ),
            Ok(()),
        ),
        Ok(c) => {
            let why = format!(
                "the clock went backwards {} times in {} hand-overs between CPUs {a} and {b} \
                 (by up to {} ns): one-way times between them cannot be trusted",
                c.backwards, c.rounds, c.worst_backwards_ns
            );
            (format!("oneway: {why}"), Err(why))
        }
        Err(e) => {
            let why = format!("the common-clock check between CPUs {a} and {b} failed: {e}");
            (format!("oneway: {why}"), Err(why))
        }
    };
    obs.run_note(&note);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_pair_is_checked_once_in_either_order_and_its_outcome_kept() {
        let mut checks = ClockChecks::new();
        let mut ran = Vec::new();
        let bad = "the clock went backwards".to_string();
        for (a, b) in [(0, 1), (1, 0), (0, 1), (2, 3), (3, 2), (0, 1)] {
            let outcome = if a + b == 5 { Err(bad.clone()) } else { Ok(()) };
            let got = checks.get_or_check(a, b, || {
                ran.push((a, b));
                outcome.clone()
            });
            assert_eq!(got, outcome, "({a}, {b})");
        }
        assert_eq!(ran, [(0, 1), (2, 3)], "one check per pair");
        assert_eq!(checks.pairs_checked(), 2);
        // A new run starts with nothing kept.
        assert_eq!(ClockChecks::new().pairs_checked(), 0);
    }
}

#[cfg(test)]
mod through_run_link {
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use icbench_link::LinkSpec;
    use icbench_model::{CellOutcome, CellResult, Direction};

    use crate::{CellSpec, ClockChecks, LinkRun, Observer};

    /// Every note and outcome, as given (no dedup).
    #[derive(Default)]
    struct Seen {
        notes: Vec<String>,
        outcomes: Vec<CellOutcome>,
    }

    impl Observer for Seen {
        fn run_note(&mut self, note: &str) {
            self.notes.push(note.to_string());
        }
        fn cell_finished(&mut self, result: &CellResult) {
            self.outcomes.push(result.outcome.clone());
        }
    }

    /// The engine called once per group, as a random-order plan calls it:
    /// oneway cells on one CPU pair in three calls, over two links, check
    /// the clock once with one `ClockChecks`, and again with a new one.
    #[test]
    fn one_check_per_pair_across_calls() {
        static STOP: AtomicBool = AtomicBool::new(false);
        let cfg = crate::testing::thread_config(&STOP, Duration::from_millis(2));
        let cells = [CellSpec::oneway(16, Direction::H2P)];
        let mut clocks = ClockChecks::new();
        let mut seen = Seen::default();
        for link in ["unix", "pipe", "unix"] {
            let spec = LinkSpec::parse(link).unwrap();
            assert_eq!(
                crate::run_link(&cfg, &spec, &cells, &mut clocks, &mut seen),
                LinkRun::Completed
            );
        }
        assert_eq!(seen.outcomes.len(), 3);
        assert_eq!(seen.notes.len(), 1, "{:?}", seen.notes);
        assert!(seen.notes[0].starts_with("oneway: "), "{:?}", seen.notes);
        assert_eq!(clocks.pairs_checked(), 1);
        // Another run (another ClockChecks) checks afresh.
        let spec = LinkSpec::parse("unix").unwrap();
        crate::run_link(&cfg, &spec, &cells, &mut ClockChecks::new(), &mut seen);
        assert_eq!(seen.notes.len(), 2);
        assert_eq!(seen.notes[0], seen.notes[1]);
    }
}
