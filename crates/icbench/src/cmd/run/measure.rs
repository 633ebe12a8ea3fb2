//! Measuring a run's cells, stage by stage: the planned blocks in rounds of
//! groups (consecutive cells that share one session), then once a round of
//! the blocks the kernel's counters showed disturbed (issue #15), within
//! the plan's budget and the re-measure round's share of time; each cell is
//! stored as it finishes ([`Recorder`]).

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::Result;
use icbench_engine::{ClockChecks, Fault, LinkRun, Observer, PeerLaunch, cpu};
use icbench_link::LinkSpec;
use icbench_model::{CellOutcome, CellResult, RunStatus};
use icbench_plan::{Plan, PlanCell};
use icbench_store::{RunId, Store};

use super::record::Recorder;
use super::{STOP, Settings, install_sigint, settings};
use crate::cli::RunArgs;

/// How measuring ended: the status, why a budget stopped it, and the notes
/// the engine reported on the way.
pub(super) type Measured = Result<(RunStatus, Option<String>, Vec<String>)>;

/// The re-measure round's time is at most the planned blocks' time divided
/// by this (docs/method.md, "Replicates").
const REMEASURE_SHARE: u32 = 4;

/// Measures `todo` (cells of `plan`, in order) into run `run`; `done` cells
/// of the plan were stored before (a resumed run).
#[allow(clippy::too_many_arguments)]
pub(super) fn measure(
    store: &mut Store,
    run: RunId,
    plan: &Plan,
    settings: &Settings,
    todo: &[PlanCell],
    fault: Option<Fault>,
    a: &RunArgs,
    done: usize,
) -> Measured {
    install_sigint();
    let mut m = Measuring {
        rec: Recorder::new(store, run, plan.cells.len(), done, a.json_stream),
        run,
        plan,
        settings,
        todo: todo.len(),
        cell_time: Duration::from_nanos(plan.cell_time_ns),
        deadline: plan.budget_ns.map(|b| Instant::now() + Duration::from_nanos(b)),
        peer: settings::peer_launch(settings.peer)?,
        fault,
        faulted: HashSet::new(),
        clocks: ClockChecks::new(),
        status: (RunStatus::Finished, None),
    };
    let mut round: Vec<PlanCell> = todo.to_vec();
    // The re-measure round may take a quarter of the planned blocks' time
    // (REMEASURE_SHARE): on a machine that disturbs most blocks it would
    // otherwise add a third to the run (2026-11-26: 222-289 of 900 blocks,
    // 51-62 s default runs), and the default run is to stay within a minute.
    let planned_start = Instant::now();
    // (until when the re-measure round may run, the planned blocks' time)
    let mut remeasure_until: Option<(Instant, Duration)> = None;
    loop {
        if !m.round(&round, remeasure_until)? {
            break;
        }
        // Once, after every planned cell: each block the kernel's counters
        // showed disturbed is measured again, in a new random order (issue #15;
        // at most one extra block per planned block, so at most K per cell).
        if remeasure_until.is_some()
            || a.no_remeasure
            || plan.repetitions < 2
            || STOP.load(Ordering::SeqCst)
        {
            break;
        }
        round = remeasure(plan, &m.rec.to_measure_again());
        if round.is_empty() {
            break;
        }
        let planned = planned_start.elapsed();
        remeasure_until = Some((Instant::now() + planned / REMEASURE_SHARE, planned));
        m.rec.add_cells(round.len());
        Observer::run_note(
            &mut m.rec,
            &format!(
                "{} disturbed blocks measured again after the planned ones (the view uses the \
             undisturbed blocks of a cell when at least two remain)",
                round.len()
            ),
        );
    }
    m.finish(planned_start.elapsed())
}

/// What measuring carries from group to group and round to round.
struct Measuring<'s, 'a> {
    rec: Recorder<'s>,
    run: RunId,
    plan: &'a Plan,
    settings: &'a Settings,
    /// Blocks to measure when measuring began (the plan's, or what a
    /// resumed run has left).
    todo: usize,
    cell_time: Duration,
    /// When the plan's budget is spent.
    deadline: Option<Instant>,
    peer: PeerLaunch,
    /// `--peer-fault`, injected into the first session of each link.
    fault: Option<Fault>,
    faulted: HashSet<String>,
    /// Kept across the groups: each CPU pair's clock is checked once a run.
    clocks: ClockChecks,
    status: (RunStatus, Option<String>),
}

impl Measuring<'_, '_> {
    /// One round over `round`'s cells, group by group; `false` when
    /// measuring is to stop (Ctrl-C, the budget, the re-measure round's
    /// time, a cell that could not be stored). `remeasure_until` is set for
    /// the re-measure round.
    fn round(
        &mut self,
        round: &[PlanCell],
        remeasure_until: Option<(Instant, Duration)>,
    ) -> Result<bool> {
        // A budget is looked at between cells: with one, every cell is its own
        // group (its own session), so that a spent budget stops the run at the
        // next cell whatever the plan's grouping (before, a one-link plan ran
        // whole: issue #22).
        let grouped: Vec<&[PlanCell]> =
            if self.deadline.is_some() { round.chunks(1).collect() } else { groups(round) };
        let mut measured_in_round = 0;
        for (i, group) in grouped.into_iter().enumerate() {
            if STOP.load(Ordering::SeqCst) {
                self.status.0 = RunStatus::Interrupted;
                return Ok(false);
            }
            // The round's first group always runs: on a loaded machine the
            // time between setting the limit and this check can exceed it
            // (CI, 2026-11-28: a hogged 2-block run re-measured nothing).
            if let Some((until, planned)) = remeasure_until
                && measured_in_round > 0
                && Instant::now() >= until
            {
                let left = round.len() - measured_in_round;
                Observer::run_note(
                    &mut self.rec,
                    &format!(
                        "{left} of {} disturbed blocks not measured again: the round may take a \
                         quarter of the planned blocks' {:.1} s, and that was spent",
                        round.len(),
                        planned.as_secs_f64()
                    ),
                );
                return Ok(false);
            }
            measured_in_round += group.len();
            // The first cell always runs, so every invocation makes progress
            // however small the budget (and `--resume` always gets further).
            if (i > 0 || remeasure_until.is_some())
                && self.deadline.is_some_and(|d| Instant::now() >= d)
            {
                self.budget_spent();
                return Ok(false);
            }
            if !self.group(group)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The run stops on a spent budget, saying what is left and how to go on.
    fn budget_spent(&mut self) {
        let spent =
            icbench_plan::estimate::human(Duration::from_nanos(self.plan.budget_ns.unwrap_or(0)));
        let (stored, extra) = (self.rec.stored, self.rec.extra);
        self.status = (
            RunStatus::Interrupted,
            Some(format!(
                "the plan's budget of {spent} was spent: {stored} blocks measured, {} left; \
                 `icbench run --resume {}` measures them",
                (self.todo + extra).saturating_sub(stored),
                self.run
            )),
        );
    }

    /// One session's cells; `false` when measuring is to stop.
    fn group(&mut self, group: &[PlanCell]) -> Result<bool> {
        let c0 = &group[0];
        let spec = LinkSpec::parse(&c0.link)
            .map_err(|e| anyhow::anyhow!("the plan's link '{}' no longer parses: {e}", c0.link))?;
        self.rec.expect(group);
        let specs: Vec<_> = group.iter().map(settings::cell_spec).collect();
        if let Err(reason) = place_cell(self.settings, c0) {
            // Every cell of the group fails with the reason; the run goes on.
            let cfg = self.settings.engine(c0, self.cell_time, self.peer.clone(), None);
            for c in &specs {
                let key = c.key(&cfg, &spec);
                Observer::cell_started(&mut self.rec, &key);
                let outcome = CellOutcome::Failed { reason: format!("placing the host: {reason}") };
                Observer::cell_finished(&mut self.rec, &CellResult { key, outcome });
            }
            return Ok(true);
        }
        let f = if self.faulted.insert(c0.link.clone()) { self.fault } else { None };
        let cfg = self.settings.engine(c0, self.cell_time, self.peer.clone(), f);
        if icbench_engine::run_link(&cfg, &spec, &specs, &mut self.clocks, &mut self.rec)
            == LinkRun::Interrupted
        {
            self.status.0 = RunStatus::Interrupted;
            return Ok(false);
        }
        Ok(self.rec.error.is_none())
    }

    /// How measuring ended, with the state probes' share of the time
    /// `spent` measuring; a cell that could not be stored is the error.
    fn finish(self, spent: Duration) -> Measured {
        let probes = self.rec.probes;
        let (mut notes, error) = self.rec.finish();
        if probes.0 > 0 {
            let spent = spent.as_nanos().max(1) as f64;
            notes.push(format!(
                "state probe (a one-cache-line and a wake-up round trip) before each of {} sessions: {:.0} ms in \
             all, {:.1} % of the measuring; `show --blocks` lists each block's probe",
                probes.0,
                probes.1 as f64 / 1e6,
                probes.1 as f64 / spent * 100.0
            ));
        }
        if let Some(e) = error {
            return Err(e.context(
                "storing a cell; the run stopped, and every cell stored before it is kept",
            ));
        }
        Ok((self.status.0, self.status.1, notes))
    }
}

/// Places this thread for a group of cells: its host CPU and scheduling.
fn place_cell(settings: &Settings, cell: &PlanCell) -> Result<(), String> {
    let (host, _) = settings.cpus_of(cell);
    cpu::pin_current_thread(host).map_err(|e| e.to_string())?;
    match settings.fifo_of(cell) {
        Some(p) => cpu::set_fifo(p).map_err(|e| e.to_string()),
        None => cpu::set_other().map_err(|e| e.to_string()),
    }
}

/// Consecutive cells that can share one session (same link, placement and
/// scheduling).
fn groups(cells: &[PlanCell]) -> Vec<&[PlanCell]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=cells.len() {
        if i == cells.len() || !cells[i - 1].shares_session(&cells[i]) {
            out.push(&cells[start..i]);
            start = i;
        }
    }
    out
}

/// The blocks to measure again: one new block per disturbed block, with
/// the next `rep` of its cell and a plan index past the plan's (a resumed
/// run measures the plan, not these), in a random order from the plan's
/// seed.
fn remeasure(plan: &Plan, disturbed: &[PlanCell]) -> Vec<PlanCell> {
    let mut next_rep: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(disturbed.len());
    for c in disturbed {
        let mut t = c.clone();
        t.index = 0;
        t.rep = 0;
        t.factors.remove("rep");
        let key = serde_json::to_string(&t).unwrap_or_default();
        let r = next_rep.entry(key).or_insert(plan.repetitions);
        let mut extra = c.clone();
        extra.rep = *r;
        extra.factors.insert("rep".into(), r.to_string());
        *r += 1;
        out.push(extra);
    }
    icbench_plan::order::shuffle(&mut out, plan.seed ^ 0x5eed_0f2e_4ea5);
    for (i, c) in out.iter_mut().enumerate() {
        c.index = (plan.cells.len() + i) as u32;
    }
    out
}

#[cfg(test)]
mod tests {
    use icbench_model::Pattern;

    use super::*;

    fn cell(link: &str, channels: u32) -> PlanCell {
        PlanCell { channels, ..PlanCell::new(link, Pattern::PingPong, 64) }
    }

    #[test]
    fn consecutive_cells_of_one_link_share_a_session() {
        let cells =
            [cell("pipe", 1), cell("pipe", 1), cell("unix", 1), cell("unix", 4), cell("pipe", 1)];
        let sizes: Vec<usize> = groups(&cells).iter().map(|g| g.len()).collect();
        assert_eq!(sizes, [2, 1, 1, 1]);
        assert!(groups(&[]).is_empty());
    }
}
