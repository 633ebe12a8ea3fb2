//! The icb patterns on a handshaken conversation: which modes each needs
//! of the peer, ping-pong's [`Echoes`] and stream's [`Sink`] (shared by
//! single-link cells and the channels of a multi-channel cell), and the
//! single-link cells of ping-pong, stream and bulk.

use std::sync::atomic::AtomicU64;

use icbench_link::Link;
use icbench_model::CellData;
use icbench_proto::{Modes, max_payload};

use super::super::sampled;
use super::Icb;
use crate::clock::now_ns;
use crate::pattern::{Budget, CellError, Sizing};
use crate::payload::Payload;

/// A stream cell's probe, warm-up and count (at least 32 measured).
pub(crate) const SINK_SIZING: Sizing = Sizing { groups: 4, per_group: 4, min: 32, max: 50_000_000 };

impl Icb {
    fn need(&self, modes: u32, what: &str) -> Result<(), CellError> {
        if self.caps.modes.has(modes) {
            Ok(())
        } else {
            Err(CellError::Unsupported(format!(
                "the peer does not offer {what} (CAPS modes {:#04x})",
                self.caps.modes.0
            )))
        }
    }

    fn need_fragments(&self, size: usize) -> Result<(), CellError> {
        if size > max_payload(self.frame, false, false) {
            self.need(Modes::FRAGMENTS, "fragments, which a message larger than a frame needs")?;
        }
        Ok(())
    }

    /// Ping-pong's messages of `size` bytes, once the peer is known to
    /// echo them.
    pub(crate) fn echoes(&mut self, size: usize) -> Result<Echoes<'_>, CellError> {
        self.need(Modes::ECHO, "echo")?;
        self.need_fragments(size)?;
        Ok(Echoes { tx: Payload::new(size).buffer(), icb: self, next: 0 })
    }

    /// Stream's messages of `size` bytes, once the peer is known to sink
    /// them with credits and acknowledgements.
    pub(crate) fn sink(&mut self, size: usize) -> Result<Sink<'_>, CellError> {
        self.need(Modes::SINK | Modes::ACK, "sink with credits and acknowledgements")?;
        self.need_fragments(size)?;
        Ok(Sink { msg: Payload::new(size).buffer(), icb: self })
    }

    /// Ping-pong: ECHO of `size`-byte messages.
    pub(crate) fn pingpong(
        &mut self,
        link: &mut dyn Link,
        size: usize,
        budget: &Budget,
        progress: &AtomicU64,
    ) -> Result<CellData, CellError> {
        let mut echoes = self.echoes(size)?;
        sampled(link, budget, progress, size as u64, |link, _| {
            let (t0, t1) = echoes.one(link, progress)?;
            Ok(t1 - t0)
        })
    }

    /// Stream: DATA with credits; throughput over the measured phase.
    pub(crate) fn stream(
        &mut self,
        link: &mut dyn Link,
        size: usize,
        budget: &Budget,
        progress: &AtomicU64,
    ) -> Result<CellData, CellError> {
        let mut sink = self.sink(size)?;
        let paced = SINK_SIZING.run(budget, |n| sink.timed(link, n, progress))?;
        let measure = paced.measure;
        let before = link.counters();
        let elapsed_ns = sink.timed(link, measure, progress)?;
        let counters = link.counters().since(before);
        Ok(CellData {
            messages: u64::from(measure),
            bytes: u64::from(measure) * size as u64,
            elapsed_ns,
            warmup_messages: paced.warmup_messages,
            latency: None,
            raw_ns: None,
            window: Some(sink.window()),
            counters,
            channels: None,
            adaptive: None,
            per_channel: Vec::new(),
            disturbance: None,
            cut_at_messages: paced.capped,
            timed_batch: None,
            state: None,
        })
    }

    /// Bulk: `blocks` DATA messages of `block` bytes, then one ACK.
    pub(crate) fn bulk(
        &mut self,
        link: &mut dyn Link,
        block: usize,
        blocks: u32,
        budget: &Budget,
        progress: &AtomicU64,
    ) -> Result<CellData, CellError> {
        self.need(Modes::SINK | Modes::ACK, "sink with acknowledgements")?;
        self.need_fragments(block)?;
        let msg = Payload::new(block).buffer();
        sampled(link, budget, progress, block as u64 * u64::from(blocks), |link, _| {
            let t0 = now_ns();
            Ok(self.data(link, &msg, u64::from(blocks), progress, &mut |_, _| {})? - t0)
        })
    }
}

/// Ping-pong on one conversation (`Icb::echoes`): each message stamped with
/// its number, echoed as ECHO frames and checked byte for byte. Single-link
/// cells and each channel of a multi-channel cell run this one body.
pub(crate) struct Echoes<'a> {
    icb: &'a mut Icb,
    tx: Vec<u8>,
    next: u64,
}

impl Echoes<'_> {
    /// The next message's echo: the clock reads before its first fragment
    /// went out and when its last came back. No allocation inside.
    #[inline]
    pub(crate) fn one(
        &mut self,
        link: &mut dyn Link,
        progress: &AtomicU64,
    ) -> Result<(u64, u64), CellError> {
        Payload::stamp(&mut self.tx, self.next);
        self.next += 1;
        self.icb.echo(link, &self.tx, progress)
    }
}

/// Stream on one conversation (`Icb::sink`): DATA frames within the
/// peer's credits, each phase ending at an ACK that must count every byte.
pub(crate) struct Sink<'a> {
    icb: &'a mut Icb,
    msg: Vec<u8>,
}

impl Sink<'_> {
    /// The credit the peer grants at the start: the stream's window.
    pub(crate) fn window(&self) -> u32 {
        self.icb.caps.rx_slots.max(1)
    }

    /// `count` messages; `each(done, t)` as credit comes back (messages of
    /// this phase the peer has consumed, and when) and at the ACK. Returns
    /// the clock reads before the first send and at the ACK.
    #[inline]
    pub(crate) fn phase(
        &mut self,
        link: &mut dyn Link,
        count: u32,
        progress: &AtomicU64,
        each: &mut impl FnMut(u64, u64),
    ) -> Result<(u64, u64), CellError> {
        let t0 = now_ns();
        let t1 = self.icb.data(link, &self.msg, u64::from(count), progress, each)?;
        Ok((t0, t1))
    }

    /// A phase timed as a whole, first send to the ACK, ns.
    pub(crate) fn timed(
        &mut self,
        link: &mut dyn Link,
        count: u32,
        progress: &AtomicU64,
    ) -> Result<u64, CellError> {
        let (t0, t1) = self.phase(link, count, progress, &mut |_, _| {})?;
        Ok(t1 - t0)
    }
}
