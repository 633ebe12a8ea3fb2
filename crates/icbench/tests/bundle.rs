//! `icbench bundle` and `import -f bundle` (issue #31 item 1): a run written
//! into a bundle and read into another store shows the same `show --json`
//! but for its number; a bundle changed by one byte is refused in one line.

mod common;

use std::path::Path;

use common::icbench;
use serde_json::Value;

fn ok(db: &Path, args: &[&str]) -> String {
    let out = icbench().args(args).arg("--db").arg(db).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "icbench {args:?}: {err}");
    String::from_utf8(out.stdout).unwrap()
}

fn show(db: &Path) -> Value {
    let mut v: Value = serde_json::from_str(&ok(db, &["show", "1", "--json"])).unwrap();
    v["run_id"] = Value::Null;
    v
}

#[test]
fn a_bundled_run_reimports_to_the_same_view_and_a_changed_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.db"), dir.path().join("b.db"));
    let file = dir.path().join("run.icbench.json");
    let out = icbench()
        .args(["run", "-L", "pipe", "-L", "shm", "-s", "64,1K", "--replicates", "3"])
        .args(["--cell-time", "5ms", "--label", "board A", "--json", "--db"])
        .arg(&a)
        .output()
        .unwrap();
    common::finished_run(&out, &["run"]);
    let said = ok(&a, &["bundle", "1", "-o", file.to_str().unwrap()]);
    let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        said.contains("1 run (") && said.contains("blocks) into") && said.contains("sha256"),
        "{said}"
    );
    let said = ok(&b, &["import", "-f", "bundle", file.to_str().unwrap()]);
    let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(said.contains("checked") && said.contains("as run 1"), "{said}");
    assert_eq!(show(&a), show(&b));
    // Blocks, histograms and the label travel; so does the plan (a resume
    // of the copy would know its cells).
    let v = show(&b);
    assert_eq!(v["meta"]["label"], "board A");
    assert!(v["pingpong"][0]["rtt_ns"]["p99"].is_number(), "{}", v["pingpong"][0]);
    let runs = ok(&b, &["runs", "--json"]);
    assert!(runs.contains("\"measured\""), "{runs}");

    // One byte changed: refused in one line, exit 2, nothing stored.
    let text = std::fs::read_to_string(&file).unwrap();
    let at = text.find("\"elapsed_ns\": ").unwrap() + "\"elapsed_ns\": ".len();
    let mut bytes = text.into_bytes();
    bytes[at] = if bytes[at] == b'9' { b'8' } else { bytes[at] + 1 };
    std::fs::write(&file, &bytes).unwrap();
    let c = dir.path().join("c.db");
    let out = icbench()
        .args(["import", "-f", "bundle", file.to_str().unwrap(), "--db"])
        .arg(&c)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("does not match its SHA-256"), "{err}");
    let listed = icbench().args(["runs", "--db"]).arg(&c).output().unwrap();
    assert!(!String::from_utf8_lossy(&listed.stdout).contains("measured"));
}

/// Issue #31 item 2: `icbench site` over results/ writes an index naming
/// every board, a page per bundle and the bundles beside them; a changed
/// bundle is refused in one line and nothing is written.
#[test]
fn site_over_the_results_names_every_board() {
    let dir = tempfile::tempdir().unwrap();
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../results");
    let mut bundles: Vec<std::path::PathBuf> = std::fs::read_dir(&results)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".icbench.json"))
        .collect();
    bundles.sort();
    assert!(bundles.len() >= 3);
    let out_dir = dir.path().join("site");
    let out = icbench().arg("site").args(&bundles).arg("-o").arg(&out_dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let index = std::fs::read_to_string(out_dir.join("index.html")).unwrap();
    for b in &bundles {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(b).unwrap()).unwrap();
        let label = v["runs"][0]["meta"]["label"].as_str().unwrap();
        assert!(index.contains(label), "{label} not in the index");
        let name = b.file_name().unwrap();
        assert!(out_dir.join(name).exists(), "{name:?} not copied");
        let page = name.to_string_lossy().replace(".icbench.json", ".html");
        assert!(out_dir.join(&page).exists(), "{page} not written");
    }
    assert!(index.contains("published"), "the tables are not labelled published");
    // A bundle with a byte changed: refused, one line, exit 2.
    let bad = dir.path().join("bad.icbench.json");
    let text = std::fs::read_to_string(&bundles[0]).unwrap().replacen(
        "\"size_bytes\": ",
        "\"size_bytes\": 1",
        1,
    );
    std::fs::write(&bad, text).unwrap();
    let other = dir.path().join("other");
    let out = icbench().args(["site"]).arg(&bad).arg("-o").arg(&other).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!((out.status.code(), err.lines().count()), (Some(2), 1), "{err}");
    assert!(!other.exists());
    // `-o` a file, not a directory: said so, the file untouched.
    let file = dir.path().join("a-file");
    std::fs::write(&file, "mine").unwrap();
    let out = icbench().arg("site").arg(&bundles[0]).arg("-o").arg(&file).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!((out.status.code(), err.lines().count()), (Some(2), 1), "{err}");
    assert!(err.contains("not a directory"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

/// Issue #31 item 5: `merge` takes bundles as it takes databases — the
/// runs copied with their board, once.
#[test]
fn merge_takes_a_bundle_as_it_takes_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let lab = dir.path().join("lab.db");
    let tty =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../results/stm32mp157-tty.icbench.json");
    let merged = ok(&lab, &["merge", tty.to_str().unwrap(), "--board", "dk2", "--json"]);
    let v: Value = serde_json::from_str(&merged).unwrap();
    assert_eq!(v["merged"][0]["merged_as"], serde_json::json!([1]), "{v}");
    let again = ok(&lab, &["merge", tty.to_str().unwrap(), "--board", "dk2", "--json"]);
    let v: Value = serde_json::from_str(&again).unwrap();
    assert_eq!(v["merged"][0]["already_here"], 1, "{v}");
    let shown: Value = serde_json::from_str(&ok(&lab, &["show", "1", "--json"])).unwrap();
    assert_eq!(shown["bulk"].as_array().unwrap().len(), 11);
}

/// `-o` names what is written into, not what is replaced: a symbolic link
/// keeps pointing where it did and its target gets the bundle, a FIFO gets
/// it through the pipe and stays a FIFO. Before, the bundle was renamed
/// over either (and over `-o /dev/full`, which became a regular file).
#[test]
fn a_link_or_a_fifo_given_as_the_output_is_written_into_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.db");
    let out = icbench()
        .args(["run", "-L", "pipe", "-s", "64", "--cell-time", "3ms", "--json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    common::finished_run(&out, &["run"]);
    let (real, link) = (dir.path().join("real.json"), dir.path().join("link.json"));
    std::fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    ok(&db, &["bundle", "1", "-o", link.to_str().unwrap()]);
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert!(std::fs::read_to_string(&real).unwrap().contains("\"content_sha256\""));

    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("SKIP the FIFO half: mkfifo failed");
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    ok(&db, &["bundle", "1", "-o", fifo.to_str().unwrap()]);
    assert!(reader.join().unwrap().contains("\"content_sha256\""));
    assert!(fifo.symlink_metadata().unwrap().file_type().is_fifo());
}
