//! The arguments of the commands that read and write stored runs: list,
//! show, model, compare, effects, export, import, bundle, site, report,
//! label and merge.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::DbArgs;

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The databases (or `icbench bundle` files) to merge in; they are
    /// only read.
    #[arg(required = true, value_name = "OTHER.db")]
    pub others: Vec<PathBuf>,
    /// The board (or lab place) the databases come from, recorded with each
    /// run (default: each file's name, or its directory's for icbench.db;
    /// two files that would be one board are refused).
    #[arg(long, value_name = "NAME")]
    pub board: Option<String>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct RunsArgs {
    /// Only the runs with this label (`run --label`).
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Run number, or `latest`.
    #[arg(default_value = "latest")]
    pub run: String,
    /// Print every statistic of every cell (count, min, mean, stddev, p50,
    /// p90, p99, p99.9, max, 95 % CIs of mean and median, outliers).
    #[arg(long)]
    pub stats: bool,
    /// Every cell's table (ping-pong, stream, bulk, channels, oneway, CPU
    /// pairs) above the summary; the default prints the summary alone.
    #[arg(long, conflicts_with_all = ["stats", "targets"])]
    pub cells: bool,
    /// The run's targets: each ratio against the floor measured in the same
    /// run, what is required, and whether the run shows it met.
    #[arg(long, conflicts_with_all = ["stats", "blocks"])]
    pub targets: bool,
    /// One row per measured block instead of per cell: a cell's replicate
    /// blocks (`run --replicates`, a plan's repetitions) each with its own
    /// figures and `rep` factor, in the order they were stored.
    #[arg(long)]
    pub blocks: bool,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Run number, or `latest`.
    #[arg(default_value = "latest")]
    pub run: String,
    /// Only this link (as stored, e.g. `shm?wait=futex`); repeat for several.
    #[arg(long = "link", short = 'L', value_name = "SPEC")]
    pub links: Vec<String>,
    /// Only this pattern: pingpong, stream or bulk.
    #[arg(long, short = 'p', value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// Also predict the time at this size (e.g. 8K).
    #[arg(long, value_name = "SIZE")]
    pub predict: Option<String>,
    /// Also say where each pair of links of one pattern cross: between
    /// which measured sizes their order flips, and where their lines meet.
    #[arg(long)]
    pub crossover: bool,
    /// Only the cells with this factor level, e.g. `transfer=10000000` (an
    /// imported ADI table's transfer size) or `wait=futex`; repeat for
    /// several (all must hold).
    #[arg(long = "where", value_name = "FACTOR=LEVEL")]
    pub where_: Vec<String>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// One line per cell with every statistic.
    Csv,
    /// The run's view, as `show --json` prints it.
    Json,
    /// Each latency histogram as HdrHistogram's percentile distribution (µs).
    Hgrm,
    /// The run as `show` prints it, its tables in GitHub markdown, for
    /// pasting into issues and reviews.
    Md,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Run number, or `latest`.
    #[arg(default_value = "latest")]
    pub run: String,
    /// What to write: csv (one line per cell, every statistic), json (as
    /// `show --json`), hgrm (each latency histogram's percentiles, µs) or
    /// md (as `show` prints it, tables in GitHub markdown).
    #[arg(long, short = 'f', value_enum)]
    pub format: ExportFormat,
    /// Write to this file instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Results database (SQLite).
    #[arg(long, env = "ICBENCH_DB", default_value = "icbench.db", value_name = "PATH")]
    pub db: PathBuf,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The file to import.
    pub file: PathBuf,
    /// Its format: seed-tty or seed-netlink (a log of dimtass's STM32MP1
    /// rpmsg tty or netlink test client), seed-table (the tables of their
    /// posts), xmit-p, adi-table (ADI's benchmark page as published),
    /// ti-histogram, cyclictest-json, cyclictest-hist, csv, or bundle (an
    /// `icbench bundle` file: its runs stored as they were).
    #[arg(long, short = 'f', value_name = "FORMAT")]
    pub format: String,
    /// File the cells under this link name (each format has a default).
    #[arg(long, short = 'L', value_name = "NAME")]
    pub link: Option<String>,
    /// Message size the file does not record (xmit-p's -s, TI's -m), e.g. 496.
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct BundleArgs {
    /// Runs to bundle (numbers or `latest`).
    #[arg(default_value = "latest", value_name = "RUN")]
    pub runs: Vec<String>,
    /// The bundle file to write (JSON; docs/bundle.schema.json).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct SiteArgs {
    /// The bundles (`icbench bundle` files, e.g. results/*.json).
    #[arg(required = true, value_name = "BUNDLE")]
    pub bundles: Vec<PathBuf>,
    /// The directory to write the site into (made if missing).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Runs to report (numbers or `latest`); with several, a comparison
    /// section compares each with the first.
    #[arg(default_value = "latest", value_name = "RUN")]
    pub runs: Vec<String>,
    /// The HTML file to write.
    #[arg(long, short = 'o', default_value = "report.html", value_name = "FILE")]
    pub output: PathBuf,
    /// Also write each figure as its own SVG file into this directory.
    #[arg(long, value_name = "DIR")]
    pub svg: Option<PathBuf>,
    /// Results database (SQLite).
    #[arg(long, env = "ICBENCH_DB", default_value = "icbench.db", value_name = "PATH")]
    pub db: PathBuf,
}

#[derive(Debug, Args)]
pub struct LabelArgs {
    /// The run (a number or `latest`).
    #[arg(value_name = "RUN")]
    pub run: String,
    /// Its new label, at most 200 characters; `compare --baseline NAME`
    /// and `runs --label NAME` find it by this.
    #[arg(value_name = "NAME", required_unless_present = "remove")]
    pub name: Option<String>,
    /// Take the run's label away instead.
    #[arg(long, conflicts_with = "name")]
    pub remove: bool,
    /// Results database (SQLite).
    #[arg(long, env = "ICBENCH_DB", default_value = "icbench.db", value_name = "PATH")]
    pub db: PathBuf,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Runs to compare (numbers or `latest`); the first is the baseline.
    /// With one run, give two or more --link to compare links within it.
    #[arg(required_unless_present = "baseline", value_name = "RUN")]
    pub runs: Vec<String>,
    /// Compare against the latest run labelled NAME (`run --label NAME`):
    /// it becomes the baseline, before the runs given (default: `latest`).
    #[arg(long, value_name = "NAME", conflicts_with = "links")]
    pub baseline: Option<String>,
    /// With one run: a link to compare; the first is the baseline.
    #[arg(long = "link", short = 'L', value_name = "SPEC")]
    pub links: Vec<String>,
    /// Exit 1 when any cell is shown slower than its baseline by more than
    /// this (e.g. 10%), naming each: a regression gate for CI.
    #[arg(long, value_name = "PCT")]
    pub fail_if_slower: Option<String>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EffectsMetric {
    /// The cells' p50 latency (ns).
    Latency,
    /// The cells' payload bytes per second.
    Bandwidth,
    /// Both, one after the other.
    Both,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EffectsScale {
    /// Analyse ln(response): geometric means, effects as ratios (×).
    Log,
    /// Analyse the response itself: effects as differences in its unit.
    Linear,
}

#[derive(Debug, Args)]
#[command(after_help = "Factors are link, pattern, size, protocol, blocks, channels and every \
                        factor of a plan; cells differing only in `rep` are replicates. \
                        Example: icbench effects 7 --metric latency --where pattern=pingpong")]
pub struct EffectsArgs {
    /// Run number, or `latest`. Several runs are analysed as one design
    /// with what sets them apart as a factor: `board` when they come from
    /// different boards (`icbench merge --board`), else `run`.
    #[arg(default_value = "latest", value_name = "RUN")]
    pub runs: Vec<String>,
    /// The response to analyse.
    #[arg(long, value_enum, default_value = "both")]
    pub metric: EffectsMetric,
    /// The scale: log (relative effects, the default: latencies and rates
    /// differ by factors, not by fixed amounts) or linear.
    #[arg(long, value_enum, default_value = "log")]
    pub scale: EffectsScale,
    /// Only cells whose FACTOR has this level (repeat: the same factor means
    /// either level, different factors both), e.g. `--where pattern=pingpong`.
    #[arg(long = "where", value_name = "FACTOR=LEVEL")]
    pub filters: Vec<String>,
    #[command(flatten)]
    pub db: DbArgs,
}
