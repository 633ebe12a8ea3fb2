//! `icbench bundle` and `icbench import -f bundle` (issue #31 item 1):
//! stored runs written into one hashed JSON file with their provenance, and
//! read back into a store. The format is `icbench_bundle`'s; here is what
//! the store and the machine give it.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use icbench_bundle::{Bundle, BundledRun, Machine, Written};
use icbench_store::{RunSource, Store, WholeRun};

use crate::cli::BundleArgs;
use crate::cmd::show::{open_reading, open_store, resolve_run};
use crate::error::bad;

pub fn bundle(a: &BundleArgs) -> Result<ExitCode> {
    let store = open_reading(&a.db.db)?;
    let here = crate::meta::hostname();
    let mut runs = Vec::new();
    for spec in &a.runs {
        let id = resolve_run(&store, &a.db.db, spec)?;
        let run = store.load_run(id).map_err(|e| bad(e.to_string()))?;
        let (plan, settings) = match store.plan(id)? {
            Some((p, s, _)) => (Some(json(&p, "plan")?), Some(json(&s, "settings")?)),
            None => (None, None),
        };
        // What the machine tells is only the run's if it is the machine
        // that measured it.
        let machine =
            (run.source == RunSource::Measured && run.meta.hostname == here).then(this_machine);
        runs.push(BundledRun {
            source: run.source.to_string(),
            provenance: run.provenance.clone(),
            origin: store.origin(id)?,
            meta: run.meta,
            machine,
            plan,
            settings,
            warnings: run.warnings,
            cells: run.cells,
        });
    }
    let meta = crate::meta::program();
    let b = Bundle::new(
        Written {
            icbench_version: meta.0,
            git_commit: meta.1,
            hostname: here,
            unix_ns: crate::meta::now_unix_ns(),
        },
        runs,
    );
    // No bundle is written that a reader would refuse.
    let held = b.histograms();
    if held > icbench_bundle::MAX_HISTOGRAMS {
        return Err(bad(format!(
            "these runs hold {held} latency histograms, more than the {} a bundle holds (each \
             takes about 256 KiB of memory to read): bundle fewer runs a file",
            icbench_bundle::MAX_HISTOGRAMS
        )));
    }
    write_file(&a.output, &b.to_json())?;
    let cells: usize = b.runs.iter().map(|r| r.cells.len()).sum(); // stored blocks
    let said = format!(
        "{} run{} ({cells} blocks) into {}, sha256 {}; `icbench import -f bundle {}` reads it back",
        b.runs.len(),
        if b.runs.len() == 1 { "" } else { "s" },
        a.output.display(),
        &b.content_sha256[..16],
        a.output.display()
    );
    let width = icbench_report::table::text_width();
    writeln!(crate::term::stdout(), "{}", icbench_report::format::wrap(&said, width).join("\n"))?;
    Ok(ExitCode::SUCCESS)
}

fn json(text: &str, what: &str) -> Result<serde_json::Value> {
    serde_json::from_str(text).with_context(|| format!("a stored run's {what} is not JSON"))
}

/// The machine facts a bundle carries beside a run measured here.
fn this_machine() -> Machine {
    let read = |p: &str| std::fs::read_to_string(p).ok();
    let release = read("/proc/sys/kernel/osrelease").map(|r| r.trim().to_string());
    let config = release.and_then(|r| read(&format!("/boot/config-{r}")));
    let roots = crate::doctor::Roots::under(Path::new("/"));
    let vm = crate::doctor::machine::virtual_machine(&roots);
    let emulated = (vm.verdict != crate::doctor::Verdict::Ok).then_some(vm.found);
    Machine::from_files(
        read("/proc/device-tree/model").as_deref(),
        read("/proc/sys/kernel/version").as_deref(),
        config.as_deref(),
        read("/proc/cmdline").as_deref(),
        emulated,
    )
}

/// Writes beside the target and renames over it, so that a reader never
/// sees half a bundle — where the target is a regular file or nothing.
/// Anything else is written into, as `>` would: `-o /dev/stdout`, a FIFO,
/// a symbolic link (its target). Renaming over them replaced the device
/// node or the link itself with a file (`-o /dev/full` left /dev/full a
/// regular file; as root, `-o /dev/null` would have done the same).
fn write_file(path: &Path, text: &str) -> Result<()> {
    if path.symlink_metadata().is_ok_and(|m| !m.file_type().is_file()) {
        return std::fs::write(path, text)
            .map_err(|e| bad(format!("cannot write {}: {e}", path.display())));
    }
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(|e| bad(format!("cannot write {}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        bad(format!("cannot write {}: {e}", path.display()))
    })
}

/// Whether a file starts as JSON does (a bundle), not as SQLite ("SQLite
/// format 3\0"): how `merge` tells its two kinds of input apart.
pub fn looks_like_bundle(file: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 64];
    let n = std::fs::File::open(file).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
    head[..n].iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// A bundle file read and its hash checked.
pub fn read(file: &Path) -> Result<Bundle> {
    let bytes = crate::files::read_bounded(file, icbench_bundle::MAX_BYTES as u64, "bundle")?;
    let text = String::from_utf8(bytes)
        .map_err(|_| bad(format!("{}: not UTF-8 text, so not a bundle", file.display())))?;
    Bundle::parse(&text).map_err(|e| bad(format!("{}: {e}", file.display())))
}

/// `icbench import -f bundle FILE`: every run of the bundle stored as it
/// was, in one transaction, after its hash was checked.
pub fn import(file: &Path, db: &Path, json_out: bool) -> Result<ExitCode> {
    let b = read(file)?;
    let sources: Vec<RunSource> = b
        .runs
        .iter()
        .map(|r| r.source.parse::<RunSource>())
        .collect::<Result<_, _>>()
        .map_err(|e| bad(format!("{}: {e}", file.display())))?;
    let plans: Vec<Option<(String, String)>> = b
        .runs
        .iter()
        .map(|r| match (&r.plan, &r.settings) {
            (Some(p), Some(s)) => Some((p.to_string(), s.to_string())),
            _ => None,
        })
        .collect();
    let whole: Vec<WholeRun<'_>> = b
        .runs
        .iter()
        .zip(&sources)
        .zip(&plans)
        .map(|((r, source), plan)| WholeRun {
            meta: &r.meta,
            source,
            provenance: r.provenance.as_deref(),
            cells: &r.cells,
            warnings: &r.warnings,
            plan: plan.as_ref().map(|(p, s)| (p.as_str(), s.as_str())),
        })
        .collect();
    let mut store: Store = open_store(db)?;
    let ids = store.insert_runs(&whole)?;
    for (id, r) in ids.iter().zip(&b.runs) {
        let view = icbench_report::build(id.0, &r.meta, &r.cells);
        store.set_verdict(*id, view.verdict.as_ref().map_or("not judged", |v| v.verdict))?;
    }
    let mut out = crate::term::stdout();
    let numbers: Vec<String> = ids.iter().map(|i| i.0.to_string()).collect();
    if json_out {
        let doc = serde_json::json!({
            "schema_version": icbench_model::JSON_SCHEMA_VERSION,
            "run_ids": ids.iter().map(|i| i.0).collect::<Vec<_>>(),
            "content_sha256": b.content_sha256,
        });
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        let said = format!(
            "imported {} run{} from the bundle {} (sha256 {} checked) as run{} {}",
            ids.len(),
            if ids.len() == 1 { "" } else { "s" },
            file.display(),
            &b.content_sha256[..16],
            if ids.len() == 1 { "" } else { "s" },
            numbers.join(", ")
        );
        let width = icbench_report::table::text_width();
        writeln!(out, "{}", icbench_report::format::wrap(&said, width).join("\n"))?;
    }
    Ok(ExitCode::SUCCESS)
}
