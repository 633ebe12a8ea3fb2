//! A run from flags: `icbench run -L … -p … -s …` resolved into a plan
//! (links × patterns × sizes, each in `--replicates` blocks interleaved in
//! a random order, or in listed order with one block so that a link's cells
//! share one peer) and the run's settings. Every bad value is caught here, before
//! anything is measured or stored.

use anyhow::Result;
use icbench_engine::{CellSpec, Fault, Protocol};
use icbench_link::LinkSpec;
use icbench_model::{Direction, Pattern, PeerMode};
use icbench_plan::{Order, Plan, PlanCell};

use super::settings::Settings;
use crate::cli::{DirectionArg, PatternArg, PeerKind, ProtocolArg, RunArgs};
use crate::cmd::resolve_cpus;
use crate::error::bad;
use crate::sizes;

/// What the flags resolve to.
pub(crate) struct FromFlags {
    pub plan: Plan,
    pub settings: Settings,
    pub fault: Option<Fault>,
    /// Run notes the flags imply (peer program, emulation).
    pub notes: Vec<String>,
    /// The plan file gave its seed (a flag run has a listed order).
    pub seeded: bool,
}

/// Seed 000's bulk matrix: block size × blocks (embedded-ipc-anchors §1).
const SEED_000_BULK: [(u64, u32); 11] = [
    (512, 1),
    (512, 2),
    (512, 4),
    (512, 8),
    (1024, 1),
    (1024, 2),
    (1024, 4),
    (1024, 5),
    (2048, 1),
    (2048, 2),
    (4096, 1),
];
/// Seed 001's sizes: 512 B … 32 KiB, one write each.
const SEED_001_SIZES: &str = "512-32K";

fn protocol_of(p: Option<ProtocolArg>) -> Option<Protocol> {
    p.map(|p| match p {
        ProtocolArg::Icb => Protocol::Icb,
        ProtocolArg::Dimtass => Protocol::Dimtass,
        ProtocolArg::Raw => Protocol::Raw,
    })
}

fn resolve_links(a: &RunArgs, protocol: Option<Protocol>) -> Result<Vec<LinkSpec>> {
    let links: Vec<LinkSpec> = if a.links.is_empty() {
        LinkSpec::defaults()
    } else {
        a.links
            .iter()
            .map(|s| LinkSpec::parse(s).map_err(|e| bad(format!("--link {s}: {e}"))))
            .collect::<Result<_>>()?
    };
    for l in &links {
        match (protocol, l.is_remote(), &a.peer_cmd) {
            (None, true, _) => {
                return Err(bad(format!(
                    "--link {l}: the peer of a remote link is the firmware on the device; \
                     say how to talk to it: --protocol icb, dimtass or raw"
                )));
            }
            (Some(p), false, None) => {
                return Err(bad(format!(
                    "--link {l} with --protocol {p}: icbench's own peer speaks only its local \
                     protocol; start a peer that speaks {p} with --peer-cmd, e.g. \
                     --peer-cmd 'firmware/build/icb-peer --path {{path}} --protocol {p}'"
                )));
            }
            _ => {}
        }
        if let Some(why) = l.single_instance().filter(|_| a.channels > 1) {
            return Err(bad(format!(
                "--channels {} with --link {l}: each channel needs its own instance of the link, \
                 but {why}",
                a.channels
            )));
        }
    }
    Ok(links)
}

fn resolve_cells(a: &RunArgs, protocol: Option<Protocol>) -> Result<Vec<CellSpec>> {
    let patterns: Vec<Pattern> = if a.patterns.is_empty() {
        match protocol {
            Some(Protocol::Dimtass) => vec![Pattern::Bulk, Pattern::PingPong],
            Some(Protocol::Raw) => vec![Pattern::PingPong],
            _ if a.blocks.is_some() => vec![Pattern::Bulk],
            _ => Pattern::ALL.to_vec(),
        }
    } else {
        a.patterns
            .iter()
            .map(|p| match p {
                PatternArg::Pingpong => Pattern::PingPong,
                PatternArg::Stream => Pattern::Stream,
                PatternArg::Bulk => Pattern::Bulk,
                PatternArg::Oneway => Pattern::OneWay,
            })
            .collect()
    };
    let pname = protocol.map_or("the local control protocol", Protocol::as_str);
    for &p in &patterns {
        if !icbench_engine::supports(protocol, p) {
            let offered: Vec<&str> =
                [Pattern::PingPong, Pattern::Stream, Pattern::Bulk, Pattern::OneWay]
                    .into_iter()
                    .filter(|&q| icbench_engine::supports(protocol, q))
                    .map(Pattern::as_str)
                    .collect();
            return Err(bad(format!(
                "--pattern {p}: not available with {pname}; it offers {}",
                offered.join(", ")
            )));
        }
    }
    let (oneway_dirs, stream_dirs) = directions(a, protocol, &patterns)?;
    let (blocks, block_pairs) = match &a.blocks {
        None => (None, Vec::new()),
        Some(_) if !patterns.contains(&Pattern::Bulk) => {
            return Err(bad("--blocks: only the bulk pattern has blocks (add -p bulk)"));
        }
        Some(b) => blocks_arg(b)?,
    };
    let sizes_of = |default: &str| {
        let s = a.sizes.as_deref().unwrap_or(default);
        sizes::parse(s).map_err(|e| bad(format!("--sizes: {e}")))
    };
    let mut cells = Vec::new();
    for &p in &patterns {
        match p {
            Pattern::Bulk if blocks.is_none() && block_pairs.is_empty() && a.sizes.is_none() => {
                cells.extend(SEED_000_BULK.iter().map(|&(size_bytes, n)| CellSpec {
                    blocks: Some(n),
                    ..CellSpec::new(p, size_bytes)
                }));
            }
            Pattern::Bulk => {
                // Counts cross the sizes; `SIZE×N` pairs are cells of their own.
                if blocks.is_some() || block_pairs.is_empty() || a.sizes.is_some() {
                    let bl = blocks.clone().unwrap_or_else(|| vec![1]);
                    for s in sizes_of("1-64K")? {
                        cells.extend(
                            bl.iter().map(|&n| CellSpec { blocks: Some(n), ..CellSpec::new(p, s) }),
                        );
                    }
                }
                cells.extend(block_pairs.iter().map(|&(size_bytes, n)| CellSpec {
                    blocks: Some(n),
                    ..CellSpec::new(p, size_bytes)
                }));
            }
            // The smallest oneway message holds the clock stamp and the
            // sequence check (docs/method.md, "One-way latency").
            Pattern::OneWay => {
                for s in sizes_of("16-64K")? {
                    cells.extend(oneway_dirs.iter().map(|&d| CellSpec::oneway(s, d)));
                }
            }
            Pattern::Stream => {
                for s in sizes_of("1-64K")? {
                    cells.extend(stream_dirs.iter().map(|&d| CellSpec::stream(s, d)));
                }
            }
            _ => {
                let default =
                    if protocol == Some(Protocol::Dimtass) { SEED_001_SIZES } else { "1-64K" };
                cells.extend(sizes_of(default)?.into_iter().map(|s| CellSpec::new(p, s)));
            }
        }
    }
    let channels = resolve_channels(a, protocol, &patterns)?;
    for c in &mut cells {
        c.channels = channels;
    }
    Ok(cells)
}

/// `--direction`: the directions of the oneway cells (default both) and of
/// the stream cells (default host → peer). Stream peer → host needs
/// icbench's own peer on one link; elsewhere it is refused here.
fn directions(
    a: &RunArgs,
    protocol: Option<Protocol>,
    patterns: &[Pattern],
) -> Result<(Vec<Direction>, Vec<Direction>)> {
    let chosen = match a.direction {
        None => None,
        Some(_) if !patterns.iter().any(|p| matches!(p, Pattern::OneWay | Pattern::Stream)) => {
            return Err(bad("--direction: only the oneway and stream patterns have a direction \
                 (add -p oneway or -p stream)"));
        }
        Some(DirectionArg::H2p) => Some(vec![Direction::H2P]),
        Some(DirectionArg::P2h) => Some(vec![Direction::P2H]),
        Some(DirectionArg::Both) => Some(Direction::BOTH.to_vec()),
    };
    let oneway = chosen.clone().unwrap_or_else(|| Direction::BOTH.to_vec());
    let stream = chosen.unwrap_or_else(|| vec![Direction::H2P]);
    let p2h = patterns.contains(&Pattern::Stream) && stream.contains(&Direction::P2H);
    let d = if a.direction == Some(DirectionArg::Both) { "both" } else { "p2h" };
    if let Some(p) =
        protocol.filter(|&p| p2h && !icbench_engine::supports_stream(Some(p), Direction::P2H))
    {
        return Err(bad(format!(
            "--direction {d}: stream peer → host needs icbench's own peer (or --protocol raw \
             on a link whose remote fills buffers, sdb:); with --protocol {p} the peer is a {p} \
             responder (firmware or --peer-cmd), which has no source op yet: use --direction h2p"
        )));
    }
    if p2h && a.channels > 1 {
        return Err(bad(format!(
            "--direction {d} with --channels {}: stream peer → host runs on one link; several \
             channels run host → peer only (use --direction h2p or drop -P)",
            a.channels
        )));
    }
    Ok((oneway, stream))
}

/// `-P N`: 1 … 32 channels; more than one only where the channel path runs
/// (icbench's own peer or the icb protocol, pingpong and stream).
fn resolve_channels(a: &RunArgs, protocol: Option<Protocol>, patterns: &[Pattern]) -> Result<u32> {
    let n = a.channels;
    if !(1..=32).contains(&n) {
        return Err(bad(format!("--channels {n}: give 1 to 32 channels")));
    }
    if n > 1 {
        if let Some(p) = protocol.filter(|&p| p != Protocol::Icb) {
            return Err(bad(format!(
                "--channels {n}: several channels run with icbench's own peer or --protocol icb, \
                 not with --protocol {p}"
            )));
        }
        if let Some(p) = patterns.iter().find(|p| !matches!(p, Pattern::PingPong | Pattern::Stream))
        {
            return Err(bad(format!(
                "--channels {n}: several channels run pingpong and stream, not {p}"
            )));
        }
    }
    Ok(n)
}

/// What every run takes from its flags, a plan file's run too: everything
/// but the cells.
pub(crate) struct FlagSettings {
    pub settings: Settings,
    pub fault: Option<Fault>,
    /// Run notes the flags imply (peer program, emulation).
    pub notes: Vec<String>,
    /// `--cell-time`, ns (a plan file's default when it names none).
    pub cell_time_ns: u64,
}

/// The settings every run takes from its flags (a plan file's run too).
pub(crate) fn settings(a: &RunArgs, source: String) -> Result<FlagSettings> {
    let protocol = protocol_of(a.protocol);
    if a.peer_cmd.is_some() && protocol.is_none() {
        return Err(bad(
            "--peer-cmd: a peer program speaks a wire protocol; say which with --protocol icb, \
             dimtass or raw",
        ));
    }
    let peer_cmd = match a.peer_cmd.as_deref().map(str::split_whitespace) {
        None => None,
        Some(words) => {
            let argv: Vec<String> = words.map(str::to_string).collect();
            if argv.is_empty() {
                return Err(bad("--peer-cmd '': give the program to start, e.g. \
                                --peer-cmd 'firmware/build/icb-peer --path {path}'"));
            }
            Some(argv)
        }
    };
    let (host_cpu, peer_cpu, usable) = resolve_cpus(&a.cpus)?;
    if let Some(p) = a.fifo.filter(|p| !(1..=99).contains(p)) {
        return Err(bad(format!("--fifo {p}: SCHED_FIFO priorities run from 1 to 99")));
    }
    if a.window < 2 {
        return Err(bad(format!(
            "--window {}: the stream window holds at least 2 messages",
            a.window
        )));
    }
    if a.window > icbench_engine::MAX_STREAM_WINDOW {
        return Err(bad(format!(
            "--window {}: at most {} messages in flight (every cell measures at least four \
             windows; a larger one is past every link's buffer)",
            a.window,
            icbench_engine::MAX_STREAM_WINDOW
        )));
    }
    let nanos = |d: std::time::Duration| d.as_nanos().min(u128::from(u64::MAX)) as u64;
    let timeout = sizes::duration(&a.timeout).map_err(|e| bad(format!("--timeout: {e}")))?;
    if timeout < icbench_engine::MIN_TIMEOUT {
        return Err(bad(format!(
            "--timeout {}: below the shortest the watchdog honours, 100ms",
            a.timeout
        )));
    }
    let cell_time = sizes::duration(&a.cell_time).map_err(|e| bad(format!("--cell-time: {e}")))?;
    let fault = a
        .peer_fault
        .as_deref()
        .map(Fault::parse)
        .transpose()
        .map_err(|e| bad(format!("--peer-fault: {e}")))?;
    if matches!(fault, Some(Fault::Die { .. })) && a.peer == PeerKind::Thread {
        // The peer kills itself with SIGKILL: as a thread it would take
        // icbench with it.
        return Err(bad(
            "--peer-fault die-after needs --peer process: a thread peer cannot die alone",
        ));
    }
    let stagger = match &a.channel_stagger {
        None => 0,
        Some(d) => nanos(sizes::duration(d).map_err(|e| bad(format!("--channel-stagger: {e}")))?),
    };
    let settings = Settings {
        host_cpu,
        peer_cpu,
        online: usable.text,
        peer: match a.peer {
            PeerKind::Thread => PeerMode::Thread,
            PeerKind::Process => PeerMode::Process,
        },
        fifo: a.fifo,
        mlock: a.mlock,
        timeout_ns: nanos(timeout),
        window: a.window,
        raw: a.raw,
        ci_target: a.ci.as_deref().map(parse_ci).transpose()?,
        ci_max_time_ns: nanos(
            sizes::duration(&a.ci_max_time).map_err(|e| bad(format!("--ci-max-time: {e}")))?,
        ),
        protocol: protocol.map(|p| p.as_str().to_string()),
        peer_cmd,
        no_floor: a.no_floor,
        channel_stagger_ns: stagger,
        source,
        clock_granule_ns: icbench_engine::clock::granule_ns(),
    };
    let mut notes = Vec::new();
    if let Some(p) = protocol {
        let who = match &a.peer_cmd {
            Some(c) => format!("the program `{c}`"),
            None => "the firmware answering on the device".to_string(),
        };
        notes.push(format!("protocol {p}: the peer is {who}, not icbench's own peer"));
    }
    if a.emulated {
        notes.push(
            "the peer runs under emulation: its timings mean nothing; this run checks framing, \
             fragmentation, integrity and the handshake"
                .to_string(),
        );
    }
    Ok(FlagSettings { settings, fault, notes, cell_time_ns: nanos(cell_time) })
}

/// A run from flags: links × patterns × sizes, in that order.
pub(crate) fn resolve(a: &RunArgs) -> Result<FromFlags> {
    let FlagSettings { settings, fault, notes, cell_time_ns } = settings(a, "flags".to_string())?;
    let protocol = settings.protocol();
    let links = resolve_links(a, protocol)?;
    let cells = resolve_cells(a, protocol)?;
    // Last, so that the other mistakes are named first. When no link has
    // its device, every cell would fail, after the floor, with exit 0. (One
    // missing among others fails its cells and the run goes on: an rpmsg
    // device comes and goes with its remote core.)
    let missing: Vec<_> = links.iter().filter_map(|l| Some((l, l.missing_device()?))).collect();
    if let Some((l, why)) = missing.first().filter(|_| !a.dry_run && missing.len() == links.len()) {
        return Err(bad(format!("--link {l}: {why}")));
    }
    let k = a.replicates;
    let mut plan_cells = Vec::with_capacity(links.len() * cells.len() * k as usize);
    for link in &links {
        for cell in &cells {
            for rep in 0..k {
                let mut c = plan_cell(0, link, cell);
                if k > 1 {
                    c.rep = rep;
                    c.factors.insert("rep".into(), rep.to_string());
                }
                plan_cells.push(c);
            }
        }
    }
    // Replicate blocks interleaved over the whole run (issue #15): a change
    // of the machine part-way through then shows as blocks that disagree,
    // instead of shifting every figure measured after it. One block per
    // cell keeps the listed order, where a link's cells share one peer.
    let (order, seed) = if k > 1 {
        let seed = super::fresh_seed();
        icbench_plan::order::shuffle(&mut plan_cells, seed);
        (Order::Random, seed)
    } else {
        (Order::Listed, 0)
    };
    for (i, c) in plan_cells.iter_mut().enumerate() {
        c.index = i as u32;
    }
    let plan = Plan {
        name: None,
        seed,
        order,
        repetitions: k,
        cell_time_ns,
        budget_ns: None,
        varied: Vec::new(),
        cells: plan_cells,
    };
    Ok(FromFlags { plan, settings, fault, notes, seeded: k == 1 })
}

/// A plan cell of a flag run (no factors beyond the cell key).
fn plan_cell(index: u32, link: &LinkSpec, c: &CellSpec) -> PlanCell {
    PlanCell {
        index,
        blocks: c.blocks,
        channels: c.channels,
        transfer_bytes: c.transfer_bytes,
        direction: c.direction.map(|d| d.as_str().to_string()),
        ..PlanCell::new(link.to_string(), c.pattern, c.size_bytes)
    }
}

/// `--ci 2%` (or `--ci 2`: a bare number is percent too) → 0.02.
fn parse_ci(s: &str) -> Result<f64> {
    let t = s.trim().trim_end_matches('%').trim();
    match t.parse::<f64>() {
        Ok(p) if p > 0.0 && p < 100.0 => Ok(p / 100.0),
        _ => Err(bad(format!(
            "--ci {s}: give the target half-width of the median's 95 % CI in percent, \
             above 0 and below 100 (e.g. --ci 2%)"
        ))),
    }
}

/// `--blocks`: counts (`1,2,4,8`, crossed with the sizes) and the seed's
/// own `SIZE×N` pairs (`512×8`, also `512x8`: block size × blocks, a cell
/// each, issue #17).
/// `--blocks` read: the counts, if any, and the (block size, blocks) pairs.
type BlocksArg = (Option<Vec<u32>>, Vec<(u64, u32)>);

fn blocks_arg(b: &str) -> Result<BlocksArg, anyhow::Error> {
    let refuse = || {
        bad(format!("--blocks '{b}': write counts (1,2,4,8) or block size × blocks (512×8, 1K×4)"))
    };
    let (mut counts, mut pairs) = (Vec::new(), Vec::new());
    for v in b.split(',').map(str::trim) {
        let count = |n: &str| n.trim().parse::<u32>().ok().filter(|&n| n > 0);
        match v.split_once(['×', 'x', 'X']) {
            Some((size, n)) => {
                let size = sizes::parse_one(size.trim()).ok().filter(|&s| s > 0);
                pairs.push((size.ok_or_else(refuse)?, count(n).ok_or_else(refuse)?));
            }
            None => counts.push(count(v).ok_or_else(refuse)?),
        }
    }
    Ok(((!counts.is_empty()).then_some(counts), pairs))
}
