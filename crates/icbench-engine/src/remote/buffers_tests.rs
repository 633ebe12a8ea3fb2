//! The buffer stream against an in-process remote that fills and checks
//! its slots as the firmware does (firmware/src/icb_sdb.c), with faults.

use std::collections::VecDeque;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use icbench_link::buffers::{RemoteBuffers, fill_pattern, first_bad};
use icbench_link::{Link, LinkCaps, LinkError};
use icbench_model::Direction;

use super::stream;
use crate::pattern::CellError;
use crate::testing::budget;

/// The remote: answers every request at once, in order; `damage` flips a
/// byte of the `n`th buffer it fills or reads (counted from 0).
struct FakeRemote {
    slots: Vec<Vec<u8>>,
    reports: VecDeque<(usize, usize)>,
    asked: u64,
    damage: Option<(u64, usize)>,
    /// Largest number of requests in flight seen.
    most_in_flight: usize,
}

impl FakeRemote {
    fn new(slots: usize, bytes: usize) -> FakeRemote {
        FakeRemote {
            slots: vec![vec![0; bytes]; slots],
            reports: VecDeque::new(),
            asked: 0,
            damage: None,
            most_in_flight: 0,
        }
    }

    fn damage(&mut self, slot: usize) {
        if let Some((n, at)) = self.damage
            && n == self.asked
        {
            self.slots[slot][at] ^= 0x5a;
        }
        self.asked += 1;
    }

    fn push(&mut self, slot: usize, len: usize) {
        assert!(self.reports.iter().all(|&(s, _)| s != slot), "slot {slot} asked twice");
        self.reports.push_back((slot, len));
        self.most_in_flight = self.most_in_flight.max(self.reports.len());
    }
}

impl RemoteBuffers for FakeRemote {
    fn slots(&self) -> usize {
        self.slots.len()
    }
    fn slot_bytes(&self) -> usize {
        self.slots[0].len()
    }
    fn ask_fill(&mut self, slot: usize, len: usize, seed: u32) -> Result<(), LinkError> {
        fill_pattern(&mut self.slots[slot][..len], seed);
        self.damage(slot);
        self.push(slot, len);
        Ok(())
    }
    fn slot_mut(&mut self, slot: usize) -> &mut [u8] {
        &mut self.slots[slot]
    }
    fn ask_check(&mut self, slot: usize, len: usize, seed: u32) -> Result<(), LinkError> {
        self.damage(slot);
        let good = first_bad(&self.slots[slot][..len], seed).unwrap_or(len);
        self.push(slot, good);
        Ok(())
    }
    fn report(&mut self, slot: usize) -> Result<usize, LinkError> {
        let (s, len) = self.reports.pop_front().ok_or(LinkError::Aborted)?;
        assert_eq!(s, slot, "reports come in the order asked");
        Ok(len)
    }
    fn slot(&self, slot: usize) -> &[u8] {
        &self.slots[slot]
    }
}

impl Link for FakeRemote {
    fn caps(&self) -> LinkCaps {
        LinkCaps {
            max_msg_bytes: self.slot_bytes(),
            message_boundaries: true,
            zero_copy: false,
            shared_clock: false,
        }
    }
    fn send(&mut self, _: &[u8]) -> Result<(), LinkError> {
        unreachable!("the buffer stream sends no messages")
    }
    fn recv(&mut self, _: &mut [u8], _: usize) -> Result<(), LinkError> {
        unreachable!("the buffer stream receives no messages")
    }
    fn remote_buffers(&mut self) -> Option<&mut dyn RemoteBuffers> {
        Some(self)
    }
}

fn run(
    link: &mut dyn Link,
    size: usize,
    d: Direction,
) -> Result<icbench_model::CellData, CellError> {
    stream(link, size, d, &budget(Duration::from_millis(20)), &AtomicU64::new(0))
}

#[test]
fn both_directions_are_measured_with_every_request_answered() {
    for d in Direction::BOTH {
        let mut remote = FakeRemote::new(4, 8192);
        let data = run(&mut remote, 5000, d).unwrap();
        assert!(data.messages >= 20, "{d}: {} messages", data.messages);
        assert_eq!(data.bytes, data.messages * 5000);
        assert!(data.elapsed_ns > 0);
        // budget's window is 8, the link has 4 buffers: 4 in flight
        assert_eq!(data.window, Some(4));
        assert_eq!(remote.most_in_flight, 4);
        assert!(remote.reports.is_empty(), "{d}: requests left in flight");
        assert!(data.latency.is_none());
    }
}

#[test]
fn a_damaged_byte_fails_the_cell_with_its_offset_either_way() {
    for (d, words) in [(Direction::P2H, "peer → host"), (Direction::H2P, "host → peer")] {
        let mut remote = FakeRemote::new(2, 4096);
        remote.damage = Some((5, 4095));
        let e = run(&mut remote, 4096, d).unwrap_err();
        assert!(
            matches!(e, CellError::CorruptOneWay { seq: 5, size: 4096, offset: 4095, .. }),
            "{d}: {e}"
        );
        let text = e.to_string();
        assert!(text.contains(words) && text.contains("at byte 4095"), "{text}");
    }
}

#[test]
fn a_short_fill_and_a_size_past_the_buffers_are_refused() {
    struct Short(FakeRemote);
    impl RemoteBuffers for Short {
        fn slots(&self) -> usize {
            self.0.slots()
        }
        fn slot_bytes(&self) -> usize {
            self.0.slot_bytes()
        }
        fn ask_fill(&mut self, slot: usize, len: usize, seed: u32) -> Result<(), LinkError> {
            self.0.ask_fill(slot, len - 1, seed)
        }
        fn slot_mut(&mut self, slot: usize) -> &mut [u8] {
            self.0.slot_mut(slot)
        }
        fn ask_check(&mut self, slot: usize, len: usize, seed: u32) -> Result<(), LinkError> {
            self.0.ask_check(slot, len, seed)
        }
        fn report(&mut self, slot: usize) -> Result<usize, LinkError> {
            self.0.report(slot)
        }
        fn slot(&self, slot: usize) -> &[u8] {
            self.0.slot(slot)
        }
    }
    impl Link for Short {
        fn caps(&self) -> LinkCaps {
            self.0.caps()
        }
        fn send(&mut self, m: &[u8]) -> Result<(), LinkError> {
            self.0.send(m)
        }
        fn recv(&mut self, b: &mut [u8], l: usize) -> Result<(), LinkError> {
            self.0.recv(b, l)
        }
        fn remote_buffers(&mut self) -> Option<&mut dyn RemoteBuffers> {
            Some(self)
        }
    }
    let e = run(&mut Short(FakeRemote::new(2, 4096)), 100, Direction::P2H).unwrap_err();
    assert!(e.to_string().contains("it reported 99 B"), "{e}");
    let e = run(&mut FakeRemote::new(2, 4096), 4097, Direction::H2P).unwrap_err();
    assert!(matches!(e, CellError::Unsupported(ref r) if r.contains("hold 1 to 4096 B")), "{e}");
}

#[test]
fn a_link_without_buffers_fails_the_cell_saying_why() {
    struct Echo;
    impl Link for Echo {
        fn caps(&self) -> LinkCaps {
            LinkCaps {
                max_msg_bytes: 496,
                message_boundaries: true,
                zero_copy: false,
                shared_clock: false,
            }
        }
        fn send(&mut self, _: &[u8]) -> Result<(), LinkError> {
            Ok(())
        }
        fn recv(&mut self, _: &mut [u8], _: usize) -> Result<(), LinkError> {
            Ok(())
        }
    }
    let e = run(&mut Echo, 64, Direction::P2H).unwrap_err();
    assert!(matches!(e, CellError::Unsupported(ref r) if r.contains("sdb:")), "{e}");
}
