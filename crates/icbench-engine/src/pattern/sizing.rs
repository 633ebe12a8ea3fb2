//! How a cell learns its link's pace: a probe, a warm-up, and the count
//! that fills the cell time.

use super::*;

/// A link's pace, ns per message, from a probe run as `groups` timed
/// phases of `per_group` messages: the median group's. A single hiccup in
/// one whole-probe sum (a preemption, a page fault) could make a cell
/// measure a thousandth of what its time allows: a 60 ms oneway cell once
/// counted 50 messages after a 16-message probe that had caught one, against
/// 103 281 in the other direction. `phase(count)` returns its elapsed ns.
pub(crate) fn probe_pace<E>(
    groups: usize,
    per_group: u32,
    mut phase: impl FnMut(u32) -> Result<u64, E>,
) -> Result<f64, E> {
    const MAX_GROUPS: usize = 8;
    let groups = groups.clamp(1, MAX_GROUPS);
    let mut ns = [0u64; MAX_GROUPS];
    for t in &mut ns[..groups] {
        *t = phase(per_group)?;
    }
    let ns = &mut ns[..groups];
    ns.sort_unstable();
    Ok(ns[groups / 2] as f64 / f64::from(per_group.max(1)))
}

/// The pace again after the warm-up, which is some hundred times longer
/// than the probe: the faster of the two. A probe that a cold start (fresh
/// ring pages, a first wake-up) slowed in every group would otherwise cut
/// the cell short: shm 64 B stream cells measured 0.1–0.3 ms of a 200 ms
/// cell time (2026-11-22). Hiccups only ever slow a phase, so the smaller
/// estimate is the better one.
pub(crate) fn refine_pace(probe_per_ns: f64, warm_ns: u64, warm: u32) -> f64 {
    if warm == 0 {
        return probe_per_ns;
    }
    probe_per_ns.min(warm_ns as f64 / f64::from(warm))
}

/// The largest stream window (messages in flight): a cell measures at
/// least four windows after probing with six, so a window of 2³¹ overflowed
/// the probe's count and asked for more than the 5·10⁷ messages a stream
/// cell measures at most (a panic, issue #30 item 2), and one of 2·10⁷ made
/// every cell outlive its timeout on a system-call link. 65 536 in flight is
/// past every link's own buffer, where a larger window measures nothing
/// more, and keeps the least count (262 144 messages) within seconds on the
/// slowest local link.
pub const MAX_STREAM_WINDOW: u32 = 65_536;

/// How a cell learns its link's pace before it measures: a probe of
/// `groups` timed phases of `per_group` messages ([`probe_pace`]), then a
/// warm-up of a fifth of the count the probe suggests, whose pace corrects
/// the probe's ([`refine_pace`]); the count is bounded by `min` and `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sizing {
    pub groups: usize,
    pub per_group: u32,
    pub min: u64,
    pub max: u64,
}

/// What [`Sizing::run`] learnt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Paced {
    /// Messages of the probe and the warm-up, discarded.
    pub warmup_messages: u64,
    /// Messages to measure to fill the cell time.
    pub measure: u32,
    /// The pace, ns a message.
    pub per_msg_ns: f64,
    /// The count was cut to the sizing's `max`: the cell time asked for
    /// more messages (issue #15: a 2 s shm cell once measured 0.8 s and
    /// said nothing). The cell reports it as `cut_at_messages`.
    pub capped: Option<u64>,
}

impl Sizing {
    /// Ping-pong and oneway: [`PROBE_MESSAGES`] in 4 groups, at least 50
    /// measured.
    pub(crate) const ONE_AT_A_TIME: Sizing =
        Sizing { groups: 4, per_group: PROBE_MESSAGES / 4, min: 50, max: 5_000_000 };

    /// Stream: 3 groups of two windows, at least four windows measured.
    /// `window` is at most [`MAX_STREAM_WINDOW`] (the CLI refuses more).
    pub(crate) fn stream(window: u32) -> Sizing {
        Sizing { groups: 3, per_group: window * 2, min: u64::from(window) * 4, max: 50_000_000 }
    }

    /// The probe and the warm-up, through `phase(count)`, which runs
    /// `count` messages and returns their time, ns.
    pub(crate) fn run<E>(
        self,
        budget: &Budget,
        mut phase: impl FnMut(u32) -> Result<u64, E>,
    ) -> Result<Paced, E> {
        let probe = probe_pace(self.groups, self.per_group, &mut phase)?;
        let (warm, _) = counts(probe, budget, self.min, self.max);
        let per_msg_ns = refine_pace(probe, phase(warm)?, warm);
        let (_, measure) = counts(per_msg_ns, budget, self.min, self.max);
        let probed = self.groups as u64 * u64::from(self.per_group);
        let wanted = budget.cell_time.as_nanos() as f64 / per_msg_ns.max(1.0);
        let capped =
            (u64::from(measure) == self.max && wanted > self.max as f64).then_some(self.max);
        Ok(Paced { warmup_messages: probed + u64::from(warm), measure, per_msg_ns, capped })
    }
}

pub(crate) fn counts(per_msg_ns: f64, budget: &Budget, min: u64, max: u64) -> (u32, u32) {
    let per = per_msg_ns.max(1.0);
    let measure = (budget.cell_time.as_nanos() as f64 / per) as u64;
    let measure = measure.clamp(min, max);
    let warm = (measure / 5).clamp(min.min(16), 100_000);
    (warm as u32, measure as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_hiccup_in_the_probe_does_not_set_the_pace() {
        // Four groups of 4 messages: 1 ms caught by the first, 16 ns a group
        // otherwise. The whole-probe mean would say 62.5 µs a message.
        let mut times = [1_000_000u64, 16, 16, 16].into_iter();
        let per = probe_pace::<()>(4, 4, |n| {
            assert_eq!(n, 4);
            Ok(times.next().unwrap())
        });
        assert_eq!(per, Ok(4.0));
        // Sorted 10, 20, 30: the middle one.
        let mut times = [30u64, 10, 20].into_iter();
        assert_eq!(probe_pace::<()>(3, 10, |_| Ok(times.next().unwrap())), Ok(2.0));
        // A failing phase fails the probe.
        assert_eq!(probe_pace(4, 4, |_| Err("peer closed")), Err("peer closed"));
    }

    #[test]
    fn the_warm_up_corrects_a_probe_slowed_throughout() {
        // A cold probe said 1.5 µs a message; 20 000 warm-up messages took
        // 1 ms: 50 ns a message.
        assert_eq!(refine_pace(1_500.0, 1_000_000, 20_000), 50.0);
        // A warm-up slower than the probe changes nothing.
        assert_eq!(refine_pace(50.0, 2_000_000, 20_000), 50.0);
        assert_eq!(refine_pace(50.0, 0, 0), 50.0);
    }

    #[test]
    fn sizing_probes_warms_and_sizes_from_the_faster_pace() {
        // A cold probe: 1.5 µs a message in every group; the warm-up runs
        // at 50 ns a message. 10 ms cells.
        let budget = crate::testing::budget(Duration::from_millis(10));
        let mut calls = Vec::new();
        let paced = Sizing::ONE_AT_A_TIME
            .run::<()>(&budget, |n| {
                calls.push(n);
                Ok(u64::from(n) * if calls.len() <= 4 { 1_500 } else { 50 })
            })
            .unwrap();
        // 10 ms at 1.5 µs: 6 666 to measure, a fifth of it as warm-up.
        assert_eq!(calls, [4, 4, 4, 4, 1_333]);
        assert_eq!(paced.per_msg_ns, 50.0);
        assert_eq!(paced.measure, 200_000);
        assert_eq!(paced.warmup_messages, 16 + 1_333);
        // The cell time was filled: nothing cut.
        assert_eq!(paced.capped, None);
        let s = Sizing::stream(32);
        assert_eq!((s.groups, s.per_group, s.min), (3, 64, 128));
    }

    #[test]
    fn a_count_cut_to_the_cap_says_so() {
        // 2 s at 50 ns a message would be 40 000 000 round trips; the cap
        // is 5 000 000 (0.25 s of measuring).
        let budget = crate::testing::budget(Duration::from_secs(2));
        let paced = Sizing::ONE_AT_A_TIME.run::<()>(&budget, |n| Ok(u64::from(n) * 50)).unwrap();
        assert_eq!((paced.measure, paced.capped), (5_000_000, Some(5_000_000)));
        // Exactly at the cap is not a cut.
        let exact = crate::testing::budget(Duration::from_millis(250));
        let paced = Sizing::ONE_AT_A_TIME.run::<()>(&exact, |n| Ok(u64::from(n) * 50)).unwrap();
        assert_eq!((paced.measure, paced.capped), (5_000_000, None));
    }

    #[test]
    fn counts_follow_the_pace_within_their_bounds() {
        let budget = crate::testing::budget(Duration::from_millis(10));
        // 10 ms at 1 µs a message: 10 000 measured, a fifth as warm-up.
        assert_eq!(counts(1_000.0, &budget, 50, 5_000_000), (2_000, 10_000));
        // A pace slower than the cell: the minimum, and as much warm-up.
        assert_eq!(counts(1e9, &budget, 50, 5_000_000), (16, 50));
    }
}
