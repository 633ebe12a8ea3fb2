//! The view of `icbench compare`: the same cells of two or more runs (or of
//! two links in one run) side by side: medians, difference, the ratio with
//! its 95 % CI, and whether the difference is significant.
//!
//! Tests (icbench-stats): the Mann–Whitney U test on the two HDR histograms
//! (every measured latency cell keeps one, so this works for any two runs,
//! also across machines), plus Welch's t on the raw samples when both cells
//! kept them. The ratio of medians gets a percentile-bootstrap CI from raw
//! samples (seeded, [`BOOTSTRAP_SEED`]) when both have at most
//! [`BOOTSTRAP_MAX_SAMPLES`] of them, else the histogram approximation.
//! A cell with a single value (a seed log line) gets no test: the row says so.
//! Cells that only have a rate (stream, goodput imports) are compared on
//! bytes/s, one value each, without a test.

use crate::format;
use crate::replicates::Grouped;
use icbench_model::{CellData, CellOutcome, CellResult, JSON_SCHEMA_VERSION, Pattern};
use icbench_stats::{
    BOOTSTRAP_GENERATOR, Summary, mann_whitney_u_hist, ratio_of_medians_ci95,
    ratio_of_medians_ci95_hist, welch_t_test,
};
use serde::Serialize;

/// Seed of the bootstrap ratio CI, recorded in the output.
pub const BOOTSTRAP_SEED: u64 = 0x1CB0_0003;
/// Bootstrap resamples.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;
/// Above this many raw samples on a side, the histogram CI is used.
pub const BOOTSTRAP_MAX_SAMPLES: usize = 20_000;
/// Significance level of the tests.
pub const ALPHA: f64 = 0.05;

/// One run (or link) taking part.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    /// `A`, `B`, … in the order given.
    pub label: String,
    pub run_id: i64,
    pub source: String,
    pub hostname: String,
    pub cpu_model: String,
    /// The link, when comparing links within one run.
    pub link: Option<String>,
    /// The board a merged run came from (`icbench merge --board`), when
    /// it is not the host name already shown (issue #19).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
}

/// One compared cell.
#[derive(Debug, Clone, Serialize)]
pub struct CompareRow {
    pub link: String,
    pub pattern: &'static str,
    pub size_bytes: u64,
    pub channels: Option<u32>,
    /// Bulk: blocks of `size_bytes` per transfer.
    pub blocks: Option<u32>,
    /// Labels of the baseline and of the side compared with it.
    pub baseline: String,
    pub other: String,
    /// `p50_ns` (latency cells) or `bytes_per_s` (rate-only cells).
    pub metric: &'static str,
    pub baseline_value: f64,
    pub other_value: f64,
    pub baseline_count: u64,
    pub other_count: u64,
    /// `other − baseline`, in the metric's unit.
    pub difference: f64,
    /// `other ÷ baseline`.
    pub ratio: f64,
    pub ratio_ci95_lo: Option<f64>,
    pub ratio_ci95_hi: Option<f64>,
    /// How the ratio CI was computed.
    pub ratio_ci_method: Option<String>,
    /// Mann–Whitney U on the histograms: two-sided p.
    pub mann_whitney_p: Option<f64>,
    /// Welch's t on the raw samples: two-sided p.
    pub welch_p: Option<f64>,
    /// `true`/`false` at α = 0.05 by the first available test; `None` when
    /// no test is possible.
    pub significant: Option<bool>,
    pub note: Option<String>,
    /// What the row shows of the other side against the baseline, in
    /// words that fix the direction (issue #29): `faster`, `slower`, `no
    /// change shown` or `not decided` ([`CompareRow::change_of`]).
    pub change: &'static str,
}

impl CompareRow {
    /// `faster` or `slower` when the test decided at α (a shorter time or
    /// a higher rate is faster), `no change shown` when it did not, `not
    /// decided` when no test could be made or a side is marked.
    pub fn change_of(&self) -> &'static str {
        match self.significant {
            None => "not decided",
            Some(false) => "no change shown",
            Some(true) if self.slower_by() > 1.0 => "slower",
            Some(true) => "faster",
        }
    }

    /// How many times slower the other side is than the baseline: the
    /// ratio of times, or the inverse ratio of rates (< 1: faster).
    pub fn slower_by(&self) -> f64 {
        if self.metric == "bytes_per_s" { 1.0 / self.ratio } else { self.ratio }
    }

    /// "B 3.62× slower than A (2.19× … 6.00×)", "B 1.31× faster than A (…)",
    /// "no change shown" or "not decided": the times and the interval
    /// turned the way the words say.
    pub fn in_words(&self) -> String {
        let decided = matches!(self.change, "faster" | "slower");
        if !decided {
            return self.change.to_string();
        }
        let rate = self.metric == "bytes_per_s";
        let slower = self.change == "slower";
        // The interval of "times slower": the ratio's for times, inverted
        // for rates; inverted again for "times faster".
        let turn = |v: f64| if rate != slower { v } else { 1.0 / v };
        let times = turn(self.ratio).max(1.0 / turn(self.ratio));
        let ci = match (self.ratio_ci95_lo, self.ratio_ci95_hi) {
            (Some(lo), Some(hi)) => {
                let (a, b) = (turn(lo), turn(hi));
                let (a, b) = if a.max(b) >= 1.0 { (a, b) } else { (1.0 / a, 1.0 / b) };
                format!(" ({} … {})", format::ratio(a.min(b)), format::ratio(a.max(b)))
            }
            _ => String::new(),
        };
        format!(
            "{} {} {} than {}{ci}",
            self.other,
            format::ratio(times),
            self.change,
            self.baseline
        )
    }
}

/// `icbench compare`.
#[derive(Debug, Clone, Serialize)]
pub struct CompareView {
    pub schema_version: u32,
    pub sides: Vec<Side>,
    pub alpha: f64,
    pub bootstrap_seed: u64,
    pub bootstrap_generator: &'static str,
    pub rows: Vec<CompareRow>,
}

/// How the rows of one pair of sides came out, for the summary line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub baseline: String,
    pub other: String,
    pub cells: usize,
    pub faster: usize,
    pub slower: usize,
    pub no_change: usize,
    pub not_decided: usize,
}

impl Tally {
    /// "B against A, 300 cells: 12 faster, 3 slower, 285 no change shown,
    /// 0 not decided (α = 0.05)", as every renderer prints it.
    pub fn text(&self, alpha: f64) -> String {
        format!(
            "{} against {}, {} cell{}: {} faster, {} slower, {} no change shown, {} not decided \
             (α = {alpha})",
            self.other,
            self.baseline,
            self.cells,
            if self.cells == 1 { "" } else { "s" },
            self.faster,
            self.slower,
            self.no_change,
            self.not_decided
        )
    }
}

impl CompareView {
    /// Per side compared with the baseline, how its rows came out.
    pub fn tally(&self) -> Vec<Tally> {
        let mut out: Vec<Tally> = Vec::new();
        for r in &self.rows {
            let i = match out.iter().position(|t| t.other == r.other) {
                Some(i) => i,
                None => {
                    out.push(Tally {
                        baseline: r.baseline.clone(),
                        other: r.other.clone(),
                        ..Tally::default()
                    });
                    out.len() - 1
                }
            };
            let t = &mut out[i];
            t.cells += 1;
            match r.change {
                "faster" => t.faster += 1,
                "slower" => t.slower += 1,
                "no change shown" => t.no_change += 1,
                _ => t.not_decided += 1,
            }
        }
        out
    }
}

/// A run's cells, as given to [`build`].
#[derive(Debug, Clone)]
pub struct Input<'a> {
    pub side: Side,
    pub cells: Vec<&'a CellResult>,
}

fn measured(c: &CellResult) -> Option<&CellData> {
    match &c.outcome {
        CellOutcome::Measured(d) => Some(d),
        _ => None,
    }
}

/// Compares every side after the first with the first, cell by cell. With
/// `by_link` the cells are matched on (pattern, size, blocks, factors) only
/// (two links of one run), otherwise also on link, protocol and channels.
pub fn build(inputs: &[Input<'_>], by_link: bool) -> CompareView {
    // A cell's replicate blocks are one cell here too, compared on the
    // spread between blocks (issue #15).
    let grouped: Vec<Vec<Grouped>> = inputs
        .iter()
        .map(|i| {
            let owned: Vec<CellResult> = i.cells.iter().map(|c| (*c).clone()).collect();
            crate::replicates::group(&owned)
        })
        .collect();
    let mut rows = Vec::new();
    if let Some((base, others)) = inputs.split_first() {
        for (k, other) in others.iter().enumerate() {
            for ga in &grouped[0] {
                let a = &ga.result;
                let Some(da) = measured(a) else { continue };
                let gb = grouped[k + 1].iter().find(|g| {
                    let b = &g.result;
                    b.key.pattern == a.key.pattern
                        && b.key.size_bytes == a.key.size_bytes
                        && b.key.blocks == a.key.blocks
                        && b.key.factors == a.key.factors
                        && (by_link
                            || (b.key.link == a.key.link
                                && b.key.protocol == a.key.protocol
                                && measured(b).map(|d| d.channels) == Some(da.channels)))
                });
                let Some(gb) = gb else { continue };
                let b = &gb.result;
                let Some(db) = measured(b) else { continue };
                let link = if by_link {
                    format!("{} vs {}", a.key.link, b.key.link)
                } else {
                    crate::names::link_name(&a.key.link, &a.key.protocol)
                };
                if let Some(mut row) =
                    compare_cell(link, a, da, db, &base.side.label, &other.side.label)
                {
                    between_blocks(&mut row, ga, gb);
                    rows.push(row);
                }
            }
        }
    }
    for r in &mut rows {
        r.change = r.change_of();
    }
    CompareView {
        schema_version: JSON_SCHEMA_VERSION,
        sides: inputs.iter().map(|i| i.side.clone()).collect(),
        alpha: ALPHA,
        bootstrap_seed: BOOTSTRAP_SEED,
        bootstrap_generator: BOOTSTRAP_GENERATOR,
        rows,
    }
}

/// With replicate blocks on both sides: the ratio, its CI and the test
/// from the blocks' figures (`icbench_stats::compare_blocks`), replacing
/// the sample-level ones, which see only the noise within blocks. A side
/// marked disturbed, with blocks that disagree or with too few usable
/// blocks for an interval decides nothing.
fn between_blocks(row: &mut CompareRow, a: &Grouped, b: &Grouped) {
    let marked = |g: &Grouped| {
        let disturbed = g.disturbance.as_ref().is_some_and(|v| v.disturbed);
        disturbed || g.replicates.as_ref().is_some_and(|r| r.marked())
    };
    if let (Some(ra), Some(rb)) = (&a.replicates, &b.replicates)
        && ra.metric == rb.metric
        && let Some(c) = icbench_stats::compare_blocks(&ra.values, &rb.values)
    {
        row.metric = ra.metric;
        row.baseline_value = ra.center;
        row.other_value = rb.center;
        row.baseline_count = ra.used as u64;
        row.other_count = rb.used as u64;
        row.difference = rb.center - ra.center;
        row.ratio = c.ratio;
        row.ratio_ci95_lo = Some(c.lo);
        row.ratio_ci95_hi = Some(c.hi);
        row.ratio_ci_method = Some(format!(
            "between replicate blocks ({} vs {}): Welch's t on the logs of the block figures",
            ra.used, rb.used
        ));
        row.mann_whitney_p = None;
        row.welch_p = Some(c.p);
        row.significant = Some(c.p < ALPHA);
        row.note = None;
    }
    if marked(a) || marked(b) {
        row.significant = None;
        row.note = Some(
            "a side is marked (disturbed, its blocks disagree or too few agree): the difference \
             is not decided"
                .into(),
        );
    }
}

fn raw_f64(d: &CellData) -> Option<Vec<f64>> {
    d.raw_ns.as_ref().filter(|r| !r.is_empty()).map(|r| r.iter().map(|&v| v as f64).collect())
}

fn summary(d: &CellData) -> Option<Summary> {
    match (raw_f64(d), &d.latency) {
        (Some(x), _) => Summary::from_samples(&x),
        (None, Some(h)) => Summary::from_histogram(h),
        _ => None,
    }
}

fn compare_cell(
    link: String,
    a: &CellResult,
    da: &CellData,
    db: &CellData,
    base: &str,
    other: &str,
) -> Option<CompareRow> {
    let mut row = CompareRow {
        link,
        pattern: a.key.pattern.as_str(),
        size_bytes: a.key.size_bytes,
        channels: da.channels,
        blocks: a.key.blocks,
        baseline: base.to_string(),
        other: other.to_string(),
        metric: "p50_ns",
        baseline_value: f64::NAN,
        other_value: f64::NAN,
        baseline_count: 0,
        other_count: 0,
        difference: f64::NAN,
        ratio: f64::NAN,
        ratio_ci95_lo: None,
        ratio_ci95_hi: None,
        ratio_ci_method: None,
        mann_whitney_p: None,
        welch_p: None,
        significant: None,
        note: None,
        change: "not decided",
    };
    let (sa, sb) = match (summary(da), summary(db)) {
        (Some(sa), Some(sb)) if a.key.pattern != Pattern::Stream => (sa, sb),
        _ => {
            // Rate only: one value per side.
            let (va, vb) = (da.bytes_per_s(), db.bytes_per_s());
            if !(va > 0.0 && vb > 0.0) {
                return None;
            }
            row.metric = "bytes_per_s";
            row.baseline_value = va;
            row.other_value = vb;
            row.baseline_count = 1;
            row.other_count = 1;
            row.difference = vb - va;
            row.ratio = vb / va;
            row.note = Some(
                "one rate per side: no test, the difference is not shown to be significant".into(),
            );
            return Some(row);
        }
    };
    row.baseline_value = sa.p50;
    row.other_value = sb.p50;
    row.baseline_count = sa.count;
    row.other_count = sb.count;
    row.difference = sb.p50 - sa.p50;
    row.ratio = sb.p50 / sa.p50;
    if sa.count < 2 || sb.count < 2 {
        row.note = Some(format!(
            "{} vs {} samples: no test is possible; the difference is one value against another",
            sa.count, sb.count
        ));
        return Some(row);
    }
    let (ra, rb) = (raw_f64(da), raw_f64(db));
    if let (Some(x), Some(y)) = (&ra, &rb) {
        row.welch_p = welch_t_test(y, x).map(|t| t.p_two_sided);
        if x.len() <= BOOTSTRAP_MAX_SAMPLES
            && y.len() <= BOOTSTRAP_MAX_SAMPLES
            && let Some(ci) = ratio_of_medians_ci95(y, x, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED)
        {
            row.ratio_ci95_lo = Some(ci.lo);
            row.ratio_ci95_hi = Some(ci.hi);
            row.ratio_ci_method = Some(format!(
                "percentile bootstrap, {BOOTSTRAP_RESAMPLES} resamples, seed {BOOTSTRAP_SEED:#x}"
            ));
        }
    }
    if let (Some(ha), Some(hb)) = (&da.latency, &db.latency) {
        row.mann_whitney_p = mann_whitney_u_hist(hb, ha).map(|m| m.p_two_sided);
        if row.ratio_ci95_lo.is_none()
            && let Some(ci) = ratio_of_medians_ci95_hist(hb, ha)
        {
            row.ratio_ci95_lo = Some(ci.lo);
            row.ratio_ci95_hi = Some(ci.hi);
            row.ratio_ci_method =
                Some("log-scale approximation from the medians' order-statistic CIs".into());
        }
    }
    row.significant = row.mann_whitney_p.or(row.welch_p).map(|p| p < ALPHA);
    if row.significant.is_none() {
        row.note = Some("no test available for these cells".into());
    }
    Some(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(
        metric: &'static str,
        ratio: f64,
        ci: (f64, f64),
        significant: Option<bool>,
    ) -> CompareRow {
        let mut r = CompareRow {
            link: "shm".into(),
            pattern: "stream",
            size_bytes: 64,
            channels: None,
            blocks: None,
            baseline: "A".into(),
            other: "B".into(),
            metric,
            baseline_value: 1.0,
            other_value: ratio,
            baseline_count: 3,
            other_count: 3,
            difference: ratio - 1.0,
            ratio,
            ratio_ci95_lo: Some(ci.0),
            ratio_ci95_hi: Some(ci.1),
            ratio_ci_method: None,
            mann_whitney_p: None,
            welch_p: Some(0.01),
            significant,
            note: None,
            change: "",
        };
        r.change = r.change_of();
        r
    }

    /// Issue #29: the words fix the direction for times and rates alike.
    #[test]
    fn a_row_says_which_side_is_faster_and_by_how_much() {
        // A rate of 0.25× the baseline's: 4× slower, its interval turned.
        let r = row("bytes_per_s", 0.25, (0.2, 0.5), Some(true));
        assert_eq!(r.change, "slower");
        assert_eq!(r.in_words(), "B 4.00× slower than A (2.00× … 5.00×)");
        // A time of 0.5× the baseline's: 2× faster.
        let r = row("p50_ns", 0.5, (0.4, 0.8), Some(true));
        assert_eq!(r.change, "faster");
        assert_eq!(r.in_words(), "B 2.00× faster than A (1.25× … 2.50×)");
        // A time of 3×: slower. A rate of 1.5×: faster.
        assert_eq!(row("p50_ns", 3.0, (2.0, 4.0), Some(true)).change, "slower");
        assert_eq!(row("bytes_per_s", 1.5, (1.2, 1.8), Some(true)).change, "faster");
        // Undecided tests say so, in no direction.
        assert_eq!(row("p50_ns", 1.2, (0.9, 1.6), Some(false)).in_words(), "no change shown");
        assert_eq!(row("p50_ns", 1.2, (0.9, 1.6), None).in_words(), "not decided");
    }

    #[test]
    fn the_tally_counts_each_side_s_rows() {
        let view = CompareView {
            schema_version: 1,
            sides: Vec::new(),
            alpha: 0.05,
            bootstrap_seed: 0,
            bootstrap_generator: "",
            rows: vec![
                row("p50_ns", 3.0, (2.0, 4.0), Some(true)),
                row("p50_ns", 0.5, (0.4, 0.8), Some(true)),
                row("p50_ns", 1.0, (0.9, 1.1), Some(false)),
            ],
        };
        let t = &view.tally()[0];
        assert_eq!((t.cells, t.faster, t.slower, t.no_change, t.not_decided), (3, 1, 1, 1, 0));
        assert_eq!(
            t.text(0.05),
            "B against A, 3 cells: 1 faster, 1 slower, 1 no change shown, 0 not decided (α = 0.05)"
        );
    }
}
