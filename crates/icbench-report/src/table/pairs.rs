//! CPU pair matrices: one figure per host × peer CPU.

use super::*;

/// An entry of a CPU-pair matrix as text: the value with its unit, `n/a`
/// on the diagonal, `–` for a pair without cells, `failed` for a pair
/// whose cells all failed.
pub fn pair_text(m: &CpuPairMatrix, i: usize, j: usize) -> String {
    if i == j {
        return "n/a".to_string();
    }
    match &m.matrix[i][j] {
        None => "–".to_string(),
        Some(PairValue { value: None, .. }) => "failed".to_string(),
        Some(PairValue { value: Some(v), .. }) if m.is_latency() => format::ns(*v),
        Some(PairValue { value: Some(v), .. }) => format::rate(*v, m.unit),
    }
}

/// The heading of a CPU-pair matrix: the group, what the entries are, and
/// how repetitions were combined.
pub fn pair_heading(m: &CpuPairMatrix) -> String {
    let reps = match m.max_cells() {
        0 | 1 => String::new(),
        n => format!("; median over up to {n} repeated cells"),
    };
    format!("{}: {} per CPU pair (rows: host CPU, columns: peer CPU){reps}", m.title(), m.what())
}

/// One matrix table per CPU-pair group (a plan's `cpus = "all-pairs"`).
pub(super) fn cpu_pairs(
    matrices: &[CpuPairMatrix],
    out: &mut dyn Write,
    style: Style,
) -> std::io::Result<()> {
    for m in matrices {
        writeln!(out, "\n{}", pair_heading(m))?;
        let mut header = vec!["host \\ peer".to_string()];
        header.extend(m.cpus.iter().map(|c| format!("CPU {c}")));
        let mut t = table(&header.iter().map(String::as_str).collect::<Vec<_>>());
        for (i, c) in m.cpus.iter().enumerate() {
            let mut row = vec![format!("CPU {c}")];
            row.extend((0..m.cpus.len()).map(|j| pair_text(m, i, j)));
            t.add_row(row);
        }
        right_align(&mut t, 1);
        writeln!(out, "{}", style.show(t))?;
        let failed: u32 = m.matrix.iter().flatten().flatten().map(|p| p.not_measured).sum();
        if failed > 0 {
            writeln!(
                out,
                "{failed} cell(s) of these pairs failed or were n/a (not in the medians)"
            )?;
        }
    }
    Ok(())
}
