//! icbench's own ring held against the middleware an engineer would pick
//! instead (issue #20): iceoryx2, measured in the same run.
//!
//! - shm 64 B round trip ÷ iceoryx2 64 B round trip, with the same wait
//!   strategy (the spin ring against iceoryx2 polling; the futex ring
//!   against iceoryx2's event listener, when both were measured): ≤ 1.0.
//! - shm stream 64 KiB host → peer ÷ iceoryx2's: ≥ 1.0.
//!
//! Decided on the two cells' replicate blocks (Welch's t on the logs,
//! `icbench_stats::compare_blocks`, the comparison `icbench compare`
//! uses): met when the ratio's whole 95 % interval is on the bound's side,
//! not met when wholly past it, not shown otherwise — and not shown when
//! either cell is marked or has fewer than two blocks.

use super::{Target, Verdict};
use crate::view::{PingPongRow, StreamRow};

/// The two spellings of each wait strategy, and how a row names them.
const PAIRS: &[(&str, &[&str], &[&str])] = &[
    ("spin", &["shm", "shm?wait=spin"], &["iceoryx2", "iceoryx2?wait=spin"]),
    ("blocking: futex ÷ event", &["shm?wait=futex"], &["iceoryx2?wait=event"]),
];

/// Why a cell cannot take part, or its block figures.
fn blocks(
    replicates: &Option<crate::replicates::ReplicatesView>,
    disturbed: bool,
) -> Result<Vec<f64>, &'static str> {
    match replicates {
        None => Err("a cell measured in one block has no interval (--replicates 3 gives one)"),
        Some(r) if r.disagree => Err("a cell's blocks disagree: marked (!), decided on nothing"),
        Some(_) if disturbed => Err("a cell is disturbed: marked (!), decided on nothing"),
        Some(r) => Ok(r.values.clone()),
    }
}

/// `a ÷ b` decided on both cells' blocks against `bound` on `at_most`'s side.
fn versus(
    name: String,
    bound: &'static str,
    at_most: bool,
    a: (f64, Result<Vec<f64>, &'static str>),
    b: (f64, Result<Vec<f64>, &'static str>),
) -> Target {
    let ratio = a.0 / b.0;
    let cmp = match (&a.1, &b.1) {
        (Ok(va), Ok(vb)) => icbench_stats::compare_blocks(vb, va)
            .ok_or("too few distinct blocks to give the ratio an interval"),
        (Err(why), _) | (_, Err(why)) => Err(*why),
    };
    let (verdict, lo, hi, why) = match cmp {
        Ok(c) => {
            let verdict = match at_most {
                true if c.hi <= 1.0 => Verdict::Met,
                true if c.lo > 1.0 => Verdict::NotMet,
                false if c.lo >= 1.0 => Verdict::Met,
                false if c.hi < 1.0 => Verdict::NotMet,
                _ => Verdict::NotShown,
            };
            (verdict, Some(c.lo), Some(c.hi), None)
        }
        Err(why) => (Verdict::NotShown, None, None, Some(why.to_string())),
    };
    Target {
        name,
        bound,
        ratio,
        ratio_ci95_lo: lo,
        ratio_ci95_hi: hi,
        met: verdict == Verdict::Met,
        verdict,
        why,
    }
}

fn pingpong_cell<'a>(
    rows: &'a [PingPongRow],
    links: &[&str],
    size: u64,
) -> Option<&'a PingPongRow> {
    rows.iter().find(|r| {
        r.protocol.is_none()
            && r.channels.is_none_or(|n| n == 1)
            && links.contains(&r.link.as_str())
            && r.size_bytes == size
            && r.status == "ok"
            && r.rtt_ns.is_some()
    })
}

fn stream_cell<'a>(rows: &'a [StreamRow], links: &[&str]) -> Option<(&'a StreamRow, f64)> {
    let r = rows.iter().find(|r| {
        r.protocol.is_none()
            && r.channels.is_none_or(|n| n == 1)
            && links.contains(&r.link.as_str())
            && r.size_bytes == 64 << 10
            && r.direction == "h2p"
            && r.status == "ok"
    })?;
    Some((r, r.bytes_per_s?))
}

/// The rows for whichever pairs the run measured.
pub(super) fn targets(pingpong: &[PingPongRow], stream: &[StreamRow]) -> Vec<Target> {
    let mut out = Vec::new();
    for (wait, shm, iox) in PAIRS {
        let figure = |r: &PingPongRow| {
            let p50 = r.rtt_ns.as_ref().map_or(f64::NAN, |s| s.summary.p50);
            let disturbed = r.disturbance.as_ref().is_some_and(|d| d.disturbed);
            (r.replicates.as_ref().map_or(p50, |v| v.center), blocks(&r.replicates, disturbed))
        };
        if let (Some(a), Some(b)) =
            (pingpong_cell(pingpong, shm, 64), pingpong_cell(pingpong, iox, 64))
        {
            out.push(versus(
                format!("shm 64 B round trip ÷ iceoryx2 64 B round trip ({wait})"),
                "≤ 1.0",
                true,
                figure(a),
                figure(b),
            ));
        }
    }
    let (spin_shm, spin_iox) = (PAIRS[0].1, PAIRS[0].2);
    if let (Some((a, fa)), Some((b, fb))) =
        (stream_cell(stream, spin_shm), stream_cell(stream, spin_iox))
    {
        let figure = |r: &StreamRow, f: f64| {
            let disturbed = r.disturbance.as_ref().is_some_and(|d| d.disturbed);
            (r.replicates.as_ref().map_or(f, |v| v.center), blocks(&r.replicates, disturbed))
        };
        out.push(versus(
            "shm stream 64 KiB ÷ iceoryx2 stream 64 KiB (spin, host → peer)".to_string(),
            "≥ 1.0",
            false,
            figure(a, fa),
            figure(b, fb),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(center: f64, blocks: &[f64]) -> (f64, Result<Vec<f64>, &'static str>) {
        (center, Ok(blocks.to_vec()))
    }

    #[test]
    fn a_round_trip_ratio_is_decided_on_both_cells_blocks() {
        // shm clearly faster: 200 ns against 400 ns, tight blocks.
        let t = versus(
            "x".into(),
            "≤ 1.0",
            true,
            fig(200.0, &[198.0, 200.0, 202.0]),
            fig(400.0, &[396.0, 400.0, 404.0]),
        );
        assert_eq!(t.verdict, Verdict::Met);
        assert!((t.ratio - 0.5).abs() < 1e-9);
        let (lo, hi) = (t.ratio_ci95_lo.unwrap(), t.ratio_ci95_hi.unwrap());
        assert!(lo < 0.5 && 0.5 < hi && hi < 1.0, "{lo} {hi}");
        // shm clearly slower.
        let t = versus(
            "x".into(),
            "≤ 1.0",
            true,
            fig(400.0, &[396.0, 400.0, 404.0]),
            fig(200.0, &[198.0, 200.0, 202.0]),
        );
        assert_eq!(t.verdict, Verdict::NotMet);
        // Within each other's noise: not shown, whatever the point says.
        let t = versus(
            "x".into(),
            "≤ 1.0",
            true,
            fig(200.0, &[150.0, 200.0, 260.0]),
            fig(205.0, &[160.0, 205.0, 250.0]),
        );
        assert_eq!(t.verdict, Verdict::NotShown);
        assert!(t.ratio < 1.0);
    }

    #[test]
    fn a_throughput_ratio_wants_the_ring_at_least_as_fast() {
        let t = versus(
            "x".into(),
            "≥ 1.0",
            false,
            fig(8e9, &[7.9e9, 8e9, 8.1e9]),
            fig(4e9, &[3.9e9, 4e9, 4.1e9]),
        );
        assert_eq!(t.verdict, Verdict::Met);
        let t = versus(
            "x".into(),
            "≥ 1.0",
            false,
            fig(2e9, &[1.9e9, 2e9, 2.1e9]),
            fig(4e9, &[3.9e9, 4e9, 4.1e9]),
        );
        assert_eq!(t.verdict, Verdict::NotMet);
    }

    #[test]
    fn a_marked_or_single_block_cell_decides_nothing() {
        let t = versus(
            "x".into(),
            "≤ 1.0",
            true,
            (200.0, Err("a cell is disturbed: marked (!), decided on nothing")),
            fig(400.0, &[396.0, 400.0, 404.0]),
        );
        assert_eq!(t.verdict, Verdict::NotShown);
        assert!(t.why.unwrap().contains("disturbed"));
        assert!(blocks(&None, false).unwrap_err().contains("one block"));
    }
}
