//! CPU pairs (issue 7: `cpus = "all-pairs"` gives a heat map): a store of
//! synthetic cells over every ordered pair of three CPUs, with known
//! latencies, read back through `icbench show` (text and JSON) and
//! `icbench report` (the SVG heat map); and a real small plan run over all
//! pairs of this machine's CPUs (no timed figure asserted).

mod common;

use common::{icbench, meta};

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

/// A measured cell whose every sample is `ns` (exact below 2048 ns).
fn measured(key: CellKey, ns: u64) -> CellResult {
    let mut h = LatencyHistogram::new();
    h.record_n(ns, 100);
    let data = CellData {
        messages: 100,
        bytes: 6400,
        elapsed_ns: 1_000_000,
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

/// All ordered pairs of CPUs 0, 1, 2, two repetitions each: the pair
/// (h, p) takes 100·(h+1) + 10·p ns in repetition 0 and 20 ns more in
/// repetition 1, so its median is 100·(h+1) + 10·p + 10. The link name
/// carries HTML, which must come out escaped.
fn all_pairs_store(db: &Path) -> i64 {
    let mut store = Store::open(db).unwrap();
    let run = store.begin_run(&meta("0-2")).unwrap();
    for h in 0..3u64 {
        for p in (0..3u64).filter(|&p| p != h) {
            for rep in 0..2u64 {
                let key = CellKey::new("pipe<b>x</b>", Pattern::PingPong, 64)
                    .with("cpus", format!("{h},{p}"))
                    .with("rep", rep);
                store.insert_cell(run, &measured(key, 100 * (h + 1) + 10 * p + 20 * rep)).unwrap();
            }
        }
    }
    run.0
}

#[test]
fn show_json_has_the_matrix_of_median_p50s() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let run = all_pairs_store(&db).to_string();
    let v: Value = serde_json::from_str(&ok(&db, &["show", &run, "--json"])).unwrap();
    let m = v["cpu_pairs"].as_array().unwrap();
    assert_eq!(m.len(), 1, "{v:#}");
    let m = &m[0];
    assert_eq!(m["metric"], "rtt_p50_ns");
    assert_eq!(m["unit"], "ns");
    assert_eq!(m["cpus"], serde_json::json!([0, 1, 2]));
    for h in 0..3usize {
        for p in 0..3usize {
            let e = &m["matrix"][h][p];
            if h == p {
                assert!(e.is_null(), "diagonal {h}: {e}");
            } else {
                let want = (100 * (h + 1) + 10 * p + 10) as f64;
                assert_eq!(e["value"].as_f64(), Some(want), "host {h} peer {p}");
                assert_eq!(e["cells"], 2);
            }
        }
    }
}

#[test]
fn show_prints_the_matrix_under_a_heading() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let run = all_pairs_store(&db).to_string();
    let text = ok(&db, &["show", &run, "--cells"]);
    assert!(
        text.contains(
            "pingpong pipe<b>x</b> 64 B: p50 round trip per CPU pair (rows: host CPU, columns: \
             peer CPU); median over up to 2 repeated cells"
        ),
        "{text}"
    );
    // Host CPU 2's row: 310 ns to peer 0, 320 ns to peer 1, n/a to itself.
    let row = text.lines().find(|l| l.contains("CPU 2") && l.contains("310 ns")).expect(&text);
    assert!(row.contains("320 ns") && row.contains("n/a"), "{row}");
}

#[test]
fn the_report_draws_a_heat_map_with_a_square_per_pair() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let run = all_pairs_store(&db);
    let html = dir.path().join("r.html");
    let svgs = dir.path().join("svg");
    let out = icbench()
        .args(["report", &run.to_string(), "-o"])
        .arg(&html)
        .arg("--svg")
        .arg(&svgs)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    let id = format!("id=\"run{run}-cpus0\"");
    let start = page.find(&id).expect("the heat map is in the page");
    let svg = &page[page[..start].rfind("<svg").unwrap()..];
    let svg = &svg[..svg.find("</svg>").unwrap()];
    assert!(svg.contains("class=\"figure heatmap\""));
    assert_eq!(svg.matches("class=\"cell\"").count(), 6, "one square per ordered pair");
    assert_eq!(svg.matches("class=\"diagonal\"").count(), 3);
    assert!(svg.contains(">host CPU<") && svg.contains(">peer CPU<"));
    assert!(svg.contains(">120 ns<") && svg.contains(">320 ns<"));
    assert!(svg.contains(">min 120 ns<") && svg.contains(">max 320 ns<"), "legend");
    assert!(svg.contains("pipe&lt;b&gt;x&lt;/b&gt;") && !page.contains("<b>x"), "escaped");
    assert!(!page.contains("<script"), "no scripts");
    let file = std::fs::read_to_string(svgs.join(format!("run{run}-cpus0.svg"))).unwrap();
    assert_eq!(file.matches("class=\"cell\"").count(), 6);
}

#[test]
fn a_run_without_cpu_pairs_has_no_cpu_pairs_in_its_json() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let mut store = Store::open(&db).unwrap();
    let run = store.begin_run(&meta("0-2")).unwrap();
    let key = CellKey::new("pipe", Pattern::PingPong, 64).with("cpus", "0,1");
    store.insert_cell(run, &measured(key, 500)).unwrap();
    drop(store);
    let v: Value = serde_json::from_str(&ok(&db, &["show", "latest", "--json"])).unwrap();
    assert!(v.get("cpu_pairs").is_none(), "one pair is no matrix");
}

/// `run --plan` over all pairs of this machine's CPUs: every pair gets a
/// filled entry (values not asserted: they are timed).
#[test]
fn a_plan_over_all_pairs_gives_a_filled_matrix() {
    if let Some(why) = icbench_link::probe::unsupported("pipe") {
        eprintln!("SKIP: pipe: {why}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        "cell_time = \"5ms\"\n[factors]\nlink = \"pipe\"\ncpus = \"all-pairs\"\n",
    )
    .unwrap();
    let check = icbench().args(["plan", "check"]).arg(&plan).output().unwrap();
    let err = String::from_utf8_lossy(&check.stderr);
    if err.contains("all-pairs needs two online CPUs") {
        eprintln!("SKIP: all-pairs: this machine has one usable CPU");
        return;
    }
    assert!(check.status.success(), "{err}");
    let text = String::from_utf8_lossy(&check.stdout).to_string();
    let cells = text
        .lines()
        .find_map(|l| l.split_once(" blocks:").and_then(|(n, _)| n.trim().parse::<usize>().ok()))
        .expect(&text);
    if cells > 56 {
        eprintln!("SKIP: all-pairs is {cells} cells here: too many for a test (8 CPUs at most)");
        return;
    }
    let out = icbench()
        .args(["run", "--plan"])
        .arg(&plan)
        .args(["--no-floor", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_str(&ok(&db, &["show", "latest", "--json"])).unwrap();
    let m = &v["cpu_pairs"][0];
    let n = m["cpus"].as_array().expect("a matrix").len();
    assert_eq!(n * (n - 1), cells, "{m:#}");
    let filled = m["matrix"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r.as_array().unwrap())
        .filter(|e| e["value"].as_f64().is_some_and(|x| x > 0.0))
        .count();
    assert_eq!(filled, cells, "every ordered pair measured: {m:#}");
    eprintln!("all-pairs here: {n} CPUs, {filled} filled entries");
}
