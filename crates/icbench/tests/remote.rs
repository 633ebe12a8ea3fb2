//! Remote peers end to end: `icbench run --protocol icb|dimtass|raw` against
//! the real C responder (`firmware/build/icb-peer`, built here with make),
//! over a pty (`--peer-cmd … {path}`), a unix socket (the peer on stdio),
//! and `tty:`/`serial:` links to a pty whose master the peer holds, as a
//! board's UART would be. Faults are injected by icb-peer (`--fault`).
//! Nothing here asserts a timing.

mod common;

use common::{icb_peer, icbench, reason, rows};

use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Child, Command as StdCommand, Stdio};

use serde_json::Value;

fn run_json(args: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    common::run_json(&dir.path().join("r.db"), &[&["--cell-time", "5ms"], args].concat())
}

fn all_ok(v: &Value, pattern: &str, protocol: &str, n: usize) {
    let r = rows(v, pattern);
    assert_eq!(r.len(), n, "{pattern}: {r:#?}");
    for row in r {
        assert_eq!(row["status"], "ok", "{pattern} {row:#}");
        assert_eq!(row["protocol"], protocol, "{row:#}");
    }
}

#[test]
fn icb_over_a_pty_runs_every_pattern_against_the_c_responder() {
    let Some(peer) = icb_peer() else { return };
    let cmd = format!("{peer} --path {{path}}");
    // 100 KiB exceeds one frame (65551 B): the echo is fragmented.
    let v = run_json(&[
        "-L",
        "pty",
        "--protocol",
        "icb",
        "--peer-cmd",
        &cmd,
        "-p",
        "pingpong",
        "-p",
        "stream",
        "-s",
        "1,4K,100K",
    ]);
    all_ok(&v, "pingpong", "icb", 3);
    all_ok(&v, "stream", "icb", 3);
    let notes = v["meta"]["notes"].to_string();
    assert!(notes.contains("protocol icb"), "{notes}");

    let v = run_json(&[
        "-L",
        "pty",
        "--protocol",
        "icb",
        "--peer-cmd",
        &cmd,
        "-p",
        "bulk",
        "-s",
        "512",
        "--blocks",
        "1,3",
    ]);
    all_ok(&v, "bulk", "icb", 2);
    let blocks: Vec<_> = rows(&v, "bulk").iter().map(|r| r["blocks"].as_u64().unwrap()).collect();
    assert_eq!(blocks, [1, 3]);
    assert_eq!(rows(&v, "bulk")[1]["total_bytes"], 1536);
}

#[test]
fn a_small_peer_frame_fragments_every_message_like_rpmsg() {
    let Some(peer) = icb_peer() else { return };
    // 64-byte frames leave 40 bytes of payload per fragment.
    let cmd = format!("{peer} --path {{path}} --max-frame 64 --rx-slots 2");
    let v = run_json(&[
        "-L",
        "pty",
        "--protocol",
        "icb",
        "--peer-cmd",
        &cmd,
        "-s",
        "1,1000",
        "-p",
        "pingpong",
        "-p",
        "stream",
    ]);
    all_ok(&v, "pingpong", "icb", 2);
    all_ok(&v, "stream", "icb", 2);
    assert_eq!(rows(&v, "stream")[0]["window"], 2);
}

#[test]
fn dimtass_runs_the_seed_matrices() {
    let Some(peer) = icb_peer() else { return };
    let cmd = format!("{peer} --path {{path}} --protocol dimtass");
    let v = run_json(&["-L", "pty", "--protocol", "dimtass", "--peer-cmd", &cmd]);
    all_ok(&v, "bulk", "dimtass", 11);
    let matrix: Vec<(u64, u64)> = rows(&v, "bulk")
        .iter()
        .map(|r| (r["block_bytes"].as_u64().unwrap(), r["blocks"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        matrix,
        [
            (512, 1),
            (512, 2),
            (512, 4),
            (512, 8),
            (1024, 1),
            (1024, 2),
            (1024, 4),
            (1024, 5),
            (2048, 1),
            (2048, 2),
            (4096, 1)
        ]
    );
    all_ok(&v, "pingpong", "dimtass", 7);
    let sizes: Vec<_> =
        rows(&v, "pingpong").iter().map(|r| r["size_bytes"].as_u64().unwrap()).collect();
    assert_eq!(sizes, [512, 1024, 2048, 4096, 8192, 16384, 32768]);
}

/// The seed's own notation, block × blocks (issue #17), and a transfer its
/// 2-byte count cannot carry: not counted wrong, refused as n/a.
#[test]
fn dimtass_takes_block_by_blocks_and_refuses_what_its_count_cannot_hold() {
    let Some(peer) = icb_peer() else { return };
    let cmd = format!("{peer} --path {{path}} --protocol dimtass");
    let v = run_json(&[
        "-L",
        "pty",
        "--protocol",
        "dimtass",
        "--peer-cmd",
        &cmd,
        "-p",
        "bulk",
        "--blocks",
        "512×8,1Kx2,32K×4",
    ]);
    let r = rows(&v, "bulk");
    let cells: Vec<(u64, u64, &str)> = r
        .iter()
        .map(|r| {
            let (b, n) = (r["block_bytes"].as_u64().unwrap(), r["blocks"].as_u64().unwrap());
            (b, n, r["status"].as_str().unwrap())
        })
        .collect();
    assert_eq!(cells, [(512, 8, "ok"), (1024, 2, "ok"), (32768, 4, "n/a")], "{r:?}");
}

#[test]
fn dimtass_against_an_icb_peer_fails_with_a_named_reason() {
    let Some(peer) = icb_peer() else { return };
    // A peer that answers nothing the dimtass host understands: the count
    // never comes, and the reason says what was awaited.
    let cmd = format!("{peer} --path {{path}} --protocol icb");
    let v = run_json(&[
        "-L",
        "pty",
        "--protocol",
        "dimtass",
        "--peer-cmd",
        &cmd,
        "-p",
        "pingpong",
        "-s",
        "512",
        "--timeout",
        "500ms",
    ]);
    let row = &rows(&v, "pingpong")[0];
    assert_eq!(row["status"], "failed");
    let reason = row["reason"].as_str().unwrap();
    assert!(reason.contains("2-byte count"), "{reason}");
}

#[test]
fn raw_echo_on_a_socket_with_the_peer_on_stdio() {
    let Some(peer) = icb_peer() else { return };
    let cmd = format!("{peer} --stdio --protocol raw");
    let v = run_json(&[
        "-L",
        "unix",
        "-L",
        "pty",
        "--protocol",
        "raw",
        "--peer-cmd",
        &cmd,
        "-s",
        "1,3000",
    ]);
    all_ok(&v, "pingpong", "raw", 4);
}

/// A pty whose master is served by icb-peer on stdio: the slave path is a
/// device with firmware behind it, as far as icbench can tell.
struct Board {
    child: Child,
    slave: String,
}

impl Drop for Board {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn board(peer: &str, args: &[&str]) -> Board {
    // SAFETY: plain libc pty calls; the descriptor is owned at once.
    let master = unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        assert!(fd >= 0, "posix_openpt");
        assert_eq!(libc::grantpt(fd), 0);
        assert_eq!(libc::unlockpt(fd), 0);
        OwnedFd::from_raw_fd(fd)
    };
    let mut name = [0 as libc::c_char; 128];
    // SAFETY: the buffer is large enough and NUL-terminated by ptsname_r.
    let slave = unsafe {
        use std::os::fd::AsRawFd;
        assert_eq!(libc::ptsname_r(master.as_raw_fd(), name.as_mut_ptr(), name.len()), 0);
        std::ffi::CStr::from_ptr(name.as_ptr()).to_string_lossy().into_owned()
    };
    let child = StdCommand::new(peer)
        .arg("--stdio")
        .args(args)
        .stdin(Stdio::from(master.try_clone().unwrap()))
        .stdout(Stdio::from(master))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    Board { child, slave }
}

#[test]
fn tty_and_serial_links_talk_to_the_firmware_behind_a_device() {
    let Some(peer) = icb_peer() else { return };
    // icb-peer on stdio ends when the device is closed (EIO): one board per
    // link. Firmware behind a UART or QEMU's pty stays.
    let (b1, b2) = (board(peer, &[]), board(peer, &[]));
    let tty = format!("tty:{}", b1.slave);
    let serial = format!("serial:{}?baud=115200", b2.slave);
    let v = run_json(&[
        "-L",
        &tty,
        "-L",
        &serial,
        "--protocol",
        "icb",
        "-p",
        "pingpong",
        "-s",
        "1,70000",
    ]);
    all_ok(&v, "pingpong", "icb", 4);
    assert_eq!(rows(&v, "pingpong")[2]["link"], serial.as_str());

    let b = board(peer, &["--protocol", "dimtass"]);
    let tty = format!("tty:{}", b.slave);
    let v =
        run_json(&["-L", &tty, "--protocol", "dimtass", "-p", "bulk", "-s", "1K", "--blocks", "5"]);
    all_ok(&v, "bulk", "dimtass", 1);
}

#[test]
fn a_device_where_nothing_speaks_icb_fails_the_handshake_by_name() {
    let Some(peer) = icb_peer() else { return };
    // A raw echo peer: our HELLO comes back without the REPLY flag.
    let b = board(peer, &["--protocol", "raw"]);
    let tty = format!("tty:{}", b.slave);
    let v = run_json(&[
        "-L",
        &tty,
        "--protocol",
        "icb",
        "-p",
        "pingpong",
        "-s",
        "64",
        "--timeout",
        "500ms",
    ]);
    let row = &rows(&v, "pingpong")[0];
    assert_eq!(row["status"], "failed");
    let reason = row["reason"].as_str().unwrap();
    assert!(reason.contains("no CAPS answered"), "{reason}");
    assert!(reason.contains("our own hello frame echoed back"), "{reason}");
}

/// Runs two cells with a fault injected into the first peer; returns the
/// two rows.
fn faulty(fault: &str, protocol: &str, pattern: &str) -> Vec<Value> {
    faulty_sized(fault, protocol, pattern, "512,1K")
}

fn faulty_sized(fault: &str, protocol: &str, pattern: &str, sizes: &str) -> Vec<Value> {
    let peer = icb_peer().expect("checked by the caller");
    let cmd = format!("{peer} --path {{path}} --protocol {protocol}");
    let v = run_json(&[
        "-L",
        "pty",
        "--protocol",
        protocol,
        "--peer-cmd",
        &cmd,
        "-p",
        pattern,
        "-s",
        sizes,
        "--timeout",
        "1s",
        "--peer-fault",
        fault,
    ]);
    assert_eq!(v["meta"]["status"], "finished");
    rows(&v, pattern).clone()
}

fn first_fails_second_recovers(rows: &[Value], expect: &[&str]) {
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["status"], "failed", "{:#}", rows[0]);
    let reason = rows[0]["reason"].as_str().unwrap();
    for e in expect {
        assert!(reason.contains(e), "reason {reason:?} lacks {e:?}");
    }
    // A fresh link and peer for the next cell: it is measured.
    assert_eq!(rows[1]["status"], "ok", "{:#}", rows[1]);
}

#[test]
fn icb_faults_fail_one_cell_with_a_reason_and_the_run_goes_on() {
    if icb_peer().is_none() {
        return;
    }
    let cases: [(&str, &[&str]); 5] = [
        ("hang-after=20", &["timeout", "waiting for the echo of seq"]),
        ("die-after=20", &["peer exited with status 3", "injected fault"]),
        ("garbage-after=20", &["garbage from the peer", "outside any icb frame"]),
        ("truncate-after=20", &["timeout", "truncated frame"]),
        ("crc-after=20", &["CRC mismatch"]),
    ];
    for (fault, expect) in cases {
        first_fails_second_recovers(&faulty(fault, "icb", "pingpong"), expect);
    }
    // Stream and bulk stall on a hung peer with what they were waiting for.
    first_fails_second_recovers(&faulty("hang-after=3", "icb", "stream"), &["timeout", "DATA seq"]);
}

#[test]
fn dimtass_and_raw_faults_are_named_too() {
    if icb_peer().is_none() {
        return;
    }
    first_fails_second_recovers(
        &faulty("crc-after=20", "dimtass", "pingpong"),
        &["dimtass reply", "counted"],
    );
    first_fails_second_recovers(
        &faulty("hang-after=20", "dimtass", "pingpong"),
        &["timeout", "2-byte count"],
    );
    first_fails_second_recovers(
        &faulty_sized("garbage-after=20", "raw", "pingpong", "16,1K"),
        &["corrupted echo"],
    );
    first_fails_second_recovers(
        &faulty("die-after=20", "raw", "pingpong"),
        &["exited with status 3"],
    );
}

fn fails(args: &[&str]) -> String {
    let out = icbench().args(["run", "--no-floor"]).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("icbench: error: "), "{err}");
    err
}

#[test]
fn bad_remote_input_names_the_value_and_what_is_allowed() {
    assert!(fails(&["-L", "tty:/dev/null"]).contains("--protocol icb, dimtass or raw"));
    assert!(fails(&["-L", "serial"]).contains("needs a path: write serial:/dev/ttyUSBn"));
    assert!(fails(&["-L", "pty", "--protocol", "icb"]).contains("--peer-cmd"));
    assert!(fails(&["-L", "pipe", "--peer-cmd", "x"]).contains("--protocol"));
    let e = fails(&["-L", "tty:/x", "--protocol", "dimtass", "-p", "stream"]);
    assert!(e.contains("--pattern stream") && e.contains("pingpong, bulk"), "{e}");
    assert!(fails(&["-L", "pipe", "-p", "pingpong", "--blocks", "2"]).contains("only the bulk"));
    let e = fails(&["-L", "tty:/x", "--protocol", "icb", "-p", "bulk", "--blocks", "0"]);
    assert!(e.contains("--blocks '0'"), "{e}");
    assert!(fails(&["-L", "pipe", "-p", "bulk"]).contains("not available with the local control"));
    // A run whose only device is not there is refused before the floor,
    // not failed cell by cell.
    let e = fails(&["-L", "serial:/dev/ttyUSB-none?baud=115200", "--protocol", "icb"]);
    assert!(e.contains("/dev/ttyUSB-none does not exist") && e.contains("icbench links"), "{e}");
}

/// A `--peer-cmd` that leaves a grandchild behind (a shell without `exec`)
/// and never answers: the cell fails within `--timeout`, and the whole
/// process group goes with it. The grandchild held the peer's stderr pipe,
/// and reading it blocked icbench until the grandchild ended (issue #22).
#[test]
fn a_peer_command_that_leaves_a_child_cannot_hold_the_run() {
    // A sleep that outlives any bound below, marked so it can be found.
    let marker = format!("300.{}", std::process::id());
    let cmd = format!("sh -c sleep${{IFS}}{marker};true");
    let dir = tempfile::tempdir().unwrap();
    let start = std::time::Instant::now();
    let out = icbench()
        .args(["run", "-L", "pty", "--protocol", "icb", "-p", "pingpong", "-s", "64"])
        .args(["--no-floor", "--timeout", "1s", "--peer-cmd", &cmd, "--json", "--db"])
        .arg(dir.path().join("r.db"))
        .output()
        .unwrap();
    let took = start.elapsed();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let r = rows(&v, "pingpong");
    assert_eq!(r[0]["status"], "failed", "{:#}", r[0]);
    // Bounded by the handshake's limit, not by the sleep (300 s).
    assert!(took < std::time::Duration::from_secs(120), "the run took {took:?}");
    let left: Vec<_> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .filter(|c| c.split(|&b| b == 0).any(|a| a == marker.as_bytes()))
        .collect();
    assert!(left.is_empty(), "the peer's grandchild outlived the cell");
}

/// Issue #30 item 8: a peer that floods garbage (`yes`) never lets a read
/// time out, and once kept the icb handshake reading past 120 s with
/// `--timeout 1s`; the handshake's limit bounds the whole wait now, and
/// the cell fails naming what was heard.
#[test]
fn a_peer_that_floods_garbage_ends_its_cell_within_the_timeout() {
    if let Some(why) = icbench_link::probe::unsupported("pty") {
        // qemu-user has no TCGETS2: the pty cannot be set up at all.
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("SKIP flooding peer over a pty: {why}\n").as_bytes(),
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let args = ["-L", "pty", "--protocol", "icb", "--peer-cmd", "yes pwned", "--timeout", "1s"];
    let t0 = std::time::Instant::now();
    // Bounded, so that a hang fails the test instead of stalling the suite.
    let out = icbench()
        .args(["run", "--json", "--no-floor", "--db"])
        .arg(dir.path().join("f.db"))
        .args(args)
        .args(["-p", "pingpong", "-s", "64", "--replicates", "1"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let took = t0.elapsed();
    let v = common::finished_run(&out, &args);
    let r = &rows(&v, "pingpong")[0];
    assert_eq!(r["status"], "failed", "{r}");
    assert!(reason(r).contains("garbage"), "{r}");
    // --timeout plus a margin (issue #36's bound: 2 s), and the process's
    // own start and store.
    assert!(took < std::time::Duration::from_secs(6), "{took:?}");
}
