//! Importers: other tools' results as icbench cells, so `model`, `compare`
//! and `report` work on them — and sanity checks that flag what cannot be
//! true, as warnings stored with the imported run.
//!
//! Each format has a module with one `parse` function: text in, an
//! [`Imported`] out. Nothing here touches the store or prints; the `import`
//! command stores the result as a run with source `imported:<format>` and
//! its provenance. An import never pretends to be a measurement: a one-shot
//! value (a seed log line) becomes a cell with one sample, and its
//! statistics say there is no interval.
//!
//! Formats (shared/references 000, 001, 003, 004 and research notes):
//! [`seed`] (dimtass tty and netlink client logs, and the posts' tables),
//! [`xmitp`] (ADI rpmsg-xmit-p output), [`rst`] (ADI's benchmark tables as
//! published, reStructuredText), [`ti`] (TI rpmsg_char_benchmark
//! `histogram.txt`), [`cyclictest`] (`--json` and histogram text), [`plain`]
//! (CSV).

pub mod cyclictest;
pub mod plain;
pub mod rst;
pub mod seed;
pub mod ti;
pub mod xmitp;

use icbench_model::{
    CellData, CellKey, CellOutcome, CellResult, LatencyHistogram, LinkCounters, Pattern,
};

/// The formats `icbench import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    SeedTty,
    SeedNetlink,
    SeedTable,
    XmitP,
    AdiTable,
    TiHistogram,
    CyclictestJson,
    CyclictestHist,
    Csv,
}

impl Format {
    pub const ALL: [Format; 9] = [
        Format::SeedTty,
        Format::SeedNetlink,
        Format::SeedTable,
        Format::XmitP,
        Format::AdiTable,
        Format::TiHistogram,
        Format::CyclictestJson,
        Format::CyclictestHist,
        Format::Csv,
    ];

    /// The name on the command line and in the run's source.
    pub fn name(self) -> &'static str {
        match self {
            Format::SeedTty => "seed-tty",
            Format::SeedNetlink => "seed-netlink",
            Format::SeedTable => "seed-table",
            Format::XmitP => "xmit-p",
            Format::AdiTable => "adi-table",
            Format::TiHistogram => "ti-histogram",
            Format::CyclictestJson => "cyclictest-json",
            Format::CyclictestHist => "cyclictest-hist",
            Format::Csv => "csv",
        }
    }

    pub fn parse_name(s: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == s)
    }
}

/// What the caller knows that the file does not say.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The link to file the cells under; each format has a default.
    pub link: Option<String>,
    /// Message size in bytes, for formats whose output does not carry it
    /// (xmit-p's `-s`, rpmsg_char_benchmark's `-m`).
    pub size_bytes: Option<u64>,
}

/// The result of parsing a file.
#[derive(Debug, Clone, Default)]
pub struct Imported {
    pub cells: Vec<CellResult>,
    /// Sanity warnings: what cannot be true or is ambiguous in the input.
    pub warnings: Vec<String>,
    /// Facts about the source (machine, tool version, command line), for
    /// the run's notes.
    pub notes: Vec<String>,
    /// Host name, when the file records one.
    pub hostname: Option<String>,
    /// Kernel release, when the file records one.
    pub kernel_release: Option<String>,
}

/// The most cells one file makes. A cell with a latency histogram holds
/// it decoded, ≈ 256 KiB whatever it counts, so the cells a file may name
/// are bounded, not only its bytes: 300,000 distinct sizes in a 3.5 MB CSV
/// were on their way to 69 GB (30,000 took 6.9 GB and 16 s). The largest
/// real imports are a few hundred cells (a cyclictest file of every CPU,
/// a sweep of sizes × links × patterns); 4,096 take ≈ 1 GB at most.
pub const MAX_CELLS: usize = 4096;

/// Refuses a file's `n`-th cell past [`MAX_CELLS`], saying so.
pub(crate) fn check_cells(n: usize) -> Result<(), ImportError> {
    if n > MAX_CELLS {
        return Err(ImportError::Input(format!(
            "more than {MAX_CELLS} cells (a cell is one link, pattern and size) in one file: \
             split it, or check that it is the file you meant"
        )));
    }
    Ok(())
}

impl Imported {
    /// Adds a cell; refused past [`MAX_CELLS`].
    pub(crate) fn push(&mut self, cell: CellResult) -> Result<(), ImportError> {
        check_cells(self.cells.len() + 1)?;
        self.cells.push(cell);
        Ok(())
    }

    /// The metadata of a run imported from `format` at `now_unix_ns`: what
    /// the file records (host, kernel), and the rest unknown — icbench did
    /// not measure it, so no CPUs, clock or floor. `notes` go first.
    pub fn run_meta(
        &self,
        format: Format,
        mut notes: Vec<String>,
        now_unix_ns: i64,
        command_line: Vec<String>,
    ) -> icbench_model::RunMeta {
        let unknown = || "unknown".to_string();
        notes.extend(self.notes.iter().cloned());
        icbench_model::RunMeta {
            cpu_model: "unknown (imported)".to_string(),
            online_cpus: unknown(),
            host_cpu: 0,
            peer_cpu: 0,
            peer_mode: icbench_model::PeerMode::Process,
            sched: icbench_model::Sched::Other,
            mlock: false,
            kernel_release: self.kernel_release.clone().unwrap_or_else(unknown),
            governor: None,
            hostname: self.hostname.clone().unwrap_or_else(unknown),
            icbench_version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit: None,
            command_line,
            started_unix_ns: now_unix_ns,
            ended_unix_ns: Some(now_unix_ns),
            clock: format!("as recorded by the source tool ({})", format.name()),
            clock_overhead_ns: f64::NAN,
            clock_granule_ns: f64::NAN,
            status: icbench_model::RunStatus::Finished,
            floor: None,
            floor_tail: None,
            fast_counter: None,
            notes,
            label: None,
            user_note: None,
        }
    }
}

/// A file that cannot be read as the format says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error("line {line}: {msg}")]
    Line { line: usize, msg: String },
    #[error("{0}")]
    Input(String),
}

/// Parses `text` as `format`.
pub fn parse(format: Format, text: &str, opts: &Options) -> Result<Imported, ImportError> {
    let mut imp = match format {
        Format::SeedTty => seed::parse_log(text, opts, seed::Client::Tty),
        Format::SeedNetlink => seed::parse_log(text, opts, seed::Client::Netlink),
        Format::SeedTable => seed::parse_table(text, opts),
        Format::XmitP => xmitp::parse(text, opts),
        Format::AdiTable => rst::parse(text, opts),
        Format::TiHistogram => ti::parse(text, opts),
        Format::CyclictestJson => cyclictest::parse_json(text, opts),
        Format::CyclictestHist => cyclictest::parse_hist(text, opts),
        Format::Csv => plain::parse(text, opts),
    }?;
    if imp.cells.is_empty() {
        return Err(ImportError::Input(format!("no {} results found in the file", format.name())));
    }
    rate_sanity(&mut imp);
    Ok(imp)
}

/// Above this, no inter-core link's payload rate can be true (100 GB/s:
/// more than a DDR channel of the boards this tool targets, and than
/// memcpy on the hosts).
pub const MAX_PLAUSIBLE_BYTES_PER_S: f64 = 1e11;

/// Flags rates that no link can reach.
fn rate_sanity(imp: &mut Imported) {
    for c in &imp.cells {
        if let CellOutcome::Measured(d) = &c.outcome {
            let r = d.bytes_per_s();
            if r > MAX_PLAUSIBLE_BYTES_PER_S {
                imp.warnings.push(format!(
                    "{} {} {} B: {:.0} B/s cannot be true (above {:.0e} B/s, faster than memory); \
                     the tool's time measurement must have failed",
                    c.key.link, c.key.pattern, c.key.size_bytes, r, MAX_PLAUSIBLE_BYTES_PER_S
                ));
            }
        }
    }
}

/// A cell of `samples` single values (ns), each a sample of its own, kept
/// raw and in a histogram.
pub(crate) fn sample_cell(
    link: &str,
    pattern: Pattern,
    size_bytes: u64,
    samples: &[u64],
    bytes_per_sample: u64,
    blocks: Option<u32>,
) -> CellResult {
    let mut h = LatencyHistogram::new();
    samples.iter().for_each(|&v| h.record(v));
    CellResult {
        key: CellKey { blocks, ..CellKey::new(link, pattern, size_bytes) },
        outcome: CellOutcome::Measured(CellData {
            messages: samples.len() as u64,
            // Saturating at the store's largest integer, as in hist_cell:
            // a fuzzed seed table's times summed past u64::MAX (issue #30).
            bytes: bytes_per_sample.saturating_mul(samples.len() as u64).min(i64::MAX as u64),
            elapsed_ns: samples.iter().fold(0u64, |s, &v| s.saturating_add(v)).min(i64::MAX as u64),
            warmup_messages: 0,
            latency: Some(h),
            raw_ns: Some(samples.to_vec()),
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

/// A cell with a rate only: `bytes` moved in `elapsed_ns` by `channels`.
pub(crate) fn rate_cell(
    link: &str,
    size_bytes: u64,
    bytes: u64,
    elapsed_ns: u64,
    channels: u32,
) -> CellResult {
    CellResult {
        key: CellKey::new(link, Pattern::PingPong, size_bytes),
        outcome: CellOutcome::Measured(CellData {
            messages: bytes / size_bytes.max(1),
            bytes,
            elapsed_ns,
            warmup_messages: 0,
            latency: None,
            raw_ns: None,
            window: None,
            counters: LinkCounters::default(),
            channels: Some(channels),
            adaptive: None,
            per_channel: Vec::new(),
            disturbance: None,
            cut_at_messages: None,
            timed_batch: None,
            state: None,
        }),
    }
}

/// The most samples a histogram holds ([`icbench_model::MAX_COUNT`]).
pub const MAX_HISTOGRAM_COUNT: u64 = icbench_model::MAX_COUNT;

/// A cell from a histogram of (ns, count) buckets; an error when the
/// counts add up past [`MAX_HISTOGRAM_COUNT`].
pub(crate) fn hist_cell(
    link: &str,
    pattern: Pattern,
    size_bytes: u64,
    buckets: &[(u64, u64)],
) -> Result<CellResult, ImportError> {
    let total = buckets.iter().try_fold(0u64, |s, b| s.checked_add(b.1));
    if total.is_none_or(|t| t > MAX_HISTOGRAM_COUNT) {
        let biggest = buckets.iter().map(|b| b.1).max().unwrap_or(0);
        return Err(ImportError::Input(format!(
            "{link}: the histogram's counts add up past {MAX_HISTOGRAM_COUNT} (its largest bucket \
             counts {biggest}), more samples than a histogram holds: is the file damaged?"
        )));
    }
    let mut h = LatencyHistogram::new();
    buckets.iter().for_each(|&(v, n)| h.record_n(v, n));
    // Saturating at the largest integer the store keeps (i64::MAX): a
    // crafted count (2⁶² at 8 ns, #35) overflows the products, which wrapped
    // to 0 in a release build and panicked in a debug one.
    let cap = |x: u64| x.min(i64::MAX as u64);
    let messages = buckets.iter().fold(0u64, |s, b| s.saturating_add(b.1));
    Ok(CellResult {
        key: CellKey::new(link, pattern, size_bytes),
        outcome: CellOutcome::Measured(CellData {
            messages,
            bytes: cap(messages.saturating_mul(size_bytes)),
            elapsed_ns: cap(buckets
                .iter()
                .fold(0u64, |s, &(v, n)| s.saturating_add(v.saturating_mul(n)))),
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
        }),
    })
}

/// A number in a log, with its line for the error.
pub(crate) fn num<T: std::str::FromStr>(
    s: &str,
    line: usize,
    what: &str,
) -> Result<T, ImportError> {
    s.trim().parse().map_err(|_| ImportError::Line {
        line,
        msg: format!("{what} '{}' is not a number", quote(s.trim())),
    })
}

/// The most of an offending input an error quotes, in characters.
const QUOTE_MAX: usize = 60;

/// Input quoted in an error: control characters escaped (a file's
/// `ESC]0;…BEL` or `ESC[2J` must not reach the user's terminal) and cut at
/// [`QUOTE_MAX`] characters (a 100 MB line once went whole to stderr;
/// issue #22).
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == QUOTE_MAX {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}
