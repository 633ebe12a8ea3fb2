//! What a cell's blocks say in words, as every renderer prints them: why a
//! cell is marked, and its `CI` column.

use super::*;

/// What a cell with too few usable blocks shows in the list of marked
/// cells: how many, why the others are not, and the range when they also
/// disagree.
pub fn too_few(r: &ReplicatesView) -> String {
    let why = if r.used < r.blocks {
        "the others disturbed".to_string()
    } else {
        format!("--replicates {MIN_INTERVAL_BLOCKS} or more gives one")
    };
    let mut s = format!(
        "too few agreeing blocks for a repeat interval: {} of {} usable ({why}; an interval \
         needs {MIN_INTERVAL_BLOCKS})",
        r.used, r.blocks
    );
    if r.disagree {
        s += "; ";
        s += &disagreement(r);
    }
    s
}

/// What a [`ReplicatesView::wide`] cell shows in the list of marked cells.
pub fn too_wide(r: &ReplicatesView) -> String {
    let spread = match (&r.history, &r.pooled) {
        (Some(h), _) => format!("this host's {} earlier runs and this one's blocks", h.runs),
        (None, Some(p)) => format!("this link's blocks spread ±{:.0} % each", p.sigma_rel * 100.0),
        (None, None) => format!("its blocks are {:.2}× apart", r.spread),
    };
    let at = match r.interval() {
        Some((_, hi)) => format!("×/÷ {:.2}", hi / r.center),
        None => format!("beyond ×/÷ {MAX_INTERVAL_FACTOR}"),
    };
    format!("a repeat run may land {at} of it ({spread}): no figure to quote")
}

/// What a cell outside its host's history says in the list of marked
/// cells.
pub fn outside(r: &ReplicatesView, h: &HistoryView) -> String {
    let text = |v: f64| match r.metric {
        "bytes_per_s" => crate::format::rate(v, "B/s"),
        _ => crate::format::ns(v),
    };
    format!(
        "outside its host's history: {} against {} … {} from {} earlier runs",
        text(r.center),
        text(h.lo),
        text(h.hi),
        h.runs
    )
}

/// What a cell whose blocks disagree shows: their range.
pub fn disagreement(r: &ReplicatesView) -> String {
    let (lo, hi) = r.values.iter().fold((f64::INFINITY, 0.0f64), |(a, b), &v| (a.min(v), b.max(v)));
    let text = |v: f64| match r.metric {
        "bytes_per_s" => crate::format::rate(v, "B/s"),
        _ => crate::format::ns(v),
    };
    let what = if r.metric == "bytes_per_s" { "payload rate" } else { "p50" };
    let beyond = match &r.pooled {
        Some(p) => {
            format!("more than this link's blocks spread, ±{:.1} % each", p.sigma_rel * 100.0)
        }
        None => format!("beyond {DISAGREE}×"),
    };
    let mut s = format!(
        "its {} blocks disagree: {what} {} … {} ({:.2}×, {beyond})",
        r.used,
        text(lo),
        text(hi),
        r.spread
    );
    if let Some(st) = r.states.as_ref().filter(|st| st.n_states > 1) {
        let each: Vec<String> = st
            .per_state
            .iter()
            .map(|f| {
                let b = if f.blocks == 1 { "block" } else { "blocks" };
                format!(
                    "{} in {} {b} at line {}",
                    text(f.figure),
                    f.blocks,
                    crate::format::ns(f.line_rtt_ns)
                )
            })
            .collect();
        s.push_str(&format!("; the state probe found {} states: {}", st.n_states, each.join(", ")));
        if st.explains
            && let (Some(ratio), Some(spread)) = (st.p50_over_line, st.ratio_spread)
        {
            s.push_str(&format!(
                " (p50 ÷ line {} in every block, within {spread:.2}×)",
                crate::format::ratio(ratio)
            ));
        }
    }
    if let Some(w) = r.states.as_ref().and_then(|st| st.wake.as_ref()).filter(|w| w.explains) {
        let ratio = w
            .p50_over_wake
            .map_or(String::new(), |v| format!(", p50 ÷ wake-up {}", crate::format::ratio(v)));
        s.push_str(&format!(
            "; the wake-up trip around each block follows them (their ratios within {:.2}×{ratio})",
            w.ratio_spread
        ));
    }
    s
}

/// The CI column of a replicated cell, always in per cent of the figure
/// (issue #29 item 5: the column mixed "×/÷ 1.66" and "±3.2 %"). The
/// interval is symmetric in logs: [center ÷ f, center × f]; up to f = 1.5
/// as ±(f − 1) (its upper side), beyond with both sides, "+66 % −40 %"
/// (a "±100 %" would suggest a lower end at zero).
pub fn ci_short(r: &ReplicatesView) -> String {
    ci_short_at(r, None)
}

/// [`ci_short`], never narrower than the timing's resolution (ns) allows
/// ([`crate::format::rel_at`]): blocks whose p50s sit on one step of the
/// clock agree to "±0.0 %" only because the clock cannot tell them apart.
pub fn ci_short_at(r: &ReplicatesView, resolution_ns: Option<f64>) -> String {
    let Some((_, hi)) = r.interval() else { return r.note().to_string() };
    let f = hi / r.center;
    match resolution_ns {
        Some(res) if r.metric == "p50_ns" && res > 1.0 && (f - 1.0) * r.center < res => {
            crate::format::rel_at(f - 1.0, r.center, Some(res))
        }
        _ if f < 1.5 => format!("±{:.1} %", (f - 1.0) * 100.0),
        _ => format!("+{:.0} % −{:.0} %", (f - 1.0) * 100.0, (1.0 - 1.0 / f) * 100.0),
    }
}
