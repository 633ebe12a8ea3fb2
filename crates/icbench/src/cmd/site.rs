//! `icbench site BUNDLE… -o DIR` (issue #31 item 2): a static site that
//! compares boards, from bundles. Each bundle is read and its hash checked
//! (`icbench_bundle`), its runs viewed as `show` views them, and the pages
//! (`icbench_report::site`) written with each bundle copied beside them for
//! its download link.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use icbench_bundle::{Bundle, BundledRun};
use icbench_report::site::{EntryKind, SiteEntry};
use icbench_report::view::RunView;

use crate::cli::SiteArgs;
use crate::error::bad;

pub fn site(a: &SiteArgs) -> Result<ExitCode> {
    let mut entries = Vec::new();
    let mut files = std::collections::BTreeSet::new();
    for path in &a.bundles {
        let b = crate::cmd::bundle::read(path)?;
        let file = file_name(path);
        if !files.insert(file.clone()) {
            return Err(bad(format!(
                "two bundles named {file}: rename one (the site links each by its file name)"
            )));
        }
        entries.push(entry(file, &b));
    }
    if a.output.exists() && !a.output.is_dir() {
        return Err(bad(format!(
            "-o {}: not a directory: the site is a directory of pages; give a new or existing \
             directory",
            a.output.display()
        )));
    }
    std::fs::create_dir_all(&a.output)
        .map_err(|e| bad(format!("-o {}: cannot make the directory: {e}", a.output.display())))?;
    for (name, html) in icbench_report::site::build(&entries) {
        let to = a.output.join(&name);
        std::fs::write(&to, html)
            .map_err(|e| bad(format!("cannot write {}: {e}", to.display())))?;
    }
    for (path, e) in a.bundles.iter().zip(&entries) {
        let to = a.output.join(&e.file);
        if std::fs::canonicalize(path).ok() != std::fs::canonicalize(&to).ok() {
            std::fs::copy(path, &to).map_err(|err| {
                bad(format!("cannot copy {} into the site: {err}", path.display()))
            })?;
        }
    }
    let runs: usize = entries.iter().map(|e| e.runs.len()).sum();
    let said = format!(
        "{} bundle{} ({runs} run{}) into {}; open {}",
        entries.len(),
        if entries.len() == 1 { "" } else { "s" },
        if runs == 1 { "" } else { "s" },
        a.output.display(),
        a.output.join("index.html").display()
    );
    let width = icbench_report::table::text_width();
    writeln!(crate::term::stdout(), "{}", icbench_report::format::wrap(&said, width).join("\n"))?;
    Ok(ExitCode::SUCCESS)
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| "bundle.json".into(), |n| n.to_string_lossy().into_owned())
}

/// A bundle as the site shows it: its runs viewed as `show` does, named by
/// the first run's label (else its host), and its kind — published when
/// every run is another tool's results, emulated when the machine said its
/// CPUs are virtual, measured otherwise.
fn entry(file: String, b: &Bundle) -> SiteEntry {
    let runs: Vec<RunView> = b.runs.iter().enumerate().map(|(i, r)| view(i, r)).collect();
    let first = b.runs.first();
    let board = first
        .and_then(|r| r.meta.label.clone())
        .or_else(|| first.map(|r| r.meta.hostname.clone()))
        .unwrap_or_else(|| file.clone());
    let kind = if b.runs.iter().all(|r| r.source != "measured") {
        EntryKind::Published
    } else if b.runs.iter().any(|r| r.machine.as_ref().is_some_and(|m| m.emulated.is_some())) {
        EntryKind::Emulated
    } else {
        EntryKind::Measured
    };
    let mut provenance = vec![
        ("bundle".to_string(), format!("sha256 {}", b.content_sha256)),
        (
            "written".to_string(),
            format!(
                "by icbench {}{} on {}, {}",
                b.written.icbench_version,
                b.written.git_commit.as_deref().map_or(String::new(), |c| format!(" ({c})")),
                b.written.hostname,
                icbench_report::format::unix_ns(b.written.unix_ns)
            ),
        ),
    ];
    for (i, r) in b.runs.iter().enumerate() {
        provenance.extend(run_lines(i + 1, r));
    }
    SiteEntry { file, board, provenance, kind, runs }
}

fn view(i: usize, r: &BundledRun) -> RunView {
    icbench_report::build(i as i64 + 1, &r.meta, &r.cells).with_source(
        r.source.clone(),
        r.provenance.clone(),
        r.warnings.clone(),
    )
}

/// What a run's page lists about where it came from.
fn run_lines(n: usize, r: &BundledRun) -> Vec<(String, String)> {
    let m = &r.meta;
    let key = |what: &str| format!("run {n}: {what}");
    let mut out = vec![(key("source"), r.source.clone())];
    if let Some(p) = &r.provenance {
        out.push((key("from"), p.clone()));
    }
    if r.source == "measured" {
        out.push((
            key("host"),
            format!("{}, {}, CPUs {} ↔ {}", m.hostname, m.cpu_model, m.host_cpu, m.peer_cpu),
        ));
        out.push((key("kernel"), m.kernel_release.clone()));
        out.push((
            key("icbench"),
            format!(
                "{}{}",
                m.icbench_version,
                m.git_commit.as_deref().map_or(String::new(), |c| format!(" ({c})"))
            ),
        ));
    }
    if let Some(mc) = &r.machine {
        if let Some(soc) = &mc.soc {
            out.push((key("board"), soc.clone()));
        }
        if let Some(rt) = mc.preempt_rt {
            out.push((key("PREEMPT_RT"), if rt { "yes" } else { "no" }.to_string()));
        }
        if let Some(hz) = mc.hz {
            out.push((key("CONFIG_HZ"), hz.to_string()));
        }
        if !mc.isolation.is_empty() {
            out.push((key("isolation"), mc.isolation.join(" ")));
        }
        if let Some(e) = &mc.emulated {
            out.push((key("virtual CPUs"), e.clone()));
        }
    }
    if let Some(l) = &m.label {
        out.push((key("label"), l.clone()));
    }
    out
}
