//! The floor: the physical limit between the two CPUs, measured in the same
//! run as the links, so every result can be shown as a ratio to it.
//!
//! - Cache-line round trip: two threads pinned to the pair bounce one
//!   128-byte-aligned word, each waiting for the other's value (the method of
//!   nviennot/core-to-core-latency, bench 1, without the RTT/2).
//! - Two-line round trip: the same with one line per direction, which is
//!   what any channel with separate directions (every ring, every socket
//!   pair) must at least pay. On the machine this was written on it costs
//!   about twice the one-line trip (275–295 ns against 127–134 ns).
//! - 64 B slot round trip: a 64 B message and its sequence word, one
//!   shared slot answered in place ([`Trip::Slot64`]): the least we know how
//!   to pay for a 64 B message each way. It shows, in every run, whether
//!   issue 2's "shm 64 B ≤ 1.5 × the cache-line round trip" is within reach
//!   of any message channel on the machine at hand; on this repo's VM it is
//!   not (2026-11-22: slot 250–330 ns against a 120–130 ns line).
//! - memcpy bandwidth: one thread on the host CPU copies 64 KiB blocks from
//!   and to rotating places in two 32 MiB regions. The regions are many times
//!   any core's private cache, so the copy runs at the bandwidth of the level
//!   the two cores share (L3 or DRAM) — the level every cross-core transfer
//!   goes through — not at the speed of a copy that stays in L1/L2.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use icbench_model::{Floor, FloorTail};

use crate::clock::now_ns;
use crate::cpu::{CpuError, pin_current_thread};

const ROUNDS_PER_SAMPLE: u64 = 100;
const SAMPLES: usize = 300;
const MEMCPY_BLOCK: usize = 64 << 10;
const MEMCPY_SPAN: usize = 32 << 20;
/// Give up on the cache-line measurement after this long (the peer CPU may
/// be busy with something else).
const FLOOR_BUDGET_NS: u64 = 5_000_000_000;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// What one floor round trip carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trip {
    /// One word on one shared line: each end waits for the other's value
    /// and answers on the same line.
    OneLine,
    /// One word each way, one line per direction: the host writes line A
    /// and waits on line B, the peer the reverse.
    TwoLines,
    /// A 64 B message and its sequence word in one shared 128-byte slot,
    /// answered in place: the peer reads the message and writes it back
    /// with the next sequence number, each end pushing the slot to the
    /// shared cache after publishing (x86 CLDEMOTE, as the `shm` ring
    /// does). 72 bytes span two 64-byte lines, and one slot for both
    /// directions is the cheapest arrangement we know: it is what no
    /// channel carrying 64 B messages with a sequence word can beat.
    Slot64,
}

/// Bytes of the message carried by [`Trip::Slot64`].
pub const SLOT_MESSAGE: usize = 64;

/// The words both ends touch: line 0 and line 1 for the one- and two-line
/// trips; for the slot, word 0 is the sequence number and words 1..=8 the
/// message (bytes 8..72: the message crosses from line 0 into line 1).
/// Line B starts 128 bytes in: x86's adjacent-line prefetcher pulls 64-byte
/// lines in pairs; ARM's Cortex-A7 and A53 lines are 64 bytes, so there it
/// is merely generous. AtomicU64 is lock-free on armv7 too (LDREXD/STREXD),
/// so the floor means the same there.
#[repr(C, align(128))]
struct Slots([AtomicU64; 32]);

impl Slots {
    const LINE_B: usize = 16;
    const MSG: std::ops::RangeInclusive<usize> = 1..=SLOT_MESSAGE / 8;

    /// The word each end writes to hand over, and the one it waits on.
    fn words(trip: Trip, host: bool) -> (usize, usize) {
        match (trip, host) {
            (Trip::TwoLines, true) => (0, Slots::LINE_B),
            (Trip::TwoLines, false) => (Slots::LINE_B, 0),
            _ => (0, 0),
        }
    }

    /// Publishes `seq` on word `w`, with the message first for the slot.
    #[inline]
    fn publish(&self, trip: Trip, w: usize, seq: u64, msg: &[u64; SLOT_MESSAGE / 8]) {
        if trip == Trip::Slot64 {
            for (i, m) in Slots::MSG.zip(msg) {
                self.0[i].store(*m, Ordering::Relaxed);
            }
        }
        self.0[w].store(seq, Ordering::Release);
        if trip == Trip::Slot64 {
            // SAFETY: the slot's 72 bytes lie within `self`.
            unsafe { icbench_link::hint::demote(self.0.as_ptr().cast(), 8 + SLOT_MESSAGE) };
        }
    }

    /// Whether word `w` holds `seq`; if so, and for the slot, reads the
    /// message into `msg`.
    #[inline]
    fn arrived(&self, trip: Trip, w: usize, seq: u64, msg: &mut [u64; SLOT_MESSAGE / 8]) -> bool {
        if self.0[w].load(Ordering::Acquire) != seq {
            return false;
        }
        if trip == Trip::Slot64 {
            for (i, m) in Slots::MSG.zip(msg.iter_mut()) {
                *m = self.0[i].load(Ordering::Relaxed);
            }
        }
        true
    }
}

/// Median round trip of `trip` between `host_cpu` (this thread is pinned
/// there) and `peer_cpu`, ns. `None` if the peer never answered. The slot's
/// echo is checked word for word after every sample.
pub fn trip_rtt_ns(host_cpu: u32, peer_cpu: u32, trip: Trip) -> Result<Option<f64>, CpuError> {
    trip_rtt_ns_of(host_cpu, peer_cpu, trip, SAMPLES, FLOOR_BUDGET_NS)
}

/// [`trip_rtt_ns`] over `samples` samples of [`ROUNDS_PER_SAMPLE`] round
/// trips each (after one for warm-up), given up after `budget_ns`.
pub(crate) fn trip_rtt_ns_of(
    host_cpu: u32,
    peer_cpu: u32,
    trip: Trip,
    samples: usize,
    budget_ns: u64,
) -> Result<Option<f64>, CpuError> {
    pin_current_thread(host_cpu)?;
    let slots = Arc::new(Slots(std::array::from_fn(|_| AtomicU64::new(0))));
    let quit = Arc::new(AtomicBool::new(false));
    let (s2, q2) = (slots.clone(), quit.clone());
    // Pinned before the host end starts spinning: under SCHED_FIFO a thread
    // still on the host CPU would never get to move (`cpu::spawn_pinned`).
    let pong = crate::cpu::spawn_pinned("icb-floor", peer_cpu, move || {
        let (tx, rx) = Slots::words(trip, false);
        let mut msg = [0u64; SLOT_MESSAGE / 8];
        let mut expect = 1u64;
        while !q2.load(Ordering::Relaxed) {
            if s2.arrived(trip, rx, expect, &mut msg) {
                s2.publish(trip, tx, expect + 1, &msg);
                expect += 2;
            } else {
                std::hint::spin_loop();
            }
        }
    })
    .expect("spawning the floor thread");
    let samples = host_samples(&slots, trip, samples, budget_ns);
    quit.store(true, Ordering::Relaxed);
    pong.join().expect("floor thread")?;
    Ok(samples.map(median))
}

/// The host side of [`trip_rtt_ns`]: per-round means of each sample after
/// the first (warm-up), or `None` past the budget.
fn host_samples(slots: &Slots, trip: Trip, n: usize, budget_ns: u64) -> Option<Vec<f64>> {
    let (tx, rx) = Slots::words(trip, true);
    let start = now_ns();
    let mut next = 1u64;
    let mut sent = [0u64; SLOT_MESSAGE / 8];
    let mut got = [0u64; SLOT_MESSAGE / 8];
    let mut samples = Vec::with_capacity(n + 1);
    for _ in 0..=n {
        let t0 = now_ns();
        for _ in 0..ROUNDS_PER_SAMPLE {
            sent[(next as usize / 2) % sent.len()] = next;
            slots.publish(trip, tx, next, &sent);
            let mut spins = 0u32;
            while !slots.arrived(trip, rx, next + 1, &mut got) {
                std::hint::spin_loop();
                spins = spins.wrapping_add(1);
                if spins.trailing_zeros() >= 10 && now_ns() - start > budget_ns {
                    return None;
                }
            }
            next += 2;
        }
        samples.push((now_ns() - t0) as f64 / ROUNDS_PER_SAMPLE as f64);
        // The peer echoes in place: a slot whose message is not the one
        // sent is a broken floor, not a fast one.
        assert!(trip != Trip::Slot64 || got == sent, "floor slot echo differs");
    }
    samples.remove(0);
    Some(samples)
}

/// Single-thread memcpy bandwidth on the calling thread, bytes per second.
pub fn memcpy_bytes_per_s() -> f64 {
    let src = vec![0x5au8; MEMCPY_SPAN];
    let mut dst = vec![0u8; MEMCPY_SPAN];
    let blocks = MEMCPY_SPAN / MEMCPY_BLOCK;
    let copies_per_sample = 64;
    let mut samples = Vec::with_capacity(101);
    let mut k = 0usize;
    for s in 0..=100 {
        let t0 = now_ns();
        for _ in 0..copies_per_sample {
            // Source and destination walk the regions at different strides,
            // so neither stays in a private cache.
            let from = (k % blocks) * MEMCPY_BLOCK;
            let to = ((k * 7 + 3) % blocks) * MEMCPY_BLOCK;
            k += 1;
            dst[to..to + MEMCPY_BLOCK].copy_from_slice(black_box(&src[from..from + MEMCPY_BLOCK]));
            black_box(&mut dst);
        }
        let dt = (now_ns() - t0).max(1);
        if s > 0 {
            samples.push((copies_per_sample * MEMCPY_BLOCK) as f64 * 1e9 / dt as f64);
        }
    }
    median(samples)
}

/// Measures the whole floor. The calling thread ends up pinned to `host_cpu`.
pub fn measure(host_cpu: u32, peer_cpu: u32) -> Result<Option<Floor>, CpuError> {
    let Some(rtt) = trip_rtt_ns(host_cpu, peer_cpu, Trip::OneLine)? else {
        return Ok(None);
    };
    let two = trip_rtt_ns(host_cpu, peer_cpu, Trip::TwoLines)?;
    let slot64 = trip_rtt_ns(host_cpu, peer_cpu, Trip::Slot64)?;
    Ok(Some(Floor {
        cacheline_rtt_ns: rtt,
        two_line_rtt_ns: two,
        slot64_rtt_ns: slot64,
        memcpy_bytes_per_s: memcpy_bytes_per_s(),
        memcpy_block_bytes: MEMCPY_BLOCK as u64,
        syscall_pipe_rtt_ns: None,
        syscall_unix_rtt_ns: None,
        syscall_pipe: None,
        syscall_unix: None,
    }))
}

/// The floor's cheap part again, for the tail of a run (issue #15): the
/// cache-line round trip and memcpy, as [`measure`] takes them. `None` when
/// the peer CPU never answered.
pub fn tail(host_cpu: u32, peer_cpu: u32) -> Result<Option<FloorTail>, CpuError> {
    let Some(rtt) = trip_rtt_ns(host_cpu, peer_cpu, Trip::OneLine)? else {
        return Ok(None);
    };
    Ok(Some(FloorTail { cacheline_rtt_ns: rtt, memcpy_bytes_per_s: memcpy_bytes_per_s() }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::CpuList;

    #[test]
    fn every_trip_completes_between_the_pair() {
        let Ok((host, peer)) = CpuList::usable().default_pair() else {
            use std::io::Write;
            // Past the harness's capture, like the link tests' skips.
            let _ = writeln!(std::io::stderr(), "SKIP floor trips: fewer than two usable CPUs");
            return;
        };
        // Measured on a thread of its own: the trips pin the calling thread.
        let got = std::thread::spawn(move || {
            [Trip::OneLine, Trip::TwoLines, Trip::Slot64]
                .map(|t| (t, trip_rtt_ns(host, peer, t).expect("pinning")))
        })
        .join()
        .expect("the slot's echo matched what was sent");
        for (trip, rtt) in got {
            let rtt = rtt.unwrap_or_else(|| panic!("{trip:?}: the peer never answered"));
            assert!(rtt.is_finite() && rtt > 0.0, "{trip:?}: {rtt}");
        }
    }

    #[test]
    fn each_end_hands_over_on_its_own_word() {
        assert_eq!(Slots::words(Trip::OneLine, true), (0, 0));
        assert_eq!(Slots::words(Trip::Slot64, false), (0, 0));
        assert_eq!(Slots::words(Trip::TwoLines, true), (0, Slots::LINE_B));
        assert_eq!(Slots::words(Trip::TwoLines, false), (Slots::LINE_B, 0));
        // Line B starts 128 bytes in, and the slot's message ends in line 1.
        assert_eq!(Slots::LINE_B * 8, 128);
        assert_eq!((Slots::MSG.end() + 1) * 8, 8 + SLOT_MESSAGE);
    }
}
