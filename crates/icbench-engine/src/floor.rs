//! The floor: the physical limit between the two CPUs, measured in the same
//! run as the links, so every result can be shown as a ratio to it.
//!
//! - Cache-line round trip: two threads pinned to the pair bounce one
//!   128-byte-aligned word, each waiting for the other's value (the method of
//!   nviennot/core-to-core-latency, bench 1, without the RTT/2).
//! - memcpy bandwidth: one thread on the host CPU copies 64 KiB blocks into
//!   eight rotating destinations (the footprint of the shm ring's slots).

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use icbench_model::Floor;

use crate::clock::now_ns;
use crate::cpu::{CpuError, pin_current_thread};

const ROUNDS_PER_SAMPLE: u64 = 100;
const SAMPLES: usize = 300;
const MEMCPY_BLOCK: usize = 64 << 10;
const MEMCPY_SLOTS: usize = 8;
/// Give up on the cache-line measurement after this long (the peer CPU may
/// be busy with something else).
const FLOOR_BUDGET_NS: u64 = 5_000_000_000;

#[repr(align(128))]
struct Line(AtomicU64);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median round trip of a cache line between `host_cpu` (this thread is
/// pinned there) and `peer_cpu`, ns. `None` if the peer never answered.
pub fn cacheline_rtt_ns(host_cpu: u32, peer_cpu: u32) -> Result<Option<f64>, CpuError> {
    pin_current_thread(host_cpu)?;
    let line = Arc::new(Line(AtomicU64::new(0)));
    let quit = Arc::new(AtomicBool::new(false));
    let (l2, q2) = (line.clone(), quit.clone());
    let pong = std::thread::spawn(move || -> Result<(), CpuError> {
        pin_current_thread(peer_cpu)?;
        let mut expect = 1u64;
        while !q2.load(Ordering::Relaxed) {
            if l2.0.load(Ordering::Acquire) == expect {
                l2.0.store(expect + 1, Ordering::Release);
                expect += 2;
            } else {
                std::hint::spin_loop();
            }
        }
        Ok(())
    });
    let start = now_ns();
    let mut next = 1u64;
    let mut samples = Vec::with_capacity(SAMPLES);
    'outer: for _ in 0..=SAMPLES {
        let t0 = now_ns();
        for _ in 0..ROUNDS_PER_SAMPLE {
            line.0.store(next, Ordering::Release);
            let mut spins = 0u32;
            while line.0.load(Ordering::Acquire) != next + 1 {
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
    let src = vec![0x5au8; MEMCPY_BLOCK];
    let mut dst = vec![0u8; MEMCPY_BLOCK * MEMCPY_SLOTS];
    let copies_per_sample = 64;
    let mut samples = Vec::with_capacity(101);
    for s in 0..=100 {
        let t0 = now_ns();
        for i in 0..copies_per_sample {
            let off = (i % MEMCPY_SLOTS) * MEMCPY_BLOCK;
            dst[off..off + MEMCPY_BLOCK].copy_from_slice(black_box(&src));
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
    let Some(rtt) = cacheline_rtt_ns(host_cpu, peer_cpu)? else {
        return Ok(None);
    };
    Ok(Some(Floor {
        cacheline_rtt_ns: rtt,
        memcpy_bytes_per_s: memcpy_bytes_per_s(),
        memcpy_block_bytes: MEMCPY_BLOCK as u64,
    }))
}
