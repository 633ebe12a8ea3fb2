//! The head of a run's section (issue #29): its verdict and the best link
//! per message size, first, in the words and figures the terminal prints
//! after `icbench run` — both come from the run's view (`verdict`,
//! `summary`), never worked out here.

use std::fmt::Write;

use crate::format;
use crate::summary::Ranking;
use crate::svg::esc;
use crate::view::RunView;

/// The verdict, then a table of the best link per class and pattern with
/// the others as × from it, then the floor line. Nothing for a run that
/// has neither (an imported run without blocks or counters).
pub(super) fn section(h: &mut String, v: &RunView) {
    if let Some(verdict) = &v.verdict {
        let class = verdict.verdict.replace(' ', "-");
        let _ = write!(h, "<p class=\"verdict {class}\">{}</p>", esc(&verdict.text));
    }
    let s = &v.summary;
    if s.classes.is_empty() {
        return;
    }
    h.push_str(
        "<table class=\"summary\"><tr><th class=\"l\">messages</th><th class=\"l\">pattern</th>\
         <th>size</th><th class=\"l\">best link</th><th>figure (where a repeat run lands)</th>\
         <th class=\"l\">the others: × slower (round trip) or × less (stream); ! marked</th></tr>",
    );
    for c in &s.classes {
        let rows = [("round trip", &c.latency, true), ("stream", &c.throughput, false)];
        for (what, r, latency) in rows {
            if let Some(r) = r {
                row(h, c.class, what, r, latency);
            }
        }
    }
    h.push_str("</table>");
    if let Some(f) = &s.floor {
        let _ = write!(h, "<p class=\"note\">{}</p>", esc(&f.text()));
    }
}

fn row(h: &mut String, class: &str, what: &str, r: &Ranking, latency: bool) {
    let best = &r.entries[0];
    let others: Vec<String> = r.entries[1..]
        .iter()
        .map(|e| {
            format!("{} {}{}", e.link, format::ratio(e.from_best), if e.marked { "!" } else { "" })
        })
        .collect();
    let _ = write!(
        h,
        "<tr><td class=\"l\">{}</td><td class=\"l\">{what}</td><td>{}</td><td class=\"l\">{}</td>\
         <td>{}</td><td class=\"l\">{}</td></tr>",
        esc(class),
        format::bytes(r.size_bytes),
        esc(&best.link),
        esc(&best.figure_text(latency)),
        esc(&others.join(", "))
    );
}

#[cfg(test)]
mod tests {
    use crate::html::tests::measured;
    use icbench_model::{CellKey, Pattern};

    /// The report's run section opens with the verdict and the summary the
    /// terminal prints, figures and words alike.
    #[test]
    fn a_run_section_opens_with_the_terminal_s_verdict_and_summary() {
        let cells: Vec<_> = ["pipe", "shm"]
            .iter()
            .flat_map(|link| {
                (0..3).map(move |rep| {
                    let mut k = CellKey::new(*link, Pattern::PingPong, 64);
                    k.factors.insert("rep".into(), rep.to_string());
                    measured(k, if *link == "shm" { 200 } else { 40_000 + rep * 500 }, 500)
                })
            })
            .collect();
        let view = crate::build(3, &crate::testing::meta(), &cells);
        let mut h = String::new();
        super::section(&mut h, &view);
        let verdict = view.verdict.as_ref().unwrap();
        assert!(h.starts_with("<p class=\"verdict "), "{h}");
        assert!(h.contains(&crate::svg::esc(&verdict.text)), "{h}");
        let best = &view.summary.classes[0].latency.as_ref().unwrap().entries[0];
        assert_eq!(best.link, "shm");
        assert!(h.contains(&crate::svg::esc(&best.figure_text(true))), "{h}");
        assert!(h.contains("<td class=\"l\">pipe "), "the others as × from the best: {h}");
    }
}
