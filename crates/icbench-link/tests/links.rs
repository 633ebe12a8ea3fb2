//! Every local link through the same conformance checks, with its peer end
//! attached in a thread from the real handoff: whole messages arrive intact
//! in both directions at every size the link can carry, a closed peer is
//! reported as such, and an abort wakes a blocked receive.

use std::io::Write;
use std::os::fd::IntoRawFd;
use std::thread;
use std::time::Duration;

use icbench_link::{Abort, Link, LinkError, LinkSpec, attach, open};

const SPECS: &[&str] = &[
    "shm",
    "shm?wait=futex",
    "shm?wait=yield",
    "shm?copy=zero",
    "shm?wait=futex&copy=zero&slots=2",
    "shm?push=none",
    "pipe",
    "unix",
    "seqpacket",
    "mq",
    "tcp",
    "netlink",
    "pty",
];

/// Whether `spec` can work on this system (`icbench_link::probe`); if not,
/// says why on stderr (past the test harness's capture) and the caller skips it.
fn runs_here(spec: &str) -> bool {
    match icbench_link::probe::unsupported(spec) {
        None => true,
        Some(why) => {
            let _ = writeln!(std::io::stderr(), "SKIP {spec}: {why}");
            false
        }
    }
}

fn pattern(len: usize, salt: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(salt)).collect()
}

/// Opens `spec` and starts an echo peer thread that answers `rounds`
/// messages of each size in `sizes`.
fn start(spec: &str, sizes: Vec<usize>, rounds: usize) -> (Box<dyn Link>, thread::JoinHandle<()>) {
    let spec = LinkSpec::parse(spec).unwrap();
    let (host, handoff) = open(&spec, Abort::new()).unwrap();
    let text = handoff.text.clone();
    // The peer end takes the descriptors over.
    for fd in handoff.fds {
        let _ = fd.into_raw_fd();
    }
    let peer = thread::spawn(move || {
        let mut link = attach(&text, Abort::new()).unwrap();
        let mut scratch = vec![0u8; 1 << 17];
        for len in sizes {
            for _ in 0..rounds {
                link.echo(len, &mut scratch).unwrap();
            }
        }
    });
    (host, peer)
}

#[test]
fn every_link_echoes_every_size_it_can_carry() {
    for spec in SPECS.iter().filter(|s| runs_here(s)) {
        let max = {
            let (l, _h) = open(&LinkSpec::parse(spec).unwrap(), Abort::new()).unwrap();
            l.caps().max_msg_bytes
        };
        let sizes: Vec<usize> =
            [1, 2, 7, 64, 248, 249, 496, 4096, 65536].into_iter().filter(|&s| s <= max).collect();
        let rounds = 20;
        let (mut host, peer) = start(spec, sizes.clone(), rounds);
        let mut rx = vec![0u8; 1 << 17];
        for &len in &sizes {
            for r in 0..rounds {
                let tx = pattern(len, r as u8);
                host.send(&tx).unwrap();
                rx[..len].fill(0);
                host.recv(&mut rx, len).unwrap();
                assert_eq!(&rx[..len], &tx[..], "{spec}: echo of {len} B differs");
            }
        }
        peer.join().unwrap();
    }
}

#[test]
fn zero_copy_paths_build_and_inspect_in_place() {
    let (mut host, peer) = start("shm?copy=zero", vec![100], 3);
    let mut scratch = vec![0u8; 1 << 16];
    for r in 0..3u8 {
        let want = pattern(100, r);
        host.send_with(100, &mut scratch, &mut |b| b.copy_from_slice(&want)).unwrap();
        let mut seen = Vec::new();
        host.recv_with(100, &mut scratch, &mut |b| seen = b.to_vec()).unwrap();
        assert_eq!(seen, want);
    }
    peer.join().unwrap();
}

#[test]
fn message_links_report_a_wrong_length() {
    for spec in ["seqpacket", "mq", "netlink", "shm"].into_iter().filter(|s| runs_here(s)) {
        let (mut host, peer) = start(spec, vec![10], 1);
        host.send(&pattern(10, 0)).unwrap();
        let mut rx = vec![0u8; 1 << 17];
        let err = host.recv(&mut rx, 11).unwrap_err();
        assert!(matches!(err, LinkError::Framing(_)), "{spec}: {err}");
        peer.join().unwrap();
    }
}

#[test]
fn oversize_messages_are_refused_not_truncated() {
    for spec in ["seqpacket", "netlink", "shm"].into_iter().filter(|s| runs_here(s)) {
        let (mut host, _h) = open(&LinkSpec::parse(spec).unwrap(), Abort::new()).unwrap();
        let max = host.caps().max_msg_bytes;
        let err = host.send(&vec![0u8; max + 1]).unwrap_err();
        assert!(matches!(err, LinkError::TooLarge { .. } | LinkError::Sys { .. }), "{spec}: {err}");
    }
}

#[test]
fn a_closed_peer_is_reported() {
    for spec in ["pipe", "unix", "seqpacket", "tcp", "pty"].into_iter().filter(|s| runs_here(s)) {
        let spec = LinkSpec::parse(spec).unwrap();
        let (mut host, handoff) = open(&spec, Abort::new()).unwrap();
        drop(handoff); // the peer end closes without answering
        let mut rx = vec![0u8; 64];
        let err = host.recv(&mut rx, 8).unwrap_err();
        assert!(matches!(err, LinkError::PeerClosed), "{spec}: {err}");
    }
}

#[test]
fn abort_wakes_a_spinning_or_sleeping_receive() {
    for spec in ["shm", "shm?wait=futex", "shm?wait=yield"] {
        let abort = Abort::new();
        let (mut host, _handoff) = open(&LinkSpec::parse(spec).unwrap(), abort.clone()).unwrap();
        let setter = {
            let abort = abort.clone();
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(50));
                abort.set();
            })
        };
        let mut rx = vec![0u8; 64];
        let err = host.recv(&mut rx, 8).unwrap_err();
        assert!(matches!(err, LinkError::Aborted), "{spec}: {err}");
        setter.join().unwrap();
    }
}

#[test]
fn shm_push_is_demote_on_x86_64_and_refused_by_name_elsewhere() {
    let spec = LinkSpec::parse("shm?push=demote").unwrap();
    let opened = open(&spec, Abort::new());
    if cfg!(target_arch = "x86_64") {
        let (_link, handoff) = opened.expect("push=demote opens on x86_64");
        assert!(handoff.text.contains("push=1"), "{}", handoff.text);
    } else {
        let e = opened.err().expect("push=demote refused off x86_64");
        assert_eq!(
            e.to_string(),
            "shm: push=demote needs x86_64 (CLDEMOTE); use push=none on this build"
        );
    }
    // The default follows the build: pushed on x86_64, not elsewhere.
    let (_link, handoff) = open(&LinkSpec::parse("shm").unwrap(), Abort::new()).unwrap();
    let want = if cfg!(target_arch = "x86_64") { "push=1" } else { "push=0" };
    assert!(handoff.text.contains(want), "{}", handoff.text);
    let e = LinkSpec::parse("shm?push=always").unwrap_err().to_string();
    assert_eq!(e, "link 'shm': push=always is not allowed: use demote or none");
}
