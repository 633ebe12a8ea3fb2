//! `icbench run -p oneway` end to end (issue 7): both directions measured
//! as cells of their own, the common clock checked and noted, a one-way
//! time that cannot exceed the slowest round trip of the same run, and a
//! corrupting peer failing the cell in either direction. No timed
//! assertion: the bound compares two figures of the same run.

mod common;

use common::icbench;

use std::io::Write;
use std::path::Path;

use serde_json::Value;

/// `icbench run --json` with 20ms cells and no floor; returns the JSON.
fn run_json(db: &Path, args: &[&str]) -> Value {
    common::run_json(db, &[&["--cell-time", "20ms"], args].concat())
}

/// The links of `specs` that work here; says on stderr why others are left out.
fn usable<'a>(specs: &[&'a str]) -> Vec<&'a str> {
    specs
        .iter()
        .copied()
        .filter(|s| match icbench_link::probe::unsupported(s) {
            None => true,
            Some(why) => {
                let _ = writeln!(std::io::stderr(), "SKIP {s}: {why}");
                false
            }
        })
        .collect()
}

fn rows<'a>(v: &'a Value, section: &str) -> Vec<&'a Value> {
    v[section].as_array().map(|a| a.iter().collect()).unwrap_or_default()
}

fn reason(row: &Value) -> &str {
    row["reason"].as_str().unwrap_or("")
}

/// The run's notes from the common-clock check.
fn clock_notes(v: &Value) -> Vec<String> {
    v["meta"]["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .filter(|n| n.contains("common clock") || n.contains("one clock by construction"))
        .map(str::to_string)
        .collect()
}

#[test]
fn both_directions_are_measured_and_no_one_way_time_exceeds_the_slowest_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let links = usable(&["unix", "shm"]);
    if links.is_empty() {
        return;
    }
    let mut args = vec!["-p", "oneway", "-p", "pingpong", "-s", "8,64"];
    for l in &links {
        args.extend(["-L", l]);
    }
    let v = run_json(&dir.path().join("r.db"), &args);
    let oneway = rows(&v, "oneway");
    assert_eq!(oneway.len(), links.len() * 2 * 2, "two sizes × two directions per link");
    // One check for the CPU pair, however many links measure oneway on it.
    let checks = clock_notes(&v);
    assert_eq!(checks.len(), 1, "{checks:?}");
    assert!(
        checks[0].starts_with("oneway: common clock checked between CPUs")
            && checks[0].contains("never backwards"),
        "{checks:?}"
    );
    for link in &links {
        let rtt_max = rows(&v, "pingpong")
            .into_iter()
            .find(|r| r["link"] == *link && r["size_bytes"] == 64)
            .and_then(|r| r["rtt_ns"]["max"].as_f64())
            .unwrap_or_else(|| panic!("{link}: no 64 B round trip"));
        for dir in ["h2p", "p2h"] {
            let of = |size: u64| {
                oneway
                    .iter()
                    .find(|r| {
                        r["link"] == *link && r["size_bytes"] == size && r["direction"] == dir
                    })
                    .unwrap_or_else(|| panic!("{link} {dir} {size} B missing"))
            };
            let small = of(8);
            assert_eq!(small["status"], "failed", "8 B cannot hold stamp and sequence check");
            assert!(reason(small).contains("at least 16 B"), "{}", reason(small));
            let r = of(64);
            assert_eq!(r["status"], "ok", "{link} {dir}: {}", reason(r));
            assert_eq!(r["factors"]["direction"], dir);
            let s = &r["oneway_ns"];
            assert!(s["count"].as_u64().unwrap() >= 50, "{r}");
            let p50 = s["p50"].as_f64().unwrap();
            assert!(p50 > 0.0);
            assert!(
                p50 <= rtt_max,
                "{link} {dir}: one-way p50 {p50} ns exceeds the slowest round trip {rtt_max} ns"
            );
        }
    }
}

#[test]
fn a_thread_peer_measures_one_chosen_direction() {
    let dir = tempfile::tempdir().unwrap();
    let Some(link) = usable(&["shm"]).first().copied() else { return };
    let db = dir.path().join("r.db");
    let v = run_json(
        &db,
        &["-L", link, "-p", "oneway", "--direction", "p2h", "-s", "16", "--peer", "thread"],
    );
    let oneway = rows(&v, "oneway");
    assert_eq!(oneway.len(), 1);
    assert_eq!(oneway[0]["direction"], "p2h");
    assert_eq!(oneway[0]["status"], "ok", "{}", reason(oneway[0]));
    assert!(rows(&v, "pingpong").is_empty() && rows(&v, "stream").is_empty());
    // `icbench show` prints the cell with its direction and the clock check.
    let out = icbench().args(["show", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("oneway: one-way latency, ns"), "{text}");
    assert!(text.contains("p2h (peer → host)"), "{text}");
    assert!(!text.contains("h2p"), "{text}");
    assert!(text.contains("common clock checked between CPUs"), "{text}");
}

#[test]
fn a_corrupting_peer_fails_the_cell_in_either_direction() {
    let Some(link) = usable(&["unix"]).first().copied() else { return };
    for (direction, words) in [("h2p", "host → peer"), ("p2h", "peer → host")] {
        let dir = tempfile::tempdir().unwrap();
        let v = run_json(
            &dir.path().join("r.db"),
            &[
                "-L",
                link,
                "-p",
                "oneway",
                "--direction",
                direction,
                "-s",
                "64,128",
                "--peer-fault",
                "corrupt-after=5",
            ],
        );
        let oneway = rows(&v, "oneway");
        assert_eq!(oneway.len(), 2);
        let bad = oneway[0];
        assert_eq!(bad["status"], "failed", "{direction}");
        let why = reason(bad);
        assert!(why.contains("corrupted message"), "{why}");
        // The probe runs in groups of 4 messages, each numbered from 0: the
        // sixth message the peer handles is the second group's message 1.
        assert!(why.contains(&format!("{words} message 1 of 64 B")), "{why}");
        assert!(why.contains("at byte 32"), "{why}");
        // The next cell has a fresh peer, which behaves.
        assert_eq!(oneway[1]["status"], "ok", "{}", reason(oneway[1]));
    }
}

#[test]
fn direction_without_the_oneway_pattern_is_refused() {
    let out = icbench()
        .args(["run", "--no-floor", "--db", "/nonexistent/x.db", "-p", "pingpong"])
        .args(["--direction", "h2p"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("icbench: error: --direction"), "{err}");
    assert!(err.contains("-p oneway"), "{err}");
}

#[test]
fn oneway_is_refused_with_a_foreign_protocol() {
    let out = icbench()
        .args(["run", "--no-floor", "--db", "/nonexistent/x.db", "-L", "pty", "--protocol"])
        .args(["raw", "--peer-cmd", "cat", "-p", "oneway"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("icbench: error: --pattern oneway: not available with raw"), "{err}");
}

/// A plan in random order meets the CPU pair in many engine calls (each run
/// of consecutive cells of one link is one call); the clock is checked, and
/// noted, once.
#[test]
fn a_random_plan_checks_the_clock_of_its_cpu_pair_once() {
    let links = usable(&["unix", "pipe"]);
    if links.len() < 2 {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        "seed = 5\nrepetitions = 3\ncell_time = \"2ms\"\n[factors]\n\
         link = [\"unix\", \"pipe\"]\npattern = [\"oneway\", \"pingpong\"]\n\
         size = 16\ndirection = \"h2p\"\n",
    )
    .unwrap();
    // The order: how many engine calls (runs of one link) hold oneway cells.
    let out = icbench().args(["plan", "check", "--json"]).arg(&plan).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dry: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cells = dry["plan"]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 12);
    let mut calls_with_oneway = 0;
    let mut start = 0;
    for i in 1..=cells.len() {
        if i == cells.len() || cells[i]["link"] != cells[i - 1]["link"] {
            calls_with_oneway +=
                usize::from(cells[start..i].iter().any(|c| c["pattern"] == "oneway"));
            start = i;
        }
    }
    assert!(calls_with_oneway >= 3, "seed 5 should spread the oneway cells: {dry}");

    let v = common::run_json(&dir.path().join("r.db"), &["--plan", plan.to_str().unwrap()]);
    // The three repetitions of each link are one row, its blocks.
    let oneway = rows(&v, "oneway");
    assert_eq!(oneway.len(), 2);
    for r in &oneway {
        assert_eq!(r["status"], "ok", "{}", reason(r));
        assert_eq!(r["replicates"]["blocks"], 3, "{r}");
    }
    let checks = clock_notes(&v);
    assert_eq!(checks.len(), 1, "one check for one CPU pair: {checks:?}");
}
