//! The `iceoryx2` link end to end (issue #20): ping-pong, stream both ways
//! and oneway through iceoryx2's zero-copy publish-subscribe and
//! request-response with both wait strategies, every payload checked by the
//! engine; a payload past the
//! configured maximum is not applicable; a peer killed with kill -9 fails
//! its cell only, and the services it held are gone once the run ends (the
//! next node removes what dead nodes left). No timed assertion.

mod common;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use common::{reason, rows};
use serde_json::Value;

fn run_json(db: &Path, args: &[&str]) -> Value {
    common::run_json(db, &[&["--cell-time", "20ms"], args].concat())
}

/// iceoryx2's files on this machine: its shared memory and its node and
/// service records (iceoryx2's default config: /dev/shm and /tmp/iceoryx2).
fn iceoryx2_files() -> BTreeSet<String> {
    fn walk(dir: &Path, out: &mut BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.insert(p.display().to_string());
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(Path::new("/tmp/iceoryx2"), &mut out);
    if let Ok(entries) = std::fs::read_dir("/dev/shm") {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            // iceoryx2's global management segment (`…_node.0_10_0.global_mgmt`)
            // is made by the first node ever and outlives every node by
            // design: on a new machine the first run left it "behind" (seen
            // 2026-11-27, and made again by one plain iceoryx2 run).
            if name.ends_with(".global_mgmt") {
                continue;
            }
            if name.starts_with("iox2") || name.starts_with("icbench_") {
                out.insert(format!("/dev/shm/{name}"));
            }
        }
    }
    out
}

/// Starts a long iceoryx2 run, waits for its first stored cell (a line of
/// --json-stream), and kills it with SIGKILL, peer and all.
fn kill_host_after_first_cell(db: &Path) {
    use std::io::BufRead;
    let mut child = common::icbench_process()
        .args(["run", "--no-floor", "--json-stream", "--cell-time", "50ms"])
        .args(["-L", "iceoryx2", "-s", "1-64K", "-p", "pingpong", "--db"])
        .arg(db)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    assert!(out.read_line(&mut first).unwrap() > 0, "the run ended before its first cell");
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
}

/// One test, so that no two iceoryx2 runs of this binary overlap and the
/// file census at the end sees only this test's leftovers.
#[test]
fn iceoryx2_carries_every_pattern_and_survives_a_killed_peer() {
    // Under qemu-user (scripts/qemu-run sets ICBENCH_EXEC_WRAPPER) this
    // test is not run. Measured 2026-11-26 with QEMU 7.2 in CI's order
    // (armv7 first): armv7 left a killed process's iceoryx2 files behind
    // (iceoryx2 tells dead nodes by their file locks), and aarch64's and
    // then x86_64's icbench died of SIGSEGV reading those 32-bit files. The
    // link now keeps its files apart per architecture, which ends the
    // second. Whether the first is real under qemu-user is still open: the
    // liveness test is fcntl(F_GETLK) on each node's monitor file
    // (iceoryx2-bb-posix file_descriptor.rs), which QEMU translates for a
    // 32-bit guest, and this test was not re-run under either emulator on
    // 2026-11-26 (the ARM builds of icbench did not fit beside two other
    // builds on the 2-CPU machine). The link's own tests (two threads, both
    // services, every byte checked) run under both.
    if std::env::var_os("ICBENCH_EXEC_WRAPPER").is_some() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIP iceoryx2 end to end under qemu-user: armv7 under QEMU 7.2 leaves a killed \
             process's files behind (tests/iceoryx2.rs says what was seen); the link's unit \
             tests cover ARM"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    let before = iceoryx2_files();

    for link in [
        "iceoryx2",
        "iceoryx2?wait=event",
        "iceoryx2?service=reqres",
        "iceoryx2?service=reqres&wait=event",
    ] {
        let v = run_json(&db, &["-L", link, "-p", "pingpong", "-s", "16,64,4K,64K"]);
        let r = rows(&v, "pingpong");
        assert_eq!(r.len(), 4, "{v}");
        assert!(r.iter().all(|c| c["status"] == "ok"), "{link}: {r:?}");
        let v = run_json(&db, &["-L", link, "-p", "stream", "-s", "64,64K", "--direction", "both"]);
        let r = rows(&v, "stream");
        assert_eq!(r.len(), 4, "{v}");
        assert!(
            r.iter().all(|c| c["status"] == "ok" && c["bytes_per_s"].as_f64() > Some(0.0)),
            "{link}: {r:?}"
        );
        let v = run_json(&db, &["-L", link, "-p", "oneway", "-s", "64", "--direction", "both"]);
        let r = rows(&v, "oneway");
        assert_eq!(r.len(), 2, "{v}");
        assert!(r.iter().all(|c| c["status"] == "ok"), "{link}: {r:?}");
    }

    // Past max=: not applicable, with the maximum, before any message.
    for link in ["iceoryx2?max=1024", "iceoryx2?service=reqres&max=1024"] {
        let v = run_json(&db, &["-L", link, "-p", "pingpong", "-s", "64,4K"]);
        let r = rows(&v, "pingpong");
        assert_eq!(
            (r[0]["status"].as_str(), r[1]["status"].as_str()),
            (Some("ok"), Some("n/a")),
            "{link}: {r:?}"
        );
        assert_eq!(r[1]["max_bytes"], 1024);
    }

    // kill -9 of the peer mid-cell: that cell fails with why, the next
    // cell (a fresh peer, fresh services) is measured.
    for link in ["iceoryx2", "iceoryx2?service=reqres"] {
        let v = run_json(
            &db,
            &["-L", link, "-p", "pingpong", "-s", "64,128", "--peer-fault", "die-after=30"],
        );
        let r = rows(&v, "pingpong");
        assert_eq!(r[0]["status"], "failed", "{link}: {r:?}");
        assert!(reason(&r[0]).contains("peer was killed by signal 9"), "{}", reason(&r[0]));
        assert_eq!(r[1]["status"], "ok", "{link}: {r:?}");
    }
    // kill -9 of icbench itself once its first cell is stored: the
    // services it created are left with no live node to remove them…
    kill_host_after_first_cell(&db);
    // …so the next run's node removes what dead nodes held: it starts
    // clean and leaves nothing behind.
    let v = run_json(&db, &["-L", "iceoryx2", "-p", "pingpong", "-s", "64"]);
    assert_eq!(rows(&v, "pingpong")[0]["status"], "ok");
    let left: Vec<_> = iceoryx2_files().difference(&before).cloned().collect();
    assert!(left.is_empty(), "iceoryx2 files left behind: {left:?}");
}

/// `icbench links` names the service parameter and its values; an unknown
/// service is refused before anything is measured, in one line.
#[test]
fn links_lists_the_service_and_an_unknown_one_is_refused() {
    let out = common::icbench().arg("links").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().filter(|l| l.contains("service")).collect::<Vec<_>>().join("\n");
    assert!(line.contains("pubsub") && line.contains("reqres"), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let out = common::icbench()
        .args(["run", "--no-floor", "-L", "iceoryx2?service=rpc", "-s", "64", "--db"])
        .arg(dir.path().join("r.db"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("service") && err.contains("reqres"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
