//! What closes a run's text (issue #18): the summary — per size class, the
//! best link and how far the others are from it — and the targets table
//! that `show --targets` prints (a run itself prints one line of it).

use std::io::Write;

use super::*;

/// The run's targets (`show --targets`): what each compared, the ratio
/// with its interval where it has one, what is required, and whether this
/// run shows it met — in words a user reads.
pub fn targets(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    fitted(out, |o| targets_text(view, o))
}

fn targets_text(view: &RunView, out: &mut dyn Write) -> std::io::Result<()> {
    if view.targets.is_empty() {
        return writeln!(
            out,
            "run {}: no targets (they need the floor and the links they compare: shm, pipe, unix)",
            view.run_id
        );
    }
    writeln!(out, "run {}: targets, ratios against this run's floor", view.run_id)?;
    let mut t = table(&["what was compared", "ratio", "required", "met"]);
    for g in &view.targets {
        t.add_row(vec![
            g.name.to_string(),
            g.ratio_text(),
            g.bound.to_string(),
            g.verdict.as_str().to_string(),
        ]);
    }
    right_align(&mut t, 1);
    writeln!(out, "{}", Style::Terminal.show(t))?;
    let legend = "met: yes or no; not shown: the ratio's 95 % interval crosses the bound, so \
                  this run cannot decide; out of reach: this machine's floor is already past it";
    for line in format::wrap(legend, text_width()) {
        writeln!(out, "{line}")?;
    }
    for g in &view.targets {
        if let Some(why) = &g.why {
            let text = format!("{}: {}: {why}", g.name, g.verdict.as_str());
            for line in format::wrap(&text, text_width()) {
                writeln!(out, "{line}")?;
            }
        }
    }
    Ok(())
}

/// The run's summary (issue #18): per size class, the best link for round
/// trip and for stream rate with its figure and interval, then the others
/// as "× from the best"; the floor and the best links against it; the
/// run's verdict. Lines of at most 100 columns.
pub fn summary(s: &crate::summary::Summary, out: &mut dyn Write) -> std::io::Result<()> {
    if !s.classes.is_empty() {
        let w = text_width();
        let intro = "summary: the best link per message size ((…): where a repeat run lands), \
                     the others × slower or × less; ! marked";
        writeln!(out)?;
        for line in format::wrap(intro, w) {
            writeln!(out, "{line}")?;
        }
        for c in &s.classes {
            writeln!(out, "{}", c.class)?;
            let rows = [("round trip", &c.latency, true), ("stream", &c.throughput, false)];
            for (what, r, latency) in rows {
                if let Some(r) = r {
                    ranking(what, r, latency, out)?;
                }
            }
        }
        if let Some(f) = &s.floor {
            for line in format::wrap(&f.text(), w) {
                writeln!(out, "{line}")?;
            }
        }
    }
    if let Some(v) = &s.verdict {
        writeln!(out)?;
        for line in format::wrap(v, text_width()) {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// One figure of one class: the best link with its figure and interval,
/// then the others as × from it, whole entries per line.
fn ranking(
    what: &str,
    r: &crate::summary::Ranking,
    latency: bool,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let best = &r.entries[0];
    writeln!(
        out,
        "  {what:<10} {:>6}: {} {}",
        format::bytes(r.size_bytes),
        best.link,
        best.figure_text(latency)
    )?;
    let others: Vec<String> = r.entries[1..]
        .iter()
        .map(|e| {
            format!("{} {}{}", e.link, format::ratio(e.from_best), if e.marked { "!" } else { "" })
        })
        .collect();
    // Whole entries per line: a link never parted from its ratio.
    let mut line = String::new();
    for (i, o) in others.iter().enumerate() {
        let piece = if i + 1 < others.len() { format!("{o}, ") } else { o.clone() };
        if !line.is_empty() && 21 + line.chars().count() + piece.chars().count() > text_width() {
            writeln!(out, "{:21}{}", "", line.trim_end())?;
            line.clear();
        }
        line.push_str(&piece);
    }
    if !line.is_empty() {
        writeln!(out, "{:21}{line}", "")?;
    }
    Ok(())
}
