//! icb frames v1, host side (docs/protocol.md §1).
//!
//! - **Handshake.** `HELLO` is sent and re-sent, at growing intervals, until
//!   a `CAPS` with the seq of one of them arrives or the cell timeout passes:
//!   a tty may still echo in cooked mode until its peer has set raw mode, and
//!   a board may be booting. Garbage, errors and our own echoed frames are
//!   skipped during the handshake (and remembered for the failure reason).
//! - **Frame size.** Frames are at most min(the peer's `max_frame`, the
//!   link's largest message, 65551): on a message link with a small MTU
//!   (rpmsg: 496) one frame is one message, and larger messages are
//!   fragmented (§1.6).
//! - **Ping-pong** is `ECHO`: each fragment is sent when the echo of the one
//!   before it is back (one fragment in flight: a byte stream's buffers, a
//!   few KiB on a pty, would otherwise deadlock the two writers on large
//!   frames); the sample ends when the fragment with the last byte is back,
//!   and the reassembled message is then compared byte for byte.
//! - **Stream** is `DATA` with credits: one credit per frame, starting from
//!   the peer's `rx_slots`; the last frame asks for an `ACK`, whose byte count
//!   (mod 2³²) must equal what was sent. Each frame's CRC is checked by the
//!   peer, which answers a bad one with `ERROR`.
//! - **Bulk** is `DATA × blocks` with `ACK_REQ` on the last frame; a sample
//!   ends at the `ACK`.
//!
//! Ping-pong and stream run through [`Echoes`] and [`Sink`] (`patterns.rs`),
//! which a single-link cell and each channel of a multi-channel cell
//! (`channels/`) share; a channel counts a stream's messages as their
//! credit comes back.
//!
//! After the handshake, anything unexpected fails the cell and names it:
//! garbage, a bad frame (CRC, header), an `ERROR` from the peer, an echo of
//! another seq, our own frames heard back.

mod onchip;
mod patterns;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use icbench_link::{Link, LinkError};
use icbench_proto::frame::{MAX_BODY, MIN_MAX_FRAME, OVERHEAD};
use icbench_proto::{
    Ack, Caps, ClockId, Credit, ErrorReport, Event, Flags, FrameError, FrameRef, FrameType, Modes,
    Reassembler, StreamParser, fragments,
};

use crate::clock::now_ns;
use crate::pattern::CellError;
use crate::payload::first_difference;

pub(crate) use onchip::cell_data as onchip_cell_data;
pub(crate) use patterns::{Echoes, SINK_SIZING, Sink};

/// The largest frame the host accepts and sends (a 65535-byte body).
pub(crate) const HOST_MAX_FRAME: usize = MAX_BODY + OVERHEAD;
/// Largest message reassembled (the CLI's largest size).
const MAX_MESSAGE: usize = 16 << 20;
/// Bytes taken from the link per read.
const READ_BUF: usize = 64 << 10;
/// First HELLO seq; attempts count up from here ("HE" in the high bytes).
const HELLO_SEQ: u32 = 0x4845_0000;

/// What a frame from the peer meant, once checked.
enum Got {
    Echo {
        seq: u32,
        complete: bool,
    },
    Ack(Ack),
    Caps {
        seq: u32,
        caps: Caps,
    },
    /// Credit arrived (already added to `credits`).
    Credit,
    /// A fragment of an on-chip reply (`CHIP`, `RESULT`), reassembled.
    Reply {
        ty: FrameType,
        seq: u32,
        complete: bool,
    },
}

/// One handshaken icb conversation with a peer.
pub(crate) struct Icb {
    rx: Vec<u8>,
    start: usize,
    end: usize,
    parser: StreamParser,
    reasm: Reassembler,
    tx: Vec<u8>,
    /// Largest frame either side sends.
    frame: usize,
    /// What the peer announced.
    caps: Caps,
    seq: u32,
    credits: u32,
    /// DATA frames sent, and frames the peer has credited back, since the
    /// handshake: what a stream on a channel counts as consumed.
    data_frames: u64,
    credited: u64,
    /// In handshake mode: what was skipped, for the failure reason.
    noise: Option<String>,
}

fn wire(e: impl std::fmt::Display) -> CellError {
    CellError::Wire(e.to_string())
}

fn error_name(code: u16) -> &'static str {
    match code {
        1 => "truncated",
        2 => "bad magic",
        3 => "unsupported version",
        4 => "reserved flags",
        5 => "too long",
        6 => "bad length",
        7 => "CRC mismatch",
        10 => "unsupported",
        11 => "no space for the reply",
        12 => "send failed",
        _ => "unknown error",
    }
}

impl Icb {
    fn new() -> Icb {
        Icb {
            rx: vec![0; READ_BUF],
            start: 0,
            end: 0,
            parser: StreamParser::new(MAX_BODY),
            reasm: Reassembler::new(MAX_MESSAGE),
            tx: vec![0; HOST_MAX_FRAME],
            frame: HOST_MAX_FRAME,
            caps: Caps::default(),
            seq: 0,
            credits: 0,
            data_frames: 0,
            credited: 0,
            noise: None,
        }
    }

    /// The next meaningful frame; `None` when `timeout` passed first.
    /// `strict`: anything unexpected is an error (after the handshake).
    /// Not strict, `timeout` bounds the whole call, not each read: a peer
    /// that floods garbage kept a handshake reading past 120 s where
    /// `--timeout` was 1 s (issue #30 item 8). Strict, each read has it
    /// (no clock read in the timed loops; the first bad byte ends the call).
    fn next(
        &mut self,
        link: &mut dyn Link,
        timeout: Option<Duration>,
        strict: bool,
    ) -> Result<Option<Got>, CellError> {
        let deadline = timeout.filter(|_| !strict).and_then(|t| Instant::now().checked_add(t));
        loop {
            let left = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => Some(left),
                    _ => return Ok(None),
                },
                None => timeout,
            };
            if self.start == self.end {
                let n = link.recv_some(&mut self.rx, left)?;
                if n == 0 {
                    return Ok(None);
                }
                (self.start, self.end) = (0, n);
            }
            let (used, ev) = self.parser.step(&self.rx[self.start..self.end]);
            self.start += used;
            let f = match ev {
                None => continue,
                Some(Event::Frame(f)) => f,
                Some(Event::Error(e)) if !strict => {
                    self.noise = Some(e.to_string());
                    continue;
                }
                Some(Event::Error(FrameError::Garbage { bytes })) => {
                    return Err(CellError::Wire(format!(
                        "garbage from the peer: {bytes} bytes outside any icb frame"
                    )));
                }
                Some(Event::Error(e)) => return Err(wire(format!("bad frame from the peer: {e}"))),
            };
            if !f.flags.contains(Flags::REPLY) {
                if strict {
                    return Err(wire(format!(
                        "heard our own {} frame back: the device echoes (not in raw mode?) or \
                         loops back",
                        f.ty
                    )));
                }
                self.noise = Some(format!("our own {} frame echoed back", f.ty));
                continue;
            }
            match f.ty {
                FrameType::Echo => {
                    let done = self
                        .reasm
                        .push(&f)
                        .map_err(|e| wire(format!("echo reassembly failed: {e}")))?
                        .is_some();
                    return Ok(Some(Got::Echo { seq: f.seq, complete: done }));
                }
                FrameType::Credit => {
                    let c = Credit::from_bytes(f.payload).map_err(wire)?;
                    self.credits = self.credits.saturating_add(c.frames);
                    self.credited += u64::from(c.frames);
                    return Ok(Some(Got::Credit));
                }
                FrameType::Ack => {
                    return Ok(Some(Got::Ack(Ack::from_bytes(f.payload).map_err(wire)?)));
                }
                FrameType::Chip | FrameType::Result => {
                    let done = self
                        .reasm
                        .push(&f)
                        .map_err(|e| wire(format!("{} reassembly failed: {e}", f.ty)))?
                        .is_some();
                    return Ok(Some(Got::Reply { ty: f.ty, seq: f.seq, complete: done }));
                }
                FrameType::Caps => {
                    let caps = Caps::from_bytes(f.payload).map_err(wire)?;
                    return Ok(Some(Got::Caps { seq: f.seq, caps }));
                }
                FrameType::Error => {
                    let r = ErrorReport::from_bytes(f.payload).map_err(wire)?;
                    let text = format!(
                        "the peer answered ERROR {} ({}) for seq {}",
                        r.code,
                        error_name(r.code),
                        r.seq
                    );
                    if strict {
                        return Err(CellError::Wire(text));
                    }
                    self.noise = Some(text);
                }
                other if strict => {
                    return Err(wire(format!("unexpected {other} frame from the peer")));
                }
                _ => {}
            }
        }
    }

    /// Turns a watchdog abort into a reason that says what was awaited and
    /// whether a frame had been cut off.
    fn stalled(&self, e: CellError, waiting: impl FnOnce() -> String) -> CellError {
        match e {
            CellError::Link(LinkError::Aborted) => {
                let mut w = waiting();
                let partial = self.parser.buffered();
                if partial > 0 {
                    w.push_str(&format!(
                        "; the peer had sent {partial} bytes of a frame and no more (truncated frame)"
                    ));
                }
                CellError::Stalled { waiting: w }
            }
            e => e,
        }
    }

    fn send(&mut self, link: &mut dyn Link, f: &FrameRef<'_>) -> Result<(), CellError> {
        let n = f.encode_into(&mut self.tx).map_err(wire)?;
        link.send(&self.tx[..n]).map_err(CellError::Link)
    }

    /// One echo of `msg`, checked byte for byte; returns the clock reads
    /// before its first fragment went out and when its last came back.
    fn echo(
        &mut self,
        link: &mut dyn Link,
        msg: &[u8],
        progress: &AtomicU64,
    ) -> Result<(u64, u64), CellError> {
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        let head = FrameRef::new(FrameType::Echo, seq, &[]);
        let frags = fragments(head, msg, self.frame)
            .ok_or_else(|| wire(format!("a {} B frame leaves no room for payload", self.frame)))?;
        let total = frags.len();
        let t0 = now_ns();
        for (i, f) in frags.enumerate() {
            self.send(link, &f)
                .map_err(|e| self.stalled(e, || format!("sending ECHO seq {seq}")))?;
            loop {
                match self.next(link, None, true) {
                    Ok(Some(Got::Echo { seq: s, complete })) => {
                        if s != seq {
                            return Err(wire(format!(
                                "the echo of seq {s} arrived while seq {seq} was awaited"
                            )));
                        }
                        if complete != (i + 1 == total) {
                            return Err(wire(format!(
                                "the echo of seq {seq} ended after fragment {} of {total}",
                                i + 1
                            )));
                        }
                        progress.fetch_add(1, Ordering::Relaxed);
                        break;
                    }
                    Ok(Some(Got::Ack(_))) => {
                        return Err(wire("an ACK arrived, an ECHO was awaited"));
                    }
                    Ok(_) => {}
                    Err(e) => {
                        return Err(self.stalled(e, || {
                            format!(
                                "waiting for the echo of seq {seq} (fragment {} of {total})",
                                i + 1
                            )
                        }));
                    }
                }
            }
        }
        let t1 = now_ns();
        let got = self.reasm.message();
        if got != msg {
            let offset = first_difference(got, msg).unwrap_or(0);
            return Err(CellError::Corrupt { seq: u64::from(seq), size: msg.len(), offset });
        }
        Ok((t0, t1))
    }

    /// Sends `count` messages of `msg` as DATA, within the credits, the last
    /// frame asking for an ACK, and checks the ACK's byte count. As credit
    /// arrives, `each(done, t)` gets the messages of this call the peer has
    /// consumed so far (every fragment credited back) and the clock read
    /// when the credit came; at the ACK, `count` and its time, which is
    /// returned.
    fn data(
        &mut self,
        link: &mut dyn Link,
        msg: &[u8],
        count: u64,
        progress: &AtomicU64,
        each: &mut impl FnMut(u64, u64),
    ) -> Result<u64, CellError> {
        let frame = self.frame;
        let no_room = || wire(format!("a {frame} B frame leaves no room for payload"));
        let per_msg = fragments(FrameRef::new(FrameType::Data, 0, &[]), msg, frame)
            .ok_or_else(no_room)?
            .len() as u64;
        // Every frame sent before this call was acknowledged, so credits
        // past it are for this call's frames (the peer consumes in order).
        let base = self.data_frames;
        let mut sent: u64 = 0;
        for m in 0..count {
            self.seq = self.seq.wrapping_add(1);
            let seq = self.seq;
            let head = FrameRef::new(FrameType::Data, seq, &[]);
            let frags = fragments(head, msg, frame).ok_or_else(no_room)?;
            let nf = frags.len();
            for (i, mut f) in frags.enumerate() {
                while self.credits == 0 {
                    match self.next(link, None, true) {
                        Ok(Some(Got::Ack(_))) => {
                            return Err(wire("an ACK arrived that was not asked for"));
                        }
                        Ok(Some(Got::Credit)) => {
                            progress.fetch_add(1, Ordering::Relaxed);
                            each(self.consumed(base, per_msg), now_ns());
                        }
                        Ok(_) => {
                            progress.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => {
                            return Err(self.stalled(e, || {
                                format!("waiting for credit to send DATA seq {seq}")
                            }));
                        }
                    };
                }
                if m + 1 == count && i + 1 == nf {
                    f.flags = f.flags | Flags::ACK_REQ;
                }
                self.send(link, &f)
                    .map_err(|e| self.stalled(e, || format!("sending DATA seq {seq}")))?;
                self.credits -= 1;
                self.data_frames += 1;
                sent += f.payload.len() as u64;
            }
        }
        let last = self.seq;
        loop {
            match self.next(link, None, true) {
                Ok(Some(Got::Ack(a))) => {
                    let t = now_ns();
                    if a.acked_seq != last {
                        return Err(wire(format!(
                            "ACK for seq {} arrived, seq {last} asked for it",
                            a.acked_seq
                        )));
                    }
                    // The count is a u32: compare modulo 2³².
                    if a.bytes != sent as u32 {
                        return Err(wire(format!(
                            "the peer acknowledged {} bytes, {sent} were sent",
                            a.bytes
                        )));
                    }
                    progress.fetch_add(1, Ordering::Relaxed);
                    each(count, t);
                    return Ok(t);
                }
                Ok(Some(Got::Echo { seq, .. })) => {
                    return Err(wire(format!("an echo of seq {seq} arrived, an ACK was awaited")));
                }
                Ok(Some(Got::Credit)) => each(self.consumed(base, per_msg), now_ns()),
                Ok(_) => {}
                Err(e) => {
                    return Err(
                        self.stalled(e, || format!("waiting for the ACK of DATA seq {last}"))
                    );
                }
            }
        }
    }

    /// Whole messages of `per_msg` frames the peer has credited back of
    /// those sent after the first `base` DATA frames.
    fn consumed(&self, base: u64, per_msg: u64) -> u64 {
        let frames = self.credited.saturating_sub(base).min(self.data_frames - base);
        frames / per_msg.max(1)
    }
}

/// Says HELLO until CAPS answers or `limit` passes; `alive` reports a peer
/// that died meanwhile. Returns the conversation, or a one-line reason.
pub(crate) fn handshake(
    link: &mut dyn Link,
    limit: Duration,
    alive: &mut dyn FnMut() -> Result<(), String>,
) -> Result<Icb, String> {
    let mut icb = Icb::new();
    link.discard_input();
    let hello = Caps {
        max_frame: HOST_MAX_FRAME as u32,
        modes: Modes(Modes::ECHO | Modes::ACK | Modes::SINK | Modes::FRAGMENTS),
        clock_hz: 0,
        clock_id: ClockId::NONE,
        rx_slots: 0,
        ack_every_bytes: 0,
    }
    .to_bytes();
    let start = Instant::now();
    let mut wait = Duration::from_millis(50);
    let mut attempt = 0u32;
    loop {
        attempt += 1;
        let seq = HELLO_SEQ + attempt;
        icb.send(link, &FrameRef::new(FrameType::Hello, seq, &hello))
            .map_err(|e| format!("sending HELLO: {e}"))?;
        let until = Instant::now() + wait;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            match icb.next(link, Some(left), false) {
                Ok(Some(Got::Caps { seq: s, caps })) if s > HELLO_SEQ && s <= seq => {
                    return icb.accept(caps, link.caps().max_msg_bytes);
                }
                Ok(_) => {}
                Err(e) => {
                    alive()?;
                    return Err(format!("icb handshake: {e}"));
                }
            }
        }
        alive()?;
        if start.elapsed() >= limit {
            let heard = icb.noise.as_deref().map(|n| format!(" (heard: {n})")).unwrap_or_default();
            return Err(format!(
                "icb handshake: no CAPS answered {attempt} HELLO frames within {:.1} s{heard}: \
                 nothing on the other side speaks icb",
                limit.as_secs_f64()
            ));
        }
        wait = (wait * 2).min(Duration::from_millis(500));
    }
}

impl Icb {
    fn accept(mut self, caps: Caps, link_max: usize) -> Result<Icb, String> {
        let frame = (caps.max_frame as usize).min(link_max).min(HOST_MAX_FRAME);
        if frame < MIN_MAX_FRAME {
            return Err(format!(
                "icb handshake: frames of at most {frame} B (peer {} B, link {link_max} B) are \
                 below the protocol's minimum of {MIN_MAX_FRAME} B",
                caps.max_frame
            ));
        }
        self.frame = frame;
        self.caps = caps;
        self.credits = caps.rx_slots.max(1);
        self.noise = None;
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream phase counts the messages the peer has credited back whole:
    /// the credit for the last frame of the phase before (which follows its
    /// ACK) is not this phase's, and a peer that grants more credit than
    /// it was sent frames cannot make more messages count than were sent.
    #[test]
    fn credit_counts_this_phases_whole_messages() {
        let mut icb = Icb::new();
        // The phase before sent 10 frames; 9 have been credited back.
        (icb.data_frames, icb.credited) = (10, 9);
        let base = icb.data_frames;
        // This phase: messages of 2 fragments, 3 of them sent.
        icb.data_frames += 6;
        assert_eq!(icb.consumed(base, 2), 0);
        icb.credited += 1; // the straggler
        assert_eq!(icb.consumed(base, 2), 0);
        icb.credited += 3; // a message and a half
        assert_eq!(icb.consumed(base, 2), 1);
        icb.credited += 2;
        assert_eq!(icb.consumed(base, 2), 2);
        icb.credited += 100;
        assert_eq!(icb.consumed(base, 2), 3);
    }
}
