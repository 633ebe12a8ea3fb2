//! `sdb:/dev/rpmsg-sdb?buffers=N&size=B[&cmd=PATH]`: shared data buffers
//! with ST's stm32-rpmsg-sdb user interface (kernel/sdb/icb_sdb_uapi.h has
//! the facts taken from ST's driver; docs/rpmsg.md, "sdb", the whole link).
//!
//! What this module owns: opening the device, one eventfd and one mmap()ed
//! buffer per `buffers` (SET_EFD, then mmap, which makes the driver allocate
//! the buffer and announce it to the remote), the commands that ask the
//! remote to fill, check or copy a buffer (firmware/include/icb_sdb.h), and
//! waiting for the remote's report: the buffer's eventfd, then
//! RPMSG_SDB_IOCTL_GET_DATA_SIZE. Only descriptors cross rpmsg; the bytes
//! stay in the buffers.
//!
//! As a [`Link`] (the engine's raw echo, `--protocol raw`) a message is one
//! buffer: `send` copies it into buffer 2k and asks the remote to copy it
//! into buffer 2k+1; `recv` waits for that report and copies the buffer
//! out, and the engine compares every byte. `remote_fill` / `remote_check`
//! move data one way (remote fills → Linux checks every byte; Linux fills
//! → the remote checks and reports the first bad offset).
//!
//! The one-way transfers are the engine's stream (`-p stream --direction
//! h2p|p2h|both` with `--protocol raw`) through [`RemoteBuffers`]: all the
//! buffers are slots, up to all of them in flight one way.
//!
//! Commands go to the device itself (`write()`: kernel/sdb's addition) or,
//! with `cmd=PATH`, to another rpmsg endpoint of the same firmware (ST's
//! driver has no write()).

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::ptr::NonNull;

use rustix::event::{EventfdFlags, PollFd, PollFlags, eventfd, poll};
use rustix::fs::{FileType, Mode, OFlags};
use rustix::io::Errno;
use rustix::ioctl::{Opcode, Setter, Updater, ioctl, opcode};
use rustix::mm::{MapFlags, ProtFlags, mmap, munmap};

use crate::buffers::RemoteBuffers;
use crate::fdio::{check, write_all};
use crate::{Abort, Handoff, Link, LinkCaps, LinkError, LinkSpec};

/// Buffers by default: one pair (Linux → remote, remote → Linux).
pub(crate) const DEFAULT_BUFFERS: usize = 2;
/// The remote's table (firmware ICB_SDB_MAX_BUFS) and kernel/sdb's default
/// `max_buffers`.
pub(crate) const MAX_BUFFERS: usize = 32;
/// Bytes per buffer by default.
pub(crate) const DEFAULT_SIZE: usize = 1 << 20;
/// Commands are short text (kernel/sdb takes at most 64 B per write).
const CMD_MAX: usize = 48;
/// GET_DATA_SIZE's answer when nothing was reported since the last read.
const NO_DATA: u32 = u32::MAX;
/// Longest single poll; the loop re-checks the abort flag between polls.
const POLL_MAX_MS: i64 = 50;

/// `struct rpmsg_sdb_ioctl_set_efd { int bufferId, eventfd; }`
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct SetEfd {
    buffer_id: i32,
    eventfd: i32,
}

/// `struct rpmsg_sdb_ioctl_get_data_size { int bufferId; uint32_t size; }`
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct GetDataSize {
    buffer_id: i32,
    size: u32,
}

/// ST encodes both numbers with the size of a *pointer* to the structure
/// (`_IOW('R', 0x00, struct rpmsg_sdb_ioctl_set_efd *)`): 8 on 64-bit, 4 on
/// the STM32MP1's Cortex-A7.
const SET_EFD: Opcode = opcode::write::<*const SetEfd>(b'R', 0x00);
const GET_DATA_SIZE: Opcode = opcode::read_write::<*const GetDataSize>(b'R', 0x01);

/// The link's parameters, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Params {
    pub(crate) buffers: usize,
    /// Bytes per buffer, a whole number of pages.
    pub(crate) size: usize,
    pub(crate) cmd: Option<String>,
}

fn page_size() -> usize {
    rustix::param::page_size()
}

impl Params {
    pub(crate) fn of(spec: &LinkSpec) -> Result<Params, LinkError> {
        let num = |key: &str, default: usize| -> Result<usize, LinkError> {
            spec.param(key).map_or(Ok(default), |v| {
                parse_size(v).ok_or_else(|| {
                    LinkError::Setup(format!("sdb: {key}={v} is not a number of bytes"))
                })
            })
        };
        let buffers = num("buffers", DEFAULT_BUFFERS)?;
        if !(2..=MAX_BUFFERS).contains(&buffers) || buffers % 2 != 0 {
            return Err(LinkError::Setup(format!(
                "sdb: buffers={buffers}: use an even count from 2 to {MAX_BUFFERS} (pairs: one \
                 buffer each way)"
            )));
        }
        let size = num("size", DEFAULT_SIZE)?;
        if !(4096..=1 << 30).contains(&size) {
            return Err(LinkError::Setup(format!(
                "sdb: size={size}: use 4096 B to 1 GiB per buffer"
            )));
        }
        let page = page_size();
        let size = size.div_ceil(page) * page;
        Ok(Params { buffers, size, cmd: spec.param("cmd").map(str::to_string) })
    }
}

/// `4096`, `64K`, `1M`, `16MiB`: bytes.
pub(crate) fn parse_size(v: &str) -> Option<usize> {
    let v = v.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (n, unit) = v.split_at(split);
    let n: usize = n.parse().ok()?;
    let mul = match unit {
        "" | "B" => 1,
        "K" | "KiB" | "k" => 1 << 10,
        "M" | "MiB" => 1 << 20,
        "G" | "GiB" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(mul)
}

/// A command into `out`, without allocating: `tag` `id` then each
/// (letter, value, hex) field. Returns its length.
fn put_cmd(out: &mut [u8; CMD_MAX], tag: u8, id: u32, fields: &[(u8, u64, bool)]) -> usize {
    fn num(out: &mut [u8], mut v: u64, base: u64) -> usize {
        let mut digits = [0u8; 20];
        let mut n = 0;
        loop {
            digits[n] = b"0123456789abcdef"[(v % base) as usize];
            n += 1;
            v /= base;
            if v == 0 {
                break;
            }
        }
        for k in 0..n {
            out[k] = digits[n - 1 - k];
        }
        n
    }
    out[0] = tag;
    let mut at = 1 + num(&mut out[1..], u64::from(id), 10);
    for &(letter, v, hex) in fields {
        out[at] = letter;
        at += 1 + num(&mut out[at + 1..], v, if hex { 16 } else { 10 });
    }
    at
}

/// "F<id>L<len>S<seed>": fill.
pub(crate) fn cmd_fill(out: &mut [u8; CMD_MAX], id: u32, len: u32, seed: u32) -> usize {
    put_cmd(out, b'F', id, &[(b'L', len.into(), true), (b'S', seed.into(), true)])
}

/// "C<id>L<len>S<seed>": check.
pub(crate) fn cmd_check(out: &mut [u8; CMD_MAX], id: u32, len: u32, seed: u32) -> usize {
    put_cmd(out, b'C', id, &[(b'L', len.into(), true), (b'S', seed.into(), true)])
}

/// "E<id>T<to>L<len>": copy buffer id into buffer to.
pub(crate) fn cmd_copy(out: &mut [u8; CMD_MAX], id: u32, to: u32, len: u32) -> usize {
    put_cmd(out, b'E', id, &[(b'T', to.into(), false), (b'L', len.into(), true)])
}

/// What a report says about the buffer that was asked for.
pub(crate) fn check_report(id: u32, reported: u32, buf_len: usize) -> Result<usize, LinkError> {
    if reported == NO_DATA {
        return Err(LinkError::Device(format!(
            "the remote signalled buffer {id} but the driver holds no length for it"
        )));
    }
    let n = reported as usize;
    if n > buf_len {
        return Err(LinkError::Device(format!(
            "the remote reported {n} B in buffer {id}, which holds {buf_len} B"
        )));
    }
    Ok(n)
}

struct Buffer {
    ptr: NonNull<u8>,
    len: usize,
    efd: OwnedFd,
}

impl Buffer {
    fn bytes(&self) -> &[u8] {
        // SAFETY: ptr is a live shared mapping of len bytes (munmap only in
        // Drop); the remote writes it only between a command and its report.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in bytes(); &mut self keeps this the only Rust view.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: the mapping was made by mmap with this address and length.
        let _ = unsafe { munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

/// The host end: the device, its buffers, and the command path.
pub(crate) struct SdbLink {
    path: String,
    // Declared before `dev`: unmapped first (the driver frees on close).
    bufs: Vec<Buffer>,
    dev: OwnedFd,
    cmd: Option<OwnedFd>,
    abort: Abort,
    next_pair: usize,
    /// Buffers the remote was asked to fill, and how much, oldest first
    /// (a ring of at most one per pair: `pending_at`, `pending_n`).
    pending: [(usize, usize); MAX_BUFFERS / 2],
    pending_at: usize,
    pending_n: usize,
    waiting_on: Option<usize>,
    cmdbuf: [u8; CMD_MAX],
}

// SAFETY: the raw pointers are private mappings owned by this link, used
// only through &self / &mut self.
unsafe impl Send for SdbLink {}

fn set_efd(dev: BorrowedFd<'_>, id: i32, efd: BorrowedFd<'_>) -> Result<(), Errno> {
    use std::os::fd::AsRawFd;
    let arg = SetEfd { buffer_id: id, eventfd: efd.as_raw_fd() };
    // SAFETY: SET_EFD reads one struct rpmsg_sdb_ioctl_set_efd (copy_from_user).
    unsafe { ioctl(dev, Setter::<SET_EFD, SetEfd>::new(arg)) }
}

fn get_data_size(dev: BorrowedFd<'_>, id: usize) -> Result<u32, Errno> {
    let mut arg = GetDataSize { buffer_id: id as i32, size: 0 };
    // SAFETY: GET_DATA_SIZE reads and writes back this 8-byte struct.
    unsafe { ioctl(dev, Updater::<GET_DATA_SIZE, GetDataSize>::new(&mut arg))? };
    Ok(arg.size)
}

impl SdbLink {
    pub(crate) fn open(path: &str, p: &Params, abort: Abort) -> Result<SdbLink, LinkError> {
        let dev =
            rustix::fs::open(path, OFlags::RDWR | OFlags::CLOEXEC, Mode::empty()).map_err(|e| {
                match e {
                    Errno::BUSY => LinkError::Setup(format!(
                        "{path} is held by another process (the driver serves one user at a time)"
                    )),
                    e => LinkError::Setup(format!("cannot open {path}: {e}")),
                }
            })?;
        let st = rustix::fs::fstat(&dev).map_err(|e| LinkError::sys("fstat", e))?;
        if FileType::from_raw_mode(st.st_mode) != FileType::CharacterDevice {
            return Err(not_sdb(path, "not a character device"));
        }
        let cmd = match &p.cmd {
            None => None,
            Some(c) => Some(
                rustix::fs::open(
                    c.as_str(),
                    OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .map_err(|e| LinkError::Setup(format!("sdb: cannot open cmd={c}: {e}")))?,
            ),
        };
        let mut bufs = Vec::with_capacity(p.buffers);
        for id in 0..p.buffers {
            let efd = eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)
                .map_err(|e| LinkError::sys("eventfd", e))?;
            set_efd(dev.as_fd(), id as i32, efd.as_fd()).map_err(|e| match e {
                // ENOTTY from a kernel driver that lacks the ioctl; ENOSYS
                // from qemu-user, which does not pass unknown ioctls on
                Errno::NOTTY | Errno::INVAL | Errno::NOSYS if id == 0 => {
                    not_sdb(path, &format!("RPMSG_SDB_IOCTL_SET_EFD: {e}"))
                }
                Errno::NOSPC => LinkError::Setup(format!(
                    "sdb: {path} refused buffer {id} of {}: the driver holds at most {id} \
                     (icb_sdb's max_buffers)",
                    p.buffers
                )),
                e => LinkError::Setup(format!("sdb: RPMSG_SDB_IOCTL_SET_EFD on {path}: {e}")),
            })?;
            // SAFETY: a new shared mapping of the device; the driver
            // allocates the buffer for the SET_EFD just made.
            let ptr = unsafe {
                mmap(
                    std::ptr::null_mut(),
                    p.size,
                    ProtFlags::READ | ProtFlags::WRITE,
                    MapFlags::SHARED,
                    &dev,
                    0,
                )
            }
            .map_err(|e| {
                LinkError::Setup(format!(
                    "sdb: mmap of buffer {id} ({} B) on {path} failed: {e}{}",
                    p.size,
                    match e {
                        Errno::NOMEM =>
                            ": the driver found no contiguous memory that large \
                                         (CMA; kernel/sdb without CMA stops at 4 MiB)",
                        Errno::INVAL => ": the driver refused the size (icb_sdb's max_size)",
                        _ => "",
                    }
                ))
            })?;
            let ptr = NonNull::new(ptr.cast::<u8>())
                .ok_or_else(|| LinkError::Setup("sdb: mmap returned NULL".into()))?;
            bufs.push(Buffer { ptr, len: p.size, efd });
        }
        Ok(SdbLink {
            path: path.to_string(),
            bufs,
            dev,
            cmd,
            abort,
            next_pair: 0,
            pending: [(0, 0); MAX_BUFFERS / 2],
            pending_at: 0,
            pending_n: 0,
            waiting_on: None,
            cmdbuf: [0; CMD_MAX],
        })
    }

    // the link's own test (sdb_tests.rs) drives these directly
    #[cfg(test)]
    pub(crate) fn buffers(&self) -> usize {
        self.bufs.len()
    }

    #[cfg(test)]
    pub(crate) fn buf(&self, id: usize) -> &[u8] {
        self.bufs[id].bytes()
    }

    #[cfg(test)]
    pub(crate) fn buf_mut(&mut self, id: usize) -> &mut [u8] {
        self.bufs[id].bytes_mut()
    }

    fn command(&mut self, len: usize) -> Result<(), LinkError> {
        let fd = self.cmd.as_ref().unwrap_or(&self.dev);
        write_all(fd, &self.cmdbuf[..len], &self.abort)
    }

    /// Drops reports that arrived for no one (a failed cell's late report).
    fn drain(&mut self, id: usize) {
        let mut v = [0u8; 8];
        let _ = rustix::io::read(&self.bufs[id].efd, &mut v);
        let _ = get_data_size(self.dev.as_fd(), id);
    }

    /// Waits for the remote's report on buffer `id`; returns its length.
    fn wait_report(&mut self, id: usize) -> Result<usize, LinkError> {
        self.waiting_on = Some(id);
        let mut v = [0u8; 8];
        loop {
            match rustix::io::read(&self.bufs[id].efd, &mut v) {
                Ok(_) => break,
                Err(Errno::AGAIN) => {}
                Err(Errno::INTR) => check(&self.abort)?,
                Err(e) => return Err(LinkError::sys("read (eventfd)", e)),
            }
            check(&self.abort)?;
            let mut fds = [PollFd::new(&self.bufs[id].efd, PollFlags::IN)];
            let t = rustix::time::Timespec { tv_sec: 0, tv_nsec: POLL_MAX_MS * 1_000_000 };
            match poll(&mut fds, Some(&t)) {
                Ok(_) | Err(Errno::INTR) => {}
                Err(e) => return Err(LinkError::sys("poll", e)),
            }
        }
        self.waiting_on = None;
        let got = get_data_size(self.dev.as_fd(), id)
            .map_err(|e| LinkError::sys("ioctl RPMSG_SDB_IOCTL_GET_DATA_SIZE", e))?;
        check_report(id as u32, got, self.bufs[id].len)
    }

    /// Remote fills buffer `id` with `len` bytes of the pattern `seed`;
    /// returns once it reported them (the caller checks the bytes).
    #[cfg(test)]
    pub(crate) fn remote_fill(
        &mut self,
        id: usize,
        len: usize,
        seed: u32,
    ) -> Result<(), LinkError> {
        self.ask_fill(id, len, seed)?;
        let got = self.report(id)?;
        if got != len {
            return Err(LinkError::Device(format!(
                "asked the remote to fill {len} B of buffer {id}; it reported {got} B"
            )));
        }
        Ok(())
    }

    /// The remote checks buffer `id` (which Linux filled with `seed`) and
    /// reports how many bytes matched: `Ok(None)` all of them, else the
    /// first bad offset.
    #[cfg(test)]
    pub(crate) fn remote_check(
        &mut self,
        id: usize,
        len: usize,
        seed: u32,
    ) -> Result<Option<usize>, LinkError> {
        self.ask_check(id, len, seed)?;
        let got = self.report(id)?;
        Ok((got != len).then_some(got))
    }

    /// Sends a command as it is (tests of bad input).
    #[cfg(test)]
    pub(crate) fn raw_command(&mut self, cmd: &[u8]) -> Result<(), LinkError> {
        self.cmdbuf[..cmd.len()].copy_from_slice(cmd);
        self.command(cmd.len())
    }

    #[cfg(test)]
    pub(crate) fn wait(&mut self, id: usize) -> Result<usize, LinkError> {
        self.wait_report(id)
    }
}

/// The one-way stream (the engine's `-p stream` with `--protocol raw`):
/// every buffer is a slot; "F" and "C" commands, the report as for the echo.
impl RemoteBuffers for SdbLink {
    fn slots(&self) -> usize {
        self.bufs.len()
    }

    fn slot_bytes(&self) -> usize {
        self.bufs[0].len
    }

    fn ask_fill(&mut self, slot: usize, len: usize, seed: u32) -> Result<(), LinkError> {
        self.drain(slot);
        let n = cmd_fill(&mut self.cmdbuf, slot as u32, len as u32, seed);
        self.command(n)
    }

    fn slot_mut(&mut self, slot: usize) -> &mut [u8] {
        self.bufs[slot].bytes_mut()
    }

    fn ask_check(&mut self, slot: usize, len: usize, seed: u32) -> Result<(), LinkError> {
        self.drain(slot);
        let n = cmd_check(&mut self.cmdbuf, slot as u32, len as u32, seed);
        self.command(n)
    }

    fn report(&mut self, slot: usize) -> Result<usize, LinkError> {
        self.wait_report(slot)
    }

    fn slot(&self, slot: usize) -> &[u8] {
        self.bufs[slot].bytes()
    }
}

fn not_sdb(path: &str, why: &str) -> LinkError {
    LinkError::Setup(format!(
        "{path} is not an stm32-rpmsg-sdb device ({why}): give the /dev/rpmsg-sdb that \
         kernel/sdb or ST's rpmsg_sdb driver creates"
    ))
}

impl Link for SdbLink {
    fn caps(&self) -> LinkCaps {
        LinkCaps {
            max_msg_bytes: self.bufs[0].len,
            message_boundaries: true,
            zero_copy: false,
            shared_clock: false,
        }
    }

    fn send(&mut self, msg: &[u8]) -> Result<(), LinkError> {
        let size = self.bufs[0].len;
        let pairs = self.bufs.len() / 2;
        if msg.len() > size {
            return Err(LinkError::TooLarge { size: msg.len(), max: size });
        }
        if self.pending_n == pairs {
            return Err(LinkError::Device(format!(
                "sdb: {pairs} buffer pair(s) all in flight: give a size= of at least the \
                 message, or more buffers="
            )));
        }
        let (tx, rx) = (2 * self.next_pair, 2 * self.next_pair + 1);
        self.next_pair = (self.next_pair + 1) % pairs;
        self.bufs[tx].bytes_mut()[..msg.len()].copy_from_slice(msg);
        let n = cmd_copy(&mut self.cmdbuf, tx as u32, rx as u32, msg.len() as u32);
        self.command(n)?;
        self.pending[(self.pending_at + self.pending_n) % pairs] = (rx, msg.len());
        self.pending_n += 1;
        Ok(())
    }

    fn recv(&mut self, buf: &mut [u8], len: usize) -> Result<(), LinkError> {
        if self.pending_n == 0 {
            return Err(LinkError::Setup(
                "sdb: a buffer comes back only for one that was sent".into(),
            ));
        }
        let (rx, sent) = self.pending[self.pending_at];
        self.pending_at = (self.pending_at + 1) % (self.bufs.len() / 2);
        self.pending_n -= 1;
        let got = self.wait_report(rx)?;
        if got != len || got != sent {
            return Err(LinkError::Framing(format!(
                "the remote reported {got} B in buffer {rx}; {len} B were expected"
            )));
        }
        buf[..len].copy_from_slice(&self.bufs[rx].bytes()[..len]);
        Ok(())
    }

    fn discard_input(&mut self) {
        self.pending_n = 0;
        self.pending_at = 0;
        self.next_pair = 0;
        for id in 0..self.bufs.len() {
            self.drain(id);
        }
    }

    fn echo_chunk(&self) -> Option<usize> {
        Some(self.bufs[0].len)
    }

    fn remote_buffers(&mut self) -> Option<&mut dyn RemoteBuffers> {
        Some(self)
    }

    fn stalled_in(&self) -> Option<String> {
        self.waiting_on.map(|id| {
            format!(
                "the remote never reported buffer {id} of {} (its eventfd stayed quiet)",
                self.path
            )
        })
    }
}

pub(crate) fn open(spec: &LinkSpec, abort: Abort) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    let p = Params::of(spec)?;
    let path = spec.path.as_deref().unwrap_or_default();
    let link = SdbLink::open(path, &p, abort)?;
    let handoff = Handoff { text: String::new(), fds: Vec::new(), peer_path: None, remote: true };
    Ok((Box::new(link), handoff))
}

#[cfg(test)]
#[path = "sdb_tests.rs"]
mod tests;
