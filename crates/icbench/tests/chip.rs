//! `icbench chip` against the host build of the on-chip agent (issue #16):
//! icb-peer --onchip runs the initiator and the agent as two threads over
//! the firmware's own ring, and icbench drives it over a pty exactly as it
//! would drive a microcontroller's UART.

mod common;

use common::{icb_peer, icbench, rows};
use serde_json::Value;

fn chip(db: &std::path::Path, peer: &str, args: &[&str]) -> std::process::Output {
    let cmd = format!("{peer} --onchip - --path {{path}}");
    icbench()
        .args(["chip", "-L", "pty", "--peer-cmd", &cmd, "--timeout", "2s", "--db"])
        .arg(db)
        .args(args)
        .output()
        .unwrap()
}

/// [`chip`] with the address space bounded at 4 GiB, for a test of a bound
/// on memory: without the bound a regression grows until allocation
/// fails, not until the machine swaps.
fn chip_bounded(db: &std::path::Path, peer: &str, args: &[&str]) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let cmd = format!("{peer} --onchip - --path {{path}}");
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("icbench"));
    c.env_remove("ICBENCH_DB")
        .args(["chip", "-L", "pty", "--peer-cmd", &cmd, "--timeout", "2s", "--db"])
        .arg(db)
        .args(args);
    // SAFETY: setrlimit is async-signal-safe; nothing else runs in the child.
    unsafe {
        c.pre_exec(|| {
            let lim = libc::rlimit { rlim_cur: 4 << 30, rlim_max: 4 << 30 };
            match libc::setrlimit(libc::RLIMIT_AS, &lim) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    c.output().unwrap()
}

#[test]
fn every_pattern_both_directions_and_both_regions_are_measured_and_stored() {
    let Some(peer) = icb_peer() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let out = chip(
        &db,
        peer,
        &["-p", "pingpong,oneway,stream,bulk", "-s", "64,4K", "--count", "40", "--warmup", "4"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let show = icbench().args(["show", "--json", "--db"]).arg(&db).output().unwrap();
    let v: Value = serde_json::from_slice(&show.stdout).unwrap();
    let text = v.to_string();
    // 4 patterns × 2 regions × 2 directions × 2 sizes, every one measured.
    let mut n = 0;
    for section in ["pingpong", "oneway", "stream", "bulk"] {
        for row in rows(&v, section) {
            n += 1;
            assert_eq!(row["status"], "ok", "{row}");
        }
    }
    assert_eq!(n, 32, "{text}");
    for factor in ["\"i2a\"", "\"a2i\"", "\"ram0\"", "\"ram1\"", "\"poll\""] {
        assert!(text.contains(factor), "{factor} missing: {text}");
    }
    assert!(text.contains("shared timer at 1000000000 Hz"), "{text}");
    // A latency cell has its 40 samples; a stream cell a throughput.
    let ping = &rows(&v, "pingpong")[0];
    assert_eq!(ping["rtt_ns"]["count"].as_u64(), Some(40), "{ping}");
    assert!(ping["rtt_ns"]["p50"].as_f64().unwrap() > 0.0, "{ping}");
    assert_eq!(ping["factors"]["direction"], "i2a", "{ping}");
    // The factors are the design's: effects reads them.
    let eff = icbench().args(["effects", "--db"]).arg(&db).output().unwrap();
    let e = String::from_utf8_lossy(&eff.stdout);
    assert!(eff.status.success(), "{e}{}", String::from_utf8_lossy(&eff.stderr));
    assert!(e.contains("direction") && e.contains("region"), "{e}");
}

#[test]
fn the_doorbell_wakes_the_other_core() {
    let Some(peer) = icb_peer() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let out = chip(
        &db,
        peer,
        &[
            "-p",
            "pingpong,stream",
            "-s",
            "64",
            "--notify",
            "doorbell",
            "--region",
            "ram1",
            "--count",
            "30",
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.to_string().contains("\"doorbell\""), "{v}");
    assert!(!v.to_string().contains("\"ram0\""), "{v}");
}

#[test]
fn what_the_chip_lacks_is_refused_in_one_line_before_a_run_exists() {
    let Some(peer) = icb_peer() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    for (args, want) in [
        (&["--region", "D9"][..], "region 'D9' is not on this chip: it offers ram0, ram1"),
        (&["--notify", "event"][..], "notify 'event' is not offered by this firmware"),
        (&["-s", "128K"][..], "exceed the largest the chip's transport carries, 65536 B"),
        (&["--direction", "up"][..], "--direction up: use i2a"),
        (&["-p", "timer"][..], "on chip the patterns are"),
        (&["--flash-cmd", "x {image}"][..], "--flash-cmd without --image"),
    ] {
        let out = chip(&db, peer, args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
    assert!(
        !db.exists() || {
            let runs = icbench().args(["runs", "--json", "--db"]).arg(&db).output().unwrap();
            !String::from_utf8_lossy(&runs.stdout).contains("\"id\"")
        }
    );
}

#[test]
fn a_responder_that_is_not_an_initiator_is_named() {
    let Some(peer) = icb_peer() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let cmd = format!("{peer} --path {{path}}");
    let out = icbench()
        .args(["chip", "-L", "pty", "--peer-cmd", &cmd, "--timeout", "2s", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("not an on-chip initiator"), "{err}");
}

#[test]
fn a_local_link_without_a_peer_says_what_to_give() {
    let dir = tempfile::tempdir().unwrap();
    let out = icbench().args(["chip", "-L", "pty", "--db"]).arg(dir.path().join("c.db")).output();
    let out = out.unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--onchip") && err.trim().lines().count() == 1, "{err}");
}

#[test]
fn a_plan_runs_its_repetitions_and_a_bad_plan_is_one_line() {
    let Some(peer) = icb_peer() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let plan = dir.path().join("p.toml");
    std::fs::write(
        &plan,
        "seed = 7\nrepetitions = 2\ncount = 20\nwarmup = 2\n[factors]\npattern = \"oneway\"\n\
         size = [4, 64]\ndirection = [\"i2a\", \"a2i\"]\nregion = \"all\"\n",
    )
    .unwrap();
    let out = chip(&db, peer, &["--plan", plan.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cells = rows(&v, "oneway");
    // 2 sizes × 2 directions × 2 regions, each with its 2 repeats.
    assert_eq!(cells.len(), 8, "{v}");
    for c in cells {
        assert_eq!(c["status"], "ok", "{c}");
        assert_eq!(c["replicates"]["blocks"], 2, "{c}");
    }
    assert!(v.to_string().contains("random order (seed 7)"), "{v}");
    std::fs::write(&plan, "[factors]\nregions = \"all\"\n").unwrap();
    let out = chip(&db, peer, &["--plan", plan.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("line 2") && err.trim().lines().count() == 1, "{err}");
}

/// Issue #30 item 6 for `chip --plan`: more cells than a plan may have are
/// refused in one line that says the count, before they are built (before,
/// `repetitions = 4294967295` grew to 7 GB in 20 s with nothing said) —
/// from the plan alone, and once the chip has said its regions (`region =
/// "all"`: two here, 200,000 × 8 cells).
#[test]
fn a_plan_of_more_cells_than_a_plan_may_have_is_refused_in_one_line() {
    let Some(peer) = icb_peer() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let plan = dir.path().join("p.toml");
    for (reps, region, want) in [
        (4294967295u64, "ram0", "4 on-chip cells × 4294967295 repetitions is more than 1000000"),
        (200000, "all", "8 on-chip cells × 200000 repetitions is more than 1000000"),
    ] {
        std::fs::write(
            &plan,
            format!(
                "repetitions = {reps}\n[factors]\npattern = \"pingpong\"\nsize = [4, 64]\n\
                 region = \"{region}\"\n"
            ),
        )
        .unwrap();
        let t0 = std::time::Instant::now();
        let out = chip_bounded(&db, peer, &["--plan", plan.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{reps}: {err}");
        assert!(err.contains(want) && err.trim().lines().count() == 1, "{reps}: {err}");
        assert!(t0.elapsed() < std::time::Duration::from_secs(60), "{reps}: {:?}", t0.elapsed());
        assert!(!db.exists(), "{reps}: refused before a run exists");
    }
}

/// Each cell is stored as it finishes and the run is held while it is
/// measured: `runs` says `running` then, and after a `kill -9` the cells
/// measured so far are kept and the run is `abandoned` (before, a chip run
/// stored its cells after the last one, and showed `abandoned` while
/// alive). Piped, stderr gets no progress line of carriage returns.
#[test]
fn a_chip_run_stores_each_cell_as_it_finishes_and_is_held_while_it_measures() {
    let Some(peer) = icb_peer() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let cmd = format!("{peer} --onchip - --path {{path}}");
    // Sixteen cells of two million round trips: about a second each here.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("icbench"))
        .env_remove("ICBENCH_DB")
        .args(["chip", "-L", "pty", "--peer-cmd", &cmd, "--timeout", "10s", "-p", "pingpong"])
        .args(["-s", "4,64,256,1K", "--count", "2000000", "--db"])
        .arg(&db)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stored = || -> i64 {
        let Ok(c) =
            rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        else {
            return 0;
        };
        c.query_row("SELECT count(*) FROM cells", [], |r| r.get(0)).unwrap_or(0)
    };
    let status = || -> String {
        let out = icbench().args(["runs", "--json", "--db"]).arg(&db).output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["runs"][0]["status"].as_str().unwrap_or("").to_string()
    };
    let t0 = std::time::Instant::now();
    while stored() < 2 {
        assert!(t0.elapsed().as_secs() < 120, "two cells not stored in 120 s");
        assert!(child.try_wait().unwrap().is_none(), "the run ended before its second cell");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(status(), "running");
    child.kill().unwrap();
    let _ = child.wait();
    let kept = stored();
    assert!((2..16).contains(&kept), "{kept} cells kept");
    assert_eq!(status(), "abandoned");
    let show = icbench().args(["show", "1", "--json", "--db"]).arg(&db).output().unwrap();
    let v: Value = serde_json::from_slice(&show.stdout).unwrap();
    assert_eq!(rows(&v, "pingpong").len() as i64, kept, "{v}");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(!err.contains('\r'), "{err:?}");
}

/// A reply damaged on the link (its CRC) is asked for once more on a
/// fresh session, and a chip that keeps dying fails each cell with the
/// reason while the run goes on.
#[test]
fn a_damaged_reply_is_requested_again_and_a_dead_chip_fails_its_cell() {
    let Some(peer) = icb_peer() else { return };
    let dir = tempfile::tempdir().unwrap();
    let run = |fault: &str, db: &str| {
        // Each icb-peer answers CAPS, CHIP and one RESULT before the fault.
        let cmd = format!("{peer} --onchip - --fault {fault} --path {{path}}");
        let db = dir.path().join(db);
        let out = icbench()
            .args(["chip", "-L", "pty", "--peer-cmd", &cmd, "--timeout", "2s", "--json"])
            .args(["-p", "pingpong", "-s", "4,64,256", "--direction", "i2a"])
            .args(["--region", "ram0", "--count", "20", "--db"])
            .arg(&db)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out, v)
    };
    let (out, v) = run("crc-after=3", "crc.db");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for c in rows(&v, "pingpong") {
        assert_eq!(c["status"], "ok", "a corrupted RESULT was not asked for again: {c}");
    }
    // A chip that dies on every RESULT (after CAPS and CHIP): each cell
    // fails with the reason, after its one retry, and the run goes on.
    let (out, v) = run("die-after=2", "die.db");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cells = rows(&v, "pingpong");
    assert_eq!(cells.len(), 3, "{v}");
    for c in cells {
        assert_eq!(c["status"], "failed", "{c}");
        let reason = c["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("exit") || reason.contains("peer"), "{reason}");
    }
}

#[test]
fn raw_samples_come_back_one_per_repetition() {
    let Some(peer) = icb_peer() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let out = chip(
        &db,
        peer,
        &["-p", "pingpong,oneway", "-s", "64", "--region", "ram0", "--count", "77", "--raw"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = icbench().args(["export", "-f", "csv", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&csv.stdout);
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{text}");
    for r in rows {
        assert!(r.contains(",raw samples,77,"), "{r}");
    }
}

/// Images as a factor: the flash command puts each on the "chip" (here a
/// file the host build's wrapper reads its build label from) before its
/// cells; each cell carries its image, and the notes each image's labels.
#[test]
fn each_image_is_flashed_before_its_cells_and_is_a_factor() {
    use std::os::unix::fs::PermissionsExt;
    let Some(peer) = icb_peer() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    for (name, label) in [("O2.img", "cflags=-O2"), ("Os.img", "cflags=-Os")] {
        std::fs::write(dir.path().join(name), label).unwrap();
    }
    let wrapper = dir.path().join("peer.sh");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nexec {peer} --onchip - --label \"$(cat {d}/current)\" --path \"$1\"\n"),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let db = dir.path().join("c.db");
    let list = format!("{d}/O2.img,{d}/Os.img");
    let out = icbench()
        .args(["chip", "-L", "pty", "--peer-cmd", &format!("{d}/peer.sh {{path}}")])
        .args(["--image", &list, "--flash-cmd", &format!("cp {{image}} {d}/current")])
        .args(["-p", "pingpong", "-s", "64", "--direction", "i2a", "--region", "ram0"])
        .args(["--count", "20", "--json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cells = rows(&v, "pingpong");
    let images: Vec<&str> = cells.iter().filter_map(|c| c["factors"]["image"].as_str()).collect();
    assert_eq!(images, ["O2.img", "Os.img"], "{v}");
    assert!(cells.iter().all(|c| c["status"] == "ok"), "{v}");
    let notes = v["meta"]["notes"].to_string();
    assert!(notes.contains("image") && notes.contains("cflags=-Os"), "{notes}");

    // A flash that fails: one line before a run exists; no command: refused.
    let out = icbench()
        .args(["chip", "-L", "pty", "--peer-cmd", &format!("{d}/peer.sh {{path}}")])
        .args(["--image", &list, "--flash-cmd", "false {image}", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("flashing") && err.contains("false ended with"), "{err}");
    let out = icbench()
        .args(["chip", "-L", "pty", "--peer-cmd", "x", "--image", &list, "--db"])
        .arg(&db)
        .output();
    let err = String::from_utf8_lossy(&out.unwrap().stderr).to_string();
    assert!(err.contains("--image needs --flash-cmd"), "{err}");
}
