//! The CPU-pair view: a plan's `cpus` factor (`"H,P"`, or `"all-pairs"` —
//! every ordered pair of online CPUs, as core-to-core-latency measures
//! them, issue 7) turned into one host CPU × peer CPU matrix per group of
//! otherwise identical cells, for the heat map of the HTML report, the
//! matrix table of `icbench show` and the `cpu_pairs` of its JSON.
//!
//! A group is the cells with the same link, protocol, pattern, size, blocks
//! and factors, `cpus` and `rep` aside; only groups that cover at least two
//! CPU pairs get a matrix. Each filled entry is the p50 of the cell's
//! samples, ns (the same p50 as the per-cell tables: raw samples when kept,
//! else the HDR histogram) — or, for cells without latencies (stream), the
//! payload bytes per second over the cell's measured window. Repetitions
//! of a pair are combined by their median (type 7: the mean of the two
//! middle values for an even count), and the entry says how many cells went
//! into it. Pure view code: nothing here renders.

use std::collections::BTreeMap;

use icbench_model::{CellOutcome, CellResult, Pattern};
use serde::Serialize;

use crate::stats::CellStats;

/// The factor that names a cell's CPU pair, `"HOST,PEER"`.
pub const CPUS: &str = "cpus";
/// The factor that numbers a repetition; pairs combine over it.
pub const REP: &str = "rep";

/// One group's matrix of CPU pairs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CpuPairMatrix {
    pub link: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    pub pattern: Pattern,
    pub size_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocks: Option<u32>,
    /// The group's other factors (every factor but `cpus` and `rep`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub factors: BTreeMap<String, String>,
    /// What each entry's `value` is: `rtt_p50_ns`, `oneway_p50_ns` (p50 of
    /// the cell's samples, ns) or `bytes_per_s` (payload, one direction).
    pub metric: String,
    /// The value's unit: `ns` or `B/s`.
    pub unit: &'static str,
    /// The CPUs on both axes, ascending: row `i` is host CPU `cpus[i]`,
    /// column `j` peer CPU `cpus[j]`.
    pub cpus: Vec<u32>,
    /// `matrix[i][j]`: host `cpus[i]` with peer `cpus[j]`; `None` on the
    /// diagonal and for pairs the run has no cell of.
    pub matrix: Vec<Vec<Option<PairValue>>>,
}

/// One CPU pair of a matrix.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairValue {
    /// The median over the pair's measured cells of their value (see the
    /// matrix's `metric`); `None` when none of its cells was measured.
    pub value: Option<f64>,
    /// Measured cells that went into `value` (repetitions).
    pub cells: u32,
    /// Cells of the pair that failed or could not be measured (n/a).
    pub not_measured: u32,
}

impl CpuPairMatrix {
    /// Entries with a value.
    pub fn filled(&self) -> usize {
        self.matrix.iter().flatten().flatten().filter(|p| p.value.is_some()).count()
    }

    /// The smallest and largest value, if any entry has one.
    pub fn range(&self) -> Option<(f64, f64)> {
        self.matrix.iter().flatten().flatten().filter_map(|p| p.value).fold(None, |r, v| match r {
            None => Some((v, v)),
            Some((lo, hi)) => Some((f64::min(lo, v), f64::max(hi, v))),
        })
    }

    /// The most cells any entry combines (1: no repetitions).
    pub fn max_cells(&self) -> u32 {
        self.matrix.iter().flatten().flatten().map(|p| p.cells).max().unwrap_or(0)
    }

    /// The entry of host CPU `host` with peer CPU `peer`.
    pub fn get(&self, host: u32, peer: u32) -> Option<&PairValue> {
        let i = self.cpus.iter().position(|&c| c == host)?;
        let j = self.cpus.iter().position(|&c| c == peer)?;
        self.matrix[i][j].as_ref()
    }

    /// Whether the values are latencies (ns) rather than throughputs.
    pub fn is_latency(&self) -> bool {
        self.unit == "ns"
    }

    /// What the entries are, in words: `p50 round trip`, `p50 one-way
    /// latency`, `payload throughput`.
    pub fn what(&self) -> String {
        match self.metric.as_str() {
            "bytes_per_s" => "payload throughput".to_string(),
            "rtt_p50_ns" if self.pattern == Pattern::Bulk => "p50 transfer time".to_string(),
            "rtt_p50_ns" => "p50 round trip".to_string(),
            "oneway_p50_ns" => "p50 one-way latency".to_string(),
            m => m.to_string(),
        }
    }

    /// The group in words: `pingpong pipe 64 B [wait=spin]`.
    pub fn title(&self) -> String {
        let link = match &self.protocol {
            Some(p) => format!("{} · {p}", self.link),
            None => self.link.clone(),
        };
        let size = match self.blocks {
            Some(b) => format!("{}×{b}", crate::format::bytes(self.size_bytes)),
            None => crate::format::bytes(self.size_bytes),
        };
        let f: Vec<String> = self
            .factors
            .iter()
            // The declared link is in the normalised link already.
            .filter(|(k, _)| k.as_str() != "link")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let f = if f.is_empty() { String::new() } else { format!(" [{}]", f.join(" ")) };
        format!("{} {link} {size}{f}", self.pattern)
    }
}

/// `"H,P"` → `(H, P)`.
fn pair_of(s: &str) -> Option<(u32, u32)> {
    let (h, p) = s.split_once(',')?;
    Some((h.trim().parse().ok()?, p.trim().parse().ok()?))
}

type GroupKey = (String, Option<String>, Pattern, u64, Option<u32>, BTreeMap<String, String>);

/// A cell's two candidate values: p50 of its samples (ns), bytes per second.
struct Sample {
    p50: Option<f64>,
    bytes_per_s: f64,
}

/// The matrices of a run's cells, in the order of their groups (link,
/// protocol, pattern, size, blocks, factors).
pub fn build(cells: &[CellResult]) -> Vec<CpuPairMatrix> {
    // group → pair → (measured samples, cells not measured)
    type Pairs = BTreeMap<(u32, u32), (Vec<Sample>, u32)>;
    let mut groups: BTreeMap<GroupKey, Pairs> = BTreeMap::new();
    for c in cells {
        let Some(pair) = c.key.factor(CPUS).and_then(pair_of) else { continue };
        let mut factors = c.key.factors.clone();
        factors.remove(CPUS);
        factors.remove(REP);
        let k = &c.key;
        let gk = (k.link.clone(), k.protocol.clone(), k.pattern, k.size_bytes, k.blocks, factors);
        let e = groups.entry(gk).or_default().entry(pair).or_default();
        match &c.outcome {
            CellOutcome::Measured(d) => e.0.push(Sample {
                p50: CellStats::of(d).map(|s| s.summary.p50),
                bytes_per_s: d.bytes_per_s(),
            }),
            _ => e.1 += 1,
        }
    }
    groups
        .into_iter()
        .filter(|(_, pairs)| pairs.len() >= 2)
        .map(|((link, protocol, pattern, size_bytes, blocks, factors), pairs)| {
            // Latency when every measured cell has one; else throughput.
            let latency = pairs.values().flat_map(|(s, _)| s).all(|s| s.p50.is_some());
            let (metric, unit) = if latency {
                (format!("{}_p50_ns", pattern.metric()), "ns")
            } else {
                ("bytes_per_s".to_string(), "B/s")
            };
            let mut cpus: Vec<u32> = pairs.keys().flat_map(|&(h, p)| [h, p]).collect();
            cpus.sort_unstable();
            cpus.dedup();
            let idx = |c: u32| cpus.binary_search(&c).expect("a CPU of the group");
            let mut matrix = vec![vec![None; cpus.len()]; cpus.len()];
            for ((h, p), (samples, not_measured)) in &pairs {
                let values: Vec<f64> = samples
                    .iter()
                    .map(|s| if latency { s.p50.unwrap_or(f64::NAN) } else { s.bytes_per_s })
                    .collect();
                matrix[idx(*h)][idx(*p)] = Some(PairValue {
                    value: icbench_stats::median(&values),
                    cells: values.len() as u32,
                    not_measured: *not_measured,
                });
            }
            CpuPairMatrix {
                link,
                protocol,
                pattern,
                size_bytes,
                blocks,
                factors,
                metric,
                unit,
                cpus,
                matrix,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use icbench_model::{CellData, CellKey, LatencyHistogram, LinkCounters};

    use super::*;

    /// A measured cell with `n` samples of each value in `ns` (exact below
    /// 2048 ns) and `bytes` moved in one second.
    fn cell(key: CellKey, ns: &[u64], bytes: u64) -> CellResult {
        let latency = (!ns.is_empty()).then(|| {
            let mut h = LatencyHistogram::new();
            for &v in ns {
                h.record_n(v, 10);
            }
            h
        });
        CellResult {
            key,
            outcome: CellOutcome::Measured(CellData {
                messages: 100,
                bytes,
                elapsed_ns: 1_000_000_000,
                warmup_messages: 0,
                latency,
                raw_ns: None,
                window: None,
                counters: LinkCounters::default(),
                channels: None,
                adaptive: None,
                per_channel: Vec::new(),
                disturbance: None,
                cut_at_messages: None,
                timed_batch: None,
                state: None,
            }),
        }
    }

    fn pp(cpus: &str) -> CellKey {
        CellKey::new("pipe", Pattern::PingPong, 64).with(CPUS, cpus)
    }

    #[test]
    fn all_pairs_of_three_cpus_fill_a_matrix_of_p50s_with_an_empty_diagonal() {
        // p50 of {100 ×10, 200 ×10, 900 ×10} is 200 ns: the histogram's
        // median, not its mean (400).
        let mut cells = Vec::new();
        for (h, p, base) in [(0, 1, 100), (1, 0, 110), (0, 2, 300), (2, 0, 310), (1, 2, 500)] {
            cells.push(cell(pp(&format!("{h},{p}")), &[base, base + 100, base + 800], 0));
        }
        cells.push(CellResult {
            key: pp("2,1"),
            outcome: CellOutcome::Failed { reason: "timeout".into() },
        });
        let m = build(&cells);
        assert_eq!(m.len(), 1);
        let m = &m[0];
        assert_eq!((m.metric.as_str(), m.unit), ("rtt_p50_ns", "ns"));
        assert_eq!(m.cpus, vec![0, 1, 2]);
        assert_eq!(m.filled(), 5);
        for c in 0..3 {
            assert_eq!(m.matrix[c][c], None, "diagonal {c}");
        }
        assert_eq!(m.get(0, 1).unwrap().value, Some(200.0));
        assert_eq!(m.get(1, 0).unwrap().value, Some(210.0));
        assert_eq!(m.get(1, 2).unwrap().value, Some(600.0));
        assert_eq!(m.matrix[0][2].unwrap().value, Some(400.0), "row host 0, column peer 2");
        let failed = m.get(2, 1).unwrap();
        assert_eq!((failed.value, failed.cells, failed.not_measured), (None, 0, 1));
        assert_eq!(m.range(), Some((200.0, 600.0)));
        assert_eq!(m.title(), "pingpong pipe 64 B");
        assert_eq!(m.what(), "p50 round trip");
    }

    #[test]
    fn repetitions_combine_by_the_median_of_their_p50s_and_say_how_many() {
        let mut cells = Vec::new();
        for (rep, v) in [(0, 100), (1, 700), (2, 300)] {
            cells.push(cell(pp("0,1").with(REP, rep), &[v], 0));
        }
        for (rep, v) in [(0, 100), (1, 200)] {
            cells.push(cell(pp("1,0").with(REP, rep), &[v], 0));
        }
        let m = &build(&cells)[0];
        let a = m.get(0, 1).unwrap();
        assert_eq!((a.value, a.cells), (Some(300.0), 3), "median of 100, 700, 300");
        let b = m.get(1, 0).unwrap();
        assert_eq!((b.value, b.cells), (Some(150.0), 2), "even count: mean of the middle two");
        assert_eq!(m.max_cells(), 3);
        assert!(!m.factors.contains_key(REP) && !m.factors.contains_key(CPUS));
    }

    #[test]
    fn groups_split_by_every_other_factor_and_size_and_need_two_pairs() {
        let mut cells = Vec::new();
        for wait in ["spin", "futex"] {
            for cpus in ["0,1", "1,0"] {
                let k = CellKey::new("shm?wait=x", Pattern::PingPong, 64)
                    .with(CPUS, cpus)
                    .with("wait", wait)
                    .with("link", "shm");
                cells.push(cell(k, &[if wait == "spin" { 100 } else { 1000 }], 0));
            }
        }
        // One pair only: no matrix. No cpus factor: not a pair cell.
        cells.push(cell(CellKey::new("pipe", Pattern::PingPong, 4096).with(CPUS, "0,1"), &[5], 0));
        cells.push(cell(CellKey::new("pipe", Pattern::PingPong, 64), &[5], 0));
        let m = build(&cells);
        assert_eq!(m.len(), 2);
        let spin = m.iter().find(|m| m.factors["wait"] == "spin").unwrap();
        let futex = m.iter().find(|m| m.factors["wait"] == "futex").unwrap();
        assert_eq!(spin.range(), Some((100.0, 100.0)));
        assert_eq!(futex.range(), Some((1000.0, 1000.0)));
        assert_eq!(futex.title(), "pingpong shm?wait=x 64 B [wait=futex]");
    }

    #[test]
    fn stream_cells_without_latency_give_throughput() {
        let cells: Vec<CellResult> = [("0,1", 2_000_000), ("1,0", 1_000_000)]
            .into_iter()
            .map(|(c, b)| cell(CellKey::new("unix", Pattern::Stream, 4096).with(CPUS, c), &[], b))
            .collect();
        let m = &build(&cells)[0];
        assert_eq!((m.metric.as_str(), m.unit), ("bytes_per_s", "B/s"));
        assert_eq!(m.get(0, 1).unwrap().value, Some(2e6));
        assert_eq!(m.get(1, 0).unwrap().value, Some(1e6));
        assert_eq!(m.what(), "payload throughput");
        assert!(build(&[]).is_empty());
    }

    #[test]
    fn json_names_the_matrix_and_leaves_the_diagonal_null() {
        let cells: Vec<CellResult> =
            ["0,1", "1,0"].into_iter().map(|c| cell(pp(c), &[100], 0)).collect();
        let v = serde_json::to_value(build(&cells)).unwrap();
        assert_eq!(v[0]["pattern"], "pingpong");
        assert_eq!(v[0]["cpus"], serde_json::json!([0, 1]));
        assert!(v[0]["matrix"][0][0].is_null());
        assert_eq!(v[0]["matrix"][0][1]["value"], 100.0);
        assert_eq!(v[0]["matrix"][0][1]["cells"], 1);
        assert!(v[0].get("factors").is_none() && v[0].get("protocol").is_none());
    }
}
