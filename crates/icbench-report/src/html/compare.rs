//! The comparison section: the ratio of medians against size, with its CI
//! and the tests' p-values (printed as the CLI prints them), and the table
//! of every compared cell.

use std::fmt::Write;

use crate::compare::{CompareRow, CompareView};
use crate::format;
use crate::svg::{self, Axis, HLine, Plot, Pt, Series, Unit, esc};

use super::{Figures, figure};

/// The row's answer in the words the terminal uses ("B 3.62× slower than
/// A (2.19× … 6.00×)", "no change shown"), with why it is not decided.
fn shown(r: &CompareRow) -> String {
    match (r.change, &r.note) {
        ("not decided", Some(n)) => format!("not decided: {n}"),
        _ => r.in_words(),
    }
}

/// What a ratio's marker says on hover: both tests' p-values as the table
/// and the CLI print them (`<0.001`, never `0.000`), and the verdict.
fn tip(r: &CompareRow) -> String {
    let verdict = shown(r);
    format!(
        "p (Mann–Whitney) {} · p (Welch) {} · {verdict}",
        format::p_value(r.mann_whitney_p),
        format::p_value(r.welch_p)
    )
}

/// The series of the ratio figure: per link (and pattern, past ping-pong)
/// one series per pair of sides.
fn ratio_series(c: &CompareView) -> Vec<Series> {
    let mut series: Vec<Series> = Vec::new();
    for r in c.rows.iter().filter(|r| r.metric == "p50_ns") {
        let mut group = crate::names::link_label(&r.link, r.channels);
        if r.pattern != "pingpong" {
            group = format!("{group} {}", r.pattern);
        }
        // Issue #29: the legend names the runs, not only the sides' labels.
        let run = |label: &str| {
            c.sides
                .iter()
                .find(|s| s.label == label)
                .map_or(String::new(), |s| format!(" (run {})", s.run_id))
        };
        let name = format!("{}{} → {}{}", r.baseline, run(&r.baseline), r.other, run(&r.other));
        let pt = Pt {
            hollow: r.significant != Some(true),
            ..Pt::ci(r.size_bytes as f64, r.ratio, r.ratio_ci95_lo, r.ratio_ci95_hi)
        };
        let i = match series.iter().position(|s| s.group == group && s.name == name) {
            Some(i) => i,
            None => {
                series.push(Series::new(group, name));
                series.len() - 1
            }
        };
        series[i].points.push(pt);
        series[i].tips.push(tip(r));
    }
    series
}

pub(super) fn section(h: &mut String, figs: &mut Figures, c: &CompareView) {
    h.push_str("<h2>Comparison</h2><ul>");
    for s in &c.sides {
        let _ = write!(
            h,
            "<li>{}: run {}{} ({}) · {} · {}</li>",
            esc(&s.label),
            s.run_id,
            s.board.as_deref().map(|b| format!(" · board {}", esc(b))).unwrap_or_default(),
            esc(&s.source),
            esc(&s.hostname),
            esc(&s.cpu_model)
        );
    }
    h.push_str("</ul>");
    let series = ratio_series(c);
    if !series.is_empty() {
        let panels = svg::panels(&series).len() > 1;
        let p = Plot {
            title: "Ratio of medians (other ÷ baseline) against size".into(),
            x: Axis::log("message size", Unit::Bytes),
            y: Axis::log("ratio of p50", Unit::Ratio),
            series,
            hlines: vec![HLine { y: 1.0, label: "ratio 1: no difference".into() }],
            bars: "95 % CI",
            context: false,
        };
        let svg = svg::plot(&p, "compare-ratio");
        figure(
            h,
            figs,
            "compare-ratio".into(),
            svg,
            &format!(
                "Other ÷ baseline: below 1 for a time, above 1 for a rate, the other run is \
                 faster. Bars: 95 % CI of the ratio. Filled markers: shown faster or slower at \
                 α = {}; open: no change shown, or not decided (hover for the p-values).{}",
                c.alpha,
                if panels { " One panel per link, on shared axes." } else { "" }
            ),
        );
    }
    for t in c.tally() {
        let _ = write!(h, "<p>{}</p>", esc(&t.text(c.alpha)));
    }
    h.push_str("<table><tr><th class=\"l\">link</th><th class=\"l\">pattern</th><th>size</th><th>sides</th><th>baseline</th><th>other</th><th>ratio (95% CI)</th><th>p (Mann–Whitney)</th><th>p (Welch)</th><th class=\"l\">shown</th></tr>");
    for r in &c.rows {
        let val =
            |v: f64| if r.metric == "bytes_per_s" { format::rate(v, "B/s") } else { format::ns(v) };
        let ci = match (r.ratio_ci95_lo, r.ratio_ci95_hi) {
            (Some(lo), Some(hi)) => format!(" ({} … {})", format::ratio(lo), format::ratio(hi)),
            _ => String::new(),
        };
        let p = format::p_value;
        let sig = shown(r);
        let _ = write!(
            h,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{} → {}</td><td>{} (n={})</td><td>{} (n={})</td><td>{}{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            esc(&r.link),
            r.pattern,
            esc(&format::bytes(r.size_bytes)),
            esc(&r.baseline),
            esc(&r.other),
            esc(&val(r.baseline_value)),
            r.baseline_count,
            esc(&val(r.other_value)),
            r.other_count,
            esc(&format::ratio(r.ratio)),
            esc(&ci),
            esc(&p(r.mann_whitney_p)),
            esc(&p(r.welch_p)),
            esc(&sig)
        );
    }
    h.push_str("</table>");
}

#[cfg(test)]
mod tests {
    use super::super::tests::pingpong;
    use super::*;

    fn view(a: &[icbench_model::CellResult], b: &[icbench_model::CellResult]) -> CompareView {
        let side = |label: &str, run_id| crate::compare::Side {
            label: label.into(),
            run_id,
            source: "measured".into(),
            hostname: "h".into(),
            cpu_model: "c".into(),
            link: None,
            board: None,
        };
        let inputs = [
            crate::compare::Input { side: side("A", 1), cells: a.iter().collect() },
            crate::compare::Input { side: side("B", 2), cells: b.iter().collect() },
        ];
        crate::compare::build(&inputs, false)
    }

    #[test]
    fn p_values_read_as_in_the_cli_and_ticks_span_the_ratios() {
        // B is 4× faster at every size: p far below 0.001.
        let a: Vec<_> = [64, 4096].iter().map(|s| pingpong("pipe", *s, 4000)).collect();
        let b: Vec<_> = [64, 4096].iter().map(|s| pingpong("pipe", *s, 1000)).collect();
        let c = view(&a, &b);
        let mut h = String::new();
        let mut figs = Figures::new();
        section(&mut h, &mut figs, &c);
        assert!(!h.contains("0.000"), "a p-value printed 0.000");
        assert!(h.contains("<td>&lt;0.001</td>"));
        let svg = &figs[0].1;
        assert!(svg.contains("p (Mann–Whitney) &lt;0.001"), "the tooltip's p-value");
        // Significant: filled markers.
        assert!(!svg.contains(r##"fill="#ffffff" stroke="#0072B2""##));
        // The legend names the runs (issue #29).
        assert!(svg.contains(">pipe A (run 1) → B (run 2)</text>"), "{svg}");
        // The ratios sit near 0.25×: the axis says so.
        assert!(svg.contains(">0.25×<") && svg.contains(">1×<"), "{svg}");
    }

    #[test]
    fn a_difference_that_is_not_significant_has_an_open_marker() {
        let a = [pingpong("pipe", 64, 1000)];
        let b = [pingpong("pipe", 64, 1000)];
        let c = view(&a, &b);
        let mut figs = Figures::new();
        section(&mut String::new(), &mut figs, &c);
        assert!(figs[0].1.contains(r##"fill="#ffffff" stroke="#0072B2""##));
    }
}
