//! What the binary's test files share: starting icbench the way cargo runs
//! it, skipping a link this system cannot offer, the C responder
//! (icb-peer) built once, reading rows out of a run's JSON, and the metadata
//! of a synthetic run. Each test file uses a part of it.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;

use assert_cmd::Command;
use icbench_model::{PeerMode, RunMeta, RunStatus, Sched};
use serde_json::Value;

/// The icbench binary, without a results database from the environment.
pub fn icbench() -> Command {
    let mut c = Command::cargo_bin("icbench").expect("the icbench binary is built");
    c.env_remove("ICBENCH_DB");
    // One block per cell: these tests are of what a cell does (faults,
    // channels, tables); replicates have their own (tests/hold.rs), which
    // pass --replicates.
    c.env("ICBENCH_REPLICATES", "1");
    // Cell counts stay as planned however busy the machine.
    c.env("ICBENCH_NO_REMEASURE", "1");
    c
}

/// The binary as a `std` command (for tests that need the child process
/// itself: signals, streamed output), through the target's runner (e.g.
/// qemu-user for ARM) when there is one.
pub fn icbench_process() -> std::process::Command {
    let mut c = <std::process::Command as assert_cmd::cargo::CommandCargoExt>::cargo_bin("icbench")
        .expect("the icbench binary is built");
    c.env_remove("ICBENCH_DB");
    c.env("ICBENCH_REPLICATES", "1");
    // Cell counts stay as planned however busy the machine.
    c.env("ICBENCH_NO_REMEASURE", "1");
    c
}

/// Whether link `spec` can work on this system (`icbench_link::probe`: e.g.
/// qemu-user has no netlink sockets and no TCGETS2); if not, says why on
/// stderr, past the test harness's capture, and the caller leaves it out.
pub fn runs_here(spec: &str) -> bool {
    match icbench_link::probe::unsupported(spec) {
        None => true,
        Some(why) => {
            let _ = writeln!(std::io::stderr(), "SKIP {spec}: {why}");
            false
        }
    }
}

/// Builds `firmware/build/icb-peer` once per test binary and returns its
/// path; `None` (with a printed reason) when there is no C toolchain, or
/// when ptys do not work here (qemu-user has no TCGETS2): every test that
/// talks to icb-peer does so over a pty or a tty.
pub fn icb_peer() -> Option<&'static str> {
    static PEER: OnceLock<Option<String>> = OnceLock::new();
    PEER.get_or_init(|| {
        if let Some(why) = icbench_link::probe::unsupported("pty") {
            // Past the test harness's capture, as the other suites do.
            let _ = writeln!(std::io::stderr(), "SKIP remote tests with icb-peer: {why}");
            return None;
        }
        let fw = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../firmware");
        let made = std::process::Command::new("make")
            .arg("-C")
            .arg(&fw)
            .arg("-s")
            .arg("build/icb-peer")
            .status();
        match made {
            Ok(s) if s.success() => {
                Some(fw.join("build/icb-peer").canonicalize().unwrap().display().to_string())
            }
            other => {
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIP: cannot build firmware/build/icb-peer (make: {other:?})"
                );
                None
            }
        }
    })
    .as_deref()
}

/// Starts `cmd` with its stdout and stderr piped and reads its stderr
/// until a line containing `until` has come (the run's header, the floor's
/// line): the child, the rest of its stderr, and what was read.
pub fn spawn_until(
    cmd: &mut std::process::Command,
    until: &str,
) -> (std::process::Child, std::io::BufReader<std::process::ChildStderr>, String) {
    use std::io::BufRead;
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains(until) {
        assert!(err.read_line(&mut seen).unwrap() > 0, "no '{until}': {seen}");
    }
    (child, err, seen)
}

/// `icbench run --json --no-floor --db DB ARGS`, which must finish; its
/// JSON document. Each test file gives its own cell time in `args`.
pub fn run_json(db: &std::path::Path, args: &[&str]) -> Value {
    let out = icbench()
        .args(["run", "--json", "--no-floor", "--db"])
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    finished_run(&out, args)
}

/// The JSON of a run that finished, checking its exit: 0 when it measured a
/// cell, 1 saying so when every cell failed or did not apply (issue #30
/// item 9). Any other exit fails the test with the run's stderr.
pub fn finished_run(out: &std::process::Output, args: &[&str]) -> Value {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "icbench run {args:?} failed ({:?}): {err}",
        out.status
    );
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("icbench run {args:?}: no JSON ({e}): {err}"));
    let measured = ["pingpong", "stream", "bulk", "oneway"]
        .iter()
        .filter_map(|s| v[*s].as_array())
        .flatten()
        .any(|r| r["status"] == "ok");
    let want = if measured { 0 } else { 1 };
    assert_eq!(out.status.code(), Some(want), "icbench run {args:?}: {err}");
    assert_eq!(err.contains("nothing was measured"), !measured, "{args:?}: {err}");
    v
}

/// The rows of one section (`pingpong`, `stream` …) of a run's JSON.
pub fn rows<'a>(v: &'a Value, section: &str) -> &'a Vec<Value> {
    v[section].as_array().unwrap()
}

/// A row's failure reason, or "".
pub fn reason(row: &Value) -> String {
    row["reason"].as_str().unwrap_or("").to_string()
}

/// The metadata of a synthetic run on the CPUs `online` (e.g. "0-1").
pub fn meta(online: &str) -> RunMeta {
    RunMeta {
        cpu_model: "test".into(),
        online_cpus: online.into(),
        host_cpu: 0,
        peer_cpu: 1,
        peer_mode: PeerMode::Thread,
        sched: Sched::Other,
        mlock: false,
        kernel_release: "6.1".into(),
        governor: None,
        hostname: "synthetic".into(),
        icbench_version: "0.1.0".into(),
        git_commit: None,
        command_line: vec!["icbench".into(), "run".into()],
        started_unix_ns: 1,
        ended_unix_ns: Some(2),
        clock: "CLOCK_MONOTONIC_RAW".into(),
        clock_overhead_ns: 20.0,
        clock_granule_ns: 1.0,
        status: RunStatus::Finished,
        floor: None,
        floor_tail: None,
        fast_counter: None,
        notes: vec![],
        label: None,
        user_note: None,
    }
}
