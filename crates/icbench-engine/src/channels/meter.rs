//! One channel's count over the common window: the stop rule of a phase,
//! and the meter that counts each message by its completion time.

use std::time::Duration;

use icbench_model::{ChannelData, LatencyHistogram};

use super::nanos;
use crate::clock::now_ns;

/// When a channel's measured phase ends.
#[derive(Debug, Clone, Copy)]
pub(super) enum StopRule {
    /// At T1 (ns, monotonic): messages completed after it do not count.
    At(u64),
    /// After this many messages; all count.
    Messages(u64),
}

/// One channel's count over the common window.
pub(super) struct Meter {
    t0: u64,
    channel: u32,
    rule: StopRule,
    size: u64,
    /// Completions after this do not count (T1, or never).
    pub(super) end: u64,
    /// Messages sent in the measured phase so far.
    pub(super) base: u64,
    /// Messages counted, and the time of the last counted completion.
    counted: u64,
    last: u64,
    first: Option<u64>,
    /// When the channel started, relative to T0 (its first send, or its
    /// start time if it never sent).
    start_offset_ns: u64,
}

impl Meter {
    /// Waits out this channel's stagger (tests), then starts counting.
    pub(super) fn start(
        t0: u64,
        channel: u32,
        stagger: Duration,
        rule: StopRule,
        size: u64,
    ) -> Meter {
        let start = t0 + nanos(stagger) * u64::from(channel);
        loop {
            let now = now_ns();
            if now >= start {
                break;
            }
            std::thread::sleep(Duration::from_nanos(start - now));
        }
        let end = match rule {
            StopRule::At(t1) => t1,
            StopRule::Messages(_) => u64::MAX,
        };
        Meter {
            t0,
            channel,
            rule,
            size,
            end,
            base: 0,
            counted: 0,
            last: 0,
            first: None,
            start_offset_ns: now_ns() - t0,
        }
    }

    /// The next chunk's message count, or `None` when the stop rule holds
    /// (or `quit` says another channel failed).
    pub(super) fn next_chunk(&self, chunk: u32, quit: impl Fn() -> bool) -> Option<u32> {
        if quit() {
            return None;
        }
        match self.rule {
            StopRule::At(t1) => (now_ns() < t1).then_some(chunk),
            StopRule::Messages(total) => {
                let left = total - self.base;
                (left > 0).then(|| left.min(u64::from(chunk)) as u32)
            }
        }
    }

    #[inline]
    pub(super) fn first_send(&mut self, t: u64) {
        if self.first.is_none() {
            self.first = Some(t);
        }
    }

    #[inline]
    pub(super) fn count_to(&mut self, counted: u64, t: u64) {
        self.counted = counted;
        self.last = t;
    }

    /// The channel's data; `None` if it stopped because another quit
    /// before its stop rule held.
    pub(super) fn finish(self, latency: Option<LatencyHistogram>) -> Option<ChannelData> {
        let complete = match self.rule {
            StopRule::At(t1) => now_ns() >= t1,
            StopRule::Messages(total) => self.base >= total,
        };
        if !complete {
            return None;
        }
        // A channel whose thread was not scheduled before T1 (3 channels
        // on 2 CPUs under load) never started inside the window: it is
        // placed at the window's end, so start + active ≤ window holds.
        let start_offset_ns = match (self.first, self.rule) {
            (Some(f), _) => f - self.t0,
            (None, StopRule::At(t1)) => self.start_offset_ns.min(t1.saturating_sub(self.t0)),
            (None, StopRule::Messages(_)) => self.start_offset_ns,
        };
        Some(ChannelData {
            channel: self.channel,
            messages: self.counted,
            bytes: self.counted * self.size,
            start_offset_ns,
            active_ns: self.first.map_or(0, |f| self.last.saturating_sub(f)),
            latency: latency.filter(|h| !h.is_empty()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CI8: a channel whose thread first ran 1 s after T0, with T1 at
    /// T0 + 10 ms, reported a start offset past the window.
    #[test]
    fn a_channel_that_never_ran_inside_the_window_starts_at_its_end() {
        let t0 = now_ns() - 1_000_000_000;
        let m = Meter::start(t0, 0, Duration::ZERO, StopRule::At(t0 + 10_000_000), 64);
        let d = m.finish(None).expect("T1 is past: the channel is complete");
        assert_eq!((d.messages, d.active_ns, d.start_offset_ns), (0, 0, 10_000_000));
    }

    #[test]
    fn a_channel_that_sent_starts_at_its_first_send() {
        let t0 = now_ns() - 1_000_000_000;
        let mut m = Meter::start(t0, 0, Duration::ZERO, StopRule::At(t0 + 10_000_000), 64);
        m.first_send(t0 + 2_000);
        m.count_to(3, t0 + 9_000);
        let d = m.finish(None).unwrap();
        assert_eq!((d.messages, d.bytes, d.start_offset_ns, d.active_ns), (3, 192, 2_000, 7_000));
    }
}
