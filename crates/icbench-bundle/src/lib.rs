//! The bundle (issue #31 item 1): a set of runs in one self-describing JSON
//! file that another person can check, re-import and compare without the
//! store it came from — every run's metadata (the floor at head and tail,
//! the command line, the clock), its plan and settings, every cell as
//! stored (each block with its histograms, counters, disturbance and state
//! probe), its warnings, where it came from, and what could be read about
//! the machine; and a SHA-256 of the content, so that a file changed after
//! it was written is refused rather than shown.
//!
//! The format is versioned ([`SCHEMA`]) and published as a JSON Schema
//! (`docs/bundle.schema.json`, checked against bundles in the tests). A
//! histogram travels as its HdrHistogram V2 + deflate blob in base64, the
//! bytes the store keeps, so that `icbench import -f bundle` gives back the
//! same `show --json` but for the run numbers.
//!
//! Pure: values in, text out, and back. What the CLI reads from the store
//! and the machine it hands over as [`BundledRun`]s and [`Machine`]s.

use icbench_model::{CellResult, RunMeta};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The format's version: a reader refuses another.
pub const SCHEMA: u32 = 1;

/// The longest bundle read, bytes: a bundle of a thousand default runs is
/// well under it (a default run is ≈ 2 MB).
pub const MAX_BYTES: usize = 1 << 30;

/// The most latency histograms a bundle holds. Each is ≈ 256 KiB once
/// read (a `LatencyHistogram` keeps icbench's whole range however few
/// values it counts), so the bytes a bundle may have do not bound the
/// memory reading it takes: a hostile bundle of a few hundred MB could
/// take more than a machine has. 8,192 take ≈ 2 GiB; a default run has
/// about 550. Counted before any is decoded, and when a bundle is written.
pub const MAX_HISTOGRAMS: usize = 8192;

/// One bundle.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    /// The format's version ([`SCHEMA`]).
    pub icbench_bundle: u32,
    /// Who wrote the file, when.
    pub written: Written,
    /// The runs, in the order they were given.
    pub runs: Vec<BundledRun>,
    /// SHA-256 (hex) of the file's JSON with this field empty.
    pub content_sha256: String,
}

/// The program and host that wrote a bundle (not necessarily those that
/// measured its runs: each run's `meta` says that).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Written {
    pub icbench_version: String,
    pub git_commit: Option<String>,
    pub hostname: String,
    /// Wall clock, ns since the Unix epoch.
    pub unix_ns: i64,
}

/// One run as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BundledRun {
    /// `measured`, or `imported:<format>` for another tool's results.
    pub source: String,
    /// Where an imported run came from (its file and checksum).
    pub provenance: Option<String>,
    /// Where a merged run came from (`icbench merge`).
    pub origin: Option<String>,
    /// Everything recorded about the run besides its cells: host, kernel,
    /// CPU model and pair, scheduling, clock, the floor at head and tail,
    /// icbench's version and commit, the command line, the notes.
    pub meta: RunMeta,
    /// What the machine told when the bundle was written, if it was written
    /// on the host that measured the run.
    pub machine: Option<Machine>,
    /// The plan and the engine settings, as stored (`null` for an import).
    pub plan: Option<serde_json::Value>,
    pub settings: Option<serde_json::Value>,
    /// Sanity warnings stored with the run.
    pub warnings: Vec<String>,
    /// Every stored cell (each replicate block), in the order it finished.
    pub cells: Vec<CellResult>,
}

/// Facts about the machine a run's figures depend on that its metadata
/// does not hold (issue #31 item 1), read when the bundle was written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    /// The board from the device tree (`/proc/device-tree/model`).
    pub soc: Option<String>,
    /// The kernel's build: `PREEMPT_RT` in its version string.
    pub preempt_rt: Option<bool>,
    /// `CONFIG_HZ` from the kernel's configuration, where readable.
    pub hz: Option<u32>,
    /// `isolcpus=`, `nohz_full=`, `rcu_nocbs=` and `idle=` on the kernel's
    /// command line.
    pub isolation: Vec<String>,
    /// Why the CPUs are virtual (`icbench doctor`'s words), `null` when
    /// nothing says so.
    pub emulated: Option<String>,
}

/// Why a bundle cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("not an icbench bundle: {0}")]
    NotJson(String),
    #[error("bundle format {found}, this icbench reads format {SCHEMA}: use a matching icbench")]
    Version { found: u32 },
    #[error(
        "the bundle's content does not match its SHA-256 ({stated} stated, {actual} found): it was \
         changed or damaged after it was written; get it again from its source"
    )]
    Hash { stated: String, actual: String },
    #[error("the bundle is {0} bytes, more than the {MAX_BYTES} read")]
    TooLarge(usize),
    #[error(
        "the bundle holds {0} latency histograms, more than the {MAX_HISTOGRAMS} read at once \
         (each takes about 256 KiB of memory): bundle fewer runs a file"
    )]
    TooManyHistograms(usize),
}

impl Bundle {
    /// A bundle of `runs` with its hash.
    pub fn new(written: Written, runs: Vec<BundledRun>) -> Bundle {
        let mut b = Bundle { icbench_bundle: SCHEMA, written, runs, content_sha256: String::new() };
        b.content_sha256 = b.hash();
        b
    }

    /// The SHA-256 of the bundle's JSON with `content_sha256` empty.
    pub fn hash(&self) -> String {
        let unsealed = Bundle { content_sha256: String::new(), ..self.clone() };
        let bytes = serde_json::to_vec(&unsealed).expect("a bundle always serialises");
        Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The latency histograms the bundle holds (each cell's, each
    /// channel's), as [`MAX_HISTOGRAMS`] counts them.
    pub fn histograms(&self) -> usize {
        let of = |c: &CellResult| match &c.outcome {
            icbench_model::CellOutcome::Measured(d) => {
                usize::from(d.latency.is_some())
                    + d.per_channel.iter().filter(|ch| ch.latency.is_some()).count()
            }
            _ => 0,
        };
        self.runs.iter().flat_map(|r| &r.cells).map(of).sum()
    }

    /// The file's text: pretty JSON, one field a line.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a bundle always serialises");
        s.push('\n');
        s
    }

    /// Reads a bundle, refusing another format version and content that
    /// does not match its hash.
    pub fn parse(text: &str) -> Result<Bundle, BundleError> {
        if text.len() > MAX_BYTES {
            return Err(BundleError::TooLarge(text.len()));
        }
        let version: serde_json::Value =
            serde_json::from_str(text).map_err(|e| BundleError::NotJson(e.to_string()))?;
        let found = version.get("icbench_bundle").and_then(serde_json::Value::as_u64);
        match found {
            Some(v) if v == u64::from(SCHEMA) => {}
            Some(v) => {
                return Err(BundleError::Version { found: v.min(u64::from(u32::MAX)) as u32 });
            }
            None => return Err(BundleError::NotJson("no \"icbench_bundle\" version field".into())),
        }
        let n = histograms_in(&version);
        if n > MAX_HISTOGRAMS {
            return Err(BundleError::TooManyHistograms(n));
        }
        let b: Bundle =
            serde_json::from_value(version).map_err(|e| BundleError::NotJson(e.to_string()))?;
        let actual = b.hash();
        if actual != b.content_sha256 {
            return Err(BundleError::Hash { stated: b.content_sha256, actual });
        }
        Ok(b)
    }
}

/// The values under a key `latency` that are not null, anywhere in a
/// bundle's JSON: the histograms reading it would decode. serde_json has
/// unescaped the keys, so a key spelt with escapes is counted too.
fn histograms_in(v: &serde_json::Value) -> usize {
    use serde_json::Value;
    let mut n = 0;
    let mut todo = vec![v];
    while let Some(v) = todo.pop() {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    n += usize::from(k == "latency" && !x.is_null());
                    todo.push(x);
                }
            }
            Value::Array(a) => todo.extend(a),
            _ => {}
        }
    }
    n
}

impl Machine {
    /// The facts from the machine's files: `device_tree_model` (its
    /// `/proc/device-tree/model`, NUL-terminated), the kernel's version
    /// string (`/proc/sys/kernel/version`), its configuration text
    /// (`/proc/config.gz` unpacked, or `/boot/config-RELEASE`), its command
    /// line (`/proc/cmdline`), and the doctor's reason for calling the
    /// CPUs virtual.
    pub fn from_files(
        device_tree_model: Option<&str>,
        kernel_version: Option<&str>,
        kernel_config: Option<&str>,
        cmdline: Option<&str>,
        emulated: Option<String>,
    ) -> Machine {
        let soc = device_tree_model
            .map(|m| m.trim_end_matches('\0').trim().to_string())
            .filter(|m| !m.is_empty());
        let preempt_rt = kernel_version.map(|v| v.contains("PREEMPT_RT"));
        let hz = kernel_config.and_then(|c| {
            c.lines().find_map(|l| l.trim().strip_prefix("CONFIG_HZ=")?.parse::<u32>().ok())
        });
        let isolation = cmdline
            .map(|c| {
                c.split_whitespace()
                    .filter(|w| {
                        ["isolcpus=", "nohz_full=", "rcu_nocbs=", "idle="]
                            .iter()
                            .any(|p| w.starts_with(p))
                    })
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        Machine { soc, preempt_rt, hz, isolation, emulated }
    }
}

#[cfg(test)]
mod tests;
