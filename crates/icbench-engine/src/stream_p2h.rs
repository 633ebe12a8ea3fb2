//! The host side of the stream pattern peer → host: the direction of a
//! remote core streaming samples to Linux (a Cortex-M4 sending sensor data),
//! measured as the host → peer stream is, with the roles reversed.
//!
//! The host asks its peer for `count` messages ([`Op::Source`]); the peer
//! sends the cell's payload, each message stamped with its sequence number
//! ([`Payload::stamp`]), with up to `window` unacknowledged. The host
//! receives every message, compares every byte of it with the message it
//! expects (so a stale buffer, a lost, repeated or reordered message, a
//! truncation or a flipped bit fails the cell with the message's number and
//! the offset of its first wrong byte), and returns a credit every
//! `window / 2` messages and after the last. As in the host → peer stream
//! (`pattern.rs`, `Streamer`), at most two credits are ever unread, so a
//! link whose reverse direction holds two messages cannot deadlock.
//!
//! The timed window is the host's: the clock is read before the host sends
//! the op, and again when the last message has been received and checked
//! (the last credit goes out after that read). It therefore includes the
//! op's trip to the peer, one small message per phase, where the host → peer
//! stream starts at its first send; it ends, like that one, when the host
//! knows the last message arrived intact.
//!
//! Inside the timed loop: no allocation, no formatting, no logging
//! (ARCHITECTURE rule 7). The comparison runs inside `recv_with`, on the
//! link's own memory for a zero-copy link, and `first_difference` only runs
//! for a message that already failed.

use std::sync::atomic::{AtomicU64, Ordering};

use icbench_link::Link;

use crate::clock::now_ns;
use crate::ctrl::{self, Op};
use crate::pattern::{CellError, RX_MIN};
use crate::payload::{Payload, first_difference};

/// The host's loop of a peer → host stream cell: receive, check, credit.
pub(crate) struct Drainer {
    size: usize,
    /// The message the host expects next, stamped per sequence number.
    expected: Vec<u8>,
    rx: Vec<u8>,
    window: u32,
    credit_every: u32,
}

impl Drainer {
    pub(crate) fn new(size: usize, window: u32) -> Drainer {
        let window = window.max(2);
        Drainer {
            size,
            expected: Payload::new(size).buffer(),
            rx: vec![0u8; size.max(RX_MIN)],
            window,
            credit_every: window / 2,
        }
    }

    pub(crate) fn window(&self) -> u32 {
        self.window
    }

    /// One phase of `count` messages, timed from before the op is sent to
    /// after the last message is checked, ns. No allocation inside.
    pub(crate) fn timed(
        &mut self,
        link: &mut dyn Link,
        count: u32,
        progress: &AtomicU64,
    ) -> Result<u64, CellError> {
        let size = self.size;
        let op = Op::Source { size: size as u32, count, window: self.window }.encode();
        let t0 = now_ns();
        link.send(&op)?;
        let mut t1 = t0;
        for seq in 0..count {
            Payload::stamp(&mut self.expected, u64::from(seq));
            let expected = self.expected.as_slice();
            let mut bad = None;
            link.recv_with(size, &mut self.rx, &mut |m| {
                if m != expected {
                    bad = Some(first_difference(m, expected).unwrap_or(0));
                }
            })?;
            if let Some(offset) = bad {
                return Err(CellError::CorruptStream { seq: u64::from(seq), size, offset });
            }
            let received = seq + 1;
            if received == count {
                t1 = now_ns();
            }
            if received % self.credit_every == 0 || received == count {
                link.send(&ctrl::encode_credit(received, 0))?;
                progress.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(t1 - t0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctrl::{CREDIT_LEN, CTRL_LEN, decode_credit};
    use icbench_link::{LinkCaps, LinkError};

    /// What the scripted peer does to the messages it sends.
    #[derive(Debug, Clone, Copy)]
    enum Damage {
        None,
        /// Flip the byte at `offset` of message `seq`.
        Flip {
            seq: u32,
            offset: usize,
        },
        /// Send message `seq` again in place of `seq + 1` (a stale buffer).
        Repeat {
            seq: u32,
        },
    }

    /// A link whose far end is a scripted source peer: it answers the op
    /// with stamped messages, produced as the host receives them, and
    /// refuses to send beyond the window (where a real peer would block and
    /// the cell would deadlock).
    struct ScriptedSource {
        damage: Damage,
        payload: Payload,
        count: u32,
        window: u32,
        sent: u32,
        acked: u32,
        credits: Vec<u32>,
        most_in_flight: u32,
    }

    impl ScriptedSource {
        fn new(size: usize, damage: Damage) -> ScriptedSource {
            ScriptedSource {
                damage,
                payload: Payload::new(size),
                count: 0,
                window: 0,
                sent: 0,
                acked: 0,
                credits: Vec::new(),
                most_in_flight: 0,
            }
        }
    }

    impl Link for ScriptedSource {
        fn caps(&self) -> LinkCaps {
            LinkCaps {
                max_msg_bytes: 1 << 20,
                message_boundaries: true,
                zero_copy: false,
                shared_clock: true,
            }
        }

        fn send(&mut self, msg: &[u8]) -> Result<(), LinkError> {
            if msg.len() == CTRL_LEN {
                let Ok(Op::Source { count, window, size }) = Op::decode(msg) else {
                    return Err(LinkError::Framing("expected a source op".into()));
                };
                assert_eq!(size as usize, self.payload.len());
                (self.count, self.window, self.sent, self.acked) = (count, window, 0, 0);
                return Ok(());
            }
            assert_eq!(msg.len(), CREDIT_LEN);
            let (received, bad) = decode_credit(msg);
            assert_eq!(bad, 0);
            assert!(received > self.acked && received <= self.sent, "credit {received}");
            self.acked = received;
            self.credits.push(received);
            Ok(())
        }

        fn recv(&mut self, buf: &mut [u8], len: usize) -> Result<(), LinkError> {
            assert!(self.sent < self.count, "the host reads past the phase");
            if self.sent - self.acked >= self.window {
                return Err(LinkError::Framing("the host waits beyond the window".into()));
            }
            let seq = match self.damage {
                Damage::Repeat { seq } if self.sent == seq + 1 => seq,
                _ => self.sent,
            };
            let mut m = self.payload.buffer();
            Payload::stamp(&mut m, u64::from(seq));
            if let Damage::Flip { seq, offset } = self.damage
                && seq == self.sent
            {
                m[offset] ^= 0x40;
            }
            buf[..len].copy_from_slice(&m);
            self.sent += 1;
            self.most_in_flight = self.most_in_flight.max(self.sent - self.acked);
            Ok(())
        }
    }

    #[test]
    fn every_message_is_received_and_credited_every_half_window_and_at_the_end() {
        let progress = AtomicU64::new(0);
        let mut link = ScriptedSource::new(64, Damage::None);
        let mut d = Drainer::new(64, 8);
        d.timed(&mut link, 21, &progress).unwrap();
        assert_eq!(link.sent, 21);
        assert_eq!(link.credits, [4, 8, 12, 16, 20, 21]);
        assert_eq!(link.most_in_flight, 4, "the host credits before the peer must stop");
        assert_eq!(progress.load(Ordering::Relaxed), 6, "one step per credit");
        // The next phase starts afresh at message 0.
        link.credits.clear();
        d.timed(&mut link, 3, &progress).unwrap();
        assert_eq!(link.credits, [3]);
    }

    #[test]
    fn a_flipped_byte_anywhere_in_any_message_fails_with_its_number_and_offset() {
        let progress = AtomicU64::new(0);
        for size in [1usize, 7, 16, 64, 300] {
            for seq in 0..12 {
                for offset in [0, size / 2, size - 1] {
                    let mut link = ScriptedSource::new(size, Damage::Flip { seq, offset });
                    let e = Drainer::new(size, 4).timed(&mut link, 12, &progress).unwrap_err();
                    match e {
                        CellError::CorruptStream { seq: s, size: z, offset: o } => {
                            assert_eq!((s, z, o), (u64::from(seq), size, offset));
                        }
                        e => panic!("{size} B, message {seq}, byte {offset}: {e}"),
                    }
                }
            }
        }
        let mut link = ScriptedSource::new(64, Damage::Flip { seq: 5, offset: 32 });
        let e = Drainer::new(64, 8).timed(&mut link, 10, &progress).unwrap_err().to_string();
        assert_eq!(
            e,
            "corrupted message: peer → host stream message 5 of 64 B differs from the \
             expected payload at byte 32"
        );
    }

    #[test]
    fn a_repeated_message_fails_the_next_one() {
        let progress = AtomicU64::new(0);
        let mut link = ScriptedSource::new(64, Damage::Repeat { seq: 6 });
        let e = Drainer::new(64, 8).timed(&mut link, 20, &progress).unwrap_err();
        assert!(
            matches!(e, CellError::CorruptStream { seq: 7, offset: 0, .. }),
            "a stale copy of message 6 in place of 7 differs at its sequence stamp: {e}"
        );
    }
}

/// Through `run_link`, with icbench's own peer as a thread: the peer's
/// source op, the cell's key, the peer's fault and the refusals.
#[cfg(test)]
mod through_run_link {
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use icbench_link::LinkSpec;
    use icbench_model::{CellOutcome, CellResult, Direction, Pattern};

    use crate::{CellSpec, ClockChecks, EngineConfig, Fault, LinkRun, Observer};

    #[derive(Default)]
    struct Seen(Vec<CellResult>);

    impl Observer for Seen {
        fn cell_finished(&mut self, result: &CellResult) {
            self.0.push(result.clone());
        }
    }

    fn cfg(stop: &'static AtomicBool, fault: Option<Fault>) -> EngineConfig {
        EngineConfig { fault, ..crate::testing::thread_config(stop, Duration::from_millis(5)) }
    }

    fn run(cfg: &EngineConfig, link: &str, cells: &[CellSpec]) -> Vec<CellResult> {
        let mut seen = Seen::default();
        let spec = LinkSpec::parse(link).unwrap();
        let done = crate::run_link(cfg, &spec, cells, &mut ClockChecks::new(), &mut seen);
        assert_eq!(done, LinkRun::Completed);
        seen.0
    }

    /// Links a thread peer can use here (qemu-user lacks some).
    fn usable(links: &[&'static str]) -> Vec<&'static str> {
        links
            .iter()
            .copied()
            .filter(|l| match icbench_link::probe::unsupported(l) {
                None => true,
                Some(why) => {
                    eprintln!("SKIP {l}: {why}");
                    false
                }
            })
            .collect()
    }

    #[test]
    fn both_directions_measure_every_message_on_one_peer() {
        static STOP: AtomicBool = AtomicBool::new(false);
        let cfg = cfg(&STOP, None);
        let cells = [
            CellSpec::stream(64, Direction::P2H),
            CellSpec::stream(4096, Direction::P2H),
            CellSpec::stream(64, Direction::H2P),
            CellSpec::new(Pattern::Stream, 64),
        ];
        for link in usable(&["unix", "shm", "pipe"]) {
            let results = run(&cfg, link, &cells);
            assert_eq!(results.len(), 4, "{link}");
            for (r, c) in results.iter().zip(&cells) {
                let CellOutcome::Measured(d) = &r.outcome else {
                    panic!("{link} {:?}: {:?}", c.direction, r.outcome);
                };
                assert_eq!(d.bytes, d.messages * c.size_bytes, "{link}");
                assert!(d.messages >= 32 && d.elapsed_ns > 0, "{link}: {d:?}");
                assert_eq!(d.window, Some(8));
                assert!(d.latency.is_none());
            }
            // Peer → host is a factor; host → peer keeps the key stream
            // cells always had, spelled out or not.
            assert_eq!(results[0].key.factor(Direction::FACTOR), Some("p2h"));
            assert_eq!(results[2].key, results[3].key);
            assert!(results[2].key.factors.is_empty(), "{:?}", results[2].key);
        }
    }

    #[test]
    fn a_corrupting_peer_fails_the_cell_with_the_message_and_byte() {
        static STOP: AtomicBool = AtomicBool::new(false);
        let Some(&link) = usable(&["unix", "pipe"]).first() else { return };
        // The fault counts data messages from the first phase (the probe,
        // 16 messages with a window of 8): the 6th is damaged.
        let cfg = cfg(&STOP, Some(Fault::Corrupt { after: 5 }));
        let cells = [CellSpec::stream(64, Direction::P2H), CellSpec::stream(64, Direction::P2H)];
        let results = run(&cfg, link, &cells);
        let CellOutcome::Failed { reason } = &results[0].outcome else {
            panic!("measured: {:?}", results[0].outcome);
        };
        assert_eq!(
            reason,
            "corrupted message: peer → host stream message 5 of 64 B differs from the expected \
             payload at byte 32"
        );
        // The next cell has a fresh peer, which behaves.
        assert!(matches!(results[1].outcome, CellOutcome::Measured(_)), "{:?}", results[1]);
    }

    #[test]
    fn peer_to_host_does_not_run_on_channels() {
        static STOP: AtomicBool = AtomicBool::new(false);
        let cfg = cfg(&STOP, None);
        let Some(&link) = usable(&["unix"]).first() else { return };
        let many = CellSpec { channels: 2, ..CellSpec::stream(64, Direction::P2H) };
        let transfer =
            CellSpec { transfer_bytes: Some(6400), ..CellSpec::stream(64, Direction::P2H) };
        for (r, c) in run(&cfg, link, &[many, transfer]).iter().zip([many, transfer]) {
            let CellOutcome::Failed { reason } = &r.outcome else { panic!("{c:?} measured") };
            assert!(reason.contains("host → peer only"), "{reason}");
        }
    }
}
