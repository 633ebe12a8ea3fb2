//! `iceoryx2?service=pubsub` (the default): one publish–subscribe service of
//! byte slices (`[u8]`) per direction, one publisher and one subscriber, no
//! history, no overflow — a message is never dropped. Messages are built in
//! the loaned sample (`loan_slice_uninit` → write → `send`) and inspected
//! where they lie in the subscriber's sample (`receive` → read → drop), as
//! iceoryx2's own publish–subscribe examples do.
//!
//! The peer opens the host's services from the handoff text and says hello
//! once, so the host's first message finds the peer's subscriber connected.
//! A full subscriber buffer makes the publisher retry (counted as
//! `tx_busy`) until the abort flag is set.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use iceoryx2::port::BackpressureAction;
use iceoryx2::port::publisher::Publisher;
use iceoryx2::port::subscriber::Subscriber;
use iceoryx2::prelude::*;
use iceoryx2::sample::Sample;

use super::{HELLO, Options, Svc, Waiter, as_bytes, io, node, service_name, setup};
use crate::{Abort, Link, LinkCaps, LinkCounters, LinkError};

/// One end: a publisher of its direction and a subscriber of the other.
/// Fields drop in order: ports first, then their services, the node last.
pub(super) struct PubSubLink {
    publisher: Publisher<Svc, [u8], ()>,
    subscriber: Subscriber<Svc, [u8], ()>,
    waiter: Waiter,
    _services: Services,
    _node: Node<Svc>,
    o: Options,
    abort: Abort,
    busy: Arc<AtomicU64>,
    /// The host end waits for the peer's hello before its first message.
    ready: bool,
}

// SAFETY: iceoryx2's `ipc::Service` ports hold reference-counted handles
// (not thread-safe) to their node and services. Every such handle of this
// end lives in this struct — the link creates them, keeps them private and
// hands none out — so moving the whole struct to another thread moves every
// clone together and no two threads ever touch one count. `ipc_threadsafe`
// would make this unneeded at the price of a mutex around every port call,
// a cost the measured figures must not carry.
unsafe impl Send for PubSubLink {}

struct Services {
    _h2p: iceoryx2::service::port_factory::publish_subscribe::PortFactory<Svc, [u8], ()>,
    _p2h: iceoryx2::service::port_factory::publish_subscribe::PortFactory<Svc, [u8], ()>,
}

impl PubSubLink {
    pub(super) fn new(o: Options, host: bool, abort: Abort) -> Result<PubSubLink, LinkError> {
        let node = node()?;
        let (h2p_name, p2h_name) = (format!("{}/h2p", o.name), format!("{}/p2h", o.name));
        let pubsub = |name: &str| {
            let builder = node.service_builder(&service_name(name)?).publish_subscribe::<[u8]>();
            if host {
                builder
                    .max_publishers(1)
                    .max_subscribers(1)
                    .history_size(0)
                    .subscriber_max_buffer_size(o.buffer)
                    .enable_safe_overflow(false)
                    .create()
                    .map_err(setup("create a publish-subscribe service"))
            } else {
                builder.open().map_err(setup("open the host's publish-subscribe service"))
            }
        };
        let h2p = pubsub(&h2p_name)?;
        let p2h = pubsub(&p2h_name)?;
        let (tx, rx) = if host { (&h2p, &p2h) } else { (&p2h, &h2p) };
        let busy = Arc::new(AtomicU64::new(0));
        let publisher = {
            let (abort, busy) = (abort.clone(), Arc::clone(&busy));
            tx.publisher_builder()
                .initial_max_slice_len(o.max)
                .max_loaned_samples(2)
                .set_backpressure_handler(move |_: &iceoryx2::port::BackpressureInfo| {
                    if abort.is_set() {
                        BackpressureAction::DiscardDataAndFail
                    } else {
                        busy.fetch_add(1, Ordering::Relaxed);
                        std::hint::spin_loop();
                        BackpressureAction::Retry
                    }
                })
                .create()
                .map_err(setup("create a publisher"))?
        };
        let subscriber = rx
            .subscriber_builder()
            .buffer_size(o.buffer)
            .create()
            .map_err(setup("create a subscriber"))?;
        let waiter = Waiter::new(&node, &o, host, abort.clone())?;
        let mut link = PubSubLink {
            publisher,
            subscriber,
            waiter,
            _services: Services { _h2p: h2p, _p2h: p2h },
            _node: node,
            o,
            abort,
            busy,
            ready: !host,
        };
        if !host {
            // The host's subscriber exists (it was made before the handoff):
            // this message reaches it and tells it ours exists too.
            link.send(HELLO)?;
        }
        Ok(link)
    }

    /// The host's first call waits for the peer's hello.
    fn handshake(&mut self) -> Result<(), LinkError> {
        if self.ready {
            return Ok(());
        }
        let hello = self.next_sample()?;
        if hello.payload() != HELLO {
            return Err(LinkError::Device(
                "iceoryx2: the peer's first message was not its hello".to_string(),
            ));
        }
        drop(hello);
        self.ready = true;
        Ok(())
    }

    /// The next message, waited for as the spec says.
    #[inline]
    fn next_sample(&mut self) -> Result<Sample<Svc, [u8], ()>, LinkError> {
        loop {
            if let Some(s) = self.subscriber.receive().map_err(io("receive"))? {
                return Ok(s);
            }
            self.waiter.idle()?;
        }
    }

    #[inline]
    fn receive(&mut self, len: usize) -> Result<Sample<Svc, [u8], ()>, LinkError> {
        self.handshake()?;
        let s = self.next_sample()?;
        let n = s.payload().len();
        if n != len {
            return Err(LinkError::Framing(format!(
                "received a message of {n} B, expected {len} B"
            )));
        }
        Ok(s)
    }

    /// Loans a sample of `len` bytes, lets `build` write it, sends it.
    #[inline]
    fn publish(&mut self, len: usize, build: &mut dyn FnMut(&mut [u8])) -> Result<(), LinkError> {
        self.o.check_size(len)?;
        let mut sample = self.publisher.loan_slice_uninit(len).map_err(io("loan a sample"))?;
        // SAFETY: the sample is `len` bytes of the publisher's shared memory.
        build(unsafe { as_bytes(sample.payload_mut()) });
        // SAFETY: as above, every byte is initialised.
        let sample = unsafe { sample.assume_init() };
        sample
            .send()
            .map_err(|e| if self.abort.is_set() { LinkError::Aborted } else { io("send")(e) })?;
        self.waiter.notify()
    }
}

impl Link for PubSubLink {
    fn caps(&self) -> LinkCaps {
        LinkCaps {
            max_msg_bytes: self.o.max,
            message_boundaries: true,
            zero_copy: true,
            shared_clock: true,
        }
    }

    #[inline]
    fn send(&mut self, msg: &[u8]) -> Result<(), LinkError> {
        self.o.check_size(msg.len())?;
        self.handshake()?;
        self.publish(msg.len(), &mut |b| b.copy_from_slice(msg))
    }

    #[inline]
    fn recv(&mut self, buf: &mut [u8], len: usize) -> Result<(), LinkError> {
        let s = self.receive(len)?;
        buf[..len].copy_from_slice(s.payload());
        Ok(())
    }

    #[inline]
    fn send_with(
        &mut self,
        len: usize,
        _scratch: &mut [u8],
        build: &mut dyn FnMut(&mut [u8]),
    ) -> Result<(), LinkError> {
        self.o.check_size(len)?;
        self.handshake()?;
        self.publish(len, build)
    }

    #[inline]
    fn recv_with(
        &mut self,
        len: usize,
        _scratch: &mut [u8],
        inspect: &mut dyn FnMut(&[u8]),
    ) -> Result<(), LinkError> {
        let s = self.receive(len)?;
        inspect(s.payload());
        Ok(())
    }

    #[inline]
    fn echo(&mut self, len: usize, _scratch: &mut [u8]) -> Result<(), LinkError> {
        let s = self.receive(len)?;
        self.publish(len, &mut |b| b.copy_from_slice(s.payload()))
    }

    fn counters(&self) -> LinkCounters {
        LinkCounters { tx_busy: self.busy.load(Ordering::Relaxed) }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{past_max_is_refused, round_trips};

    #[test]
    fn spin_round_trips_are_echoed_byte_for_byte() {
        round_trips("iceoryx2");
    }

    #[test]
    fn event_round_trips_are_echoed_byte_for_byte() {
        round_trips("iceoryx2?wait=event");
    }

    #[test]
    fn a_message_past_max_is_refused() {
        past_max_is_refused("iceoryx2?max=64");
    }
}
