//! The analysis commands end to end on the real store: import the reference
//! logs (testdata/import), then show, model, compare, export and report
//! them; and `run --ci` on a real link. No timing is asserted.

mod common;

use common::icbench;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/import").join(name)
}

fn ok(db: &Path, args: &[&str]) -> String {
    let out = icbench().args(args).arg("--db").arg(db).output().unwrap();
    assert!(out.status.success(), "icbench {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn json(db: &Path, args: &[&str]) -> Value {
    serde_json::from_str(&ok(db, args)).unwrap()
}

fn import(db: &Path, file: &str, format: &str, extra: &[&str]) -> i64 {
    let p = testdata(file);
    let mut args = vec!["import", p.to_str().unwrap(), "--format", format, "--json"];
    args.extend(extra);
    json(db, &args)["run_id"].as_i64().unwrap()
}

fn fails(db: &Path, args: &[&str]) -> String {
    let out = icbench().args(args).arg("--db").arg(db).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

#[test]
fn imported_seed_logs_show_model_compare_export_and_report() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.db");
    let tty = import(&db, "seed-000-tty.log", "seed-tty", &[]);
    let net = import(&db, "seed-001-netlink.log", "seed-netlink", &[]);
    let table = import(&db, "seed-000-table.txt", "seed-table", &[]);

    // Show: marked as imported, one sample per cell, no CI invented.
    let v = json(&db, &["show", &tty.to_string(), "--json"]);
    assert_eq!(v["source"], "imported:seed-tty");
    assert!(v["provenance"].as_str().unwrap().starts_with("file seed-000-tty.log"));
    let cell = &v["bulk"][0];
    assert_eq!(cell["transfer_ns"]["count"], 1);
    assert_eq!(cell["transfer_ns"]["p50"], 11_970_765.0);
    assert!(cell["transfer_ns"]["median_ci95_lo"].is_null());
    assert!(cell["transfer_ns"]["note"].as_str().unwrap().contains("one sample"));
    let text = ok(&db, &["show", &tty.to_string()]);
    assert!(text.contains("NOT measured by icbench"), "{text}");
    let stats = ok(&db, &["show", &net.to_string(), "--stats"]);
    assert!(stats.contains("p99.9") && stats.contains("raw samples"), "{stats}");
    assert!(stats.contains("warning: 7 of 7 lines report 'bytes sent'"), "{stats}");

    // Model: the netlink line is poor (the 512 B point), and says so.
    let m = json(&db, &["model", &net.to_string(), "--json", "--predict", "64K"]);
    let s = &m["models"][0];
    assert_eq!(s["pattern"], "bulk");
    assert_eq!(s["x"], "total_bytes");
    assert_eq!(s["quality"], "poor");
    assert!(s["fit"]["r_squared"].as_f64().unwrap() > 0.99);
    assert_eq!(s["prediction"]["extrapolated"], true);
    let text = ok(&db, &["model", &net.to_string()]);
    assert!(text.contains("POOR FIT"), "{text}");

    // Compare: log against table, cell by cell; one sample each: no test.
    let c = json(&db, &["compare", &tty.to_string(), &table.to_string(), "--json"]);
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 11);
    assert!(rows.iter().all(|r| r["significant"].is_null() && r["note"].is_string()));
    assert!(rows.iter().all(|r| r["difference"].as_f64().unwrap().abs() <= 10_000.0));

    // Export.
    let csv = ok(&db, &["export", &tty.to_string(), "--format", "csv"]);
    assert_eq!(csv.lines().count(), 12);
    assert!(csv.lines().next().unwrap().contains("p99_9_ns"));
    // Markdown (issue #18 item 5): the tables in GitHub's pipe syntax,
    // each header one row over its delimiter, no box drawing left.
    let md = ok(&db, &["export", &tty.to_string(), "--format", "md"]);
    let lines: Vec<&str> = md.lines().collect();
    let delims: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].starts_with("|--")).collect();
    assert!(!delims.is_empty(), "{md}");
    for &i in &delims {
        let cols = |l: &str| l.matches('|').count() - l.matches("\\|").count();
        assert!(i >= 2 && lines[i - 2].is_empty(), "a blank line before the table:\n{md}");
        assert_eq!(cols(lines[i - 1]), cols(lines[i]), "one header row:\n{md}");
        assert!(lines[i + 1].starts_with('|'), "{md}");
    }
    assert!(!md.contains(['│', '┆', '═', '┌']), "{md}");
    assert_eq!(md.lines().filter(|l| l.starts_with("| ")).count(), 1 + 11, "header and 11 cells");
    let hgrm = ok(&db, &["export", &tty.to_string(), "--format", "hgrm"]);
    assert_eq!(hgrm.matches("Value     Percentile TotalCount").count(), 11);
    // A file that cannot be written is named (a full disk said only "No
    // space left on device").
    if Path::new("/dev/full").exists() {
        let out = icbench()
            .args(["export", &tty.to_string(), "-f", "csv", "-o", "/dev/full", "--db"])
            .arg(&db)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("-o /dev/full: cannot write the export: No space left"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }

    // Report with a comparison section and separate SVG files.
    let html = dir.path().join("r.html");
    let svg = dir.path().join("svg");
    ok(
        &db,
        &[
            "report",
            &tty.to_string(),
            &table.to_string(),
            "-o",
            html.to_str().unwrap(),
            "--svg",
            svg.to_str().unwrap(),
        ],
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<h2>Comparison</h2>"));
    assert!(
        !page.contains("http://")
            || page.matches("http://").count()
                == page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count(),
        "no network references"
    );
    assert!(std::fs::read_dir(&svg).unwrap().count() >= 3);
}

#[test]
fn multi_channel_and_timer_imports_carry_their_shape_and_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("b.db");
    let x = import(&db, "xmit-p-32ch-256B.txt", "xmit-p", &["--size", "256"]);
    let v = json(&db, &["show", &x.to_string(), "--json"]);
    assert_eq!(v["pingpong"][0]["channels"], 32);
    assert!(v["pingpong"][0]["rtt_ns"].is_null());
    assert!(
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("cannot be true"))
    );
    let c = import(&db, "cyclictest.json", "cyclictest-json", &[]);
    let v = json(&db, &["show", &c.to_string(), "--json"]);
    assert_eq!(v["timer"].as_array().unwrap().len(), 2);
    assert_eq!(v["timer"][0]["latency_ns"]["count"], 100_000);
    assert_eq!(v["timer"][0]["latency_ns"]["from"], "histogram");
    assert!(v["timer"][0]["latency_ns"]["median_ci95_lo"].is_number());
    // Another tool's run has no CPU pair of ours to list.
    let runs = json(&db, &["runs", "--json"]);
    let listed = runs["runs"].as_array().unwrap();
    assert!(listed.iter().all(|r| r["cpus"] == "–"), "{runs}");
    // The closing hint offers `model` only where there is a line to fit.
    let p = testdata("cyclictest-hist.txt");
    let text = ok(&db, &["import", p.to_str().unwrap(), "-f", "cyclictest-hist"]);
    assert!(text.contains("prints it") && !text.contains("icbench model"), "{text}");
    let p = testdata("seed-000-tty.log");
    let text = ok(&db, &["import", p.to_str().unwrap(), "-f", "seed-tty"]);
    assert!(text.contains("`icbench model"), "{text}");
}

/// #35: a histogram of 2⁶² values (one bucket) made Student's t spin for
/// ever in statrs, so `show`, `report` and `export` hung; the repeat of
/// issue #30's probe. Each command is killed after 60 s: that catches a
/// hang, and asserts no timing.
#[test]
fn a_histogram_of_2_to_the_62_values_is_shown_reported_and_exported() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let file = dir.path().join("h.txt");
    std::fs::write(&file, "# Histogram\n000008 4611686018427387904\t000000\n").unwrap();
    let html = dir.path().join("h.html");
    let commands: [&[&str]; 8] = [
        &["import", file.to_str().unwrap(), "-f", "cyclictest-hist"],
        &["show", "1"],
        &["show", "1", "--json"],
        &["report", "1", "-o", html.to_str().unwrap()],
        &["model", "1"],
        &["export", "1", "-f", "csv"],
        &["export", "1", "-f", "json"],
        &["export", "1", "-f", "hgrm"],
    ];
    for args in commands {
        let out = icbench()
            .args(args)
            .arg("--db")
            .arg(&db)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap_or_else(|e| panic!("icbench {args:?} did not end within 60 s: {e}"));
        // Killed at the timeout, it has no exit code.
        let how = if out.status.code().is_none() { "killed after 60 s: a hang" } else { "failed" };
        assert!(
            out.status.success(),
            "icbench {args:?} {how}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let v = json(&db, &["show", "1", "--json"]);
    let lat = &v["timer"][0]["latency_ns"];
    assert_eq!(lat["count"], 4_611_686_018_427_387_904u64);
    // One value (bin 8 µs, its middle): the intervals are the bucket's.
    assert_eq!(lat["mean_ci95_lo"], 8500.0);
    assert!(lat["median_ci95_lo"].as_f64().unwrap() <= 8500.0);
    assert!(lat["median_ci95_hi"].as_f64().unwrap() >= 8500.0);
}

#[test]
fn run_ci_records_whether_the_target_was_reached() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    // 0.001 % cannot be reached at ~40 µs: one HDR bucket there is 32 ns.
    let v = json(
        &db,
        &[
            "run",
            "--json",
            "--no-floor",
            "-L",
            "pipe",
            "-s",
            "64",
            "-p",
            "pingpong",
            "--cell-time",
            "5ms",
            "--ci",
            "0.001%",
            "--ci-max-time",
            "30ms",
        ],
    );
    let a = &v["pingpong"][0]["adaptive"];
    assert_eq!(a["target_rel"], 0.00001);
    assert_eq!(a["reached"], false);
    assert!(a["phases"].as_u64().unwrap() >= 1);
    let shown = json(&db, &["show", "--json"]);
    assert_eq!(shown["pingpong"][0]["adaptive"], *a);
    let text = ok(&db, &["show", "--cells"]);
    assert!(text.contains("time budget ended"), "{text}");
    // A generous target: reached, and the table says so.
    let v = json(
        &db,
        &[
            "run",
            "--json",
            "--no-floor",
            "-L",
            "pipe",
            "-s",
            "64",
            "-p",
            "pingpong",
            "--cell-time",
            "5ms",
            "--ci",
            "50%",
        ],
    );
    let a = &v["pingpong"][0]["adaptive"];
    assert_eq!(a["reached"], true);
    assert!(a["achieved_rel"].as_f64().unwrap() <= 0.5);
}

#[test]
fn bad_analysis_input_is_one_line_and_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("d.db");
    let tty = import(&db, "seed-000-tty.log", "seed-tty", &[]).to_string();
    let e = fails(&db, &["import", testdata("seed-000-tty.log").to_str().unwrap(), "-f", "nope"]);
    assert!(e.contains("--format nope: use one of seed-tty"), "{e}");
    let e =
        fails(&db, &["import", testdata("xmit-p-1ch-496B.txt").to_str().unwrap(), "-f", "xmit-p"]);
    assert!(e.contains("--size"), "{e}");
    let e = fails(&db, &["model", &tty, "--link", "shm"]);
    assert!(e.contains("--link shm: run 1 has no such link"), "{e}");
    let e = fails(&db, &["compare", &tty]);
    assert!(e.contains("compare needs two runs"), "{e}");
    let e = fails(&db, &["run", "--ci", "0", "-L", "pipe"]);
    assert!(e.contains("--ci 0"), "{e}");
    let e = fails(&db, &["export", "99", "-f", "csv"]);
    assert!(e.contains("99"), "{e}");
}

/// Junk given to import is refused before it is read whole: a device or a
/// FIFO (read for ever) and a file larger than any result file, each with
/// one line and exit 2, and nothing stored (issue #22).
#[test]
fn import_refuses_what_is_not_a_result_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let big = dir.path().join("big.csv");
    std::fs::File::create(&big).unwrap().set_len(65 << 20).unwrap();
    for (path, want) in [
        (Path::new("/dev/zero"), "not a regular file"),
        (big.as_path(), "larger than any result file"),
    ] {
        let out = icbench()
            .arg("import")
            .arg(path)
            .args(["-f", "csv", "--db"])
            .arg(&db)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(want) && err.trim().lines().count() == 1, "{err}");
    }
    assert!(!db.exists(), "a refused import stored something");
}

/// Issue #18 item 4: a run's label and note are stored with it and shown;
/// `runs --label` filters by it, `compare --baseline` finds the latest run
/// with it; an unknown label is one line naming the labels there are.
#[test]
fn labels_name_runs_and_baselines_find_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("l.db");
    let quick = ["-L", "pipe", "-p", "pingpong", "-s", "64", "--cell-time", "5ms"];
    let run = |extra: &[&str]| {
        let mut args = vec!["--replicates", "1"];
        args.extend(quick);
        args.extend(extra);
        common::run_json(&db, &args)["run_id"].as_i64().unwrap()
    };
    let old = run(&["--label", "base", "--note", "before <the> change"]);
    let base = run(&["--label", "base"]);
    let other = run(&["--label", "tuned"]);
    let latest = run(&[]);

    let listed = json(&db, &["runs", "--json", "--label", "base"]);
    let ids: Vec<i64> =
        listed["runs"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [old, base]);
    assert_eq!(listed["runs"][0]["label"], "base");

    // Stored as given, shown in the text header, the JSON and (escaped) the HTML.
    let shown = ok(&db, &["show", &old.to_string()]);
    assert!(shown.contains("label base · note: before <the> change"), "{shown}");
    let v = json(&db, &["show", &old.to_string(), "--json"]);
    assert_eq!(v["meta"]["user_note"], "before <the> change");
    let html = dir.path().join("r.html");
    ok(&db, &["report", &old.to_string(), "-o", html.to_str().unwrap()]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("before &lt;the&gt; change"), "the note is escaped");

    // The baseline is the latest run labelled so, against the latest run
    // or the runs given.
    let sides = |c: &Value| -> Vec<i64> {
        c["sides"].as_array().unwrap().iter().map(|s| s["run_id"].as_i64().unwrap()).collect()
    };
    assert_eq!(sides(&json(&db, &["compare", "--baseline", "base", "--json"])), [base, latest]);
    let c = json(&db, &["compare", "--baseline", "base", &other.to_string(), "--json"]);
    assert_eq!(sides(&c), [base, other]);

    for args in [vec!["runs", "--label", "nope"], vec!["compare", "--baseline", "nope"]] {
        let e = fails(&db, &args);
        assert!(e.contains("no run is labelled 'nope': the labels are base, tuned"), "{e}");
    }
}

/// Issue #19 item 2: `icbench merge` copies a board's runs into a lab's
/// store with their origin, never twice, and refuses junk in one line.
#[test]
fn merge_gathers_boards_into_one_store() {
    let dir = tempfile::tempdir().unwrap();
    let (board, lab) = (dir.path().join("mp1.db"), dir.path().join("lab.db"));
    let seed = import(&board, "seed-000-tty.log", "seed-tty", &[]);
    let measured = common::run_json(
        &board,
        &["-L", "pipe", "-p", "pingpong", "-s", "64", "--cell-time", "5ms", "--replicates", "1"],
    )["run_id"]
        .as_i64()
        .unwrap();
    let m = json(&lab, &["merge", board.to_str().unwrap(), "--board", "mp1", "--json"]);
    assert_eq!(m["merged"][0]["merged_as"], serde_json::json!([1, 2]), "{m}");
    let again = json(&lab, &["merge", board.to_str().unwrap(), "--json"]);
    assert_eq!(again["merged"][0]["already_here"], 2, "{again}");
    let runs = json(&lab, &["runs", "--json"]);
    let origins: Vec<&str> =
        runs["runs"].as_array().unwrap().iter().map(|r| r["origin"].as_str().unwrap()).collect();
    assert_eq!(origins.len(), 2);
    assert!(
        origins[1].starts_with("board mp1 · ") && origins[1].ends_with(&format!("run {measured}"))
    );
    assert!(origins[0].ends_with(&format!("run {seed}")), "{origins:?}");
    // The copy shows as the original does, all of it but its number
    // (issue #29; the floor at the tail: tests/merge.rs of the store).
    let mut a = json(&board, &["show", &measured.to_string(), "--json"]);
    let mut b = json(&lab, &["show", "2", "--json"]);
    (a["run_id"], b["run_id"]) = (Value::Null, Value::Null);
    assert_eq!(a, b);
    assert_eq!(runs["runs"][1]["verdict"], a["verdict"]["verdict"]);

    // Each board's icbench.db in its own directory: named by the directory;
    // two files that would be one board are refused, nothing merged.
    let (r1, r2) = (dir.path().join("r1"), dir.path().join("r2"));
    for d in [&r1, &r2] {
        std::fs::create_dir(d).unwrap();
        std::fs::copy(&board, d.join("icbench.db")).unwrap();
    }
    let lab2 = dir.path().join("lab2.db");
    let m = json(
        &lab2,
        &[
            "merge",
            r1.join("icbench.db").to_str().unwrap(),
            r2.join("icbench.db").to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(
        (m["merged"][0]["board"].as_str(), m["merged"][1]["board"].as_str()),
        (Some("r1"), Some("r2"))
    );
    let e = fails(&lab2, &["merge", board.to_str().unwrap(), r1.join("mp1.db").to_str().unwrap()]);
    assert!(e.contains("would both be board 'mp1'") && e.contains("nothing was merged"), "{e}");

    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, "not a database").unwrap();
    let e = fails(&lab, &["merge", junk.to_str().unwrap()]);
    assert!(e.contains("cannot be read as a database") && e.contains("nothing was merged"), "{e}");
}

#[test]
fn an_irq_run_imported_from_its_json_shows_and_compares() {
    // issue #21: irq runs imported and compared like the other patterns.
    // The file is `icbench irq --json` from the VM rig (testdata/import).
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("irq.db");
    let a = import(&db, "icbench-irq.json", "cyclictest-json", &[]);
    let b = import(&db, "icbench-irq.json", "cyclictest-json", &[]);
    let text = ok(&db, &["show", &a.to_string()]);
    for interval in ["set-to-edge", "edge-to-wake", "edge-to-response"] {
        assert!(text.contains(interval), "{interval}:\n{text}");
    }
    let c = json(&db, &["compare", &a.to_string(), &b.to_string(), "--json"]);
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{c}");
    for r in rows {
        assert_eq!(r["difference"].as_f64(), Some(0.0), "{r}");
        assert_ne!(r["significant"], Value::Bool(true), "{r}");
    }
    let csv = ok(&db, &["export", &a.to_string(), "--format", "csv"]);
    assert_eq!(csv.lines().filter(|l| l.contains(",irq,")).count(), 3, "{csv}");
}

#[test]
fn model_crossover_finds_where_seed_001s_netlink_overtakes_its_tty() {
    // Seed 001's TTY against netlink table (its figures, in a constructed
    // file): netlink is slower up to 2 KiB and faster from 4 KiB, as its
    // author wrote.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("x.db");
    let run = import(&db, "seed-001-compare.txt", "seed-table", &[]).to_string();
    let v = json(&db, &["model", &run, "--crossover", "--json"]);
    let c = &v["crossovers"][0];
    assert_eq!(c["pattern"], "bulk", "{v}");
    let m = &c["measured"][0];
    assert_eq!(m["between_bytes"], serde_json::json!([2048.0, 4096.0]), "{c}");
    assert!(m["lower_below"].as_str().unwrap().starts_with("tty"), "{c}");
    let est = m["estimate_bytes"].as_f64().unwrap();
    assert!((2048.0..4096.0).contains(&est), "{est}");
    assert_eq!(c["measured"].as_array().unwrap().len(), 1, "{c}");
    assert_eq!(c["model_quotable"], false, "{c}");
    let text = ok(&db, &["model", &run, "--crossover"]);
    assert!(text.contains("measured: between 2 KiB and 4 KiB"), "{text}");
    // without the flag, no crossovers
    assert!(json(&db, &["model", &run, "--json"]).get("crossovers").is_none());
}

/// Issue #29 item 4: `compare` answers first — per side, how many cells
/// it is shown faster or slower in — says each row's answer in words that
/// fix the direction, refuses a run compared with itself, and with
/// `--fail-if-slower` exits 1 naming what regressed past the limit.
#[test]
fn compare_answers_in_words_and_gates_a_regression() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    // 40 round trips of 64 B each: B's twice A's (medians 20.06 and
    // 10.06 µs: 1.99×).
    let csv = |name: &str, base: u64| {
        let path = dir.path().join(name);
        let mut text = String::from("size_bytes,time_ns,link\n");
        for i in 0..40 {
            text += &format!("64,{},pipe\n", base + i * 3);
        }
        std::fs::write(&path, text).unwrap();
        let out = json(&db, &["import", path.to_str().unwrap(), "-f", "csv", "--json"]);
        out["run_id"].as_i64().unwrap().to_string()
    };
    let (a, b) = (csv("a.csv", 10_000), csv("b.csv", 20_000));
    let text = ok(&db, &["compare", &a, &b]);
    assert!(
        text.contains("B against A, 1 cell: 0 faster, 1 slower, 0 no change shown, 0 not decided"),
        "{text}"
    );
    assert!(text.contains("B 1.99× slower than A (1.99× … 2.00×)"), "{text}");
    let v = json(&db, &["compare", &a, &b, "--json"]);
    assert_eq!(v["rows"][0]["change"], "slower", "{v}");
    // The other way round: faster, the ratio turned.
    let text = ok(&db, &["compare", &b, &a]);
    assert!(text.contains("B 1.99× faster than A (1.99× … 2.00×)"), "{text}");

    // A gate: past 50 %, exit 1 naming the cell; within 150 %, exit 0.
    let gate = ["compare", &a, &b, "--fail-if-slower", "50%", "--db"];
    let out = icbench().args(gate).arg(&db).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("1 cell shown slower") && err.contains("pipe pingpong 64 B"), "{err}");
    ok(&db, &["compare", &a, &b, "--fail-if-slower", "150"]);
    let e = fails(&db, &["compare", &a, &b, "--fail-if-slower", "soon"]);
    assert!(e.contains("give a percentage"), "{e}");
    // A run against itself is refused, not shown as 1.00×.
    let e = fails(&db, &["compare", &a, &a]);
    assert!(e.contains("is given twice"), "{e}");
}

/// Issue #29: a stored run can be labelled afterwards, relabelled, and its
/// label taken away; `compare --baseline` and `runs --label` follow.
#[test]
fn a_stored_run_is_labelled_afterwards() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("l.db");
    let a = import(&db, "seed-000-tty.log", "seed-tty", &[]).to_string();
    let b = import(&db, "seed-000-tty.log", "seed-tty", &[]).to_string();
    let text = ok(&db, &["label", &a, "base"]);
    assert!(text.contains(&format!("run {a} labelled base")), "{text}");
    let runs = json(&db, &["runs", "--label", "base", "--json"]);
    assert_eq!(runs["runs"].as_array().unwrap().len(), 1, "{runs}");
    let c = json(&db, &["compare", "--baseline", "base", &b, "--json"]);
    assert_eq!(c["sides"][0]["run_id"].as_i64().unwrap().to_string(), a, "{c}");
    ok(&db, &["label", &a, "--remove"]);
    let e = fails(&db, &["runs", "--label", "base"]);
    assert!(e.contains("no run is labelled 'base'"), "{e}");
    let e = fails(&db, &["label", "99", "x"]);
    assert!(e.contains("99"), "{e}");
    let e = fails(&db, &["label", &a, " "]);
    assert!(e.contains("not empty"), "{e}");
}

/// Issue #31 item 4: ADI's table mixes five transfer sizes per packet size;
/// each is a factor of its cell, and `model --where transfer=10000000`
/// fits the 10 M rows alone — the six one-channel ones, each packets/s as
/// the table's rate ÷ the size.
#[test]
fn model_where_fits_adis_ten_megabyte_rows_alone() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("adi.db");
    let run = import(&db, "adi-rpmsg-benchmarks.rst", "adi-table", &[]);
    let m = json(&db, &["model", &run.to_string(), "--json", "--where", "transfer=10000000"]);
    let models = m["models"].as_array().unwrap();
    assert!(!models.is_empty());
    for s in models {
        assert!(s["link"].as_str().unwrap().contains("[transfer=10000000]"), "{s}");
    }
    let one = models.iter().find(|s| s["channels"].is_null() || s["channels"] == 1).unwrap();
    assert_eq!(one["points"].as_array().unwrap().len(), 6, "{one}");
    // Without the filter the five transfers are five series, never one line.
    let all = json(&db, &["model", &run.to_string(), "--json"]);
    let ones = all["models"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["channels"].is_null() || s["channels"] == 1)
        .count();
    assert_eq!(ones, 5);
    // A filter without a level is refused in one line, exit 2.
    let out = icbench()
        .args(["model", &run.to_string(), "--where", "transfer", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("FACTOR=LEVEL"), "{err}");
}
