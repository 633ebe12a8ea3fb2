//! Every command's output fits the width it is asked for (issue #29 item
//! 5): at `COLUMNS=100` no line is wider than 100 characters, at
//! `COLUMNS=80` none wider than 80 — the tables, the notes, the summary,
//! `links`, `doctor`, `plan check`, `floor` and every `--help`. On one
//! fixture store: two small replicated runs and an imported log.
//! `export --format md` is for pasting (markdown tables are never
//! wrapped) and CSV/JSON are data: not checked.

mod common;

use common::icbench;

/// The widest line that could have been wrapped: a line that is one word
/// (a long path the user gave, alone on its line) cannot be.
fn widest(text: &str) -> (usize, String) {
    text.lines()
        .filter(|l| l.split_whitespace().count() > 1)
        .map(|l| (l.chars().count(), l.to_string()))
        .max()
        .unwrap_or_default()
}

#[test]
fn every_command_fits_the_width_it_is_given() {
    // What fits a width does not depend on the architecture; through an
    // emulator (scripts/cross-test's qemu-user runner) the forty commands
    // would take minutes of CI for nothing the host's run does not test.
    if std::env::vars().any(|(k, _)| k.starts_with("CARGO_TARGET_") && k.ends_with("_RUNNER")) {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIP width: the binary runs through an emulator (a CARGO_TARGET_*_RUNNER); the \
             host's cargo test checks every width"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    let db = db.to_str().unwrap();
    // The input files copied beside the store: their paths are printed,
    // and a checkout's can be any length.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let (log, plan) = (dir.path().join("tty.log"), dir.path().join("factors.toml"));
    std::fs::copy(root.join("testdata/import/seed-000-tty.log"), &log).unwrap();
    std::fs::copy(root.join("plans/002-factors.toml"), &plan).unwrap();
    let run = ["run", "-L", "pipe", "-L", "shm", "-s", "64,4K", "--cell-time", "3ms", "--db", db];
    let mut commands: Vec<Vec<String>> = Vec::new();
    let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    commands.push(own(&[&run[..], &["--replicates", "3"]].concat()));
    commands.push(own(&[&run[..], &["--replicates", "3"]].concat()));
    commands.push(own(&["import", log.to_str().unwrap(), "-f", "seed-tty", "--db", db]));
    for show in [&[][..], &["--cells"], &["--stats"], &["--targets"], &["--blocks"]] {
        commands.push(own(&[&["show", "1", "--db", db][..], show].concat()));
    }
    commands.push(own(&["show", "3", "--db", db]));
    commands.push(own(&["runs", "--db", db]));
    commands.push(own(&["compare", "1", "2", "--db", db]));
    commands.push(own(&["model", "1", "--db", db]));
    commands.push(own(&["effects", "1", "--db", db]));
    // Bundles (issue #31): written, read back into another store, a site.
    let bundle = dir.path().join("runs.icbench.json");
    let (bundle, site) = (bundle.to_str().unwrap(), dir.path().join("site"));
    let other = dir.path().join("other.db");
    commands.push(own(&["bundle", "1", "2", "-o", bundle, "--db", db]));
    commands.push(own(&["import", "-f", "bundle", bundle, "--db", other.to_str().unwrap()]));
    commands.push(own(&["site", bundle, "-o", site.to_str().unwrap()]));
    commands.push(own(&["links"]));
    commands.push(own(&["doctor"]));
    commands.push(own(&["plan", "check", plan.to_str().unwrap()]));
    commands.push(own(&["floor"]));
    commands.push(own(&["timer", "-a", "0", "-l", "50", "-i", "200", "--db", db]));
    let help = icbench().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).to_string();
    // Every subcommand's --help (the list from the top-level help).
    let subs: Vec<String> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap()
        .lines()
        // A command's line starts two spaces in; its wrapped text further.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .filter(|c| c != "help")
        .collect();
    assert!(subs.len() > 15, "{subs:?}");
    for s in &subs {
        commands.push(vec![s.clone(), "--help".into()]);
    }
    commands.push(vec!["--help".into()]);
    for width in [100usize, 80] {
        for args in &commands {
            // The runs and the import fill the store once, at 100 columns.
            if width == 80 && (args[0] == "run" || args[0] == "import") {
                continue;
            }
            let out = icbench().args(args).env("COLUMNS", width.to_string()).output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success() || args[0] == "doctor", "{args:?}: {err}");
            for t in [&text, &err] {
                let (w, line) = widest(t);
                assert!(
                    w <= width,
                    "`icbench {}` at COLUMNS={width}: {w} columns:\n{line}",
                    args.join(" ")
                );
            }
        }
    }
}
