//! `shm`: a single-producer/single-consumer ring per direction in a shared
//! memory segment (memfd) mapped by both processes — the "indirect buffer" of
//! the reference documents.
//!
//! Layout: two control blocks, then two slot arrays. The producer's index
//! (`head`) and the consumer's (`tail`) sit on separate 128-byte lines so the
//! two CPUs never write the same line (128, not 64: the adjacent-line
//! prefetcher of x86 pulls pairs of lines; rigtorp/SPSCQueue pads the same
//! way). Each end also keeps a private copy of the other end's index and only
//! re-reads the shared one when its copy says the ring is empty or full.
//!
//! Waiting: `spin` (busy loop), `yield` (sched_yield between checks) or
//! `futex` (sleep on the index word; the other end wakes a sleeper it sees
//! flagged — futex(2), shared futexes since the mapping is shared between
//! processes). Every wait polls the end's [`Abort`] flag.
//!
//! `copy=zero`: the sender builds each message in its ring slot and the
//! receiver inspects it in place; `copy=copy` (default) copies in and out.

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU32, Ordering, fence};
use std::time::Duration;

use memmap2::MmapMut;

use crate::fdio::{fd_param, owned_fd};
use crate::{Abort, Handoff, Link, LinkCaps, LinkError, LinkSpec};

const LINE: usize = 128;
/// Bytes of one direction's control block: head, tail, and the two sleep flags.
const CTL: usize = 4 * LINE;
/// Slot header: the message length, on its own line.
const SLOT_HDR: usize = 64;
/// Largest message, bytes.
const SLOT_PAYLOAD: usize = 64 << 10;
const DEFAULT_SLOTS: u32 = 8;
/// How long a futex wait sleeps before re-checking the abort flag.
const FUTEX_SLICE: Duration = Duration::from_millis(50);
/// Spin iterations between abort checks.
const SPINS_PER_CHECK: u32 = 1 << 10;

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

/// Pointers into one direction's control block.
struct Dir {
    head: *const AtomicU32,
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
                head: ctl.cast(),
                tail: ctl.add(LINE).cast(),
                cons_sleeping: ctl.add(2 * LINE).cast(),
                prod_sleeping: ctl.add(3 * LINE).cast(),
                slots,
            }
        }
    }
    #[inline]
    fn head(&self) -> &AtomicU32 {
        // SAFETY: points into the mapping, which outlives self (held by ShmLink).
        unsafe { &*self.head }
    }
    #[inline]
    fn tail(&self) -> &AtomicU32 {
        // SAFETY: as above.
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
}

struct ShmLink {
    _map: MmapMut,
    tx: Dir,
    rx: Dir,
    slots: u32,
    wait: Wait,
    zero_copy: bool,
    /// Next index this end publishes on tx, and its copy of tx's tail.
    tx_head: u32,
    tx_tail_seen: u32,
    /// Next index this end consumes on rx, and its copy of rx's head.
    rx_tail: u32,
    rx_head_seen: u32,
    abort: Abort,
}

// SAFETY: the raw pointers point into `_map`, which moves with the link; the
// ring protocol gives each end exclusive use of its side.
unsafe impl Send for ShmLink {}

const fn stride() -> usize {
    SLOT_HDR + SLOT_PAYLOAD
}

fn segment_len(slots: u32) -> usize {
    2 * CTL + 2 * slots as usize * stride()
}

impl ShmLink {
    fn new(fd: &OwnedFd, slots: u32, wait: Wait, zero_copy: bool, host: bool, abort: Abort) -> Result<ShmLink, LinkError> {
        // SAFETY: the segment is shared with the peer only, which follows the
        // ring protocol; nothing else maps it.
        let mut map = unsafe { memmap2::MmapOptions::new().len(segment_len(slots)).map_mut(fd.as_raw_fd()) }
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
            tx_head: tx.head().load(Ordering::Acquire),
            tx_tail_seen: tx.tail().load(Ordering::Acquire),
            rx_tail: rx.tail().load(Ordering::Acquire),
            rx_head_seen: rx.head().load(Ordering::Acquire),
            tx,
            rx,
            slots,
            wait,
            zero_copy,
            abort,
        })
    }

    /// Waits until `word` no longer equals `seen`, by the link's strategy.
    /// `sleeping` is the flag the other end checks before waking.
    #[inline]
    fn wait_change(&self, word: &AtomicU32, seen: u32, sleeping: &AtomicU32) -> Result<u32, LinkError> {
        let mut spins = 0u32;
        loop {
            let now = word.load(Ordering::Acquire);
            if now != seen {
                return Ok(now);
            }
            match self.wait {
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
                    // the flag, or this end sees the new index (Dekker).
                    fence(Ordering::SeqCst);
                    if word.load(Ordering::Relaxed) == seen {
                        let ts = rustix::time::Timespec {
                            tv_sec: 0,
                            tv_nsec: FUTEX_SLICE.as_nanos() as _,
                        };
                        // EAGAIN (the word changed), EINTR and ETIMEDOUT all
                        // mean: look again.
                        let _ = rustix::thread::futex::wait(
                            word,
                            rustix::thread::futex::Flags::empty(),
                            seen,
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
        if self.wait == Wait::Futex {
            fence(Ordering::SeqCst);
            if sleeping.load(Ordering::Relaxed) != 0 {
                let _ = rustix::thread::futex::wake(word, rustix::thread::futex::Flags::empty(), 1);
            }
        }
    }

    #[inline]
    fn slot(dir: &Dir, index: u32, slots: u32) -> *mut u8 {
        // SAFETY: index % slots < slots, so the slot lies in the ring.
        unsafe { dir.slots.add((index % slots) as usize * stride()) }
    }

    /// Waits for a free tx slot and returns its payload pointer.
    #[inline]
    fn tx_slot(&mut self, len: usize) -> Result<*mut u8, LinkError> {
        if len > SLOT_PAYLOAD {
            return Err(LinkError::TooLarge { size: len, max: SLOT_PAYLOAD });
        }
        while self.tx_head.wrapping_sub(self.tx_tail_seen) >= self.slots {
            let full_at = self.tx_head.wrapping_sub(self.slots);
            self.tx_tail_seen = self.wait_change(self.tx.tail(), full_at, self.tx.prod_sleeping())?;
        }
        let slot = Self::slot(&self.tx, self.tx_head, self.slots);
        // SAFETY: the slot is free (consumer is past it); header then payload.
        unsafe {
            (slot as *mut u32).write(len as u32);
            Ok(slot.add(SLOT_HDR))
        }
    }

    #[inline]
    fn tx_publish(&mut self) {
        self.tx_head = self.tx_head.wrapping_add(1);
        self.tx.head().store(self.tx_head, Ordering::Release);
        self.wake(self.tx.head(), self.tx.cons_sleeping());
    }

    /// Waits for a message and returns its payload pointer, checked to be
    /// `len` bytes long.
    #[inline]
    fn rx_slot(&mut self, len: usize) -> Result<*const u8, LinkError> {
        if self.rx_head_seen == self.rx_tail {
            self.rx_head_seen = self.wait_change(self.rx.head(), self.rx_tail, self.rx.cons_sleeping())?;
        }
        let slot = Self::slot(&self.rx, self.rx_tail, self.slots);
        // SAFETY: the producer published this slot (Acquire on head).
        let got = unsafe { (slot as *const u32).read() } as usize;
        if got != len {
            return Err(LinkError::Framing(format!("received a message of {got} B, expected {len} B")));
        }
        // SAFETY: within the slot.
        Ok(unsafe { slot.add(SLOT_HDR) })
    }

    #[inline]
    fn rx_release(&mut self) {
        self.rx_tail = self.rx_tail.wrapping_add(1);
        self.rx.tail().store(self.rx_tail, Ordering::Release);
        self.wake(self.rx.tail(), self.rx.prod_sleeping());
    }
}

impl Link for ShmLink {
    fn caps(&self) -> LinkCaps {
        LinkCaps {
            max_msg_bytes: SLOT_PAYLOAD,
            message_boundaries: true,
            zero_copy: self.zero_copy,
            shared_clock: true,
        }
    }

    #[inline]
    fn send(&mut self, msg: &[u8]) -> Result<(), LinkError> {
        let dst = self.tx_slot(msg.len())?;
        // SAFETY: dst has room for SLOT_PAYLOAD >= msg.len() bytes.
        unsafe { std::ptr::copy_nonoverlapping(msg.as_ptr(), dst, msg.len()) };
        self.tx_publish();
        Ok(())
    }

    #[inline]
    fn recv(&mut self, buf: &mut [u8], len: usize) -> Result<(), LinkError> {
        let src = self.rx_slot(len)?;
        // SAFETY: src holds len published bytes; buf has room (len <= buf.len()).
        unsafe { std::ptr::copy_nonoverlapping(src, buf[..len].as_mut_ptr(), len) };
        self.rx_release();
        Ok(())
    }

    fn send_with(&mut self, len: usize, scratch: &mut [u8], build: &mut dyn FnMut(&mut [u8])) -> Result<(), LinkError> {
        if !self.zero_copy {
            build(&mut scratch[..len]);
            return self.send(&scratch[..len]);
        }
        let dst = self.tx_slot(len)?;
        // SAFETY: the slot is ours until published and has room for len bytes.
        build(unsafe { std::slice::from_raw_parts_mut(dst, len) });
        self.tx_publish();
        Ok(())
    }

    fn recv_with(&mut self, len: usize, scratch: &mut [u8], inspect: &mut dyn FnMut(&[u8])) -> Result<(), LinkError> {
        if !self.zero_copy {
            self.recv(scratch, len)?;
            inspect(&scratch[..len]);
            return Ok(());
        }
        let src = self.rx_slot(len)?;
        // SAFETY: the slot is published and not released until after inspect.
        inspect(unsafe { std::slice::from_raw_parts(src, len) });
        self.rx_release();
        Ok(())
    }

    fn echo(&mut self, len: usize, scratch: &mut [u8]) -> Result<(), LinkError> {
        if !self.zero_copy {
            self.recv(scratch, len)?;
            return self.send(&scratch[..len]);
        }
        let src = self.rx_slot(len)?;
        let dst = self.tx_slot(len)?;
        // SAFETY: distinct rings; both slots are held by this end.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, len) };
        self.rx_release();
        self.tx_publish();
        Ok(())
    }
}

pub(crate) fn open(spec: &LinkSpec, abort: Abort) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    let wait = Wait::parse(spec.param("wait").unwrap_or("spin")).expect("validated by LinkSpec");
    let zero_copy = spec.param("copy") == Some("zero");
    let slots: u32 = spec.param("slots").map_or(Ok(DEFAULT_SLOTS), str::parse).map_err(|_| {
        LinkError::Setup("shm: slots must be a whole number".to_string())
    })?;
    if !slots.is_power_of_two() || slots > 1024 {
        return Err(LinkError::Setup(format!(
            "shm: slots={slots} is not allowed: use a power of two from 1 to 1024"
        )));
    }
    let fd = rustix::fs::memfd_create("icbench-shm", rustix::fs::MemfdFlags::CLOEXEC)
        .map_err(|e| LinkError::Setup(format!("memfd_create: {e}")))?;
    rustix::fs::ftruncate(&fd, segment_len(slots) as u64)
        .map_err(|e| LinkError::Setup(format!("ftruncate shared ring: {e}")))?;
    let host = ShmLink::new(&fd, slots, wait, zero_copy, true, abort)?;
    let text = format!(
        "shm:fd={},slots={slots},wait={},zc={}",
        fd.as_raw_fd(),
        wait.as_str(),
        u8::from(zero_copy)
    );
    Ok((Box::new(host), Handoff { text, fds: vec![fd] }))
}

pub(crate) fn attach(text: &str, abort: Abort) -> Result<Box<dyn Link>, LinkError> {
    let fd = owned_fd(text, "fd")?;
    let slots = fd_param(text, "slots")? as u32;
    let wait = text
        .split(',')
        .find_map(|kv| kv.strip_prefix("wait="))
        .and_then(Wait::parse)
        .ok_or_else(|| LinkError::Setup(format!("handoff '{text}' lacks a valid 'wait='")))?;
    let zero_copy = fd_param(text, "zc")? == 1;
    Ok(Box::new(ShmLink::new(&fd, slots, wait, zero_copy, false, abort)?))
}
