//! Renderers for a doctor [`Report`]: text for a terminal, JSON (with a
//! `schema_version`) for scripts. They only render.

use std::io::{self, Write};

use serde_json::json;

use icbench_report::format::wrap;

use super::{Report, Verdict};

/// Version of the `icbench doctor --json` document.
pub const SCHEMA_VERSION: u32 = 1;

pub fn text(r: &Report, w: &mut dyn Write) -> io::Result<()> {
    writeln!(
        w,
        "icbench doctor: CPU {} (host end) and CPU {} (peer end)\n",
        r.host_cpu, r.peer_cpu
    )?;
    // What was found, then the advice, both wrapped in the third column
    // (from column 24) to the text width.
    let room = icbench_report::table::text_width().saturating_sub(24).max(30);
    for f in &r.findings {
        for (i, line) in wrap(&f.found, room).iter().enumerate() {
            match i {
                0 => writeln!(w, "{:<5} {:<17} {line}", f.verdict.as_str(), f.id)?,
                _ => writeln!(w, "{:<23} {line}", "")?,
            }
        }
        for (i, line) in wrap(&f.advice, room).iter().enumerate() {
            if !line.is_empty() {
                writeln!(w, "{:<23} {line}", if i == 0 { "      →" } else { "" })?;
            }
        }
    }
    let count = |v| r.findings.iter().filter(|f| f.verdict == v).count();
    writeln!(
        w,
        "\n{} ok, {} to know, {} to change before measuring",
        count(Verdict::Ok),
        count(Verdict::Info),
        count(Verdict::Warn)
    )
}

pub fn json(r: &Report, w: &mut dyn Write) -> io::Result<()> {
    let findings: Vec<_> = r
        .findings
        .iter()
        .map(|f| {
            json!({
                "id": f.id,
                "verdict": f.verdict.as_str(),
                "found": f.found,
                "advice": (!f.advice.is_empty()).then_some(&f.advice),
            })
        })
        .collect();
    let doc = json!({
        "schema_version": SCHEMA_VERSION,
        "host_cpu": r.host_cpu,
        "peer_cpu": r.peer_cpu,
        "worst": r.worst().as_str(),
        "findings": findings,
    });
    serde_json::to_writer_pretty(&mut *w, &doc)?;
    writeln!(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::Finding;

    fn report() -> Report {
        Report {
            host_cpu: 2,
            peer_cpu: 3,
            findings: vec![
                Finding {
                    id: "governor",
                    verdict: Verdict::Ok,
                    found: "CPU 2: performance; CPU 3: performance".into(),
                    advice: String::new(),
                },
                Finding {
                    id: "rt-throttling",
                    verdict: Verdict::Warn,
                    found: format!("on{}", " found".repeat(20)),
                    advice: "word ".repeat(30),
                },
            ],
        }
    }

    #[test]
    fn text_shows_every_finding_and_wraps_advice() {
        let mut out = Vec::new();
        text(&report(), &mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(s.starts_with("icbench doctor: CPU 2 (host end) and CPU 3 (peer end)\n"));
        assert!(s.contains("ok    governor          CPU 2: performance; CPU 3: performance\n"));
        assert!(s.contains("warn  rt-throttling     on found found"));
        assert!(s.contains(" found\n                        found found"), "{s}");
        assert!(s.contains(" found\n      →                 word word"), "{s}");
        assert!(s.lines().all(|l| l.chars().count() <= 100), "{s}");
        assert!(s.ends_with("1 ok, 0 to know, 1 to change before measuring\n"));
    }

    #[test]
    fn json_is_versioned_and_names_the_worst_verdict() {
        let mut out = Vec::new();
        json(&report(), &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["schema_version"], 1);
        assert_eq!(v["worst"], "warn");
        assert_eq!(v["findings"][0]["id"], "governor");
        assert_eq!(v["findings"][0]["advice"], serde_json::Value::Null);
        assert_eq!(v["findings"][1]["verdict"], "warn");
    }
}
