//! The gate every channel of a cell waits at before each measured phase.
//!
//! A cell's channels run their probe and warm-up alone, then arrive at the
//! gate; when all N are there, the coordinator (the thread that started
//! them) opens it at one common start T0 read on the monotonic clock. A
//! cell has one phase, or — adaptive repetitions (`--ci`) — several: after
//! each phase every channel arrives again, and the coordinator, which sees
//! them all stopped, either opens the next phase at a new T0 or closes the
//! gate, which ends the channels. A channel that fails sets `quit`, and
//! nobody starts (or waits) any more.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use crate::clock::now_ns;

/// How often a channel waiting at the gate looks at it (and bumps its
/// watchdog's progress, so waiting for slower channels is not a stall).
const GATE_LOOK: Duration = Duration::from_millis(10);

#[derive(Debug, Default)]
struct State {
    /// Channels waiting for the next phase.
    waiting: u32,
    /// Phases opened so far, and the last one's T0 (ns, monotonic).
    opened: u32,
    t0: u64,
    /// No further phase opens.
    closed: bool,
}

/// What a channel arriving at the gate is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Entry {
    /// Measure the phase that starts at this T0.
    Start(u64),
    /// No more phases: the channel is done.
    Done,
    /// A channel failed or the run is stopping.
    Quit,
}

pub(super) struct Gate {
    state: Mutex<State>,
    cv: Condvar,
    /// Set when a channel failed or the run is stopping: nobody starts.
    quit: AtomicBool,
}

impl Gate {
    pub(super) fn new() -> Gate {
        Gate {
            state: Mutex::new(State::default()),
            cv: Condvar::new(),
            quit: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().expect("gate lock")
    }

    pub(super) fn quit(&self) {
        self.quit.store(true, Ordering::SeqCst);
        let _g = self.lock();
        self.cv.notify_all();
    }

    pub(super) fn quitting(&self, stop: &AtomicBool) -> bool {
        self.quit.load(Ordering::Relaxed) || stop.load(Ordering::Relaxed)
    }

    /// A channel is ready for its `phase`-th phase (1, 2, …); waits until
    /// the coordinator opens it or closes the gate.
    pub(super) fn arrive(&self, phase: u32, progress: &AtomicU64, stop: &AtomicBool) -> Entry {
        let mut g = self.lock();
        g.waiting += 1;
        self.cv.notify_all();
        loop {
            if self.quitting(stop) {
                return Entry::Quit;
            }
            if g.opened >= phase {
                return Entry::Start(g.t0);
            }
            if g.closed {
                return Entry::Done;
            }
            g = self.cv.wait_timeout(g, GATE_LOOK).expect("gate lock").0;
            progress.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The coordinator: waits until all `n` channels wait at the gate (before
    /// the first phase: ready; after one: done with it). `false`: a channel
    /// quit first, or the run is stopping.
    pub(super) fn wait_for_all(&self, n: u32, stop: &AtomicBool) -> bool {
        let mut g = self.lock();
        while g.waiting < n {
            if self.quitting(stop) {
                return false;
            }
            g = self.cv.wait_timeout(g, GATE_LOOK).expect("gate lock").0;
        }
        true
    }

    /// The coordinator, with every channel waiting: opens the next phase at
    /// T0 = now.
    pub(super) fn open(&self) {
        let mut g = self.lock();
        g.waiting = 0;
        g.opened += 1;
        g.t0 = now_ns();
        self.cv.notify_all();
    }

    /// The coordinator, with every channel waiting: no further phase.
    pub(super) fn close(&self) {
        let mut g = self.lock();
        g.closed = true;
        self.cv.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three channels through two phases: each phase's T0 is one value for
    /// all, a later phase starts later, and closing ends them all.
    #[test]
    fn phases_open_for_all_channels_at_one_start_then_close() {
        static STOP: AtomicBool = AtomicBool::new(false);
        let gate = Gate::new();
        let entries: Vec<Vec<Entry>> = std::thread::scope(|s| {
            let chans: Vec<_> = (0..3)
                .map(|_| {
                    s.spawn(|| {
                        let progress = AtomicU64::new(0);
                        (1..=3).map(|phase| gate.arrive(phase, &progress, &STOP)).collect()
                    })
                })
                .collect();
            for _ in 0..2 {
                assert!(gate.wait_for_all(3, &STOP));
                gate.open();
            }
            assert!(gate.wait_for_all(3, &STOP));
            gate.close();
            chans.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let t0 = |e: &Entry| match e {
            Entry::Start(t) => *t,
            other => panic!("{other:?}"),
        };
        for e in &entries {
            assert_eq!(e.len(), 3);
            assert_eq!(t0(&e[0]), t0(&entries[0][0]), "one T0 for phase 1");
            assert_eq!(t0(&e[1]), t0(&entries[0][1]), "one T0 for phase 2");
            assert!(t0(&e[1]) > t0(&e[0]));
            assert_eq!(e[2], Entry::Done);
        }
    }

    #[test]
    fn a_quitting_channel_releases_the_others_and_the_coordinator() {
        static STOP: AtomicBool = AtomicBool::new(false);
        let gate = Gate::new();
        let progress = AtomicU64::new(0);
        std::thread::scope(|s| {
            let waiter = s.spawn(|| gate.arrive(1, &progress, &STOP));
            s.spawn(|| gate.quit());
            assert!(!gate.wait_for_all(2, &STOP), "one channel never arrives");
            assert_eq!(waiter.join().unwrap(), Entry::Quit);
        });
    }
}
