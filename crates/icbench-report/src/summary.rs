//! The run in a few lines (issue #18): for small, medium and large
//! messages, the link with the lowest round trip and the one with the
//! highest stream rate, with its figure and interval, and how far each other
//! link is from it. Pure: a view in, a [`Summary`] out; `table::summary`
//! renders it.
//!
//! Only like is compared with like: single-channel cells of icbench's own
//! protocol (a remote peer's firmware is another machine), measured (`ok`),
//! at one representative size per class — the class's usual size when the
//! run has it (64 B, 4 KiB, 64 KiB), otherwise the largest size of the
//! class it has. Marked cells (disturbed, or blocks that disagree) take
//! part and say so: a summary that hid them would claim more than the run
//! showed.

use serde::Serialize;

use crate::format;

use crate::rows::{PingPongRow, StreamRow};

/// A size class: its name, its range (bytes, inclusive) and the size the
/// summary prefers in it.
struct Class {
    name: &'static str,
    lo: u64,
    hi: u64,
    usual: u64,
}

const CLASSES: [Class; 3] = [
    Class { name: "small (≤ 64 B)", lo: 0, hi: 64, usual: 64 },
    Class { name: "medium (1–16 KiB)", lo: 1024, hi: 16 << 10, usual: 4 << 10 },
    Class { name: "large (≥ 64 KiB)", lo: 64 << 10, hi: u64::MAX, usual: 64 << 10 },
];

/// One link's figure at the class's size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    pub link: String,
    /// p50 round trip (ns) or payload rate (B/s).
    pub value: f64,
    /// The interval a repeat run's figure lands in, when the cell had
    /// replicate blocks enough for one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<(f64, f64)>,
    /// Why a cell with replicate blocks has no interval ("too few agreeing
    /// blocks: 2 of 3 usable"; the view's `interval_note`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_note: Option<String>,
    /// This figure against the best (≥ 1: times slower, or times less).
    pub from_best: f64,
    /// Disturbed, or blocks that disagree.
    pub marked: bool,
}

/// The ranking of one class for one figure, best first.
impl Entry {
    /// The figure as every renderer prints it: the value, where a repeat
    /// run lands (or why there is no interval), and ` !` when marked —
    /// `latency`: a round trip (ns), else a payload rate (B/s).
    pub fn figure_text(&self, latency: bool) -> String {
        let one = |v: f64| if latency { format::ns(v) } else { format::rate(v, "B/s") };
        let iv = match (self.interval, &self.interval_note) {
            (Some((lo, hi)), _) => format!(" ({} … {})", one(lo), one(hi)),
            (None, Some(why)) => format!(" ({why})"),
            (None, None) => String::new(),
        };
        format!("{}{iv}{}", one(self.value), if self.marked { " !" } else { "" })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranking {
    pub size_bytes: u64,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassSummary {
    pub class: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<Ranking>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput: Option<Ranking>,
}

/// The floor the summary measures the best links against: what the two
/// CPUs themselves cost, with nothing of a link's around it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FloorRef {
    /// The least a two-way channel costs between the CPUs (ns): the
    /// two-line round trip, or the cache-line one when a run has no other.
    pub round_trip_ns: f64,
    /// Which of the two `round_trip_ns` is.
    pub round_trip: &'static str,
    /// Single-thread memcpy on the host CPU (B/s).
    pub memcpy_bytes_per_s: f64,
    /// The best small-message round trip against `round_trip_ns` (×).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub small_round_trip_vs_floor: Option<f64>,
    /// The best large-message stream rate against memcpy (×, under 1 is
    /// slower than a copy).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub large_stream_vs_memcpy: Option<f64>,
}

impl FloorRef {
    /// "floor: two-line round trip 120 ns (the best small round trip is
    /// 2.5× it) · memcpy 9.8 GB/s (the best large stream 0.41× it)", as
    /// every renderer prints it.
    pub fn text(&self) -> String {
        let mut line = format!("floor: {} {}", self.round_trip, format::ns(self.round_trip_ns));
        if let Some(r) = self.small_round_trip_vs_floor {
            line += &format!(" (the best small round trip is {} it)", format::ratio(r));
        }
        line += &format!(" · memcpy {}", format::rate(self.memcpy_bytes_per_s, "B/s"));
        if let Some(r) = self.large_stream_vs_memcpy {
            line += &format!(" (the best large stream {} it)", format::ratio(r));
        }
        line
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub classes: Vec<ClassSummary>,
    /// The run's floor and the best links against it (absent from runs
    /// without a floor: imported, remote-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub floor: Option<FloorRef>,
    /// The run's verdict in one line (the view's `verdict.text`), absent
    /// when the run could not be judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
}

fn comparable_pp(r: &PingPongRow) -> bool {
    r.status == "ok" && r.protocol.is_none() && r.channels.is_none_or(|n| n == 1)
}

fn comparable_stream(r: &StreamRow) -> bool {
    r.status == "ok"
        && r.protocol.is_none()
        && r.channels.is_none_or(|n| n == 1)
        && r.direction == "h2p"
}

/// The size of `class` to summarise among `sizes`.
fn pick(class: &Class, sizes: impl Iterator<Item = u64>) -> Option<u64> {
    let inside: Vec<u64> = sizes.filter(|&s| (class.lo..=class.hi).contains(&s)).collect();
    if inside.contains(&class.usual) { Some(class.usual) } else { inside.into_iter().max() }
}

/// A link's figure before ranking: link, value, interval or why none,
/// marked.
type Candidate = (String, f64, Interval, bool);

/// A cell's repeat interval, or why it has none (`(None, None)`: no
/// replicate blocks).
type Interval = (Option<(f64, f64)>, Option<String>);

fn interval(r: &Option<crate::replicates::ReplicatesView>) -> Interval {
    r.as_ref().map_or((None, None), |v| (v.interval(), v.interval_note.clone()))
}

/// Ranks candidates: lowest first when `lower`, else highest; each with its
/// distance from the best.
fn rank(mut v: Vec<Candidate>, lower: bool) -> Vec<Entry> {
    v.retain(|e| e.1.is_finite() && e.1 > 0.0);
    v.sort_by(|a, b| if lower { a.1.total_cmp(&b.1) } else { b.1.total_cmp(&a.1) });
    let Some(best) = v.first().map(|e| e.1) else { return Vec::new() };
    v.into_iter()
        .map(|(link, value, (interval, interval_note), marked)| Entry {
            from_best: if lower { value / best } else { best / value },
            link,
            value,
            interval,
            interval_note,
            marked,
        })
        .collect()
}

/// The summary of a run's rows: its ping-pong and stream rows, the floor
/// measured with it (none for an imported run) and its verdict.
pub fn summarize(
    pingpong: &[PingPongRow],
    stream: &[StreamRow],
    meta: &icbench_model::RunMeta,
    imported: bool,
    verdict: Option<&crate::verdict::RunVerdict>,
) -> Summary {
    let classes = CLASSES
        .iter()
        .map(|c| {
            let pp: Vec<&PingPongRow> = pingpong.iter().filter(|r| comparable_pp(r)).collect();
            let latency = pick(c, pp.iter().map(|r| r.size_bytes)).map(|size| Ranking {
                size_bytes: size,
                entries: rank(
                    pp.iter()
                        .filter(|r| r.size_bytes == size)
                        .filter_map(|r| {
                            let p50 = r.rtt_ns.as_ref()?.summary.p50;
                            let iv = interval(&r.replicates);
                            Some((label(&r.link, &r.factors), p50, iv, marked_pp(r)))
                        })
                        .collect(),
                    true,
                ),
            });
            let st: Vec<&StreamRow> = stream.iter().filter(|r| comparable_stream(r)).collect();
            let throughput = pick(c, st.iter().map(|r| r.size_bytes)).map(|size| Ranking {
                size_bytes: size,
                entries: rank(
                    st.iter()
                        .filter(|r| r.size_bytes == size)
                        .filter_map(|r| {
                            let iv = interval(&r.replicates);
                            let marked = crate::marks::is_marked(
                                r.disturbance.as_ref(),
                                r.replicates.as_ref(),
                            );
                            Some((label(&r.link, &r.factors), r.bytes_per_s?, iv, marked))
                        })
                        .collect(),
                    false,
                ),
            });
            ClassSummary {
                class: c.name,
                latency: latency.filter(|r| !r.entries.is_empty()),
                throughput: throughput.filter(|r| !r.entries.is_empty()),
            }
        })
        .filter(|c: &ClassSummary| c.latency.is_some() || c.throughput.is_some())
        .collect::<Vec<_>>();
    let floor = meta.floor.as_ref().filter(|_| !imported).map(|f| {
        let (round_trip_ns, round_trip) = match f.two_line_rtt_ns {
            Some(t) => (t, "two-line round trip"),
            None => (f.cacheline_rtt_ns, "cache-line round trip"),
        };
        let best = |c: &str, lat: bool| {
            let c = classes.iter().find(|k| k.class == c)?;
            let r = if lat { c.latency.as_ref() } else { c.throughput.as_ref() };
            Some(r?.entries.first()?.value)
        };
        FloorRef {
            round_trip_ns,
            round_trip,
            memcpy_bytes_per_s: f.memcpy_bytes_per_s,
            small_round_trip_vs_floor: best(CLASSES[0].name, true)
                .map(|v| v / round_trip_ns)
                .filter(|r| r.is_finite()),
            large_stream_vs_memcpy: best(CLASSES[2].name, false)
                .map(|v| v / f.memcpy_bytes_per_s)
                .filter(|r| r.is_finite()),
        }
    });
    let verdict = verdict.filter(|v| v.verdict != "not judged").map(|v| v.text.clone());
    Summary { classes, floor, verdict }
}

fn marked_pp(r: &PingPongRow) -> bool {
    crate::marks::is_marked(r.disturbance.as_ref(), r.replicates.as_ref())
}

/// The link with the factors that tell its cells apart (not `rep`).
fn label(link: &str, factors: &std::collections::BTreeMap<String, String>) -> String {
    let extra: Vec<String> = factors
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "rep" | "link" | "pattern" | "size" | "direction"))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if extra.is_empty() { link.to_string() } else { format!("{link} ({})", extra.join(", ")) }
}

#[cfg(test)]
mod tests {
    use icbench_model::{
        CellData, CellKey, CellOutcome, CellResult, LatencyHistogram, LinkCounters, Pattern,
    };

    use super::*;

    fn data(p50: u64, bytes: u64, elapsed_ns: u64) -> CellData {
        let mut h = LatencyHistogram::new();
        for _ in 0..100 {
            h.record(p50);
        }
        CellData {
            messages: 100,
            bytes,
            elapsed_ns,
            warmup_messages: 0,
            latency: Some(h),
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
        }
    }

    fn pp(link: &str, size: u64, p50: u64) -> CellResult {
        CellResult {
            key: CellKey::new(link, Pattern::PingPong, size),
            outcome: CellOutcome::Measured(data(p50, 100 * size, 100 * p50)),
        }
    }

    fn stream(link: &str, size: u64, bytes_per_s: u64) -> CellResult {
        let mut key = CellKey::new(link, Pattern::Stream, size);
        key.factors.insert("direction".into(), "h2p".into());
        let mut d = data(1, bytes_per_s, 1_000_000_000);
        d.latency = None;
        CellResult { key, outcome: CellOutcome::Measured(d) }
    }

    /// Known answers: the lowest round trip and the highest rate win in
    /// their class, the others are × from them; a class uses 64 B, 4 KiB or
    /// 64 KiB when measured, else its largest size; classes without cells
    /// are left out.
    #[test]
    fn the_best_link_per_class_and_the_others_against_it() {
        let cells = vec![
            pp("shm", 64, 300),
            pp("pipe", 64, 30_000),
            pp("unix", 64, 15_000),
            pp("shm", 8, 250),
            pp("shm", 2048, 900),
            pp("pipe", 2048, 45_000),
            stream("shm", 65536, 8_000_000_000),
            stream("pipe", 65536, 2_000_000_000),
        ];
        let v = crate::view::build(1, &crate::testing::meta(), &cells);
        let s = v.summary.clone();
        let names: Vec<&str> = s.classes.iter().map(|c| c.class).collect();
        assert_eq!(names, ["small (≤ 64 B)", "medium (1–16 KiB)", "large (≥ 64 KiB)"]);

        let small = s.classes[0].latency.as_ref().unwrap();
        assert_eq!(small.size_bytes, 64, "the usual size, though 8 B was measured too");
        // (The histogram keeps 3 significant digits: ratios within 0.1 %.)
        let near = |got: &[Entry], want: &[(&str, f64)]| {
            assert_eq!(got.len(), want.len());
            for (g, (l, r)) in got.iter().zip(want) {
                assert!(g.link == *l && (g.from_best / r - 1.0).abs() < 1e-3, "{got:?}");
            }
        };
        near(&small.entries, &[("shm", 1.0), ("unix", 50.0), ("pipe", 100.0)]);
        assert!(s.classes[0].throughput.is_none());

        let medium = s.classes[1].latency.as_ref().unwrap();
        assert_eq!(medium.size_bytes, 2048, "no 4 KiB cell: the largest of the class");
        near(&medium.entries, &[("shm", 1.0), ("pipe", 50.0)]);

        let large = s.classes[2].throughput.as_ref().unwrap();
        near(&large.entries, &[("shm", 1.0), ("pipe", 4.0)]);
        assert!(s.classes[2].latency.is_none());
    }

    #[test]
    fn a_run_with_nothing_comparable_has_no_summary() {
        let v = crate::view::build(1, &crate::testing::meta(), &[]);
        assert!(v.summary.clone().classes.is_empty());
        let mut out = Vec::new();
        crate::table::summary(&v.summary.clone(), &mut out).unwrap();
        assert!(out.is_empty());
    }
}
