//! CPU pair matrices: one figure per host × peer CPU.

use super::*;

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
