//! The performance targets a run is held to, each against the same run's
//! floor (issue 2, restated by issue #15 item 9), and decided on an
//! interval wherever one exists — never on a point ratio that the next run
//! could put on the other side of the bound:
//!
//! - shm (spin) round trips against the floor's **two-line** trip (one
//!   cache line per direction, the least any channel with separate
//!   directions costs): ≤ 1.1× for messages that fit one line with the
//!   ring's 8-byte slot header, ≤ 1.2× at 64 B (two lines per direction).
//!   The old "64 B ÷ cache-line round trip ≤ 1.5" is retired: the floor's
//!   own 64 B slot trip is past it on every machine measured.
//! - shm (spin) stream 64 KiB host → peer ≥ 0.7× memcpy.
//! - pipe and unix within ±5 % of a bare loop (the floor's interleaved
//!   comparison, `icbench_engine::bare`).
//! - shm against iceoryx2 of the same run ([`middleware`], issue #20).
//!
//! The shm intervals are the cells' replicate intervals (where a repeat
//! run's figure lands, `replicates.rs`) over the floor's figure: met when
//! the whole interval is inside the bound, not met when wholly outside,
//! "not shown" otherwise — and "not shown" for a cell measured in one
//! block (no interval) or marked (disturbed, its blocks disagree, or too
//! few of them usable for an interval: "too few agreeing blocks").

mod middleware;

use icbench_model::{BareComparison, Floor, RunMeta};
use serde::Serialize;

use crate::replicates::ReplicatesView;
use crate::rows::{PingPongRow, StreamRow};

/// One of the performance targets, measured against the same run's floor.
#[derive(Debug, Clone, Serialize)]
pub struct Target {
    pub name: String,
    /// What is required of `ratio`, in words (e.g. `≤ 1.5`).
    pub bound: &'static str,
    pub ratio: f64,
    /// The ratio's 95 % confidence interval, where the target is decided
    /// on one (the ±5 % targets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio_ci95_lo: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio_ci95_hi: Option<f64>,
    /// Whether the target is shown to be met (`verdict` is `met`).
    pub met: bool,
    pub verdict: Verdict,
    /// Why the verdict is what it is, where the ratio alone does not say
    /// (a target the floor itself puts out of reach).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// What a run shows about a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Met,
    NotMet,
    /// The confidence interval crosses the bound (or there is none): the
    /// measurement cannot tell, whatever the point estimate says.
    NotShown,
    /// Not met, and no link could meet it on this machine: the same run's
    /// floor for what the target carries is already past the bound.
    OutOfReach,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Met => "yes",
            Verdict::NotMet => "no",
            Verdict::NotShown => "not shown",
            Verdict::OutOfReach => "out of reach",
        }
    }

    fn of(met: bool) -> Verdict {
        if met { Verdict::Met } else { Verdict::NotMet }
    }
}

/// The band of issue 2's target for the pipe and unix links: icbench ÷
/// bare loop within ±5 %.
pub const BARE_BAND: (f64, f64) = (0.95, 1.05);

/// Whether a link's comparison with its bare loop shows the ±5 % target
/// met: only when the ratio's whole 95 % interval lies in the band, not met
/// when it lies wholly outside, not shown otherwise.
pub fn bare_verdict(c: &BareComparison) -> Verdict {
    use icbench_stats::{BandVerdict, Interval, within_band};
    let ci = Interval { lo: c.ratio_ci95_lo, hi: c.ratio_ci95_hi };
    match within_band(ci, Interval::new(BARE_BAND.0, BARE_BAND.1)) {
        BandVerdict::Inside => Verdict::Met,
        BandVerdict::Outside => Verdict::NotMet,
        BandVerdict::NotShown => Verdict::NotShown,
    }
}

impl Target {
    /// The ratio as shown: with its interval where it has one.
    pub fn ratio_text(&self) -> String {
        use crate::format;
        match (self.ratio_ci95_lo, self.ratio_ci95_hi) {
            (Some(lo), Some(hi)) => format!(
                "{} (ci95 {} … {})",
                format::ratio_near_1(self.ratio),
                format::ratio_near_1(lo),
                format::ratio_near_1(hi)
            ),
            _ => format::ratio(self.ratio),
        }
    }

    /// A target decided on the point ratio (the bounds far from the ratio's
    /// noise: ≤ 1.5, ≥ 0.7).
    fn point(name: &'static str, bound: &'static str, ratio: f64, met: bool) -> Target {
        Target {
            name: name.to_string(),
            bound,
            ratio,
            ratio_ci95_lo: None,
            ratio_ci95_hi: None,
            met,
            verdict: Verdict::of(met),
            why: None,
        }
    }
}

/// The spin ring under its two spellings.
fn is_shm_spin(link: &str) -> bool {
    link == "shm" || link == "shm?wait=spin"
}

fn p50_of(rows: &[PingPongRow], link: &str, size: u64) -> Option<f64> {
    rows.iter()
        .find(|r| {
            r.protocol.is_none()
                && r.channels.is_none_or(|n| n == 1)
                && (r.link == link || (link == "shm" && is_shm_spin(&r.link)))
                && r.size_bytes == size
        })
        .and_then(|r| r.rtt_ns.as_ref())
        .map(|s| s.summary.p50)
}

/// The ±5 % targets of the pipe and unix links. Decided on the floor's
/// interleaved comparison (`icbench_engine::bare`: the link's ping-pong and
/// the bare loop in alternating blocks, peers started alike), by its 95 %
/// interval. A floor without one (stored before it existed) gives the point
/// ratio of the run's 64 B cell to the bare loop, not shown either way.
fn bare_targets(floor: &Floor, pingpong: &[PingPongRow]) -> Vec<Target> {
    let mut out = Vec::new();
    for (link, cmp, bare, name) in [
        (
            "pipe",
            floor.syscall_pipe,
            floor.syscall_pipe_rtt_ns,
            "pipe 64 B round trip ÷ bare write/read loop (interleaved)",
        ),
        (
            "unix",
            floor.syscall_unix,
            floor.syscall_unix_rtt_ns,
            "unix 64 B round trip ÷ bare write/read loop (interleaved)",
        ),
    ] {
        let bound = "ci95 within 0.95 … 1.05";
        if let Some(c) = cmp {
            let verdict = bare_verdict(&c);
            out.push(Target {
                name: name.to_string(),
                bound,
                ratio: c.ratio,
                ratio_ci95_lo: Some(c.ratio_ci95_lo),
                ratio_ci95_hi: Some(c.ratio_ci95_hi),
                met: verdict == Verdict::Met,
                verdict,
                why: None,
            });
        } else if let (Some(p50), Some(bare)) = (p50_of(pingpong, link, 64), bare) {
            out.push(Target {
                verdict: Verdict::NotShown,
                ..Target::point(name, bound, p50 / bare, false)
            });
        }
    }
    out
}

/// Bytes of the shm ring's slot header (sequence word and length,
/// `icbench_link::sys::shm`): a message of up to 64 − this fits one 64-byte
/// line with it.
const SLOT_HEADER: u64 = 8;
const LINE: u64 = 64;

/// A measured figure and the interval a repeat run's figure lands in.
struct Figure {
    value: f64,
    /// `None` with why: one block, or a marked cell.
    interval: Result<(f64, f64), String>,
}

impl Figure {
    fn of(value: f64, replicates: &Option<ReplicatesView>, disturbed: bool) -> Figure {
        let interval = match replicates {
            None => Err("measured in one block: no interval to decide on (--replicates 3 or \
                         more gives one)"
                .to_string()),
            Some(r) if r.too_few_blocks => {
                Err(format!("{}: no interval, marked (!), decided on nothing", r.note()))
            }
            Some(r) if r.disagree => Err(format!(
                "its blocks disagree ({:.2}× apart): marked (!), decided on nothing",
                r.spread
            )),
            Some(r) if r.wide => {
                Err(format!("{}: marked (!), decided on nothing", crate::replicates::too_wide(r)))
            }
            Some(_) if disturbed => Err("the cell is disturbed: marked (!)".to_string()),
            Some(r) => r.interval().ok_or_else(|| r.note().to_string()),
        };
        let value = replicates.as_ref().map_or(value, |r| r.center);
        Figure { value, interval }
    }
}

/// Which side of the bound the target wants.
#[derive(Clone, Copy)]
enum Side {
    AtMost(f64),
    AtLeast(f64),
}

/// A target on `figure ÷ base`, decided on the figure's interval.
fn decided(name: &'static str, bound: &'static str, side: Side, f: &Figure, base: f64) -> Target {
    let ratio = f.value / base;
    let (verdict, lo, hi, why) = match &f.interval {
        Ok((lo, hi)) => {
            let (lo, hi) = (lo / base, hi / base);
            let verdict = match side {
                Side::AtMost(b) if hi <= b => Verdict::Met,
                Side::AtMost(b) if lo > b => Verdict::NotMet,
                Side::AtLeast(b) if lo >= b => Verdict::Met,
                Side::AtLeast(b) if hi < b => Verdict::NotMet,
                _ => Verdict::NotShown,
            };
            (verdict, Some(lo), Some(hi), None)
        }
        Err(why) => (Verdict::NotShown, None, None, Some(why.clone())),
    };
    Target {
        name: name.to_string(),
        bound,
        ratio,
        ratio_ci95_lo: lo,
        ratio_ci95_hi: hi,
        met: verdict == Verdict::Met,
        verdict,
        why,
    }
}

/// The spin ring's round trips against the two-line trip: 64 B ≤ 1.2×,
/// and the worst of the sizes that fit one line with the slot header
/// ≤ 1.1× (met only when every such size's interval is inside).
fn shm_two_line_targets(
    two_line: f64,
    slot64: Option<f64>,
    pingpong: &[PingPongRow],
) -> Vec<Target> {
    let mut out = Vec::new();
    if let Some(f) = shm_figure(pingpong, 64) {
        let mut t = decided(
            "shm (spin) 64 B round trip ÷ two-line round trip",
            "≤ 1.2",
            Side::AtMost(1.2),
            &f,
            two_line,
        );
        // The floor's own 64 B slot, answered in place, is what any ring of
        // this layout costs at least: past the bound, no ring meets it here
        // (issue #15: "the run says why with the measurements").
        if let Some(slot) = slot64.filter(|s| s / two_line > 1.2)
            && t.verdict == Verdict::NotMet
        {
            t.verdict = Verdict::OutOfReach;
            t.why = Some(format!(
                "the floor's own 64 B slot round trip ({}) is already {:.2}× the two-line trip ({})",
                crate::format::ns(slot),
                slot / two_line,
                crate::format::ns(two_line)
            ));
        }
        out.push(t);
    }
    let one_line: Vec<Target> = (0..=LINE - SLOT_HEADER)
        .filter_map(|size| Some((size, shm_figure(pingpong, size)?)))
        .map(|(size, f)| {
            let mut t = decided("", "≤ 1.1", Side::AtMost(1.1), &f, two_line);
            t.name = format!(
                "shm (spin) one-line round trips (≤ 56 B) ÷ two-line round trip, worst size {size} B"
            );
            t
        })
        .collect();
    // The worst size speaks for all: not met if any is, met if all are.
    let rank = |t: &Target| match t.verdict {
        Verdict::NotMet => 3,
        Verdict::NotShown => 2,
        Verdict::OutOfReach => 1,
        Verdict::Met => 0,
    };
    if let Some(worst) =
        one_line.into_iter().max_by(|a, b| rank(a).cmp(&rank(b)).then(a.ratio.total_cmp(&b.ratio)))
    {
        out.push(worst);
    }
    out
}

/// The spin ring's ping-pong row of `size` (one channel, icbench's own
/// protocol), as a figure.
fn shm_figure(rows: &[PingPongRow], size: u64) -> Option<Figure> {
    let r = rows.iter().find(|r| {
        r.protocol.is_none()
            && r.channels.is_none_or(|n| n == 1)
            && is_shm_spin(&r.link)
            && r.size_bytes == size
            && r.status == "ok"
    })?;
    let p50 = r.rtt_ns.as_ref()?.summary.p50;
    Some(Figure::of(p50, &r.replicates, r.disturbance.as_ref().is_some_and(|d| d.disturbed)))
}

/// The run's targets, for whichever of them it measured.
pub(crate) fn targets(
    meta: &RunMeta,
    pingpong: &[PingPongRow],
    stream: &[StreamRow],
) -> Vec<Target> {
    // Held against another link of the same run, not the floor.
    let peers = middleware::targets(pingpong, stream);
    let Some(floor) = meta.floor else { return peers };
    let mut out = Vec::new();
    if let Some(two_line) = floor.two_line_rtt_ns {
        out.extend(shm_two_line_targets(two_line, floor.slot64_rtt_ns, pingpong));
    }
    let shm_stream = stream.iter().find(|r| {
        r.protocol.is_none()
            && r.channels.is_none_or(|n| n == 1)
            && is_shm_spin(&r.link)
            && r.size_bytes == 64 << 10
            // The target is the host's send bandwidth against its memcpy.
            && r.direction == "h2p"
            && r.status == "ok"
    });
    if let Some((r, bw)) = shm_stream.and_then(|r| Some((r, r.bytes_per_s?))) {
        let disturbed = r.disturbance.as_ref().is_some_and(|d| d.disturbed);
        out.push(decided(
            "shm (spin) stream 64 KiB ÷ memcpy bandwidth",
            "≥ 0.7",
            Side::AtLeast(0.7),
            &Figure::of(bw, &r.replicates, disturbed),
            floor.memcpy_bytes_per_s,
        ));
    }
    out.extend(bare_targets(&floor, pingpong));
    out.extend(peers);
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use icbench_model::Floor;

    use super::*;
    use crate::stats::CellStats;

    fn cmp(lo: f64, hi: f64) -> BareComparison {
        BareComparison {
            size_bytes: 64,
            bare_rtt_ns: 10_000.0,
            icbench_rtt_ns: 10_100.0,
            ratio: 1.01,
            ratio_ci95_lo: lo,
            ratio_ci95_hi: hi,
            samples: 10_000,
            blocks: 5,
        }
    }

    #[test]
    fn the_five_per_cent_target_is_decided_on_the_interval() {
        // The same point ratio (1.01) each time: only the interval decides.
        assert_eq!(bare_verdict(&cmp(0.99, 1.03)), Verdict::Met);
        assert_eq!(bare_verdict(&cmp(0.93, 1.09)), Verdict::NotShown, "too wide");
        assert_eq!(bare_verdict(&cmp(1.00, 1.06)), Verdict::NotShown, "across the edge");
        assert_eq!(bare_verdict(&cmp(1.06, 1.08)), Verdict::NotMet);
        assert_eq!(bare_verdict(&cmp(0.90, 0.94)), Verdict::NotMet);
        assert_eq!(Verdict::NotShown.as_str(), "not shown");
    }

    #[test]
    fn a_floor_without_the_comparison_never_claims_the_target() {
        let floor = Floor {
            cacheline_rtt_ns: 100.0,
            two_line_rtt_ns: None,
            slot64_rtt_ns: None,
            memcpy_bytes_per_s: 1e9,
            memcpy_block_bytes: 65536,
            syscall_pipe_rtt_ns: Some(10_000.0),
            syscall_unix_rtt_ns: None,
            syscall_pipe: None,
            syscall_unix: Some(cmp(0.99, 1.03)),
        };
        // No pipe cell measured and no comparison: no pipe row.
        let t = bare_targets(&floor, &[]);
        assert_eq!(t.len(), 1);
        assert!(t[0].name.starts_with("unix"));
        assert_eq!((t[0].verdict, t[0].met), (Verdict::Met, true));
        assert_eq!((t[0].ratio_ci95_lo, t[0].ratio_ci95_hi), (Some(0.99), Some(1.03)));
    }

    fn floor(line: f64, two: f64, slot: Option<f64>) -> Floor {
        Floor {
            cacheline_rtt_ns: line,
            two_line_rtt_ns: Some(two),
            slot64_rtt_ns: slot,
            memcpy_bytes_per_s: 1e9,
            memcpy_block_bytes: 65536,
            syscall_pipe_rtt_ns: None,
            syscall_unix_rtt_ns: None,
            syscall_pipe: None,
            syscall_unix: None,
        }
    }

    pub(super) fn shm_stream(direction: &str, bytes_per_s: f64) -> StreamRow {
        StreamRow {
            link: "shm".into(),
            protocol: None,
            size_bytes: 64 << 10,
            direction: direction.into(),
            factors: BTreeMap::new(),
            status: "ok",
            reason: None,
            max_bytes: None,
            messages: Some(1_000),
            window: Some(32),
            msgs_per_s: None,
            bytes_per_s: Some(bytes_per_s),
            over_memcpy: None,
            tx_busy: None,
            channels: None,
            common_window: None,
            disturbance: None,
            cut: None,
            replicates: None,
            state: None,
        }
    }

    #[test]
    fn the_memcpy_target_takes_only_host_to_peer_stream() {
        use icbench_model::{PeerMode, RunStatus, Sched};
        let meta = RunMeta {
            cpu_model: "test".into(),
            online_cpus: "0-1".into(),
            host_cpu: 0,
            peer_cpu: 1,
            peer_mode: PeerMode::Process,
            sched: Sched::Other,
            mlock: false,
            kernel_release: "test".into(),
            governor: None,
            hostname: "test".into(),
            icbench_version: "0.1.0".into(),
            git_commit: None,
            command_line: Vec::new(),
            started_unix_ns: 0,
            ended_unix_ns: None,
            clock: "CLOCK_MONOTONIC_RAW".into(),
            clock_overhead_ns: 18.0,
            clock_granule_ns: 1.0,
            status: RunStatus::Finished,
            floor: Some(floor(100.0, 240.0, None)),
            floor_tail: None,
            fast_counter: None,
            notes: Vec::new(),
            label: None,
            user_note: None,
        };
        let memcpy = |rows: &[StreamRow]| {
            targets(&meta, &[], rows)
                .into_iter()
                .find(|t| t.name.contains("stream 64 KiB"))
                .map(|t| t.ratio)
        };
        // memcpy is 1 GB/s in the floor: peer → host alone makes no row,
        // and beside host → peer it is not the one taken.
        assert_eq!(memcpy(&[shm_stream("p2h", 9e8)]), None);
        assert_eq!(memcpy(&[shm_stream("p2h", 9e8), shm_stream("h2p", 8e8)]), Some(0.8));
    }

    /// A ping-pong row of the spin ring: p50 `p50` ns, and with blocks
    /// their repeat interval `lo … hi` (and whether they disagree).
    pub(super) fn shm_row(size: u64, p50: u64, blocks: Option<(f64, f64, bool)>) -> PingPongRow {
        PingPongRow {
            link: "shm".into(),
            protocol: None,
            size_bytes: size,
            channels: None,
            factors: BTreeMap::new(),
            status: "ok",
            reason: None,
            max_bytes: None,
            rtt_ns: CellStats::from_raw(&[p50; 11]),
            msgs_per_s: None,
            bytes_per_s: None,
            p50_over_floor: None,
            tx_busy: None,
            adaptive: None,
            common_window: None,
            disturbance: None,
            cut: None,
            replicates: blocks.map(|(lo, hi, disagree)| ReplicatesView {
                blocks: 3,
                used: 3,
                metric: "p50_ns",
                values: vec![lo, p50 as f64, hi],
                center: p50 as f64,
                lo: Some(lo),
                hi: Some(hi),
                rel_half_width: Some((hi / p50 as f64) - 1.0),
                spread: if disagree { 1.5 } else { 1.05 },
                disagree,
                too_few_blocks: false,
                wide: false,
                interval_note: None,
                states: None,
                history: None,
                pooled: None,
            }),
            timed_batch: None,
            resolution_ns: None,
            state: None,
        }
    }

    /// Issue #15 item 9: the two-line targets are decided on the
    /// interval, not the point: the same point ratio (1.15 at 64 B) is met,
    /// not shown or not met as the interval says.
    #[test]
    fn the_two_line_targets_are_decided_on_the_replicate_interval() {
        let two = 200.0;
        let at64 = |lo, hi| {
            let t = shm_two_line_targets(two, None, &[shm_row(64, 230, Some((lo, hi, false)))]);
            assert_eq!(t.len(), 1);
            assert_eq!(t[0].name, "shm (spin) 64 B round trip ÷ two-line round trip");
            assert!((t[0].ratio - 1.15).abs() < 1e-12);
            t[0].verdict
        };
        assert_eq!(at64(220.0, 238.0), Verdict::Met, "1.10 … 1.19 ≤ 1.2");
        assert_eq!(at64(220.0, 250.0), Verdict::NotShown, "1.10 … 1.25 crosses 1.2");
        // Wholly past the bound: not met.
        let past = [shm_row(64, 260, Some((250.0, 270.0, false)))];
        let t = shm_two_line_targets(two, None, &past);
        assert_eq!(t[0].verdict, Verdict::NotMet);
        assert_eq!(t[0].why, None);
        // ... and out of reach when the floor's own slot is past the bound
        // too (250 ns = 1.25× the two-line trip), with the measurements.
        let t = shm_two_line_targets(two, Some(250.0), &past);
        assert_eq!(t[0].verdict, Verdict::OutOfReach);
        let why = t[0].why.as_deref().unwrap();
        assert!(why.contains("250 ns") && why.contains("1.25×") && why.contains("200 ns"), "{why}");
        // A slot within the bound changes nothing.
        assert_eq!(shm_two_line_targets(two, Some(230.0), &past)[0].verdict, Verdict::NotMet);
        // One block or a marked cell: nothing to decide on, and why.
        for (row, why) in [
            (shm_row(64, 230, None), "one block"),
            (shm_row(64, 230, Some((220.0, 238.0, true))), "blocks disagree"),
        ] {
            let t = shm_two_line_targets(two, None, &[row]);
            assert_eq!(t[0].verdict, Verdict::NotShown);
            assert!(t[0].why.as_deref().unwrap().contains(why), "{:?}", t[0].why);
            assert_eq!((t[0].ratio_ci95_lo, t[0].ratio_ci95_hi), (None, None));
        }
    }

    /// Issue #28 item 5: a cell with two usable blocks has no interval, so
    /// its target is "not shown" saying so — even where the point ratio
    /// (1.15) and the 3-block interval of the same figures would be met.
    #[test]
    fn a_cell_with_too_few_agreeing_blocks_is_not_shown() {
        let mut row = shm_row(64, 230, None);
        row.replicates = ReplicatesView::of(3, 2, "p50_ns", vec![229.0, 231.0]);
        let t = shm_two_line_targets(200.0, None, &[row]);
        assert_eq!(t[0].verdict, Verdict::NotShown);
        assert_eq!(
            t[0].why.as_deref(),
            Some(
                "too few agreeing blocks: 2 of 3 usable: no interval, marked (!), decided on nothing"
            )
        );
        assert_eq!((t[0].ratio_ci95_lo, t[0].ratio_ci95_hi), (None, None));
        let mut row = shm_row(64, 230, None);
        row.replicates = ReplicatesView::of(3, 3, "p50_ns", vec![229.0, 230.0, 231.0]);
        assert_eq!(shm_two_line_targets(200.0, None, &[row])[0].verdict, Verdict::Met);
    }

    #[test]
    fn the_one_line_target_is_the_worst_size_that_fits_a_line() {
        let two = 200.0;
        // 1 B and 32 B within 1.1; 56 B fits, and is past it; 64 B does not
        // fit and has its own row.
        let rows = [
            shm_row(1, 205, Some((200.0, 210.0, false))),
            shm_row(32, 210, Some((205.0, 215.0, false))),
            shm_row(64, 230, Some((225.0, 235.0, false))),
        ];
        let t = shm_two_line_targets(two, None, &rows);
        assert_eq!(t.len(), 2);
        assert!(t[1].name.starts_with("shm (spin) one-line round trips (≤ 56 B)"), "{}", t[1].name);
        assert_eq!(t[1].verdict, Verdict::Met);
        assert!((t[1].ratio - 1.05).abs() < 1e-12, "the worst met size, 32 B");
        assert!(t[1].name.ends_with("worst size 32 B"), "the row names it: {}", t[1].name);
        let mut more = rows.to_vec();
        more.push(shm_row(56, 240, Some((235.0, 245.0, false))));
        let t = shm_two_line_targets(two, None, &more);
        assert_eq!((t[1].verdict, t[1].ratio), (Verdict::NotMet, 1.2));
        // A size measured in one block makes the whole row not shown.
        let mut one = rows.to_vec();
        one.push(shm_row(8, 202, None));
        assert_eq!(shm_two_line_targets(two, None, &one)[1].verdict, Verdict::NotShown);
    }

    #[test]
    fn the_memcpy_target_is_decided_on_the_streams_interval() {
        let mut r = shm_stream("h2p", 8e8);
        r.replicates = Some(ReplicatesView {
            blocks: 3,
            used: 3,
            metric: "bytes_per_s",
            values: vec![7.5e8, 8e8, 8.5e8],
            center: 8e8,
            lo: Some(7.5e8),
            hi: Some(8.5e8),
            rel_half_width: Some(0.0625),
            spread: 1.13,
            disagree: false,
            too_few_blocks: false,
            wide: false,
            interval_note: None,
            states: None,
            history: None,
            pooled: None,
        });
        let f = Figure::of(8e8, &r.replicates, false);
        let t = decided("x", "≥ 0.7", Side::AtLeast(0.7), &f, 1e9);
        assert_eq!(
            (t.verdict, t.ratio_ci95_lo, t.ratio_ci95_hi),
            (Verdict::Met, Some(0.75), Some(0.85))
        );
        let t = decided("x", "≥ 0.7", Side::AtLeast(0.9), &f, 1e9);
        assert_eq!(t.verdict, Verdict::NotMet);
        let t = decided("x", "≥ 0.7", Side::AtLeast(0.8), &f, 1e9);
        assert_eq!(t.verdict, Verdict::NotShown);
    }
}
