//! `iceoryx2`: Eclipse iceoryx2's zero-copy publish–subscribe between the two
//! processes — the shared-memory middleware an engineer on an SMP SoC would
//! pick instead of a ring of their own (issue #20).
//!
//! Each direction is its own publish–subscribe service of byte slices
//! (`[u8]`), one publisher and one subscriber, no history, no overflow: a
//! message is never dropped. Messages are built in the loaned sample (the
//! publisher's shared memory) and inspected where they lie in the
//! subscriber's sample — iceoryx2's zero-copy path, as its own examples use
//! it (`loan_slice_uninit` → write → `send`; `receive` → read → drop).
//!
//! Waiting: `wait=spin` polls `receive()`; `wait=event` adds one iceoryx2
//! event service per direction, the sender notifies after each message and
//! the receiver sleeps in its listener between polls (iceoryx2's own
//! notification mechanism, the one its waitset is built on). Both poll the
//! end's [`Abort`] flag. A full subscriber buffer makes the publisher retry
//! (counted as `tx_busy`) until the abort flag is set.
//!
//! Services are named `icbench/<pid>/<n>/…`, so two links never meet; the
//! peer opens them from the handoff text and says hello once, so the host's
//! first message finds the peer's subscriber connected. A process killed
//! with its services open (kill -9 of icbench: 25 files in /dev/shm and
//! /tmp/iceoryx2, measured) leaves iceoryx2's files behind; every open
//! removes the resources of dead nodes — iceoryx2 does so when a node is
//! created under its default config, and the link asks again so that a
//! config file turning that off does not change it — so the next run starts
//! clean (tests/iceoryx2.rs).
//!
//! iceoryx2's signal handling is disabled: Ctrl-C belongs to icbench.

use std::mem::MaybeUninit;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use iceoryx2::port::BackpressureAction;
use iceoryx2::port::listener::Listener;
use iceoryx2::port::notifier::Notifier;
use iceoryx2::port::publisher::Publisher;
use iceoryx2::port::subscriber::Subscriber;
use iceoryx2::prelude::*;
use iceoryx2::sample::Sample;

use crate::{Abort, Handoff, Link, LinkCaps, LinkCounters, LinkError, LinkSpec};

/// Largest message unless `max=` says: the same as `shm`'s slot.
pub(crate) const DEFAULT_MAX: usize = 64 << 10;
/// Messages a subscriber holds unless `buffer=` says (the stream window
/// must fit: `--window` is 8 by default).
pub(crate) const DEFAULT_BUFFER: usize = 16;
/// Spin iterations between looks at the abort flag.
const SPINS_PER_CHECK: u32 = 1 << 10;
/// How long an event wait sleeps before looking at the abort flag again.
const EVENT_SLICE: Duration = Duration::from_millis(50);
const HELLO: &[u8] = b"icbench-iceoryx2-hello";

type Svc = ipc::Service;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wait {
    Spin,
    Event,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Options {
    /// Service name prefix shared by both ends.
    name: String,
    wait: Wait,
    buffer: usize,
    max: usize,
}

impl Options {
    fn from_spec(spec: &LinkSpec, name: String) -> Result<Options, LinkError> {
        let wait = match spec.param("wait").unwrap_or("spin") {
            "event" => Wait::Event,
            _ => Wait::Spin,
        };
        let num = |key: &str, default: usize| -> Result<usize, LinkError> {
            spec.param(key).map_or(Ok(default), |v| {
                v.parse().map_err(|_| {
                    LinkError::Setup(format!("iceoryx2: {key}={v} is not a whole number"))
                })
            })
        };
        let buffer = num("buffer", DEFAULT_BUFFER)?;
        let max = num("max", DEFAULT_MAX)?;
        if !(2..=4096).contains(&buffer) {
            return Err(LinkError::Setup(format!(
                "iceoryx2: buffer={buffer} is not allowed: use 2 to 4096 messages"
            )));
        }
        if !(16..=(64 << 20)).contains(&max) {
            return Err(LinkError::Setup(format!(
                "iceoryx2: max={max} is not allowed: use 16 B to 64 MiB"
            )));
        }
        Ok(Options { name, wait, buffer, max })
    }

    fn handoff(&self) -> String {
        let wait = if self.wait == Wait::Event { "event" } else { "spin" };
        format!("iceoryx2:name={},wait={wait},buffer={},max={}", self.name, self.buffer, self.max)
    }

    fn from_handoff(rest: &str) -> Result<Options, LinkError> {
        let bad = || LinkError::Setup(format!("iceoryx2: bad handoff '{rest}'"));
        let mut o = Options { name: String::new(), wait: Wait::Spin, buffer: 0, max: 0 };
        for kv in rest.split(',') {
            let (k, v) = kv.split_once('=').ok_or_else(bad)?;
            match k {
                "name" => o.name = v.to_string(),
                "wait" => o.wait = if v == "event" { Wait::Event } else { Wait::Spin },
                "buffer" => o.buffer = v.parse().map_err(|_| bad())?,
                "max" => o.max = v.parse().map_err(|_| bad())?,
                _ => return Err(bad()),
            }
        }
        if o.name.is_empty() || o.buffer == 0 || o.max == 0 {
            return Err(bad());
        }
        Ok(o)
    }
}

fn setup<E: std::fmt::Debug>(what: &str) -> impl FnOnce(E) -> LinkError + '_ {
    move |e| LinkError::Setup(format!("iceoryx2: {what}: {e:?}"))
}

fn io<E: std::fmt::Debug>(what: &str) -> impl FnOnce(E) -> LinkError + '_ {
    move |e| LinkError::Device(format!("iceoryx2: {what}: {e:?}"))
}

fn service_name(s: &str) -> Result<ServiceName, LinkError> {
    s.try_into().map_err(setup("service name"))
}

/// One end: a publisher of its direction and a subscriber of the other.
/// Fields drop in order: ports first, then their services, the node last.
struct IoxLink {
    publisher: Publisher<Svc, [u8], ()>,
    subscriber: Subscriber<Svc, [u8], ()>,
    notifier: Option<Notifier<Svc>>,
    listener: Option<Listener<Svc>>,
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
unsafe impl Send for IoxLink {}

struct Services {
    _h2p: iceoryx2::service::port_factory::publish_subscribe::PortFactory<Svc, [u8], ()>,
    _p2h: iceoryx2::service::port_factory::publish_subscribe::PortFactory<Svc, [u8], ()>,
    _events: Option<[iceoryx2::service::port_factory::event::PortFactory<Svc>; 2]>,
}

static NEXT: AtomicU32 = AtomicU32::new(0);

fn node() -> Result<Node<Svc>, LinkError> {
    set_log_level(LogLevel::Error);
    // icbench's own files, apart per architecture: an armv7 process's
    // iceoryx2 files read by an x86_64 or aarch64 one crashed it (SIGSEGV,
    // found when CI ran the armv7 suite under qemu-user before the others,
    // 2026-11-26); and another application's stale services are not ours
    // to meet.
    let arch = std::env::consts::ARCH;
    let mut config = Config::global_config().clone();
    config.global.prefix =
        FileName::new(format!("icbench_{arch}_").as_bytes()).map_err(setup("file prefix"))?;
    let root = format!("/tmp/iceoryx2/icbench_{arch}/");
    config.global.set_root_path(&Path::new(root.as_bytes()).map_err(setup("root path"))?);
    let node = NodeBuilder::new()
        .config(&config)
        .signal_handling_mode(SignalHandlingMode::Disabled)
        .create::<Svc>()
        .map_err(setup("create a node"))?;
    // A peer killed while its services were open (kill -9) left them
    // behind; iceoryx2 removes what dead nodes held.
    let _ = node.try_cleanup_dead_nodes();
    Ok(node)
}

impl IoxLink {
    fn new(o: Options, host: bool, abort: Abort) -> Result<IoxLink, LinkError> {
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
        let (notifier, listener, events) = if o.wait == Wait::Event {
            let event = |name: String| {
                let b = node.service_builder(&service_name(&name)?).event();
                if host {
                    b.create().map_err(setup("create an event service"))
                } else {
                    b.open().map_err(setup("open the host's event service"))
                }
            };
            let e_h2p = event(format!("{}/h2p-event", o.name))?;
            let e_p2h = event(format!("{}/p2h-event", o.name))?;
            let (etx, erx) = if host { (&e_h2p, &e_p2h) } else { (&e_p2h, &e_h2p) };
            let n = etx.notifier_builder().create().map_err(setup("create a notifier"))?;
            let l = erx.listener_builder().create().map_err(setup("create a listener"))?;
            (Some(n), Some(l), Some([e_h2p, e_p2h]))
        } else {
            (None, None, None)
        };
        let mut link = IoxLink {
            publisher,
            subscriber,
            notifier,
            listener,
            _services: Services { _h2p: h2p, _p2h: p2h, _events: events },
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
        let mut spins = 0u32;
        loop {
            if let Some(s) = self.subscriber.receive().map_err(io("receive"))? {
                return Ok(s);
            }
            match &self.listener {
                None => {
                    spins = spins.wrapping_add(1);
                    if spins.is_multiple_of(SPINS_PER_CHECK) && self.abort.is_set() {
                        return Err(LinkError::Aborted);
                    }
                    std::hint::spin_loop();
                }
                Some(l) => {
                    l.timed_wait(|_| {}, EVENT_SLICE).map_err(io("wait on the listener"))?;
                    if self.abort.is_set() {
                        return Err(LinkError::Aborted);
                    }
                }
            }
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
    fn check_size(&self, len: usize) -> Result<(), LinkError> {
        if len > self.o.max {
            return Err(LinkError::TooLarge { size: len, max: self.o.max });
        }
        Ok(())
    }

    #[inline]
    fn publish(&mut self, len: usize, build: &mut dyn FnMut(&mut [u8])) -> Result<(), LinkError> {
        self.check_size(len)?;
        let mut sample = self.publisher.loan_slice_uninit(len).map_err(io("loan a sample"))?;
        let bytes: &mut [MaybeUninit<u8>] = sample.payload_mut();
        // SAFETY: the sample is `len` bytes of the publisher's shared
        // memory, a mapping the kernel zero-filled and iceoryx2 reuses, so
        // every byte holds a value; `build` writes the message over it.
        let bytes: &mut [u8] = unsafe { &mut *(bytes as *mut [MaybeUninit<u8>] as *mut [u8]) };
        build(bytes);
        // SAFETY: as above, every byte is initialised.
        let sample = unsafe { sample.assume_init() };
        sample
            .send()
            .map_err(|e| if self.abort.is_set() { LinkError::Aborted } else { io("send")(e) })?;
        if let Some(n) = &self.notifier {
            n.notify().map_err(io("notify"))?;
        }
        Ok(())
    }
}

impl Link for IoxLink {
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
        self.check_size(msg.len())?;
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
        self.check_size(len)?;
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

pub(crate) fn open(spec: &LinkSpec, abort: Abort) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = format!("icbench/{}/{n}", std::process::id());
    let o = Options::from_spec(spec, name)?;
    let text = o.handoff();
    let host = IoxLink::new(o, true, abort)?;
    Ok((Box::new(host), Handoff::local(text, Vec::new())))
}

pub(crate) fn attach(rest: &str, abort: Abort) -> Result<Box<dyn Link>, LinkError> {
    Ok(Box::new(IoxLink::new(Options::from_handoff(rest)?, false, abort)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> LinkSpec {
        LinkSpec::parse(s).unwrap()
    }

    #[test]
    fn options_travel_through_the_handoff_text() {
        let o = Options::from_spec(&spec("iceoryx2?wait=event&buffer=32&max=4096"), "a/1".into())
            .unwrap();
        let text = o.handoff();
        assert_eq!(text, "iceoryx2:name=a/1,wait=event,buffer=32,max=4096");
        let rest = text.strip_prefix("iceoryx2:").unwrap();
        assert_eq!(Options::from_handoff(rest).unwrap(), o);
        assert!(Options::from_handoff("name=a,wait=spin").is_err());
        assert!(Options::from_handoff("name=a,bogus=1,buffer=2,max=16").is_err());
    }

    #[test]
    fn sizes_out_of_range_are_refused_in_one_line() {
        let e = Options::from_spec(&spec("iceoryx2?buffer=1"), "a".into()).unwrap_err();
        assert!(e.to_string().contains("buffer=1"), "{e}");
        let e = Options::from_spec(&spec("iceoryx2?max=8"), "a".into()).unwrap_err();
        assert!(e.to_string().contains("max=8"), "{e}");
    }

    /// Both ends in one process (two threads), every message checked.
    fn round_trips(spec_text: &str) {
        let (mut host, handoff) = open(&spec(spec_text), Abort::new()).unwrap();
        let rest = handoff.text.strip_prefix("iceoryx2:").unwrap().to_string();
        let peer = std::thread::spawn(move || {
            let mut peer = attach(&rest, Abort::new()).unwrap();
            let mut scratch = vec![0u8; 4096];
            for len in [16usize, 64, 4096] {
                for _ in 0..50 {
                    peer.echo(len, &mut scratch).unwrap();
                }
            }
        });
        let mut back = vec![0u8; 4096];
        for len in [16usize, 64, 4096] {
            for i in 0..50u8 {
                let msg: Vec<u8> = (0..len).map(|k| (k as u8) ^ i).collect();
                host.send(&msg).unwrap();
                host.recv(&mut back, len).unwrap();
                assert_eq!(&back[..len], &msg[..]);
            }
        }
        peer.join().unwrap();
        assert!(host.caps().zero_copy);
    }

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
        let (mut host, _handoff) = open(&spec("iceoryx2?max=64"), Abort::new()).unwrap();
        // The host has no peer yet: the size is refused before any wait.
        let e = host.send_with(65, &mut [], &mut |_| {});
        assert!(matches!(e, Err(LinkError::TooLarge { size: 65, max: 64 })), "{e:?}");
    }
}
