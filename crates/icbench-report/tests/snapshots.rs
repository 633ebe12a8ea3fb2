//! Snapshot tests of the renderers (tables, JSON) on the imported reference
//! logs, with fixed metadata so the output is the same on every machine.
//! The .snap files are committed; with CI=true insta writes none, so a
//! change in output fails until the snapshot is reviewed and accepted
//! (`INSTA_UPDATE=always cargo test -p icbench-report --test snapshots`).

use icbench_import::{Format, Options};
use icbench_model::{PeerMode, RunMeta, RunStatus, Sched};
use icbench_report::compare::{Input, Side};
use icbench_report::model::ModelFilter;
use icbench_report::{RunView, build, table};

fn meta() -> RunMeta {
    RunMeta {
        cpu_model: "unknown (imported)".into(),
        online_cpus: "unknown".into(),
        host_cpu: 0,
        peer_cpu: 0,
        peer_mode: PeerMode::Process,
        sched: Sched::Other,
        mlock: false,
        kernel_release: "unknown".into(),
        governor: None,
        hostname: "stm32mp157c-dk2".into(),
        icbench_version: "0.1.0".into(),
        git_commit: None,
        command_line: vec!["icbench".into(), "import".into()],
        started_unix_ns: 1_594_655_034_000_000_000,
        ended_unix_ns: Some(1_594_655_034_000_000_000),
        clock: "as recorded by the source tool".into(),
        clock_overhead_ns: f64::NAN,
        clock_granule_ns: f64::NAN,
        status: RunStatus::Finished,
        floor: None,
        floor_tail: None,
        fast_counter: None,
        notes: vec!["imported for a snapshot".into()],
        label: None,
        user_note: None,
    }
}

fn imported(
    file: &str,
    f: Format,
    opts: &Options,
) -> (Vec<icbench_model::CellResult>, Vec<String>) {
    let p = format!("{}/../../testdata/import/{file}", env!("CARGO_MANIFEST_DIR"));
    let imp = icbench_import::parse(f, &std::fs::read_to_string(p).unwrap(), opts).unwrap();
    (imp.cells, imp.warnings)
}

fn view(
    id: i64,
    file: &str,
    f: Format,
    opts: &Options,
) -> (RunView, Vec<icbench_model::CellResult>) {
    let (cells, warnings) = imported(file, f, opts);
    let v = build(id, &meta(), &cells).with_source(
        format!("imported:{}", f.name()),
        Some(format!("file {file}")),
        warnings,
    );
    (v, cells)
}

fn text(f: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    f(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn tables_of_the_seed_netlink_log() {
    let (v, _) = view(2, "seed-001-netlink.log", Format::SeedNetlink, &Options::default());
    insta::assert_snapshot!("netlink_run", text(|o| table::run(&v, o, table::Detail::Cells)));
    insta::assert_snapshot!("netlink_stats", text(|o| table::run_stats(&v, o)));
    let m = icbench_report::model::build(
        &v,
        &ModelFilter { predict: Some(65536), ..Default::default() },
    );
    insta::assert_snapshot!("netlink_model", text(|o| table::model(&m, o)));
}

#[test]
fn json_of_the_seed_tty_log() {
    let (v, _) = view(1, "seed-000-tty.log", Format::SeedTty, &Options::default());
    insta::assert_snapshot!("tty_json", text(|o| icbench_report::json::run(&v, o)));
}

#[test]
fn timer_and_multichannel_tables() {
    let (v, _) = view(3, "cyclictest.json", Format::CyclictestJson, &Options::default());
    insta::assert_snapshot!("cyclictest_stats", text(|o| table::run_stats(&v, o)));
    let opts = Options { size_bytes: Some(256), ..Options::default() };
    let (v, _) = view(4, "xmit-p-32ch-256B.txt", Format::XmitP, &opts);
    insta::assert_snapshot!("xmitp_run", text(|o| table::run(&v, o, table::Detail::Cells)));
}

#[test]
fn comparison_of_log_and_table() {
    let (a, ca) = view(1, "seed-000-tty.log", Format::SeedTty, &Options::default());
    let (b, cb) = view(5, "seed-000-table.txt", Format::SeedTable, &Options::default());
    let side = |label: &str, v: &RunView| Side {
        label: label.into(),
        run_id: v.run_id,
        source: v.source.clone(),
        hostname: v.meta.hostname.clone(),
        cpu_model: v.meta.cpu_model.clone(),
        link: None,
        board: None,
    };
    let inputs = [
        Input { side: side("A", &a), cells: ca.iter().collect() },
        Input { side: side("B", &b), cells: cb.iter().collect() },
    ];
    let c = icbench_report::compare::build(&inputs, false);
    insta::assert_snapshot!("compare_table", text(|o| table::compare(&c, o)));
    insta::assert_snapshot!("compare_json", serde_json::to_string_pretty(&c).unwrap());
}
