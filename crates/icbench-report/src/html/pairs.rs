//! Heat maps of CPU pairs (a plan's `cpus = "all-pairs"`).

use crate::svg;
use crate::view::RunView;

use super::{Figures, figure};

/// One heat map per CPU-pair group (a plan's `cpus = "all-pairs"`).
pub(super) fn figures(h: &mut String, figs: &mut Figures, v: &RunView) {
    for (k, m) in v.cpu_pairs.iter().enumerate() {
        let n = m.cpus.len();
        let cells = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        let e = m.matrix[i][j];
                        let text = crate::names::pair_text(m, i, j);
                        let tip = match e {
                            Some(p) => format!(
                                "host CPU {} → peer CPU {}: {} ({} cell{}{})",
                                m.cpus[i],
                                m.cpus[j],
                                text,
                                p.cells,
                                if p.cells == 1 { "" } else { "s" },
                                if p.not_measured > 0 {
                                    format!(", {} not measured", p.not_measured)
                                } else {
                                    String::new()
                                }
                            ),
                            None if i == j => {
                                format!("CPU {}: host and peer are one CPU", m.cpus[i])
                            }
                            None => format!(
                                "host CPU {} → peer CPU {}: not in this run",
                                m.cpus[i], m.cpus[j]
                            ),
                        };
                        svg::GridCell {
                            value: e.and_then(|p| p.value),
                            text,
                            tip,
                            diagonal: i == j,
                        }
                    })
                    .collect()
            })
            .collect();
        let labels: Vec<String> = m.cpus.iter().map(u32::to_string).collect();
        let g = svg::Grid {
            title: format!("Run {}: {} per CPU pair, {}", v.run_id, m.what(), m.title()),
            row_axis: "host CPU".into(),
            col_axis: "peer CPU".into(),
            rows: labels.clone(),
            cols: labels,
            cells,
            what: m.what(),
            unit: if m.is_latency() { svg::Unit::Ns } else { svg::Unit::BytesPerS },
        };
        let id = format!("run{}-cpus{k}", v.run_id);
        let svg = svg::heatmap(&g, &id);
        let reps = match m.max_cells() {
            0 | 1 => String::new(),
            n => format!(" Each square is the median of up to {n} repeated cells' values."),
        };
        figure(
            h,
            figs,
            id,
            svg,
            &format!(
                "{} per ordered CPU pair (row: the host CPU, column: the peer CPU); darker is larger, linear between the minimum and maximum shown. The diagonal is empty: host and peer need two CPUs.{reps}",
                m.what()
            ),
        );
    }
}
