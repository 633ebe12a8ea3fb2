//! `iceoryx2`: Eclipse iceoryx2's zero-copy shared-memory messaging between
//! the two processes — the middleware an engineer on an SMP SoC would pick
//! instead of a ring of their own (issue #20).
//!
//! This module owns what both of iceoryx2's messaging patterns share: the
//! spec's parameters and the handoff text, the node (icbench's files apart
//! per architecture, dead nodes' files removed), the wait between polls
//! (spin, or an iceoryx2 event service per direction) and the dispatch to
//! the pattern the spec names:
//!
//! - `service=pubsub` (default, [`pubsub`]): one publish–subscribe service
//!   per direction;
//! - `service=reqres` ([`reqres`]): one request–response service, the host
//!   the client and the peer the server.
//!
//! Either way a message is built in the loaned sample, request or response
//! (the sender's shared memory), and inspected where it lies — iceoryx2's
//! zero-copy path as its own examples use it.
//!
//! Services are named `icbench/<pid>/<n>/…`, so two links never meet. A
//! process killed with its services open (kill -9 of icbench: 25 files in
//! /dev/shm and /tmp/iceoryx2, measured) leaves iceoryx2's files behind;
//! every open removes the resources of dead nodes — iceoryx2 does so when a
//! node is created under its default config, and the link asks again so
//! that a config file turning that off does not change it — so the next run
//! starts clean (tests/iceoryx2.rs).
//!
//! iceoryx2's signal handling is disabled: Ctrl-C belongs to icbench.

mod pubsub;
mod reqres;

use std::time::Duration;

use iceoryx2::port::listener::Listener;
use iceoryx2::port::notifier::Notifier;
use iceoryx2::prelude::*;

use crate::{Abort, Handoff, Link, LinkError, LinkSpec};

/// Largest message unless `max=` says: the same as `shm`'s slot.
pub(crate) const DEFAULT_MAX: usize = 64 << 10;
/// Messages a receiver holds unless `buffer=` says (the stream window
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

/// Which of iceoryx2's messaging patterns carries the messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pattern {
    PubSub,
    ReqRes,
}

impl Pattern {
    fn parse(s: &str) -> Option<Pattern> {
        match s {
            "pubsub" => Some(Pattern::PubSub),
            "reqres" => Some(Pattern::ReqRes),
            _ => None,
        }
    }
    fn as_str(self) -> &'static str {
        match self {
            Pattern::PubSub => "pubsub",
            Pattern::ReqRes => "reqres",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Options {
    /// Service name prefix shared by both ends.
    name: String,
    service: Pattern,
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
        let service = spec.param("service").unwrap_or("pubsub");
        let service = Pattern::parse(service).ok_or_else(|| {
            LinkError::Setup(format!(
                "iceoryx2: service={service} is not known: use pubsub or reqres"
            ))
        })?;
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
        Ok(Options { name, service, wait, buffer, max })
    }

    fn handoff(&self) -> String {
        let wait = if self.wait == Wait::Event { "event" } else { "spin" };
        format!(
            "iceoryx2:name={},service={},wait={wait},buffer={},max={}",
            self.name,
            self.service.as_str(),
            self.buffer,
            self.max
        )
    }

    fn from_handoff(rest: &str) -> Result<Options, LinkError> {
        let bad = || LinkError::Setup(format!("iceoryx2: bad handoff '{rest}'"));
        let mut o = Options {
            name: String::new(),
            service: Pattern::PubSub,
            wait: Wait::Spin,
            buffer: 0,
            max: 0,
        };
        for kv in rest.split(',') {
            let (k, v) = kv.split_once('=').ok_or_else(bad)?;
            match k {
                "name" => o.name = v.to_string(),
                "service" => o.service = Pattern::parse(v).ok_or_else(bad)?,
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

    #[inline]
    fn check_size(&self, len: usize) -> Result<(), LinkError> {
        if len > self.max {
            return Err(LinkError::TooLarge { size: len, max: self.max });
        }
        Ok(())
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

/// How an end waits between polls: `wait=spin` spins, looking at the abort
/// flag every [`SPINS_PER_CHECK`] turns; `wait=event` sleeps in the
/// listener of an iceoryx2 event service per direction, which the sender
/// notifies after each message (iceoryx2's own notification mechanism, the
/// one its waitset is built on), looking at the abort flag between slices.
struct Waiter {
    notifier: Option<Notifier<Svc>>,
    listener: Option<Listener<Svc>>,
    _services: Option<[iceoryx2::service::port_factory::event::PortFactory<Svc>; 2]>,
    abort: Abort,
    spins: u32,
}

impl Waiter {
    fn new(node: &Node<Svc>, o: &Options, host: bool, abort: Abort) -> Result<Waiter, LinkError> {
        if o.wait == Wait::Spin {
            return Ok(Waiter { notifier: None, listener: None, _services: None, abort, spins: 0 });
        }
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
        Ok(Waiter {
            notifier: Some(n),
            listener: Some(l),
            _services: Some([e_h2p, e_p2h]),
            abort,
            spins: 0,
        })
    }

    /// Tells the other end a message is there (`wait=event`).
    #[inline]
    fn notify(&self) -> Result<(), LinkError> {
        if let Some(n) = &self.notifier {
            n.notify().map_err(io("notify"))?;
        }
        Ok(())
    }

    /// Nothing arrived at the last poll: spin once or sleep in the listener.
    #[inline]
    fn idle(&mut self) -> Result<(), LinkError> {
        match &self.listener {
            None => {
                self.spins = self.spins.wrapping_add(1);
                if self.spins.is_multiple_of(SPINS_PER_CHECK) && self.abort.is_set() {
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
        Ok(())
    }
}

/// Treats a loaned slice as initialised bytes.
///
/// # Safety
/// The slice is iceoryx2 shared memory: a mapping the kernel zero-filled
/// and iceoryx2 reuses, so every byte holds a value.
#[inline]
unsafe fn as_bytes(b: &mut [std::mem::MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: as the caller promises; MaybeUninit<u8> has u8's layout.
    unsafe { &mut *(b as *mut [std::mem::MaybeUninit<u8>] as *mut [u8]) }
}

static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

pub(crate) fn open(spec: &LinkSpec, abort: Abort) -> Result<(Box<dyn Link>, Handoff), LinkError> {
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = format!("icbench/{}/{n}", std::process::id());
    let o = Options::from_spec(spec, name)?;
    let text = o.handoff();
    let host: Box<dyn Link> = match o.service {
        Pattern::PubSub => Box::new(pubsub::PubSubLink::new(o, true, abort)?),
        Pattern::ReqRes => Box::new(reqres::ReqResLink::new(o, true, abort)?),
    };
    Ok((host, Handoff::local(text, Vec::new())))
}

pub(crate) fn attach(rest: &str, abort: Abort) -> Result<Box<dyn Link>, LinkError> {
    let o = Options::from_handoff(rest)?;
    Ok(match o.service {
        Pattern::PubSub => Box::new(pubsub::PubSubLink::new(o, false, abort)?),
        Pattern::ReqRes => Box::new(reqres::ReqResLink::new(o, false, abort)?),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn spec(s: &str) -> LinkSpec {
        LinkSpec::parse(s).unwrap()
    }

    #[test]
    fn options_travel_through_the_handoff_text() {
        let o = Options::from_spec(
            &spec("iceoryx2?wait=event&buffer=32&max=4096&service=reqres"),
            "a/1".into(),
        )
        .unwrap();
        let text = o.handoff();
        assert_eq!(text, "iceoryx2:name=a/1,service=reqres,wait=event,buffer=32,max=4096");
        let rest = text.strip_prefix("iceoryx2:").unwrap();
        assert_eq!(Options::from_handoff(rest).unwrap(), o);
        assert!(Options::from_handoff("name=a,wait=spin").is_err());
        assert!(Options::from_handoff("name=a,bogus=1,buffer=2,max=16").is_err());
        assert!(Options::from_handoff("name=a,service=rpc,buffer=2,max=16").is_err());
        let o = Options::from_spec(&spec("iceoryx2"), "a".into()).unwrap();
        assert_eq!(o.service, Pattern::PubSub);
    }

    #[test]
    fn sizes_out_of_range_are_refused_in_one_line() {
        let e = Options::from_spec(&spec("iceoryx2?buffer=1"), "a".into()).unwrap_err();
        assert!(e.to_string().contains("buffer=1"), "{e}");
        let e = Options::from_spec(&spec("iceoryx2?max=8"), "a".into()).unwrap_err();
        assert!(e.to_string().contains("max=8"), "{e}");
    }

    #[test]
    fn an_unknown_service_is_refused_by_the_spec_in_one_line() {
        let e = LinkSpec::parse("iceoryx2?service=rpc").unwrap_err().to_string();
        assert!(e.contains("pubsub") && e.contains("reqres") && !e.contains('\n'), "{e}");
    }

    /// Both ends in one process (two threads): ping-pong at three sizes,
    /// every echo checked byte for byte; then a burst of `burst` messages
    /// host → peer answered by one message back, and `burst` messages peer
    /// → host answered by one (the stream's and the credits' shapes).
    pub(crate) fn round_trips(spec_text: &str) {
        const BURST: usize = 8;
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
            for round in 0..20u8 {
                for i in 0..BURST as u8 {
                    let mut ok = false;
                    peer.recv_with(64, &mut scratch, &mut |m| {
                        ok = m.iter().all(|&b| b == round ^ i)
                    })
                    .unwrap();
                    assert!(ok, "round {round} message {i}");
                }
                peer.send(&[round; 8]).unwrap();
                for i in 0..BURST as u8 {
                    peer.send_with(64, &mut scratch, &mut |b| b.fill(round.wrapping_add(i)))
                        .unwrap();
                }
                peer.recv(&mut scratch, 8).unwrap();
                assert_eq!(&scratch[..8], &[!round; 8]);
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
        for round in 0..20u8 {
            for i in 0..BURST as u8 {
                host.send(&[round ^ i; 64]).unwrap();
            }
            host.recv(&mut back, 8).unwrap();
            assert_eq!(&back[..8], &[round; 8]);
            for i in 0..BURST as u8 {
                let mut ok = false;
                host.recv_with(64, &mut back, &mut |m| {
                    ok = m.iter().all(|&b| b == round.wrapping_add(i))
                })
                .unwrap();
                assert!(ok, "round {round} message {i} back");
            }
            host.send(&[!round; 8]).unwrap();
        }
        peer.join().unwrap();
        assert!(host.caps().zero_copy);
    }

    /// The host refuses a message past `max=` before any wait.
    pub(crate) fn past_max_is_refused(spec_text: &str) {
        let (mut host, _handoff) = open(&spec(spec_text), Abort::new()).unwrap();
        // The host has no peer yet: the size is refused before any wait.
        let e = host.send_with(65, &mut [], &mut |_| {});
        assert!(matches!(e, Err(LinkError::TooLarge { size: 65, max: 64 })), "{e:?}");
    }
}
