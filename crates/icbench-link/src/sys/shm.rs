//! `shm`: a single-producer/single-consumer ring per direction in a shared
//! memory segment (memfd) mapped by both processes — the "indirect buffer" of
//! the reference documents.
//!
//! Layout: two control blocks, then two slot arrays. Each slot starts on a
//! 128-byte boundary with a sequence word and the message length, followed by
//! the payload: the consumer polls the slot's own sequence word, so a small
//! message crosses from one core to the other as the slot's cache lines and
//! nothing else — no separate head index to bounce (the design of
//! Disruptor-style rings and rigtorp's SPSCQueue "slot sequence" variant).
//! The consumer's index (`tail`) sits on its own line and the producer reads
//! it only when its private copy says the ring is full. Lines are padded to
//! 128 bytes, not 64: the adjacent-line prefetcher of x86 pulls pairs of
//! lines. On ARM the padding is merely generous — Cortex-A7 and Cortex-A53
//! have 64-byte lines (Cortex-A7 MPCore TRM, "L1 data cache"; A53 TRM) — so
//! it costs some space in the mapping and nothing in correctness or speed.
//!
//! Waiting: `spin` (busy loop), `yield` (sched_yield between checks) or
//! `futex` (sleep on the index word; the other end wakes a sleeper it sees
//! flagged — futex(2), shared futexes since the mapping is shared between
//! processes). Every wait polls the end's [`Abort`] flag.
//!
//! `copy=zero`: the sender builds each message in its ring slot and the
//! receiver inspects it in place; `copy=copy` (default) copies in and out.
//!
//! `push=demote` (the default on x86_64): after publishing a message of up
//! to 256 B, the producer pushes its lines to the shared cache with
//! CLDEMOTE ([`crate::hint::demote`]); `push=none` leaves them where they
//! were written.
//! Whichever is chosen, nothing of a slot is touched by its producer after
//! the release store — the consumer takes the line the moment the sequence
//! word lands.

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU32, Ordering, fence};
use std::time::Duration;

use memmap2::MmapMut;

use crate::fdio::{fd_param, owned_fd};
use crate::{Abort, Handoff, Link, LinkCaps, LinkError, LinkSpec};

pub(crate) const LINE: usize = 128;
/// Bytes of one direction's control block: tail and the two sleep flags.
pub(crate) const CTL: usize = 3 * LINE;
/// Slot header: sequence word (u32) and message length (u32).
pub(crate) const SLOT_HDR: usize = 8;
/// Largest message, bytes.
pub(crate) const SLOT_PAYLOAD: usize = 64 << 10;
pub(crate) const DEFAULT_SLOTS: u32 = 8;
/// Whether messages are pushed toward the consumer unless the spec says:
/// on x86_64, where CLDEMOTE exists; elsewhere there is no such hint for
/// user space (Arm's DC CVAU cleans to the point of unification, which is
/// not a hand-over to another core's reads).
const DEFAULT_PUSH: &str = if cfg!(target_arch = "x86_64") { "demote" } else { "none" };
/// How long a futex wait sleeps before re-checking the abort flag.
const FUTEX_SLICE: Duration = Duration::from_millis(50);
/// Spin iterations between abort checks.
pub(crate) const SPINS_PER_CHECK: u32 = 1 << 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wait {
    Spin,
    Yield,
    Futex,
}

impl Wait {
    fn parse(s: &str) -> Option<Wait> {
        match s {
            "spin" => Some(Wait::Spin),
            "yield" => Some(Wait::Yield),
            "futex" => Some(Wait::Futex),
            _ => None,
        }
    }
    fn as_str(self) -> &'static str {
        match self {
            Wait::Spin => "spin",
            Wait::Yield => "yield",
            Wait::Futex => "futex",
        }
    }
}

/// Pointers into one direction's control block and slots.
struct Dir {
    tail: *const AtomicU32,
    cons_sleeping: *const AtomicU32,
    prod_sleeping: *const AtomicU32,
    slots: *mut u8,
}

impl Dir {
    /// # Safety
    /// `ctl` and `slots` point into a live mapping laid out as above.
    unsafe fn new(ctl: *mut u8, slots: *mut u8) -> Dir {
        // SAFETY: offsets lie within the control block.
        unsafe {
            Dir {
                tail: ctl.cast(),
                cons_sleeping: ctl.add(LINE).cast(),
                prod_sleeping: ctl.add(2 * LINE).cast(),
                slots,
            }
        }
    }
    #[inline]
    fn tail(&self) -> &AtomicU32 {
        // SAFETY: points into the mapping, which outlives self (held by ShmLink).
        unsafe { &*self.tail }
    }
    #[inline]
    fn cons_sleeping(&self) -> &AtomicU32 {
        // SAFETY: as above.
        unsafe { &*self.cons_sleeping }
    }
    #[inline]
    fn prod_sleeping(&self) -> &AtomicU32 {
        // SAFETY: as above.
        unsafe { &*self.prod_sleeping }
    }
    /// The slot holding message `index`.
    #[inline]
    fn slot(&self, index: u32, slots: u32) -> *mut u8 {
        // SAFETY: index % slots < slots, so the slot lies in the ring.
        unsafe { self.slots.add((index % slots) as usize * stride()) }
    }
    /// The sequence word of a slot: message index + 1 once published.
    #[inline]
    fn seq(&self, slot: *mut u8) -> &AtomicU32 {
        // SAFETY: every slot starts with its aligned sequence word.
        unsafe { &*(slot as *const AtomicU32) }
    }
}

/// What the spec chose, the same at both ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Options {
    slots: u32,
    wait: Wait,
    zero_copy: bool,
    /// Push each small message's lines toward the consumer ([`crate::hint::demote`]).
    push: bool,
}

impl Options {
    /// The handoff text's parameters, read back by [`Options::from_handoff`].
    fn handoff(&self) -> String {
        format!(
            "slots={},wait={},zc={},push={}",
            self.slots,
            self.wait.as_str(),
            u8::from(self.zero_copy),
            u8::from(self.push)
        )
    }

    fn from_handoff(text: &str) -> Result<Options, LinkError> {
        Ok(Options {
            slots: fd_param(text, "slots")? as u32,
            wait: text
                .split(',')
                .find_map(|kv| kv.strip_prefix("wait="))
                .and_then(Wait::parse)
                .ok_or_else(|| {
                    LinkError::Setup(format!("handoff '{text}' lacks a valid 'wait='"))
                })?,
            zero_copy: fd_param(text, "zc")? == 1,
            push: fd_param(text, "push")? == 1,
        })
    }
}

struct ShmLink {
    _map: MmapMut,
    tx: Dir,
    rx: Dir,
    /// The spec's choices, the same at both ends.
    o: Options,
    /// Next index this end publishes on tx, and its copy of tx's tail.
    tx_head: u32,
    tx_tail_seen: u32,
    /// Next index this end consumes on rx.
    rx_tail: u32,
    abort: Abort,
}

// SAFETY: the raw pointers point into `_map`, which moves with the link; the
// ring protocol gives each end exclusive use of its side.
unsafe impl Send for ShmLink {}

/// Bytes from one slot to the next: header and payload, rounded up to LINE.
pub(crate) const fn stride() -> usize {
    (SLOT_HDR + SLOT_PAYLOAD).div_ceil(LINE) * LINE
}

pub(crate) fn segment_len(slots: u32) -> usize {
    2 * CTL + 2 * slots as usize * stride()
}

impl ShmLink {
    fn new(fd: &OwnedFd, o: Options, host: bool, abort: Abort) -> Result<ShmLink, LinkError> {
        let slots = o.slots;
        // SAFETY: the segment is shared with the peer only, which follows the
        // ring protocol; nothing else maps it.
        let mut map =
            unsafe { memmap2::MmapOptions::new().len(segment_len(slots)).map_mut(fd.as_raw_fd()) }
                .map_err(|e| LinkError::Setup(format!("mmap shared ring: {e}")))?;
        let base = map.as_mut_ptr();
        let ring = slots as usize * stride();
        // SAFETY: every offset lies within segment_len(slots).
        let (d0, d1) = unsafe {
            (Dir::new(base, base.add(2 * CTL)), Dir::new(base.add(CTL), base.add(2 * CTL + ring)))
        };
        let (tx, rx) = if host { (d0, d1) } else { (d1, d0) };
        Ok(ShmLink {
            _map: map,
            // Both ends attach before the first message, so every index
            // starts at zero.
            tx_head: 0,
            tx_tail_seen: 0,
            rx_tail: 0,
            tx,
            rx,
            o,
            abort,
        })
    }

    /// Waits, by the link's strategy, until `word` satisfies `done`, and
    /// returns its value. `sleeping` is the flag the other end checks before
    /// waking this one.
    #[inline]
    fn wait_until(
        &self,
        word: &AtomicU32,
        sleeping: &AtomicU32,
        done: impl Fn(u32) -> bool,
    ) -> Result<u32, LinkError> {
        let mut spins = 0u32;
        loop {
            let now = word.load(Ordering::Acquire);
            if done(now) {
                return Ok(now);
            }
            match self.o.wait {
                Wait::Spin => {
                    std::hint::spin_loop();
                    spins += 1;
                    if spins == SPINS_PER_CHECK {
                        spins = 0;
                        crate::fdio::check(&self.abort)?;
                    }
                }
                Wait::Yield => {
                    rustix::thread::sched_yield();
                    crate::fdio::check(&self.abort)?;
                }
                Wait::Futex => {
                    sleeping.store(1, Ordering::Relaxed);
                    // Pairs with the fence in `wake`: either the other end sees
                    // the flag, or this end sees the new value (Dekker).
                    fence(Ordering::SeqCst);
                    if word.load(Ordering::Relaxed) == now {
                        let ts = rustix::time::Timespec {
                            tv_sec: 0,
                            tv_nsec: FUTEX_SLICE.as_nanos() as _,
                        };
                        // EAGAIN (the word changed), EINTR and ETIMEDOUT all
                        // mean: look again.
                        let _ = rustix::thread::futex::wait(
                            word,
                            rustix::thread::futex::Flags::empty(),
                            now,
                            Some(&ts),
                        );
                    }
                    sleeping.store(0, Ordering::Relaxed);
                    crate::fdio::check(&self.abort)?;
                }
            }
        }
    }

    #[inline]
    fn wake(&self, word: &AtomicU32, sleeping: &AtomicU32) {
        if self.o.wait == Wait::Futex {
            fence(Ordering::SeqCst);
            if sleeping.load(Ordering::Relaxed) != 0 {
                let _ = rustix::thread::futex::wake(word, rustix::thread::futex::Flags::empty(), 1);
            }
        }
    }

    /// Waits for a free tx slot, writes the length, and returns the slot.
    #[inline]
    fn tx_slot(&mut self, len: usize) -> Result<*mut u8, LinkError> {
        if len > SLOT_PAYLOAD {
            return Err(LinkError::TooLarge { size: len, max: SLOT_PAYLOAD });
        }
        while self.tx_head.wrapping_sub(self.tx_tail_seen) >= self.o.slots {
            let seen = self.tx_tail_seen;
            self.tx_tail_seen =
                self.wait_until(self.tx.tail(), self.tx.prod_sleeping(), |t| t != seen)?;
        }
        let slot = self.tx.slot(self.tx_head, self.o.slots);
        // SAFETY: the slot is free (the consumer is past it); the length
        // word follows the sequence word.
        unsafe { (slot.add(4) as *mut u32).write(len as u32) };
        Ok(slot)
    }

    /// Publishes the slot returned by [`tx_slot`].
    #[inline]
    fn tx_publish(&mut self, slot: *mut u8, len: usize) {
        self.tx_head = self.tx_head.wrapping_add(1);
        let seq = self.tx.seq(slot);
        seq.store(self.tx_head, Ordering::Release);
        // Nothing of the slot is touched after the release store: even a
        // read of the length there cost 20 % at 32 B (the consumer takes the
        // line as soon as the sequence word lands; measured 2026-11-22).
        if self.o.push && SLOT_HDR + len <= PUSH_MAX {
            // SAFETY: the slot spans at least SLOT_HDR + len bytes of the ring.
            unsafe { crate::hint::demote(slot, SLOT_HDR + len) };
        }
        self.wake(seq, self.tx.cons_sleeping());
    }

    /// Waits for the next message and returns its slot, checked to hold
    /// `len` bytes.
    #[inline]
    fn rx_slot(&mut self, len: usize) -> Result<*mut u8, LinkError> {
        let slot = self.rx.slot(self.rx_tail, self.o.slots);
        let want = self.rx_tail.wrapping_add(1);
        self.wait_until(self.rx.seq(slot), self.rx.cons_sleeping(), |s| s == want)?;
        // SAFETY: published (Acquire on the sequence word).
        let got = unsafe { (slot.add(4) as *const u32).read() } as usize;
        if got != len {
            return Err(LinkError::Framing(format!(
                "received a message of {got} B, expected {len} B"
            )));
        }
        Ok(slot)
    }

    #[inline]
    fn rx_release(&mut self) {
        self.rx_tail = self.rx_tail.wrapping_add(1);
        self.rx.tail().store(self.rx_tail, Ordering::Release);
        self.wake(self.rx.tail(), self.rx.prod_sleeping());
    }
}

/// Largest slot (header and message), bytes, pushed toward the consumer
/// after publishing. Above it a message is bulk and its reader streams it
/// from the producer's cache anyway: pushing the first lines of 1 KiB
/// messages cost stream 9 % (2026-11-22, see docs/results.md).
const PUSH_MAX: usize = 256;

/// The payload of a slot.
#[inline]
fn payload(slot: *mut u8) -> *mut u8 {
    // SAFETY: the payload follows the header within the slot.
    unsafe { slot.add(SLOT_HDR) }
}

impl Link for ShmLink {
    fn caps(&self) -> LinkCaps {
        LinkCaps {
            max_msg_bytes: SLOT_PAYLOAD,
            message_boundaries: true,
            zero_copy: self.o.zero_copy,
            shared_clock: true,
        }
    }

    #[inline]
    fn send(&mut self, msg: &[u8]) -> Result<(), LinkError> {
        let slot = self.tx_slot(msg.len())?;
        // SAFETY: the payload has room for SLOT_PAYLOAD >= msg.len() bytes.
        unsafe { std::ptr::copy_nonoverlapping(msg.as_ptr(), payload(slot), msg.len()) };
        self.tx_publish(slot, msg.len());
        Ok(())
    }

    #[inline]
    fn recv(&mut self, buf: &mut [u8], len: usize) -> Result<(), LinkError> {
        let slot = self.rx_slot(len)?;
        // SAFETY: the slot holds len published bytes; buf has room.
        unsafe { std::ptr::copy_nonoverlapping(payload(slot), buf[..len].as_mut_ptr(), len) };
        self.rx_release();
        Ok(())
    }

    fn send_with(
        &mut self,
        len: usize,
        scratch: &mut [u8],
        build: &mut dyn FnMut(&mut [u8]),
    ) -> Result<(), LinkError> {
        if !self.o.zero_copy {
            return crate::copy::send_with(self, len, scratch, build);
        }
        let slot = self.tx_slot(len)?;
        // SAFETY: the slot is ours until published and has room for len bytes.
        build(unsafe { std::slice::from_raw_parts_mut(payload(slot), len) });
        self.tx_publish(slot, len);
        Ok(())
    }

    fn recv_with(
        &mut self,
        len: usize,
        scratch: &mut [u8],
        inspect: &mut dyn FnMut(&[u8]),
    ) -> Result<(), LinkError> {
        if !self.o.zero_copy {
            return crate::copy::recv_with(self, len, scratch, inspect);
        }
        let slot = self.rx_slot(len)?;
        // SAFETY: the slot is published and not released until after inspect.
        inspect(unsafe { std::slice::from_raw_parts(payload(slot), len) });
        self.rx_release();
        Ok(())
    }

    fn echo(&mut self, len: usize, scratch: &mut [u8]) -> Result<(), LinkError> {
        if !self.o.zero_copy {
            return crate::copy::echo(self, len, scratch);
        }
        let src = self.rx_slot(len)?;
        let dst = self.tx_slot(len)?;
        // SAFETY: distinct rings; both slots are held by this end.
        unsafe { std::ptr::copy_nonoverlapping(payload(src), payload(dst), len) };
        self.rx_release();
        self.tx_publish(dst, len);
        Ok(())
    }
}

pub(crate) fn open(spec: &LinkSpec, abort: Abort) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    let wait = Wait::parse(spec.param("wait").unwrap_or("spin")).expect("validated by LinkSpec");
    let zero_copy = spec.param("copy") == Some("zero");
    let push = spec.param("push").unwrap_or(DEFAULT_PUSH) == "demote";
    let slots: u32 = spec
        .param("slots")
        .map_or(Ok(DEFAULT_SLOTS), str::parse)
        .map_err(|_| LinkError::Setup("shm: slots must be a whole number".to_string()))?;
    // Two slots at least: the stream pattern can have two credits unread.
    if !slots.is_power_of_two() || !(2..=1024).contains(&slots) {
        return Err(LinkError::Setup(format!(
            "shm: slots={slots} is not allowed: use a power of two from 2 to 1024"
        )));
    }
    if push && !cfg!(target_arch = "x86_64") {
        return Err(LinkError::Setup(
            "shm: push=demote needs x86_64 (CLDEMOTE); use push=none on this build".to_string(),
        ));
    }
    let o = Options { slots, wait, zero_copy, push };
    let fd = segment(slots)?;
    let host = ShmLink::new(&fd, o, true, abort)?;
    let text = format!("shm:fd={},{}", fd.as_raw_fd(), o.handoff());
    Ok((Box::new(host), Handoff::local(text, vec![fd])))
}

/// A shared segment for `slots` slots a direction, sized as the link lays it
/// out; the link and its bare loop (`reference`) both make it here.
pub(crate) fn segment(slots: u32) -> Result<OwnedFd, LinkError> {
    let fd = rustix::fs::memfd_create("icbench-shm", rustix::fs::MemfdFlags::CLOEXEC)
        .map_err(|e| LinkError::Setup(format!("memfd_create: {e}")))?;
    rustix::fs::ftruncate(&fd, segment_len(slots) as u64)
        .map_err(|e| LinkError::Setup(format!("ftruncate shared ring: {e}")))?;
    Ok(fd)
}

pub(crate) fn attach(text: &str, abort: Abort) -> Result<Box<dyn Link>, LinkError> {
    let fd = owned_fd(text, "fd")?;
    Ok(Box::new(ShmLink::new(&fd, Options::from_handoff(text)?, false, abort)?))
}
