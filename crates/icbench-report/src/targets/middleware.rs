//! icbench's own ring held against the middleware an engineer would pick
//! instead (issue #20): iceoryx2, measured in the same run.
//!
//! - shm 64 B round trip ÷ iceoryx2 64 B round trip, with the same wait
//!   strategy (the spin ring against iceoryx2 polling; the futex ring
//!   against iceoryx2's event listener, when both were measured): ≤ 1.0.
//! - shm stream 64 KiB host → peer ÷ iceoryx2's: ≥ 1.0.
//!
//! iceoryx2 (publish–subscribe, the default service) builds each message in
//! its loaned sample and reads it in place, so its fair partner is the ring
//! that does the same, `shm?copy=zero`: when the run measured that variant
//! it is the one taken, else the default copying ring (issue #20, "the fair
//! partner"); the row's name says which.
//!
//! Decided on the two cells' replicate blocks (Welch's t on the logs,
//! `icbench_stats::compare_blocks`, the comparison `icbench compare`
//! uses): met when the ratio's whole 95 % interval is on the bound's side,
//! not met when wholly past it, not shown otherwise — and not shown when
//! either cell is marked or has fewer than two blocks.

use super::{Target, Verdict};
use crate::rows::{PingPongRow, StreamRow};

/// One wait strategy's pair: its name in a row, the zero-copy ring's
/// spellings (taken first), the copying ring's, iceoryx2's (publish–subscribe).
struct Pair {
    wait: &'static str,
    zero: &'static [&'static str],
    copy: &'static [&'static str],
    iox: &'static [&'static str],
}

/// Every spelling a run can store (a spec's parameters sorted by name).
const PAIRS: &[Pair] = &[
    Pair {
        wait: "spin",
        zero: &["shm?copy=zero", "shm?copy=zero&wait=spin"],
        copy: &["shm", "shm?wait=spin", "shm?copy=copy", "shm?copy=copy&wait=spin"],
        iox: &[
            "iceoryx2",
            "iceoryx2?wait=spin",
            "iceoryx2?service=pubsub",
            "iceoryx2?service=pubsub&wait=spin",
        ],
    },
    Pair {
        wait: "blocking: futex ÷ event",
        zero: &["shm?copy=zero&wait=futex"],
        copy: &["shm?wait=futex", "shm?copy=copy&wait=futex"],
        iox: &["iceoryx2?wait=event", "iceoryx2?service=pubsub&wait=event"],
    },
];

/// The ring's side of a pair: the zero-copy cell when there is one.
fn ring<R>(find: impl Fn(&[&str]) -> Option<R>, pair: &Pair) -> Option<(R, &'static str)> {
    find(pair.zero).map(|r| (r, "shm?copy=zero")).or_else(|| find(pair.copy).map(|r| (r, "shm")))
}

/// Why a cell cannot take part, or its block figures.
fn blocks(
    replicates: &Option<crate::replicates::ReplicatesView>,
    disturbed: bool,
) -> Result<Vec<f64>, &'static str> {
    match replicates {
        None => Err("a cell measured in one block has no interval (--replicates 3 gives one)"),
        Some(r) if r.too_few_blocks => Err("a cell has too few agreeing blocks (fewer than 3 \
                                            usable): marked (!), decided on nothing"),
        Some(r) if r.disagree => Err("a cell's blocks disagree: marked (!), decided on nothing"),
        Some(r) if r.wide => Err("a cell's repeat run may land beyond ×/÷ 2 (its link's blocks \
                                  or its host's runs spread that much): marked (!), decided on \
                                  nothing"),
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
    for pair in PAIRS {
        let figure = |r: &PingPongRow| {
            let p50 = r.rtt_ns.as_ref().map_or(f64::NAN, |s| s.summary.p50);
            let disturbed = r.disturbance.as_ref().is_some_and(|d| d.disturbed);
            (r.replicates.as_ref().map_or(p50, |v| v.center), blocks(&r.replicates, disturbed))
        };
        let shm = ring(|links| pingpong_cell(pingpong, links, 64), pair);
        if let (Some((a, name)), Some(b)) = (shm, pingpong_cell(pingpong, pair.iox, 64)) {
            out.push(versus(
                format!("{name} 64 B round trip ÷ iceoryx2 64 B round trip ({})", pair.wait),
                "≤ 1.0",
                true,
                figure(a),
                figure(b),
            ));
        }
    }
    let spin = &PAIRS[0];
    if let (Some(((a, fa), name)), Some((b, fb))) =
        (ring(|links| stream_cell(stream, links), spin), stream_cell(stream, spin.iox))
    {
        let figure = |r: &StreamRow, f: f64| {
            let disturbed = r.disturbance.as_ref().is_some_and(|d| d.disturbed);
            (r.replicates.as_ref().map_or(f, |v| v.center), blocks(&r.replicates, disturbed))
        };
        out.push(versus(
            format!("{name} stream 64 KiB ÷ iceoryx2 stream 64 KiB (spin, host → peer)"),
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

    fn pingpong(link: &str, p50: u64) -> PingPongRow {
        let lo_hi = Some((p50 as f64 * 0.99, p50 as f64 * 1.01, false));
        PingPongRow { link: link.into(), ..crate::targets::tests::shm_row(64, p50, lo_hi) }
    }

    fn stream(link: &str, bytes_per_s: f64) -> StreamRow {
        StreamRow { link: link.into(), ..crate::targets::tests::shm_stream("h2p", bytes_per_s) }
    }

    /// Known answers: iceoryx2 is paired with `shm?copy=zero` when the run
    /// measured it, with the copying ring otherwise; request-response
    /// cells are not iceoryx2's side of a pair.
    #[test]
    fn iceoryx2_is_held_against_the_zero_copy_ring_when_it_was_measured() {
        let pp = [pingpong("shm", 200), pingpong("iceoryx2", 1000)];
        let t = targets(&pp, &[]);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].name, "shm 64 B round trip ÷ iceoryx2 64 B round trip (spin)");
        assert!((t[0].ratio - 0.2).abs() < 1e-9, "{}", t[0].ratio);
        let pp = [
            pingpong("shm", 200),
            pingpong("shm?copy=zero", 250),
            pingpong("iceoryx2?service=reqres", 400),
            pingpong("iceoryx2", 1000),
            pingpong("shm?copy=zero&wait=futex", 50_000),
            pingpong("iceoryx2?wait=event", 100_000),
        ];
        let t = targets(&pp, &[]);
        let names: Vec<_> = t.iter().map(|t| (t.name.as_str(), t.ratio)).collect();
        assert_eq!(
            names,
            [
                ("shm?copy=zero 64 B round trip ÷ iceoryx2 64 B round trip (spin)", 0.25),
                (
                    "shm?copy=zero 64 B round trip ÷ iceoryx2 64 B round trip \
                     (blocking: futex ÷ event)",
                    0.5
                ),
            ]
        );
        assert!(t.iter().all(|t| t.verdict == Verdict::Met), "{t:?}");
        // Stream: the zero-copy ring at 6 GB/s against iceoryx2's 12 GB/s
        // is not met, even beside a copying ring at 13 GB/s.
        let st = [stream("shm", 13e9), stream("shm?copy=zero", 6e9), stream("iceoryx2", 12e9)];
        let t = targets(&[], &st);
        assert_eq!(t.len(), 1);
        assert_eq!(
            t[0].name,
            "shm?copy=zero stream 64 KiB ÷ iceoryx2 stream 64 KiB (spin, host → peer)"
        );
        assert!((t[0].ratio - 0.5).abs() < 1e-9);
        // Only request-response measured: no pair.
        let pp = [pingpong("shm", 200), pingpong("iceoryx2?service=reqres", 400)];
        assert!(targets(&pp, &[]).is_empty());
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
