//! The bare loop of the `shm` link: the minimal single-producer ring a
//! careful engineer writes, over the segment the link itself makes
//! (`sys::shm::segment`) and in the link's layout — two control blocks, then
//! two slot arrays; each slot a sequence word, the length, the payload,
//! slots a fixed stride apart on 128-byte lines; the consumer's index on
//! its own line, read by the producer only when its copy says the ring is
//! full. What it leaves out is icbench's: no `Link` trait, no wait
//! strategies (it spins), no push hint, no zero-copy path, no control
//! messages. It is compared with `shm?push=none` (issue #15 item 8).

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU32, Ordering};

use memmap2::MmapMut;

use crate::fdio::check;
use crate::sys::shm::{CTL, SLOT_HDR, SLOT_PAYLOAD, SPINS_PER_CHECK, segment_len, stride};
use crate::{Abort, LinkError};

/// One end of the two rings.
pub(crate) struct Ring {
    _map: MmapMut,
    /// The consumer's index of the ring this end writes, and its slots.
    tx_tail: *const AtomicU32,
    tx_slots: *mut u8,
    /// The consumer's index of the ring this end reads, and its slots.
    rx_tail: *const AtomicU32,
    rx_slots: *mut u8,
    slots: u32,
    /// Next index this end publishes, its copy of the consumer's index, and
    /// the next index it consumes.
    head: u32,
    tail_seen: u32,
    next: u32,
}

// SAFETY: the pointers point into `_map`, which moves with the ring; the
// ring protocol gives each end exclusive use of its side.
unsafe impl Send for Ring {}

impl Ring {
    /// Maps `fd` (a segment of `slots` slots a direction); the host end
    /// writes the first ring and reads the second, the peer the reverse.
    pub(crate) fn map(fd: &OwnedFd, slots: u32, host: bool) -> Result<Ring, LinkError> {
        // SAFETY: shared with the other end only, which follows the protocol.
        let mut map =
            unsafe { memmap2::MmapOptions::new().len(segment_len(slots)).map_mut(fd.as_raw_fd()) }
                .map_err(|e| LinkError::Setup(format!("mmap shared ring: {e}")))?;
        let base = map.as_mut_ptr();
        let ring = slots as usize * stride();
        // SAFETY: every offset lies within segment_len(slots).
        let (ctl0, ctl1, s0, s1) =
            unsafe { (base, base.add(CTL), base.add(2 * CTL), base.add(2 * CTL + ring)) };
        let ((tc, ts), (rc, rs)) =
            if host { ((ctl0, s0), (ctl1, s1)) } else { ((ctl1, s1), (ctl0, s0)) };
        Ok(Ring {
            _map: map,
            tx_tail: tc.cast(),
            tx_slots: ts,
            rx_tail: rc.cast(),
            rx_slots: rs,
            slots,
            head: 0,
            tail_seen: 0,
            next: 0,
        })
    }

    #[inline]
    fn slot(base: *mut u8, index: u32, slots: u32) -> *mut u8 {
        // SAFETY: index % slots < slots: the slot lies in the ring.
        unsafe { base.add((index % slots) as usize * stride()) }
    }

    /// Spins until `word` is not `old` (or, with `want`, equals it),
    /// checking `abort` every [`SPINS_PER_CHECK`] turns.
    #[inline]
    fn spin(word: &AtomicU32, done: impl Fn(u32) -> bool, abort: &Abort) -> Result<u32, LinkError> {
        let mut spins = 0u32;
        loop {
            let now = word.load(Ordering::Acquire);
            if done(now) {
                return Ok(now);
            }
            std::hint::spin_loop();
            spins += 1;
            if spins == SPINS_PER_CHECK {
                spins = 0;
                check(abort)?;
            }
        }
    }

    /// Copies `msg` into the next slot and publishes it.
    #[inline]
    pub(crate) fn send(&mut self, msg: &[u8], abort: &Abort) -> Result<(), LinkError> {
        if msg.len() > SLOT_PAYLOAD {
            return Err(LinkError::TooLarge { size: msg.len(), max: SLOT_PAYLOAD });
        }
        while self.head.wrapping_sub(self.tail_seen) >= self.slots {
            let seen = self.tail_seen;
            // SAFETY: points into the mapping this ring holds.
            self.tail_seen = Self::spin(unsafe { &*self.tx_tail }, |t| t != seen, abort)?;
        }
        let slot = Self::slot(self.tx_slots, self.head, self.slots);
        // SAFETY: the slot is free and holds SLOT_HDR + SLOT_PAYLOAD bytes.
        unsafe {
            (slot.add(4) as *mut u32).write(msg.len() as u32);
            std::ptr::copy_nonoverlapping(msg.as_ptr(), slot.add(SLOT_HDR), msg.len());
        }
        self.head = self.head.wrapping_add(1);
        // SAFETY: every slot starts with its aligned sequence word.
        unsafe { &*(slot as *const AtomicU32) }.store(self.head, Ordering::Release);
        Ok(())
    }

    /// Publishes an empty message, the end of the loop, if a slot is free.
    pub(crate) fn end(&mut self) {
        let abort = Abort::new();
        abort.set();
        let _ = self.send(&[], &abort);
    }

    /// Waits for the next message, checks it holds `buf.len()` bytes (or
    /// none: the other end's [`Ring::end`]), copies it out, frees its slot
    /// and returns its length.
    #[inline]
    pub(crate) fn recv(&mut self, buf: &mut [u8], abort: &Abort) -> Result<usize, LinkError> {
        let slot = Self::slot(self.rx_slots, self.next, self.slots);
        let want = self.next.wrapping_add(1);
        // SAFETY: every slot starts with its aligned sequence word.
        Self::spin(unsafe { &*(slot as *const AtomicU32) }, |s| s == want, abort)?;
        // SAFETY: published (Acquire on the sequence word); the payload
        // holds `got` bytes, checked against the buffer before copying.
        let got = unsafe { (slot.add(4) as *const u32).read() } as usize;
        if got != buf.len() && got != 0 {
            return Err(LinkError::Framing(format!(
                "bare ring: a message of {got} B, expected {} B",
                buf.len()
            )));
        }
        unsafe { std::ptr::copy_nonoverlapping(slot.add(SLOT_HDR), buf.as_mut_ptr(), got) };
        self.next = want;
        // SAFETY: points into the mapping this ring holds.
        unsafe { &*self.rx_tail }.store(self.next, Ordering::Release);
        Ok(got)
    }
}
