//! The report crate's modules import one another one way (issue #29 item 1:
//! "the view and its statistics below, renderers above, no renderer
//! importing another"). Before it, view, table, replicates, disturbed,
//! targets, summary and four more imported each other in one circle, and
//! each renderer worked out its own idea of a cell's status.
//!
//! Read from the sources: every `crate::NAME` outside comments and the
//! unit tests, a re-export of the crate root (`crate::RunView`) counted as
//! its module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What draws a run for a reader; each imports the view, none another.
const RENDERERS: [&str; 6] = ["table", "html", "export", "json", "rt", "site"];

/// The view and what it is built from: none of these imports a renderer.
const BELOW_RENDERERS: [&str; 15] = [
    "view",
    "rows",
    "marks",
    "replicates",
    "disturbed",
    "history",
    "verdict",
    "summary",
    "targets",
    "names",
    "format",
    "stats",
    "pairs",
    "distribution",
    "compare",
];

fn source_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            source_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without its comments and its `#[cfg(test)] mod`.
fn code(text: &str) -> String {
    let cut = text.find("#[cfg(test)]\nmod ").map_or(text, |i| &text[..i]);
    cut.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// `crate::NAME` paths in `code`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

/// Each top-level module and the modules it imports.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    // `pub use view::{RunView, …};` at the root: `crate::RunView` is `view`.
    let mut root_names: BTreeMap<String, String> = BTreeMap::new();
    for stmt in lib.split(';').filter_map(|s| s.trim().strip_prefix("pub use ")) {
        let (module, names) = stmt.split_once("::").unwrap();
        for n in names.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|n| !n.is_empty())
        {
            root_names.insert(n.to_string(), module.to_string());
        }
    }
    let mut files = Vec::new();
    source_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy();
        let module = top.trim_end_matches(".rs").to_string();
        let name = f.file_name().unwrap().to_string_lossy();
        if module == "lib"
            || module == "testing"
            || name == "tests.rs"
            || name.ends_with("_tests.rs")
        {
            continue;
        }
        let deps = crate_paths(&code(&std::fs::read_to_string(&f).unwrap()));
        let entry = graph.entry(module.clone()).or_default();
        for d in deps {
            let d = root_names.get(&d).cloned().unwrap_or(d);
            if d != module {
                entry.insert(d);
            }
        }
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for deps in graph.values_mut() {
        deps.retain(|d| modules.contains(d));
    }
    graph
}

/// A path `from` → … → `to`, if any.
fn path(g: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> Option<Vec<String>> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![vec![from.to_string()]];
    while let Some(p) = stack.pop() {
        let last = p.last().unwrap();
        for d in g.get(last).into_iter().flatten() {
            if d == to {
                let mut done = p.clone();
                done.push(d.clone());
                return Some(done);
            }
            if seen.insert(d.clone()) {
                let mut next = p.clone();
                next.push(d.clone());
                stack.push(next);
            }
        }
    }
    None
}

#[test]
fn the_modules_import_one_another_one_way() {
    let g = graph();
    assert!(g.len() > 20 && g["view"].contains("replicates"), "the sources were not read: {g:?}");
    for m in g.keys() {
        if let Some(cycle) = path(&g, m, m) {
            panic!("an import circle: {}", cycle.join(" → "));
        }
    }
}

#[test]
fn no_renderer_imports_another_and_the_view_imports_none() {
    let g = graph();
    for r in RENDERERS {
        let deps = g.get(r).unwrap_or_else(|| panic!("no module {r}"));
        for other in RENDERERS.iter().filter(|o| **o != r) {
            assert!(!deps.contains(*other), "renderer {r} imports renderer {other}");
        }
    }
    for m in BELOW_RENDERERS {
        for r in RENDERERS {
            if let Some(p) = path(&g, m, r) {
                panic!("{m} reaches renderer {r}: {}", p.join(" → "));
            }
        }
    }
}

/// The reading itself: a circle written into the sources would be seen.
#[test]
fn a_circle_is_seen() {
    let mut g = graph();
    g.get_mut("format").unwrap().insert("view".into());
    assert!(path(&g, "view", "view").is_some());
    assert_eq!(crate_paths("use crate::view::RunView; crate::format::ns(1)").len(), 2);
    assert_eq!(code("a\n// crate::x\nb\n#[cfg(test)]\nmod tests {}"), "a\nb");
}
