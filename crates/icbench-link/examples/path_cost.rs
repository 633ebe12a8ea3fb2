//! What one message costs in software alone (issue #20, "why iceoryx2's
//! 64 B round trip is ~8× the ring's"): both ends of a link in one thread,
//! a message sent and at once received — no second core, so no cache line
//! crosses between cores and no wait, only the code path of a send and a
//! receive. Each message is built in the link's memory and checked byte for
//! byte where it lies, as the engine does.
//!
//! `cargo run --release -p icbench-link --example path_cost [-- ROUNDS]`
//! prints, per link spec, the best of ROUNDS (default 7) batches of 200 000
//! messages, in ns per message. The best batch is the figure: on a shared
//! machine other work only ever adds time.

use std::time::Instant;

use icbench_link::{Abort, LinkSpec};

const BATCH: u32 = 200_000;
const SIZE: usize = 64;

fn per_message(spec: &str, rounds: u32) -> f64 {
    let (mut host, handoff) =
        icbench_link::open(&LinkSpec::parse(spec).expect("spec"), Abort::new()).expect("open");
    let mut peer = icbench_link::attach(&handoff.text, Abort::new()).expect("attach");
    let mut scratch = vec![0u8; SIZE];
    let mut best = f64::INFINITY;
    let mut bad = 0u32;
    for _ in 0..rounds {
        let t0 = Instant::now();
        for i in 0..BATCH {
            let b = i as u8;
            host.send_with(SIZE, &mut scratch, &mut |m| m.fill(b)).expect("send");
            peer.recv_with(SIZE, &mut scratch, &mut |m| {
                if m.iter().any(|&x| x != b) {
                    bad += 1;
                }
            })
            .expect("recv");
        }
        best = best.min(t0.elapsed().as_nanos() as f64 / f64::from(BATCH));
    }
    assert_eq!(bad, 0, "{spec}: messages arrived damaged");
    best
}

fn main() {
    let rounds = std::env::args().nth(1).map_or(7, |r| r.parse().expect("ROUNDS: a number"));
    for spec in ["shm?copy=zero&push=none", "shm?copy=zero", "iceoryx2"] {
        let ns = per_message(spec, rounds);
        println!("{spec:<26} {ns:>7.1} ns per 64 B message, send + receive in one thread");
    }
}
