//! Ping-pong: the echo loop, each echo checked byte for byte, timed one
//! round trip or one batch of round trips per pair of clock reads.

use super::*;

/// The ping-pong loop: `size`-byte messages echoed one at a time, each
/// verified byte for byte. One body serves single-link cells and each
/// channel of a multi-channel cell (`channels.rs`); what is kept of each
/// round trip is up to the caller's `each(t0, t1)`, called after the echo is
/// verified with the clock reads before the send and after the reply.
pub(crate) struct Echoer {
    size: usize,
    tx: Vec<u8>,
    rx: Vec<u8>,
    zero_copy: bool,
    /// Echoes completed in all phases, for the watchdog's progress counter.
    done: u64,
}

impl Echoer {
    pub(crate) fn new(link: &dyn Link, size: usize) -> Echoer {
        Echoer {
            size,
            tx: Payload::new(size).buffer(),
            rx: vec![0u8; size.max(RX_MIN)],
            zero_copy: link.caps().zero_copy,
            done: 0,
        }
    }

    /// One phase: asks the peer to echo `count` messages, then sends and
    /// checks each. No allocation inside.
    #[inline]
    pub(crate) fn phase(
        &mut self,
        link: &mut dyn Link,
        count: u32,
        progress: &AtomicU64,
        each: &mut impl FnMut(u64, u64),
    ) -> Result<(), CellError> {
        let size = self.size;
        let (tx, rx) = (&mut self.tx, &mut self.rx);
        link.send(&Op::Echo { size: size as u32, count }.encode())?;
        for seq in 0..u64::from(count) {
            Payload::stamp(tx, seq);
            let (t0, t1, same) = if self.zero_copy {
                let t0 = now_ns();
                link.send_with(size, rx, &mut |b| b.copy_from_slice(tx))?;
                let mut t1 = 0;
                let mut same = false;
                link.recv_with(size, rx, &mut |m| {
                    t1 = now_ns();
                    same = m == &tx[..];
                })?;
                (t0, t1, same)
            } else {
                let t0 = now_ns();
                link.send(tx)?;
                link.recv(rx, size)?;
                let t1 = now_ns();
                (t0, t1, rx[..size] == tx[..])
            };
            self.done += 1;
            progress.store(self.done, Ordering::Relaxed);
            if !same {
                let offset =
                    if self.zero_copy { 0 } else { first_difference(&rx[..size], tx).unwrap_or(0) };
                return Err(CellError::Corrupt { seq, size, offset });
            }
            each(t0, t1);
        }
        Ok(())
    }

    /// One phase timed in batches: `batch` round trips between two clock
    /// reads, each echo still checked byte for byte — inside the batch, so
    /// the check of a message (a few ns at the sizes that are batched) is
    /// part of the figure, as docs/method.md says. `each(ns, trips)` sees
    /// every batch (the last may be shorter). No allocation inside.
    pub(crate) fn batched(
        &mut self,
        link: &mut dyn Link,
        count: u32,
        batch: u32,
        progress: &AtomicU64,
        each: &mut impl FnMut(u64, u32),
    ) -> Result<(), CellError> {
        let size = self.size;
        let (tx, rx) = (&mut self.tx, &mut self.rx);
        link.send(&Op::Echo { size: size as u32, count }.encode())?;
        let mut seq = 0u64;
        while seq < u64::from(count) {
            let n = u64::from(batch.max(1)).min(u64::from(count) - seq);
            let t0 = now_ns();
            for s in seq..seq + n {
                Payload::stamp(tx, s);
                let same = if self.zero_copy {
                    link.send_with(size, rx, &mut |b| b.copy_from_slice(tx))?;
                    let mut same = false;
                    link.recv_with(size, rx, &mut |m| same = m == &tx[..])?;
                    same
                } else {
                    link.send(tx)?;
                    link.recv(rx, size)?;
                    rx[..size] == tx[..]
                };
                if !same {
                    let offset = if self.zero_copy {
                        0
                    } else {
                        first_difference(&rx[..size], tx).unwrap_or(0)
                    };
                    return Err(CellError::Corrupt { seq: s, size, offset });
                }
            }
            let t1 = now_ns();
            seq += n;
            self.done += n;
            progress.store(self.done, Ordering::Relaxed);
            each(t1.saturating_sub(t0), n as u32);
        }
        Ok(())
    }

    /// A phase whose round trips are only summed (probe, warm-up), ns.
    pub(crate) fn timed(
        &mut self,
        link: &mut dyn Link,
        count: u32,
        progress: &AtomicU64,
    ) -> Result<u64, CellError> {
        let mut sum = 0u64;
        self.phase(link, count, progress, &mut |t0, t1| sum += t1.saturating_sub(t0))?;
        Ok(sum)
    }
}

/// Ping-pong: `size`-byte messages echoed one at a time.
pub fn pingpong(
    link: &mut dyn Link,
    size: usize,
    budget: &Budget,
    progress: &AtomicU64,
) -> Result<CellData, CellError> {
    let mut echo = Echoer::new(link, size);
    let paced = Sizing::ONE_AT_A_TIME.run(budget, |n| echo.timed(link, n, progress))?;
    let batch = batch_for(paced.per_msg_ns, budget.clock_granule_ns);
    // Each round trip (each batch's mean round trip) into the histogram, and
    // into `raw` with --raw.
    let phase = |echo: &mut Echoer,
                 link: &mut dyn Link,
                 count: u32,
                 hist: &mut LatencyHistogram,
                 raw: &mut Vec<u64>| {
        let mut sum = 0u64;
        let mut keep = |ns: u64, trips: u32| {
            let rtt = (ns + u64::from(trips) / 2) / u64::from(trips);
            sum += ns;
            hist.record(rtt);
            if budget.raw {
                raw.push(rtt);
            }
        };
        if batch > 1 {
            echo.batched(link, count, batch, progress, &mut keep)?;
        } else {
            echo.phase(link, count, progress, &mut |t0, t1| keep(t1.saturating_sub(t0), 1))?;
        }
        Ok::<u64, CellError>(sum)
    };
    let measure = paced.measure.div_ceil(batch) * batch;
    let mut hist = LatencyHistogram::new();
    let samples = (measure / batch) as usize;
    let mut raw = Vec::with_capacity(if budget.raw { samples } else { 0 });
    let before = link.counters();
    let mut elapsed_ns = phase(&mut echo, link, measure, &mut hist, &mut raw)?;
    let mut messages = u64::from(measure);
    let mut adaptive = None;
    if let Some(target) = budget.ci_target {
        // Further phases of the same length, each appended to the same
        // histogram, until the median is pinned down or time is up. The
        // check runs between phases, never inside the timed loop.
        let mut phases = 1u32;
        let mut rel = median_ci_rel(&hist);
        let max_ns = budget.ci_max_time.as_nanos().min(u128::from(u64::MAX)) as u64;
        // NaN (no interval yet) keeps measuring.
        while (rel.is_nan() || rel > target) && elapsed_ns < max_ns {
            if budget.raw {
                raw.reserve(samples);
            }
            elapsed_ns += phase(&mut echo, link, measure, &mut hist, &mut raw)?;
            messages += u64::from(measure);
            phases += 1;
            rel = median_ci_rel(&hist);
        }
        adaptive = Some(icbench_model::Adaptive {
            target_rel: target,
            achieved_rel: rel,
            phases,
            reached: rel <= target,
        });
    }
    let counters = link.counters().since(before);
    Ok(CellData {
        messages,
        bytes: messages * size as u64,
        elapsed_ns,
        warmup_messages: paced.warmup_messages,
        latency: Some(hist),
        raw_ns: budget.raw.then_some(raw),
        window: None,
        counters,
        channels: None,
        adaptive,
        per_channel: Vec::new(),
        disturbance: None,
        cut_at_messages: if adaptive.is_none() { paced.capped } else { None },
        timed_batch: (batch > 1).then_some(batch),
        state: None,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use icbench_link::LinkSpec;
    use icbench_model::{CellOutcome, CellResult, Pattern};

    use super::super::batch_for;
    use crate::{CellSpec, ClockChecks, LinkRun, Observer};

    #[test]
    fn a_batch_spans_a_hundred_granules() {
        // A 130 ns round trip on a 10 ns clock: 8 trips (1 040 ns ≥ 1 000).
        assert_eq!(batch_for(130.0, 10.0), 8);
        // On a 1 ns clock one round trip spans 130 granules.
        assert_eq!(batch_for(130.0, 1.0), 1);
        // A 24 MHz counter and a 2 µs round trip: 3 (6 µs ≥ 4.17 µs).
        assert_eq!(batch_for(2_000.0, 1e9 / 24e6), 3);
        // Bounded, and no batches without a granule or a pace.
        assert_eq!(batch_for(1.0, 1e6), super::super::MAX_BATCH);
        for (trip, granule) in [(130.0, 0.0), (130.0, f64::NAN), (0.0, 10.0), (f64::NAN, 10.0)] {
            assert_eq!(batch_for(trip, granule), 1, "{trip} {granule}");
        }
    }

    #[derive(Default)]
    struct Seen(Vec<CellResult>);

    impl Observer for Seen {
        fn cell_finished(&mut self, result: &CellResult) {
            self.0.push(result.clone());
        }
    }

    /// On a 1 ns clock a pipe round trip is timed alone; on a clock said
    /// to step by a quarter of that round trip (as measured here: under
    /// qemu-user a pipe trip takes hundreds of µs, on a host a few) it is
    /// too short to time alone: the cell is timed in batches, says so, and
    /// keeps one sample per batch.
    #[test]
    fn a_coarse_clock_times_round_trips_in_batches() {
        static STOP: AtomicBool = AtomicBool::new(false);
        if let Some(why) = icbench_link::probe::unsupported("pipe") {
            eprintln!("SKIP pipe: {why}");
            return;
        }
        let mut cfg = crate::testing::thread_config(&STOP, Duration::from_millis(50));
        cfg.budget.raw = true;
        let spec = LinkSpec::parse("pipe").unwrap();
        let cell = [CellSpec::new(Pattern::PingPong, 64)];
        let mut measure = |granule_ns: f64| {
            cfg.budget.clock_granule_ns = granule_ns;
            let mut seen = Seen::default();
            let done = crate::run_link(&cfg, &spec, &cell, &mut ClockChecks::new(), &mut seen);
            assert_eq!(done, LinkRun::Completed);
            let CellOutcome::Measured(d) = seen.0.remove(0).outcome else { panic!("failed") };
            d
        };
        let d = measure(1.0);
        assert_eq!(d.timed_batch, None);
        assert_eq!(d.raw_ns.as_ref().unwrap().len() as u64, d.messages);
        let trip = d.latency.as_ref().unwrap().quantile_ns(0.5) as f64;

        let d = measure((trip / 4.0).max(2.0));
        let batch = u64::from(d.timed_batch.expect("timed in batches"));
        assert!(batch > 1, "{batch}");
        assert_eq!(d.messages % batch, 0, "whole batches: {} messages", d.messages);
        let raw = d.raw_ns.as_deref().unwrap();
        assert_eq!(raw.len() as u64, d.messages / batch, "one sample per batch");
        assert_eq!(d.latency.as_ref().unwrap().len(), d.messages / batch);
        // Each sample is a batch's mean: together they are the phase's time.
        let total: u64 = raw.iter().map(|&ns| ns * batch).sum();
        let slack = d.messages / batch * batch / 2 + 1;
        assert!(total.abs_diff(d.elapsed_ns) <= slack, "{total} vs {}", d.elapsed_ns);
    }
}
