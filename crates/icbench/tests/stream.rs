//! `icbench run -p stream --direction …` end to end: the stream pattern in
//! both directions, stored and shown back with its direction, a plan's
//! `direction` factor over stream, a corrupting peer failing a peer → host
//! cell, and the one-line refusals where peer → host cannot run. No timed
//! assertion: only that every cell moved bytes.

mod common;

use std::path::Path;

use common::{icbench, reason, rows, runs_here};
use serde_json::Value;

/// `icbench run --json` with 20ms cells and no floor; returns the JSON.
fn run_json(db: &Path, args: &[&str]) -> Value {
    common::run_json(db, &[&["--cell-time", "20ms"], args].concat())
}

/// (link, size, direction, bytes/s) of every stream row, in order.
fn stream_cells(v: &Value) -> Vec<(String, u64, String, f64)> {
    rows(v, "stream")
        .iter()
        .map(|r| {
            (
                r["link"].as_str().unwrap().to_string(),
                r["size_bytes"].as_u64().unwrap(),
                r["direction"].as_str().unwrap().to_string(),
                r["bytes_per_s"].as_f64().unwrap_or(0.0),
            )
        })
        .collect()
}

#[test]
fn both_directions_per_link_and_size_are_measured_stored_and_shown_back() {
    let links: Vec<&str> = ["pipe", "shm"].into_iter().filter(|l| runs_here(l)).collect();
    if links.is_empty() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let mut args = vec!["-p", "stream", "--direction", "both", "-s", "64,4K"];
    for l in &links {
        args.extend(["-L", l]);
    }
    let v = run_json(&db, &args);
    let got = stream_cells(&v);
    assert_eq!(got.len(), links.len() * 2 * 2, "{got:?}");
    for r in rows(&v, "stream") {
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["window"], 32);
    }
    for link in &links {
        for size in [64, 4096] {
            for d in ["h2p", "p2h"] {
                let c = got.iter().find(|c| c.0 == *link && c.1 == size && c.2 == d);
                let Some(c) = c else { panic!("{link} {size} B {d} missing: {got:?}") };
                assert!(c.3 > 0.0, "{link} {size} B {d}: {c:?}");
            }
        }
    }
    // Peer → host is the cell's factor; host → peer keeps the key stream
    // cells always had.
    for r in rows(&v, "stream") {
        let factor = r["factors"]["direction"].as_str();
        assert_eq!(factor, (r["direction"] == "p2h").then_some("p2h"), "{r}");
    }
    // The store gives them back as measured.
    let out = icbench().args(["show", "--json", "--db"]).arg(&db).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stream_cells(&shown), got);
    // The table says which way each row went.
    let out = icbench().args(["show", "--cells", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("payload B/s in the row's direction"), "{text}");
    assert_eq!(text.matches("p2h (peer → host)").count(), links.len() * 2, "{text}");
    assert_eq!(text.matches("h2p (host → peer)").count(), links.len() * 2, "{text}");
}

#[test]
fn stream_is_host_to_peer_unless_told_and_pingpong_stays_directionless() {
    let Some(link) = ["unix", "pipe"].into_iter().find(|l| runs_here(l)) else { return };
    let dir = tempfile::tempdir().unwrap();
    let v = run_json(
        &dir.path().join("r.db"),
        &["-L", link, "-p", "stream", "-p", "pingpong", "-s", "64", "--peer", "thread"],
    );
    let got = stream_cells(&v);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].2, "h2p");
    assert!(rows(&v, "stream")[0].get("factors").is_none(), "{v}");
    assert!(rows(&v, "pingpong")[0].get("direction").is_none());
    // --direction p2h alone: one stream cell, peer → host; pingpong as ever.
    let v = run_json(
        &dir.path().join("r2.db"),
        &["-L", link, "-p", "stream", "-p", "pingpong", "-s", "64", "--direction", "p2h"],
    );
    let got = stream_cells(&v);
    assert_eq!((got.len(), got[0].2.as_str()), (1, "p2h"), "{got:?}");
    assert_eq!(rows(&v, "pingpong").len(), 1);
    assert_eq!(rows(&v, "pingpong")[0]["status"], "ok");
}

#[test]
fn a_corrupting_peer_fails_a_peer_to_host_cell_naming_the_message_and_byte() {
    let Some(link) = ["unix", "pipe"].into_iter().find(|l| runs_here(l)) else { return };
    let dir = tempfile::tempdir().unwrap();
    let args = ["-L", link, "-p", "stream", "--direction", "p2h", "-s", "64,128", "--peer-fault"];
    let args: Vec<&str> = args.into_iter().chain(["corrupt-after=5"]).collect();
    let v = run_json(&dir.path().join("r.db"), &args);
    let s = rows(&v, "stream");
    assert_eq!(s[0]["status"], "failed");
    assert_eq!(
        reason(&s[0]),
        "corrupted message: peer → host stream message 5 of 64 B differs from the expected \
         payload at byte 32"
    );
    // The next cell has a fresh peer, which behaves.
    assert_eq!(s[1]["status"], "ok", "{}", reason(&s[1]));
}

#[test]
fn a_plan_with_both_directions_expands_and_measures_both() {
    let Some(link) = ["unix", "pipe"].into_iter().find(|l| runs_here(l)) else { return };
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "order = \"listed\"\ncell_time = \"5ms\"\n[factors]\nlink = \"{link}\"\n\
             pattern = [\"stream\", \"pingpong\"]\nsize = 64\ndirection = [\"h2p\", \"p2h\"]\n"
        ),
    )
    .unwrap();
    let out = icbench().args(["plan", "check", "--json"]).arg(&plan).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dry: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cells: Vec<(&str, Option<&str>)> = dry["plan"]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["pattern"].as_str().unwrap(), c["direction"].as_str()))
        .collect();
    assert_eq!(cells, [("stream", Some("h2p")), ("stream", Some("p2h")), ("pingpong", None)]);

    let v = common::run_json(&dir.path().join("r.db"), &["--plan", plan.to_str().unwrap()]);
    let s = rows(&v, "stream");
    let dirs: Vec<&str> = s.iter().map(|r| r["direction"].as_str().unwrap()).collect();
    assert_eq!(dirs, ["h2p", "p2h"]);
    for r in s {
        assert_eq!(r["status"], "ok", "{}", reason(r));
        // A plan stores each level as the cell's factor.
        assert_eq!(r["factors"]["direction"], r["direction"]);
    }
}

/// Runs icbench with `args`; asserts it refused with one line and exit
/// status 2 and returns the line.
fn refusal(args: &[&str]) -> String {
    let out = icbench()
        .args(["run", "--no-floor", "--db", "/nonexistent/x.db"])
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("icbench: error: --direction"), "{err}");
    err
}

#[test]
fn peer_to_host_is_refused_where_it_cannot_run() {
    // A wire protocol: the peer is a responder without a source op.
    // (raw runs both ways on a link whose remote fills buffers, sdb:; on
    // others its cells fail saying so: raw_stream_on_an_echo_link_…)
    for (protocol, link) in [("icb", "pty"), ("icb", "tty:/dev/ttyRPMSG0")] {
        let mut args = vec!["-L", link, "--protocol", protocol, "-p", "stream"];
        if link == "pty" {
            args.extend(["--peer-cmd", "cat"]);
        }
        for d in ["p2h", "both"] {
            let a: Vec<&str> = args.iter().copied().chain(["--direction", d]).collect();
            let err = refusal(&a);
            assert!(err.contains("needs icbench's own peer"), "{err}");
            assert!(err.contains("use --direction h2p"), "{err}");
        }
    }
    // Several channels.
    let err = refusal(&["-L", "unix", "-p", "stream", "-P", "2", "--direction", "p2h"]);
    assert!(err.contains("--channels 2") && err.contains("host → peer only"), "{err}");
    // No pattern that has a direction.
    let err = refusal(&["-p", "pingpong", "--direction", "both"]);
    assert!(err.contains("only the oneway and stream patterns"), "{err}");
}

/// `--protocol raw -p stream` on a link whose remote is an echo (a pty with
/// `cat`): accepted in both directions, each cell fails naming what it
/// needs, and the run goes on to the ping-pong cell after them.
#[test]
fn raw_stream_on_an_echo_link_fails_its_cells_saying_why() {
    if !runs_here("pty") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = icbench()
        .args(["run", "--json", "--no-floor", "--cell-time", "20ms", "--db"])
        .arg(dir.path().join("r.db"))
        .args(["-L", "pty", "--protocol", "raw", "--peer-cmd", "cat", "-p", "stream"])
        .args(["-p", "pingpong", "--direction", "both", "-s", "64"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let s = rows(&v, "stream");
    assert_eq!(s.len(), 2, "{s:?}");
    for r in s {
        assert_eq!(r["status"], "failed", "{r}");
        assert!(reason(r).contains("shared buffers (sdb:)"), "{}", reason(r));
    }
    let p = rows(&v, "pingpong");
    assert_eq!(p.len(), 1);
    assert_eq!(p[0]["status"], "ok", "{}", reason(&p[0]));
}
