//! `icbench chip`: the two cores of one microcontroller measured on-chip
//! (issue #16, docs/on-chip.md). icbench asks the initiator core what the
//! chip offers, builds the cells — pattern × size × direction × region ×
//! notify — and stores each result as an ordinary cell, so that `show`,
//! `model`, `effects`, `compare` and `report` read it like any run.
//! `--plan FILE` (`plan.rs`) takes the factors from a file, with
//! repetitions in a random order.

mod flash;
mod plan;
mod record;

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, Result};
use icbench_engine::onchip::{Chip, ChipCell, OnChipDirection, notify, probe_chip, run_chip};
use icbench_engine::{Budget, EngineConfig, LinkRun, PeerLaunch, Protocol};
use icbench_link::LinkSpec;
use icbench_model::{CellOutcome, Pattern, PeerMode, RunStatus, Sched};

use crate::cli::{ChipArgs, CpuArgs};
use crate::cmd::run::{STOP, install_sigint};
use crate::cmd::show::{load_view, open_store};
use crate::error::bad;
use crate::meta::{self, Placement};
use crate::sizes;

fn list(flag: &str, s: &str) -> Result<Vec<String>> {
    let v: Vec<String> =
        s.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect();
    if v.is_empty() {
        return Err(bad(format!("{flag} '{s}': give at least one value (comma list)")));
    }
    Ok(v)
}

fn patterns(s: &str) -> Result<Vec<Pattern>> {
    list("-p", s)?
        .iter()
        .map(|p| match p.parse::<Pattern>() {
            Ok(p @ (Pattern::PingPong | Pattern::OneWay | Pattern::Stream | Pattern::Bulk)) => {
                Ok(p)
            }
            _ => {
                Err(bad(format!("-p {p}: on chip the patterns are pingpong, oneway, stream, bulk")))
            }
        })
        .collect()
}

fn directions(s: &str) -> Result<Vec<OnChipDirection>> {
    list("--direction", s)?
        .iter()
        .map(|d| match d.as_str() {
            "i2a" => Ok(OnChipDirection::I2a),
            "a2i" => Ok(OnChipDirection::A2i),
            _ => Err(bad(format!(
                "--direction {d}: use i2a (initiator → agent) or a2i (agent → initiator)"
            ))),
        })
        .collect()
}

fn notifies(s: &str) -> Result<Vec<u8>> {
    list("--notify", s)?
        .iter()
        .map(|n| {
            notify::NAMES
                .iter()
                .find(|(_, name)| name == n)
                .map(|(b, _)| *b)
                .ok_or_else(|| bad(format!("--notify {n}: use poll, doorbell or event")))
        })
        .collect()
}

/// What the command line (or the plan) asks for, checked before anything
/// is opened.
struct Ask {
    patterns: Vec<Pattern>,
    sizes: Vec<u32>,
    directions: Vec<OnChipDirection>,
    regions: Option<Vec<String>>,
    notifies: Vec<u8>,
    count: u32,
    warmup: u32,
    window: u32,
    blocks: u32,
    repetitions: u32,
    /// The random order's seed; `None`: the declared order.
    seed: Option<u64>,
    /// Where the cells came from, for the run's notes.
    source: String,
    raw: bool,
    /// Firmware images, each a level of the `image` factor (none: the
    /// chip as it is).
    images: Vec<String>,
}

/// The flags, with a plan's factors and settings in their place.
fn ask(a: &ChipArgs) -> Result<Ask> {
    let Some(path) = &a.plan else { return ask_lists(Lists::of(a), None) };
    let p = plan::read(path)?;
    let f = &p.factors;
    let or = |l: &Option<plan::Levels>, d: &str| l.as_ref().map_or(d.to_string(), |l| l.joined());
    let lists = Lists {
        patterns: or(&f.pattern, &a.patterns),
        sizes: or(&f.size, &a.sizes),
        directions: or(&f.direction, &a.direction),
        regions: match &f.region {
            Some(l) if l.joined() == "all" => None,
            Some(l) => Some(l.joined()),
            None => a.region.clone(),
        },
        notifies: or(&f.notify, &a.notify),
        count: p.count.unwrap_or(a.count),
        warmup: p.warmup.unwrap_or(a.warmup),
        window: p.window.unwrap_or(a.window),
        blocks: p.blocks.unwrap_or(a.blocks),
        repetitions: p.repetitions.unwrap_or(1),
        raw: a.raw,
        images: f.image.as_ref().map(|l| l.joined()).or_else(|| a.image.clone()),
    };
    let seed = match p.order.as_deref() {
        None | Some("random") => Some(p.seed.unwrap_or_else(|| meta::now_unix_ns() as u64)),
        Some("declared") => None,
        Some(o) => {
            return Err(bad(format!(
                "--plan {}: order '{o}': use random or declared",
                path.display()
            )));
        }
    };
    let name = p.name.clone().unwrap_or_else(|| path.display().to_string());
    ask_lists(lists, Some((name, seed)))
}

/// The comma lists and numbers an `Ask` is made from.
struct Lists {
    patterns: String,
    sizes: String,
    directions: String,
    regions: Option<String>,
    notifies: String,
    count: u32,
    warmup: u32,
    window: u32,
    blocks: u32,
    repetitions: u32,
    raw: bool,
    images: Option<String>,
}

impl Lists {
    fn of(a: &ChipArgs) -> Lists {
        Lists {
            patterns: a.patterns.clone(),
            sizes: a.sizes.clone(),
            directions: a.direction.clone(),
            regions: a.region.clone(),
            notifies: a.notify.clone(),
            count: a.count,
            warmup: a.warmup,
            window: a.window,
            blocks: a.blocks,
            repetitions: 1,
            raw: a.raw,
            images: a.image.clone(),
        }
    }
}

fn ask_lists(l: Lists, plan: Option<(String, Option<u64>)>) -> Result<Ask> {
    let sizes = sizes::parse(&l.sizes).map_err(|e| bad(format!("-s: {e}")))?;
    let sizes = sizes
        .into_iter()
        .map(|s| u32::try_from(s).map_err(|_| bad(format!("-s: {s} B is past 4 GiB"))))
        .collect::<Result<Vec<u32>>>()?;
    if l.count == 0 {
        return Err(bad("--count 0: a cell measures at least one repetition"));
    }
    if l.window == 0 || l.blocks == 0 || l.repetitions == 0 {
        return Err(bad("--window, --blocks and a plan's repetitions are at least 1"));
    }
    let (source, seed) = match plan {
        Some((name, seed)) => (format!("plan {name}"), seed),
        None => ("flags".to_string(), None),
    };
    let ask = Ask {
        patterns: patterns(&l.patterns)?,
        sizes,
        directions: directions(&l.directions)?,
        regions: l.regions.as_deref().map(|r| list("--region", r)).transpose()?,
        notifies: notifies(&l.notifies)?,
        count: l.count,
        warmup: l.warmup,
        window: l.window,
        blocks: l.blocks,
        repetitions: l.repetitions,
        seed,
        source,
        raw: l.raw,
        images: match l.images.as_deref() {
            Some(i) => list("--image", i)?,
            None => Vec::new(),
        },
    };
    // The chip's regions are not known yet: counted again once it answers.
    check_count(&ask, ask.regions.as_ref().map_or(1, Vec::len))?;
    Ok(ask)
}

/// Refuses more cells than a plan may have (`icbench_plan::expand::MAX_CELLS`)
/// before they are built, in one line that says the count (issue #30 item
/// 6, here for `chip --plan`: `repetitions = 4294967295` built cells until
/// the machine ran out of memory, 7 GB in 20 s, with nothing said).
fn check_count(ask: &Ask, regions: usize) -> Result<()> {
    let max = icbench_plan::expand::MAX_CELLS;
    let treatments = [
        ask.patterns.len(),
        ask.sizes.len(),
        ask.directions.len(),
        ask.notifies.len(),
        ask.images.len().max(1),
        regions,
    ]
    .into_iter()
    .try_fold(1usize, usize::checked_mul);
    let total = treatments.and_then(|t| t.checked_mul(ask.repetitions as usize));
    match (treatments, total) {
        (Some(_), Some(n)) if n <= max => Ok(()),
        (Some(t), _) => Err(bad(format!(
            "{t} on-chip cells × {} repetitions is more than {max} cells: fewer repetitions or \
             fewer levels",
            ask.repetitions
        ))),
        (None, _) => {
            Err(bad(format!("the levels make more than {max} on-chip cells: fewer levels")))
        }
    }
}

/// Every cell: pattern, region, notify, direction, size (and repetition),
/// in that order or shuffled by the plan's seed.
fn cells(ask: &Ask, chip: &Chip) -> Vec<ChipCell> {
    let regions = ask.regions.clone().unwrap_or_else(|| chip.regions.clone());
    let mut out = Vec::new();
    let images: Vec<Option<String>> = if ask.images.is_empty() {
        vec![None]
    } else {
        ask.images.iter().cloned().map(Some).collect()
    };
    for rep in 1..=ask.repetitions {
        let rep = if ask.repetitions > 1 { rep } else { 0 };
        for image in &images {
            let from = out.len();
            declared(ask, &regions, rep, &mut out);
            out[from..].iter_mut().for_each(|c| c.image = image.clone());
        }
    }
    if let Some(seed) = ask.seed {
        let mut rng = icbench_stats::Resampler::new(seed);
        for i in (1..out.len()).rev() {
            let j = rng.index_below(i + 1);
            out.swap(i, j);
        }
    }
    out
}

fn declared(ask: &Ask, regions: &[String], rep: u32, out: &mut Vec<ChipCell>) {
    for &pattern in &ask.patterns {
        for region in regions {
            for &notify in &ask.notifies {
                for &direction in &ask.directions {
                    for &size_bytes in &ask.sizes {
                        out.push(ChipCell {
                            pattern,
                            size_bytes,
                            blocks: ask.blocks,
                            direction,
                            region: region.clone(),
                            notify,
                            count: ask.count,
                            warmup: ask.warmup,
                            window: ask.window,
                            rep,
                            raw: ask.raw,
                            image: None,
                        });
                    }
                }
            }
        }
    }
}

fn engine(
    a: &ChipArgs,
    ask: &Ask,
    timeout: Duration,
    host: u32,
    peer: u32,
) -> Result<EngineConfig> {
    let peer_cmd = a
        .peer_cmd
        .as_deref()
        .map(|c| c.split_whitespace().map(str::to_string).collect::<Vec<String>>());
    if peer_cmd.as_ref().is_some_and(Vec::is_empty) {
        return Err(bad("--peer-cmd '': give the program to start"));
    }
    Ok(EngineConfig {
        host_cpu: host,
        peer_cpu: peer,
        peer: PeerLaunch::Thread,
        fifo: None,
        timeout,
        budget: Budget {
            cell_time: Duration::from_secs(1),
            raw: false,
            window: ask.window,
            ci_target: None,
            ci_max_time: Duration::ZERO,
            channel_stagger: Duration::ZERO,
            clock_granule_ns: f64::NAN,
        },
        fault: None,
        stop: &STOP,
        protocol: Some(Protocol::Icb),
        peer_cmd,
        state_probe: false,
    })
}

/// What the run's notes say of the chip.
fn describe(chip: &Chip) -> Vec<String> {
    let modes: Vec<&str> =
        notify::NAMES.iter().filter(|(b, _)| chip.notify & b != 0).map(|(_, n)| *n).collect();
    let mut notes = vec![format!(
        "on chip: {} cores, a shared timer at {} Hz, regions {}, notify {}, messages up to {} B; \
         latencies are the chip's timer ticks in ns",
        chip.cores,
        chip.timer_hz,
        chip.regions.join(", "),
        modes.join(", "),
        chip.max_size
    )];
    if !chip.labels.is_empty() {
        let l: Vec<String> = chip.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        notes.push(format!("firmware built with: {}", l.join(", ")));
    }
    if chip.labels.iter().any(|(k, _)| k == "emulated") {
        notes.push("emulated: the timings mean nothing, the path is what was tested".into());
    }
    notes
}

pub fn chip(a: &ChipArgs) -> Result<ExitCode> {
    meta::check_text("--label", a.label.as_deref(), meta::MAX_LABEL)?;
    let ask = ask(a)?;
    let spec = LinkSpec::parse(&a.link).map_err(|e| bad(format!("-L {}: {e}", a.link)))?;
    if !spec.is_remote() && a.peer_cmd.is_none() {
        return Err(bad(format!(
            "-L {spec}: a local link has no chip behind it: give --peer-cmd \
             'firmware/build/icb-peer --onchip 0,1 --path {{path}}' (the host build), or a \
             serial: or tty: link to the board"
        )));
    }
    let timeout = sizes::duration(&a.timeout).map_err(|e| bad(format!("--timeout: {e}")))?;
    if timeout < icbench_engine::MIN_TIMEOUT {
        return Err(bad(format!("--timeout {}: below the shortest honoured, 100ms", a.timeout)));
    }
    let (host, peer, usable) = crate::cmd::resolve_cpus(&CpuArgs { cpus: None })?;
    let cfg = engine(a, &ask, timeout, host, peer)?;
    let flash_argv = flash::check(&ask.images, a.flash_cmd.as_deref())?;
    install_sigint();
    // The first image on the chip, then what it offers decides the default
    // regions; a cell it cannot run is refused here, before a run exists.
    let mut on_chip = None;
    if let (Some(argv), Some(first)) = (&flash_argv, ask.images.first()) {
        flash::flash(argv, first).map_err(|why| bad(format!("flashing {first}: {why}")))?;
        on_chip = Some(first.clone());
    }
    let chip = probe_chip(&cfg, &spec).map_err(bad)?;
    check_count(&ask, ask.regions.as_ref().map_or(chip.regions.len(), Vec::len))?;
    let mut cells = cells(&ask, &chip);
    if let Some(why) = cells
        .iter()
        .filter(|c| c.image == on_chip)
        .find_map(|c| icbench_engine::onchip::refuse(&chip, c))
    {
        return Err(bad(why));
    }
    // Start with the image on the chip: one flash fewer.
    if let Some(i) = cells.iter().position(|c| c.image == on_chip) {
        cells[..=i].rotate_right(1);
    }
    let mut store = open_store(&a.db.db)?;
    let placement = Placement {
        host_cpu: host,
        peer_cpu: peer,
        online: usable.text,
        peer_mode: PeerMode::Process,
        sched: Sched::Other,
        mlock: false,
    };
    let clock = format!("the chip's shared timer, {} Hz", chip.timer_hz);
    let mut meta = meta::gather(&placement, &clock, 0.0, 1e9 / f64::from(chip.timer_hz));
    meta.label = a.label.clone();
    meta.notes.extend(describe(&chip));
    meta.notes.push(match ask.seed {
        Some(seed) => format!(
            "cells from {}: {} repetition(s), random order (seed {seed})",
            ask.source, ask.repetitions
        ),
        None => {
            format!("cells from {}: {} repetition(s), declared order", ask.source, ask.repetitions)
        }
    });
    let id = store.begin_run(&meta)?;
    let _claim = crate::claim::run(&a.db.db, id)?;
    crate::errln!(
        "icbench: run {id}: {} on-chip cells through {spec} ({} repetitions each)",
        cells.len(),
        ask.count
    );
    let mut obs = record::Recorder::new(&mut store, id, cells.len());
    let mut put = |image: &str| match &flash_argv {
        Some(argv) => flash::flash(argv, image),
        None => Err("no --flash-cmd".to_string()),
    };
    let how = run_chip(&cfg, &spec, &cells, &mut obs, on_chip, &mut put);
    obs.end();
    let record::Recorder { cells: measured, notes: mut engine_notes, error, .. } = obs;
    if let Some(e) = error {
        let _ =
            store.finish_run(id, RunStatus::Interrupted, meta::now_unix_ns(), None, &meta.notes);
        return Err(
            e.context("storing a cell; the run stopped, and every cell stored before it is kept")
        );
    }
    meta.notes.append(&mut engine_notes);
    let interrupted = how == LinkRun::Interrupted || STOP.load(Ordering::SeqCst);
    let status = if interrupted { RunStatus::Interrupted } else { RunStatus::Finished };
    store.finish_run(id, status, meta::now_unix_ns(), None, &meta.notes)?;
    crate::cmd::run::restore_default_signals();
    let (_, view) = load_view(&store, &a.db.db, &id.0.to_string())?;
    let mut out = crate::term::stdout();
    if a.db.json {
        icbench_report::json::run(&view, &mut out)?;
    } else {
        icbench_report::table::run(&view, &mut out, crate::cmd::show::detail(a.cells))
            .context("writing the tables")?;
    }
    let failed = measured.iter().filter(|c| !matches!(c.outcome, CellOutcome::Measured(_))).count();
    if interrupted {
        crate::errln!("icbench: interrupted: run {id} keeps what was measured");
        return Ok(crate::cmd::run::interrupted_exit());
    }
    if failed > 0 {
        crate::errln!(
            "icbench: run {id}: {failed} of {} cells failed (reasons in the table)",
            cells.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}
