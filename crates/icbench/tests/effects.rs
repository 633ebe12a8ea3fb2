//! `icbench effects` end to end: a store built with synthetic cells whose
//! effects are known exactly, read back through the binary's JSON; the
//! refusals (exit 2, one line); and a real small run analysed (no numbers
//! asserted on timed data).

mod common;

use common::{icbench, meta};

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use icbench_model::{
    CellData, CellKey, CellOutcome, CellResult, LatencyHistogram, LinkCounters, Pattern,
};
use icbench_store::Store;
use serde_json::Value;

fn ok(db: &Path, args: &[&str]) -> String {
    let out = icbench().args(args).arg("--db").arg(db).output().unwrap();
    assert!(out.status.success(), "icbench {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn fails(db: &Path, args: &[&str]) -> String {
    let out = icbench().args(args).arg("--db").arg(db).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

/// A measured cell whose p50 latency is exactly `p50_ns` (every sample the
/// same, below 2048 ns where the histogram is exact) and whose bandwidth is
/// `bytes_per_s`.
fn measured(key: CellKey, p50_ns: u64, bytes_per_s: u64) -> CellResult {
    let mut h = LatencyHistogram::new();
    h.record_n(p50_ns, 100);
    let data = CellData {
        messages: 100,
        bytes: bytes_per_s,
        elapsed_ns: 1_000_000_000,
        warmup_messages: 0,
        latency: Some(h),
        raw_ns: None,
        window: None,
        counters: LinkCounters::default(),
        channels: None,
        per_channel: Vec::new(),
        disturbance: None,
        cut_at_messages: None,
        timed_batch: None,
        state: None,
        adaptive: None,
    };
    CellResult { key, outcome: CellOutcome::Measured(data) }
}

fn store_run(db: &Path, cells: &[CellResult]) -> i64 {
    let mut store = Store::open(db).unwrap();
    let run = store.begin_run(&meta("0-1")).unwrap();
    for c in cells {
        store.insert_cell(run, c).unwrap();
    }
    run.0
}

/// link {pipe, unix} × size {64, 1024} × wait {spin, futex} × rep {0,1,2}:
/// latency = 100 ns × (unix: 2) × (1024: 4) × rep noise (0.99, 1, 1.01),
/// bandwidth = 1 MB/s × (1024: 10) × the same noise. `wait` has no effect;
/// nothing interacts. Plus one failed and one n/a cell.
fn factorial() -> Vec<CellResult> {
    let mut cells = Vec::new();
    for (link, l) in [("pipe", 1), ("unix", 2)] {
        for (size, s, b) in [(64, 1, 1), (1024, 4, 10)] {
            for wait in ["spin", "futex"] {
                for (rep, noise) in [(0, 99), (1, 100), (2, 101)] {
                    let key = CellKey::new(link, Pattern::PingPong, size)
                        .with("wait", wait)
                        .with("rep", rep);
                    cells.push(measured(key, l * s * noise, b * 10_000 * noise));
                }
            }
        }
    }
    let key = CellKey::new("pipe", Pattern::PingPong, 64).with("wait", "spin").with("rep", 3);
    cells.push(CellResult { key, outcome: CellOutcome::Failed { reason: "timeout".into() } });
    let key = CellKey::new("unix", Pattern::PingPong, 1024).with("wait", "spin").with("rep", 3);
    cells.push(CellResult { key, outcome: CellOutcome::NotApplicable { max_bytes: 512 } });
    cells
}

fn factor<'a>(m: &'a Value, name: &str) -> &'a Value {
    m["effects"]["factors"].as_array().unwrap().iter().find(|f| f["factor"] == name).unwrap()
}

fn close(v: &Value, want: f64) -> bool {
    (v.as_f64().unwrap() - want).abs() <= 1e-9 * want.abs().max(1.0)
}

#[test]
fn known_effects_come_back_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e.db");
    let run = store_run(&db, &factorial());
    let v: Value =
        serde_json::from_str(&ok(&db, &["effects", &run.to_string(), "--json"])).unwrap();
    assert_eq!(v["scale"], "log");
    assert_eq!((v["cells_total"].as_u64(), v["cells_failed"].as_u64()), (Some(26), Some(1)));
    assert_eq!(v["cells_not_applicable"], 1);
    let lat = &v["metrics"][0];
    assert_eq!(lat["metric"], "latency");
    assert_eq!(lat["effect_unit"], "ratio");
    assert_eq!(lat["cells"], 24);
    let e = &lat["effects"];
    // rep is the replicate index, not a factor: 8 treatments × 3.
    let d = &e["design"];
    assert_eq!((d["treatments"].as_u64(), d["replicates_min"].as_u64()), (Some(8), Some(3)));
    assert_eq!(d["balanced"], true);
    assert_eq!(e["error"]["source"], "replicates");
    let names: Vec<&str> =
        e["factors"].as_array().unwrap().iter().map(|f| f["factor"].as_str().unwrap()).collect();
    assert_eq!(names, ["size", "link", "wait"], "largest share first, no rep");
    let nv: Vec<&str> =
        e["not_varied"].as_array().unwrap().iter().map(|n| n["factor"].as_str().unwrap()).collect();
    assert_eq!(nv, ["channels", "pattern"]);
    // Exact ratios: size ×4, link ×2, wait ×1 (p = 1: F = 0).
    let size = factor(lat, "size");
    assert!(close(&size["range"], 4.0), "{size}");
    assert_eq!((size["highest"].as_str(), size["lowest"].as_str()), (Some("1024"), Some("64")));
    assert!(close(&factor(lat, "link")["range"], 2.0));
    assert_eq!(factor(lat, "link")["anova"]["p"].as_f64().map(|p| p < 0.05), Some(true));
    let wait = factor(lat, "wait");
    assert!(close(&wait["range"], 1.0));
    assert_eq!(wait["anova"]["p"].as_f64().map(|p| p > 0.05), Some(true));
    // The unix level's mean: geometric mean of 200·{1,4}·{0.99,1,1.01}.
    let g = (0.99f64 * 1.01).ln() / 3.0;
    let unix = &factor(lat, "link")["levels"][1];
    assert_eq!(unix["level"], "unix");
    assert!(close(&unix["mean"], 400.0 * g.exp()), "{unix}");
    // Size and link explain nearly everything; no interaction.
    let share = |f: &str| factor(lat, f)["anova"]["share"].as_f64().unwrap();
    assert!(share("size") + share("link") > 0.99);
    let pairs = e["interactions"].as_array().unwrap();
    assert_eq!(pairs.len(), 3);
    assert!(
        pairs.iter().all(|i| i["estimable"] == true && i["anova"]["p"].as_f64().unwrap() > 0.05)
    );
    // Bandwidth: only size matters (×10).
    let bw = &v["metrics"][1];
    assert_eq!(bw["metric"], "bandwidth");
    assert!(close(&factor(bw, "size")["range"], 10.0));
    assert!(close(&factor(bw, "link")["range"], 1.0));

    // The linear scale reports differences: unix − pipe over the size mix.
    let v: Value = serde_json::from_str(&ok(
        &db,
        &["effects", "--json", "--scale", "linear", "--metric", "latency"],
    ))
    .unwrap();
    assert_eq!(v["metrics"].as_array().unwrap().len(), 1);
    let link = factor(&v["metrics"][0], "link");
    assert!(close(&link["range"], 250.0), "{link}"); // (200·(1+4)/2) − (100·(1+4)/2)

    // --where picks a part; a size may be written as on the command line.
    let v: Value =
        serde_json::from_str(&ok(&db, &["effects", "--json", "--where", "size=1K"])).unwrap();
    let nv = &v["metrics"][0]["effects"]["not_varied"];
    assert!(nv.as_array().unwrap().iter().any(|n| n["factor"] == "size" && n["level"] == "1024"));

    // The table names the factors and the allocation of variation.
    let text = ok(&db, &["effects"]);
    for want in ["share of variation", "size", "link × size", "error (between replicates)"] {
        assert!(text.contains(want), "{want}: {text}");
    }
    assert!(text.contains("left out: 1 failed, 1 n/a"), "{text}");
}

#[test]
fn an_unbalanced_run_gets_level_means_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("u.db");
    let cells: Vec<CellResult> = factorial()
        .into_iter()
        .filter(|c| !(c.key.link == "unix" && c.key.size_bytes == 1024))
        .collect();
    store_run(&db, &cells);
    let v: Value = serde_json::from_str(&ok(&db, &["effects", "--json"])).unwrap();
    let e = &v["metrics"][0]["effects"];
    assert_eq!(e["design"]["balanced"], false);
    assert_eq!(e["design"]["missing"], 2); // unix·1024 × {spin, futex}
    assert!(e["error"].is_null());
    assert!(e["interactions"].as_array().unwrap().iter().all(|i| i["estimable"] == false));
    let text = ok(&db, &["effects"]);
    assert!(text.contains("UNBALANCED"), "{text}");
    assert!(
        text.contains("missing: link=unix size=1 KiB wait=futex; link=unix size=1 KiB wait=spin"),
        "{text}"
    );
}

#[test]
fn nothing_to_analyse_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("n.db");
    let one = |rep: u32| {
        measured(CellKey::new("pipe", Pattern::PingPong, 64).with("rep", rep), 500, 1000)
    };
    let run = store_run(&db, &[one(0), one(1), one(2)]);
    let err = fails(&db, &["effects", &run.to_string()]);
    assert!(err.contains("varies no factor") && err.contains("link=pipe"), "{err}");
    assert!(err.contains("size=64") && err.contains("icbench run"), "{err}");
    let err =
        fails(&db, &["effects", &run.to_string(), "--metric", "bandwidth", "--where", "size=64"]);
    assert!(
        err.contains("varies no factor")
            && err.contains("size=64 each had one level in its 3 cells matching --where"),
        "{err}"
    );
    let no_hist = |link: &str| {
        let mut c = measured(CellKey::new(link, Pattern::Stream, 64), 500, 1000);
        if let CellOutcome::Measured(d) = &mut c.outcome {
            d.latency = None;
        }
        c
    };
    let streams = store_run(&db, &[no_hist("pipe"), no_hist("unix")]);
    let err = fails(&db, &["effects", &streams.to_string(), "--metric", "latency"]);
    assert!(err.contains("has a latency histogram (try --metric bandwidth)"), "{err}");
    ok(&db, &["effects", &streams.to_string(), "--metric", "bandwidth"]);
    let err = fails(&db, &["effects", "99"]);
    assert!(err.contains("99"), "{err}");
    let err = fails(&db, &["effects", "--where", "colour=red"]);
    assert!(err.contains("colour") && err.contains("link"), "{err}");
    let err = fails(&db, &["effects", "--where", "link=tcp"]);
    assert!(err.contains("tcp") && err.contains("pipe"), "{err}");
    let failed = CellResult {
        key: CellKey::new("pipe", Pattern::PingPong, 64),
        outcome: CellOutcome::Failed { reason: "timeout".into() },
    };
    let run = store_run(&db, &[failed]);
    let err = fails(&db, &["effects", &run.to_string()]);
    assert!(err.contains("no measured cells") && err.contains("1 failed"), "{err}");
}

#[test]
fn a_real_run_names_its_factors() {
    for spec in ["pipe", "unix"] {
        if let Some(why) = icbench_link::probe::unsupported(spec) {
            let _ = writeln!(std::io::stderr(), "SKIP: {spec} does not work here: {why}");
            return;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    ok(
        &db,
        &[
            "run",
            "-L",
            "pipe",
            "-L",
            "unix",
            "-s",
            "64,1K",
            "-p",
            "pingpong",
            "--cell-time",
            "20ms",
            "--no-floor",
            "--json",
        ],
    );
    let v: Value = serde_json::from_str(&ok(&db, &["effects", "--json"])).unwrap();
    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    for m in v["metrics"].as_array().unwrap() {
        for f in m["effects"]["factors"].as_array().unwrap() {
            *names.entry(f["factor"].as_str().unwrap()).or_default() += 1;
        }
    }
    assert_eq!(names.keys().copied().collect::<Vec<_>>(), ["link", "size"], "{v}");
    let text = ok(&db, &["effects"]);
    assert!(text.contains("link × size") && text.contains("64 B"), "{text}");
}

/// Two boards' runs, merged into one store with `--board`, are one design
/// with `board` as a factor (issue #19 item 3): board B is exactly 3×
/// slower, and the analysis says so. Runs of one board are told apart by
/// `run` instead.
#[test]
fn runs_from_two_boards_make_board_a_factor() {
    let dir = tempfile::tempdir().unwrap();
    let lab = dir.path().join("lab.db");
    for (board, slow) in [("stm32mp1", 1), ("imx8", 3)] {
        let db = dir.path().join(format!("{board}.db"));
        let cells: Vec<CellResult> = factorial()
            .into_iter()
            .filter_map(|c| match c.outcome {
                CellOutcome::Measured(d) => {
                    let p50 = d.latency.as_ref().unwrap().quantile_ns(0.5);
                    Some(measured(c.key, p50 * slow, d.bytes))
                }
                _ => None,
            })
            .collect();
        // Each board's own run: its own host and start.
        let mut store = Store::open(&db).unwrap();
        let mut m = meta("0-1");
        m.hostname = format!("{board}-host");
        m.started_unix_ns += slow as i64;
        let run = store.begin_run(&m).unwrap();
        for c in &cells {
            store.insert_cell(run, c).unwrap();
        }
        drop(store);
        ok(&lab, &["merge", db.to_str().unwrap(), "--board", board]);
    }
    let v: Value = serde_json::from_str(&ok(&lab, &["effects", "1", "2", "--json"])).unwrap();
    let lat = &v["metrics"][0];
    let board = factor(lat, "board");
    // (above 2 µs the histogram keeps 3 significant digits)
    assert!((board["range"].as_f64().unwrap() - 3.0).abs() < 0.01, "{board}");
    assert_eq!(
        (board["highest"].as_str(), board["lowest"].as_str()),
        (Some("imx8"), Some("stm32mp1"))
    );
    // The report draws the boards side by side: one series per board in
    // each link's panel, and the model per board (item 3).
    let html = dir.path().join("lab.html");
    ok(&lab, &["report", "1", "2", "-o", html.to_str().unwrap()]);
    let page = std::fs::read_to_string(&html).unwrap();
    let boards = &page[page.find("<h2>Boards</h2>").expect("a boards section")..];
    for board in ["stm32mp1", "imx8"] {
        assert!(boards.contains(&format!("<td class=\"l\">{board}</td>")), "{board}: {boards}");
    }
    assert!(boards.contains("per board (stm32mp1, imx8)"), "{boards}");
    // compare names each merged run's board beside its host.
    let cmp = ok(&lab, &["compare", "1", "2"]);
    assert!(cmp.contains("A: run 1 · board stm32mp1 · measured · stm32mp1-host"), "{cmp}");
    assert!(cmp.contains("B: run 2 · board imx8 · measured · imx8-host"), "{cmp}");
    // A factor filter names the runs, not one of them.
    let err = fails(&lab, &["effects", "1", "2", "--where", "boards=imx8"]);
    assert!(err.contains("runs 1, 2 has no factor 'boards'") && err.contains("board"), "{err}");
    // Two runs of one board: `run` tells them apart.
    let db = dir.path().join("one.db");
    store_run(&db, &factorial());
    store_run(&db, &factorial());
    let v: Value = serde_json::from_str(&ok(&db, &["effects", "1", "2", "--json"])).unwrap();
    assert!(v["metrics"][0]["effects"]["factors"].to_string().contains("\"run\""), "{v}");
}
