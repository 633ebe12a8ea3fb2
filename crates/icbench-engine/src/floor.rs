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
//! - memcpy bandwidth: one thread on the host CPU copies 64 KiB blocks from
//!   and to rotating places in two 32 MiB regions. The regions are many times
//!   any core's private cache, so the copy runs at the bandwidth of the level
//!   the two cores share (L3 or DRAM) — the level every cross-core transfer
//!   goes through — not at the speed of a copy that stays in L1/L2.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use icbench_model::Floor;

use crate::clock::now_ns;
use crate::cpu::{CpuError, pin_current_thread};

const ROUNDS_PER_SAMPLE: u64 = 100;
const SAMPLES: usize = 300;
const MEMCPY_BLOCK: usize = 64 << 10;
const MEMCPY_SPAN: usize = 32 << 20;
/// Give up on the cache-line measurement after this long (the peer CPU may
/// be busy with something else).
const FLOOR_BUDGET_NS: u64 = 5_000_000_000;

/// One word alone on its line. 128 bytes covers x86 (64-byte lines fetched
/// in pairs by the adjacent-line prefetcher) and is twice what ARM needs:
/// Cortex-A7 and Cortex-A53 lines are 64 bytes. AtomicU64 is lock-free on
/// armv7 too (LDREXD/STREXD), so the floor means the same there.
#[repr(align(128))]
struct Line(AtomicU64);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median round trip between `host_cpu` (this thread is pinned there) and
/// `peer_cpu`, ns, with one shared line (`two_lines = false`: both ends
/// bounce the same word) or one line per direction (`true`: the host writes
/// line A and waits on line B, the peer the reverse — the least any two-way
/// channel with separate directions can cost). `None` if the peer never
/// answered.
pub fn bounce_rtt_ns(
    host_cpu: u32,
    peer_cpu: u32,
    two_lines: bool,
) -> Result<Option<f64>, CpuError> {
    pin_current_thread(host_cpu)?;
    let lines = Arc::new([Line(AtomicU64::new(0)), Line(AtomicU64::new(0))]);
    let quit = Arc::new(AtomicBool::new(false));
    let (l2, q2) = (lines.clone(), quit.clone());
    let back = usize::from(two_lines);
    let pong = std::thread::spawn(move || -> Result<(), CpuError> {
        pin_current_thread(peer_cpu)?;
        let mut expect = 1u64;
        while !q2.load(Ordering::Relaxed) {
            if l2[0].0.load(Ordering::Acquire) == expect {
                l2[back].0.store(expect + 1, Ordering::Release);
                expect += 2;
            } else {
                std::hint::spin_loop();
            }
        }
        Ok(())
    });
    let start = now_ns();
    let mut next = 1u64;
    let mut samples = Vec::with_capacity(SAMPLES + 1);
    'outer: for _ in 0..=SAMPLES {
        let t0 = now_ns();
        for _ in 0..ROUNDS_PER_SAMPLE {
            lines[0].0.store(next, Ordering::Release);
            let mut spins = 0u32;
            while lines[back].0.load(Ordering::Acquire) != next + 1 {
                std::hint::spin_loop();
                spins = spins.wrapping_add(1);
                if spins == 0 && now_ns() - start > FLOOR_BUDGET_NS {
                    break 'outer;
                }
            }
            next += 2;
        }
        samples.push((now_ns() - t0) as f64 / ROUNDS_PER_SAMPLE as f64);
    }
    quit.store(true, Ordering::Relaxed);
    pong.join().expect("floor thread")?;
    // The first sample is warm-up.
    if samples.len() <= SAMPLES {
        return Ok(None);
    }
    Ok(Some(median(samples[1..].to_vec())))
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
    let Some(rtt) = bounce_rtt_ns(host_cpu, peer_cpu, false)? else {
        return Ok(None);
    };
    let two = bounce_rtt_ns(host_cpu, peer_cpu, true)?;
    Ok(Some(Floor {
        cacheline_rtt_ns: rtt,
        two_line_rtt_ns: two,
        memcpy_bytes_per_s: memcpy_bytes_per_s(),
        memcpy_block_bytes: MEMCPY_BLOCK as u64,
        syscall_pipe_rtt_ns: None,
        syscall_unix_rtt_ns: None,
        syscall_pipe: None,
        syscall_unix: None,
    }))
}
