//! Stream, host → peer: up to a window of messages in flight, the peer
//! returning credits.

use super::*;

/// The stream loop: up to `window` messages in flight, the peer checking
/// each and returning a credit every `window / 2`. One body serves
/// single-link cells and each channel of a multi-channel cell; the caller's
/// `each(acked, t)` sees every credit with the messages acknowledged so far
/// in the phase and the clock read when it arrived.
pub(crate) struct Streamer {
    size: usize,
    tx: Vec<u8>,
    credit: Vec<u8>,
    window: u32,
    credit_every: u32,
}

impl Streamer {
    pub(crate) fn new(size: usize, window: u32) -> Streamer {
        let window = window.max(2);
        // At most two credits are ever unread, so a link whose reverse
        // direction holds two messages cannot deadlock (the peer blocked
        // sending a credit while the host is blocked sending data).
        Streamer {
            size,
            tx: Payload::new(size).buffer(),
            credit: vec![0u8; RX_MIN],
            window,
            credit_every: window / 2,
        }
    }

    pub(crate) fn window(&self) -> u32 {
        self.window
    }

    /// One phase of `count` messages; returns the clock reads before the
    /// first send and after the last credit. No allocation inside.
    #[inline]
    pub(crate) fn phase(
        &mut self,
        link: &mut dyn Link,
        count: u32,
        progress: &AtomicU64,
        each: &mut impl FnMut(u32, u64),
    ) -> Result<(u64, u64), CellError> {
        let (size, window) = (self.size, self.window);
        link.send(
            &Op::Sink { size: size as u32, count, credit_every: self.credit_every }.encode(),
        )?;
        let (mut sent, mut acked) = (0u32, 0u32);
        let t0 = now_ns();
        let mut t = t0;
        while acked < count {
            while sent < count && sent - acked < window {
                Payload::stamp(&mut self.tx, u64::from(sent));
                link.send(&self.tx)?;
                sent += 1;
            }
            link.recv(&mut self.credit, CREDIT_LEN)?;
            t = now_ns();
            let (received, bad) = ctrl::decode_credit(&self.credit);
            if bad > 0 {
                return Err(CellError::PeerSawCorruption { bad, count: received });
            }
            acked = received;
            progress.fetch_add(1, Ordering::Relaxed);
            each(acked, t);
        }
        Ok((t0, t))
    }

    /// A phase timed as a whole, first send to last credit, ns.
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

/// Stream: up to `window` messages in flight in `direction`, the receiver
/// checking every one and returning a credit every `window / 2` messages;
/// throughput over the whole phase. Host → peer: the host sends, the peer
/// checks and credits (timed from the first send to the last credit). Peer →
/// host: the peer sends, the host checks and credits (`stream_p2h.rs`; timed
/// from before the host asks for the messages to the last one checked).
pub fn stream(
    link: &mut dyn Link,
    size: usize,
    direction: Direction,
    budget: &Budget,
    progress: &AtomicU64,
) -> Result<CellData, CellError> {
    match direction {
        Direction::H2P => {
            let mut st = Streamer::new(size, budget.window);
            let window = st.window();
            let mut phase = |link: &mut dyn Link, count: u32| st.timed(link, count, progress);
            stream_phases(link, size, window, budget, &mut phase)
        }
        Direction::P2H => {
            let mut d = Drainer::new(size, budget.window);
            let window = d.window();
            let mut phase = |link: &mut dyn Link, count: u32| d.timed(link, count, progress);
            stream_phases(link, size, window, budget, &mut phase)
        }
    }
}

/// A stream cell's probe, warm-up and measured phase, in either direction:
/// `phase(link, count)` runs `count` messages and returns their time, ns.
fn stream_phases(
    link: &mut dyn Link,
    size: usize,
    window: u32,
    budget: &Budget,
    phase: &mut dyn FnMut(&mut dyn Link, u32) -> Result<u64, CellError>,
) -> Result<CellData, CellError> {
    let paced = Sizing::stream(window).run(budget, |n| phase(link, n))?;
    let measure = paced.measure;
    let before = link.counters();
    let elapsed_ns = phase(link, measure)?;
    let counters = link.counters().since(before);
    Ok(CellData {
        messages: u64::from(measure),
        bytes: u64::from(measure) * size as u64,
        elapsed_ns,
        warmup_messages: paced.warmup_messages,
        latency: None,
        raw_ns: None,
        window: Some(window),
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
