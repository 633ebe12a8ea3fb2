//! From declared factors to cells: the full factorial (or the union of the
//! listed `[[cell]]` subsets), minus `[[exclude]]`d combinations, times the
//! repetitions, in the plan's order.
//!
//! Some factors only mean something for some cells: `wait` for links that
//! have a wait parameter (shm), `direction` for the oneway and stream
//! patterns, `blocks` for bulk, `transfer` for pingpong and stream. Where a factor does not
//! apply, the cell is measured once, without it (a pipe is not measured
//! once per wait strategy). A factor that applies to no cell at all is an
//! error, as is a combination that cannot be measured (e.g. oneway over 8
//! channels, stream peer → host over 8 channels or with a transfer size):
//! the message names the lines and how to exclude it.

use std::collections::{BTreeMap, HashSet};
use std::str::FromStr;
use std::time::Duration;

use icbench_link::LinkSpec;
use icbench_model::Pattern;

use crate::file::{Declared, Factor, Level, PlanError, PlanFile, Selector};
use crate::{Order, Plan, PlanCell, SchedLevel, order, units};

/// What expansion needs to know about the machine and the run.
#[derive(Debug, Clone)]
pub struct Context {
    /// Online CPUs usable for measuring (for `cpus` levels and "all-pairs").
    pub online: Vec<u32>,
    /// Measuring time per cell when the plan gives no `cell_time`.
    pub default_cell_time: Duration,
    /// The seed to use when the plan gives none (drawn by the caller, so
    /// that this crate stays deterministic).
    pub seed_if_absent: u64,
}

/// The most cells a plan may expand to.
pub const MAX_CELLS: usize = 1_000_000;
/// Channels a cell may measure at once (issue 7: 1…32).
pub const MAX_CHANNELS: u32 = 32;
/// The largest transfer per channel.
pub const MAX_TRANSFER: u64 = 1 << 30;

/// A level with its meaning.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Resolved {
    /// Normalised text: stored as the factor's level and matched by selectors.
    label: String,
    line: usize,
    value: Value,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    Link(LinkSpec),
    Pattern(Pattern),
    Number(u64),
    Cpus(u32, u32),
    Text(String),
    Sched(SchedLevel),
}

fn resolve_level(f: Factor, l: &Level, ctx: &Context) -> Result<Vec<Resolved>, PlanError> {
    let err = |m: String| PlanError::at(l.line, format!("{} = \"{}\": {m}", f.as_str(), l.text));
    let one = |value: Value, label: String| vec![Resolved { label, line: l.line, value }];
    Ok(match f {
        Factor::Link => {
            let spec = LinkSpec::parse(&l.text).map_err(|e| err(e.to_string()))?;
            if spec.is_remote() {
                return Err(err("a plan measures local links with icbench's own peer; \
                     measure a remote core with `icbench run --link … --protocol …`"
                    .into()));
            }
            one(Value::Link(spec.clone()), spec.to_string())
        }
        Factor::Pattern => {
            let p = Pattern::from_str(&l.text).map_err(|e| err(e.to_string()))?;
            match p.as_str() {
                "pingpong" | "stream" | "oneway" => {}
                "bulk" => {
                    return Err(err("bulk needs a wire protocol spoken by a peer program \
                         (`icbench run -p bulk --protocol icb --peer-cmd …`); a plan uses \
                         icbench's own peer: use pingpong, stream or oneway"
                        .into()));
                }
                _ => {
                    return Err(err(format!(
                        "not measured over a link: use `icbench {}`",
                        p.as_str()
                    )));
                }
            }
            one(Value::Pattern(p), p.as_str().into())
        }
        Factor::Size => units::parse(&l.text)
            .map_err(err)?
            .into_iter()
            .map(|s| Resolved { label: s.to_string(), line: l.line, value: Value::Number(s) })
            .collect(),
        Factor::Blocks => match l.text.parse::<u32>() {
            Ok(n) if n > 0 => one(Value::Number(u64::from(n)), n.to_string()),
            _ => return Err(err("give a whole number of blocks from 1 up".into())),
        },
        Factor::Channels => match l.text.parse::<u32>() {
            Ok(n @ 1..=MAX_CHANNELS) => one(Value::Number(u64::from(n)), n.to_string()),
            _ => return Err(err(format!("give 1 to {MAX_CHANNELS} channels"))),
        },
        Factor::Transfer => {
            let b = units::parse_amount(&l.text, MAX_TRANSFER).map_err(err)?;
            one(Value::Number(b), b.to_string())
        }
        Factor::Cpus => return cpu_levels(l, ctx).map_err(err),
        Factor::Wait => match l.text.as_str() {
            "spin" | "yield" | "futex" => one(Value::Text(l.text.clone()), l.text.clone()),
            _ => return Err(err("use spin, yield or futex".into())),
        },
        Factor::Sched => {
            let s = match l.text.split_once(':') {
                None if l.text == "other" => SchedLevel::Other,
                Some(("fifo", p)) => match p.parse::<u8>() {
                    Ok(p @ 1..=99) => SchedLevel::Fifo(p),
                    _ => return Err(err("SCHED_FIFO priorities run from 1 to 99".into())),
                },
                _ => return Err(err("use other or fifo:PRIO (e.g. fifo:50)".into())),
            };
            one(Value::Sched(s), s.to_string())
        }
        Factor::Direction => match l.text.as_str() {
            "h2p" | "p2h" => one(Value::Text(l.text.clone()), l.text.clone()),
            // Both directions: two levels, one cell each (002 reports M7→M4
            // and M4→M7 separately).
            "both" => ["h2p", "p2h"]
                .into_iter()
                .map(|d| Resolved { label: d.into(), line: l.line, value: Value::Text(d.into()) })
                .collect(),
            _ => return Err(err("use h2p (host to peer), p2h (peer to host) or both".into())),
        },
    })
}

/// `"0,1"` (host CPU, peer CPU) or `"all-pairs"` (every ordered pair of two
/// different online CPUs, as core-to-core-latency measures them).
fn cpu_levels(l: &Level, ctx: &Context) -> Result<Vec<Resolved>, String> {
    let pair = |h: u32, p: u32| Resolved {
        label: format!("{h},{p}"),
        line: l.line,
        value: Value::Cpus(h, p),
    };
    if l.text == "all-pairs" {
        let v: Vec<Resolved> = ctx
            .online
            .iter()
            .flat_map(|&h| ctx.online.iter().filter(move |&&p| p != h).map(move |&p| pair(h, p)))
            .collect();
        if v.is_empty() {
            return Err("all-pairs needs two online CPUs".into());
        }
        return Ok(v);
    }
    let parsed = l
        .text
        .split_once(',')
        .and_then(|(h, p)| Some((h.trim().parse::<u32>().ok()?, p.trim().parse::<u32>().ok()?)));
    let Some((h, p)) = parsed else {
        return Err("write HOST,PEER (e.g. \"0,1\") or all-pairs".into());
    };
    if h == p {
        return Err("host and peer need two different CPUs".into());
    }
    if let Some(off) = [h, p].into_iter().find(|c| !ctx.online.contains(c)) {
        let online: Vec<String> = ctx.online.iter().map(u32::to_string).collect();
        return Err(format!("CPU {off} is not online here (online: {})", online.join(", ")));
    }
    Ok(vec![pair(h, p)])
}

/// A factor with its resolved levels.
#[derive(Debug)]
struct Column {
    factor: Factor,
    line: usize,
    levels: Vec<Resolved>,
}

fn resolve_declared(d: &Declared, ctx: &Context) -> Result<Column, PlanError> {
    let mut levels = Vec::new();
    for l in &d.levels {
        for r in resolve_level(d.factor, l, ctx)? {
            if !levels.iter().any(|x: &Resolved| x.label == r.label) {
                levels.push(r);
            }
        }
    }
    Ok(Column { factor: d.factor, line: d.line, levels })
}

/// The declared factors, with defaults for link-independent essentials
/// (pattern pingpong, size 64 B) when the plan leaves them out.
fn columns(file: &PlanFile, ctx: &Context) -> Result<Vec<Column>, PlanError> {
    if file.declared(Factor::Link).is_none() {
        return Err(PlanError::whole(
            "[factors] has no link: declare the links to measure, e.g. link = [\"pipe\", \"shm\"]",
        ));
    }
    let mut cols: Vec<Column> =
        file.factors.iter().map(|d| resolve_declared(d, ctx)).collect::<Result<_, _>>()?;
    for (f, text) in [(Factor::Pattern, "pingpong"), (Factor::Size, "64")] {
        if !cols.iter().any(|c| c.factor == f) {
            let l = Level { text: text.into(), line: 0 };
            cols.push(Column { factor: f, line: 0, levels: resolve_level(f, &l, ctx)? });
        }
    }
    Ok(cols)
}

/// One combination: a level index per column.
type Combo = Vec<usize>;

/// Whether a selector matches a combination.
fn matches(sel: &[(usize, HashSet<String>)], cols: &[Column], combo: &Combo) -> bool {
    sel.iter().all(|(c, labels)| labels.contains(&cols[*c].levels[combo[*c]].label))
}

/// A selector's entries as (column, labels), checked against the declared levels.
fn selector(
    s: &Selector,
    cols: &[Column],
    ctx: &Context,
    what: &str,
) -> Result<Vec<(usize, HashSet<String>)>, PlanError> {
    s.entries
        .iter()
        .map(|d| {
            let c = cols.iter().position(|c| c.factor == d.factor).ok_or_else(|| {
                PlanError::at(
                    d.line,
                    format!(
                        "[[{what}]] names {}, which [factors] does not declare",
                        d.factor.as_str()
                    ),
                )
            })?;
            let got = resolve_declared(d, ctx)?;
            let declared: Vec<&str> = cols[c].levels.iter().map(|l| l.label.as_str()).collect();
            if let Some(r) = got.levels.iter().find(|r| !declared.contains(&r.label.as_str())) {
                return Err(PlanError::at(
                    r.line,
                    format!(
                        "[[{what}]]: {} = {} is not one of its levels ({})",
                        d.factor.as_str(),
                        r.label,
                        declared.join(", ")
                    ),
                ));
            }
            Ok((c, got.levels.into_iter().map(|r| r.label).collect()))
        })
        .collect()
}

/// Every combination of the design, before normalising.
fn combinations(file: &PlanFile, cols: &[Column], ctx: &Context) -> Result<Vec<Combo>, PlanError> {
    let total = cols.iter().try_fold(1usize, |n, c| n.checked_mul(c.levels.len()));
    if total.is_none_or(|n| n > MAX_CELLS) {
        return Err(PlanError::whole(format!(
            "the full factorial has more than {MAX_CELLS} cells: list a subset with [[cell]]"
        )));
    }
    let mut all: Vec<Combo> = vec![Vec::new()];
    for c in cols {
        all = all
            .into_iter()
            .flat_map(|p| {
                (0..c.levels.len()).map(move |i| {
                    let mut q = p.clone();
                    q.push(i);
                    q
                })
            })
            .collect();
    }
    if !file.cells.is_empty() {
        let subsets: Vec<_> =
            file.cells.iter().map(|s| selector(s, cols, ctx, "cell")).collect::<Result<_, _>>()?;
        all.retain(|combo| subsets.iter().any(|s| matches(s, cols, combo)));
    }
    let excludes: Vec<_> =
        file.exclude.iter().map(|s| selector(s, cols, ctx, "exclude")).collect::<Result<_, _>>()?;
    all.retain(|combo| !excludes.iter().any(|s| matches(s, cols, combo)));
    if all.is_empty() {
        return Err(PlanError::whole(
            "no cell is left after [[cell]] and [[exclude]]: check what they select",
        ));
    }
    Ok(all)
}

/// A cell before repetition and ordering.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Treatment {
    link: String,
    pattern: Pattern,
    size_bytes: u64,
    blocks: Option<u32>,
    channels: u32,
    transfer_bytes: Option<u64>,
    direction: Option<String>,
    cpus: Option<(u32, u32)>,
    sched: Option<SchedLevel>,
    factors: BTreeMap<String, String>,
}

fn has_wait(spec: &LinkSpec) -> bool {
    icbench_link::KINDS
        .iter()
        .find(|k| k.name == spec.kind)
        .is_some_and(|k| k.params.iter().any(|p| p.0 == "wait"))
}

/// One combination's levels, looked up by factor.
struct Levels<'a> {
    cols: &'a [Column],
    combo: &'a Combo,
}

impl Levels<'_> {
    fn get(&self, f: Factor) -> Option<&Resolved> {
        let c = self.cols.iter().position(|c| c.factor == f)?;
        Some(&self.cols[c].levels[self.combo[c]])
    }

    fn number(&self, f: Factor) -> Option<u64> {
        match self.get(f).map(|r| &r.value) {
            Some(Value::Number(n)) => Some(*n),
            _ => None,
        }
    }

    fn link(&self) -> (&Resolved, &LinkSpec) {
        match self.get(Factor::Link) {
            Some(r @ Resolved { value: Value::Link(spec), .. }) => (r, spec),
            _ => unreachable!("link is declared and resolves to links"),
        }
    }

    fn pattern(&self) -> (&Resolved, Pattern) {
        match self.get(Factor::Pattern) {
            Some(r @ Resolved { value: Value::Pattern(p), .. }) => (r, *p),
            _ => unreachable!("pattern has a level"),
        }
    }
}

/// A combination that cannot be measured, and the exclude that drops it.
fn impossible(a: &Resolved, fa: Factor, b: &Resolved, fb: Factor, why: &str) -> PlanError {
    let (fa, fb) = (fa.as_str(), fb.as_str());
    PlanError::at(
        a.line.max(b.line),
        format!(
            "{fa} = {} with {fb} = {} cannot be measured: {why}; drop these cells with \
             [[exclude]] {fa} = \"{}\" and {fb} = \"{}\"",
            a.label, b.label, a.label, b.label
        ),
    )
}

/// Applies one combination's levels; records which factors applied.
fn treatment(
    cols: &[Column],
    combo: &Combo,
    applied: &mut HashSet<Factor>,
) -> Result<Treatment, PlanError> {
    let lv = Levels { cols, combo };
    let mut t = Treatment {
        link: lv.link().1.to_string(),
        pattern: lv.pattern().1,
        size_bytes: lv.number(Factor::Size).expect("size has a level"),
        blocks: None,
        channels: lv.number(Factor::Channels).map_or(1, |n| n as u32),
        transfer_bytes: None,
        direction: None,
        cpus: None,
        sched: None,
        factors: BTreeMap::new(),
    };
    for (c, col) in cols.iter().enumerate() {
        let r = &col.levels[combo[c]];
        if apply(&mut t, col.factor, r, &lv)? {
            applied.insert(col.factor);
            if !matches!(col.factor, Factor::Link | Factor::Pattern | Factor::Size | Factor::Blocks)
            {
                t.factors.insert(col.factor.as_str().into(), r.label.clone());
            }
        }
    }
    p2h_stream_on_one_link(&t, &lv)?;
    Ok(t)
}

/// A stream peer → host runs on one link timed by the cell time (the
/// channel path, which also runs transfer sizes, streams host → peer only).
fn p2h_stream_on_one_link(t: &Treatment, lv: &Levels) -> Result<(), PlanError> {
    if t.pattern != Pattern::Stream || t.direction.as_deref() != Some("p2h") {
        return Ok(());
    }
    let direction = lv.get(Factor::Direction).expect("a direction was applied");
    let why = "stream peer → host runs on one link timed by the cell time";
    if t.channels > 1 {
        let channels = lv.get(Factor::Channels).expect("channels above 1 were declared");
        return Err(impossible(direction, Factor::Direction, channels, Factor::Channels, why));
    }
    if t.transfer_bytes.is_some() {
        let transfer = lv.get(Factor::Transfer).expect("a transfer was applied");
        return Err(impossible(direction, Factor::Direction, transfer, Factor::Transfer, why));
    }
    Ok(())
}

/// Applies one factor's level `r` to `t`; false where the factor does not
/// apply to this cell (it is then measured once, without it).
fn apply(t: &mut Treatment, f: Factor, r: &Resolved, lv: &Levels) -> Result<bool, PlanError> {
    let pattern = t.pattern;
    let oneway = pattern == Pattern::OneWay;
    Ok(match (f, &r.value) {
        (Factor::Link | Factor::Pattern | Factor::Size, _) => true,
        (Factor::Channels, _) => {
            if t.channels > 1 && oneway {
                let why = "oneway measures one message in flight on one link";
                return Err(impossible(r, f, lv.pattern().0, Factor::Pattern, why));
            }
            true
        }
        (Factor::Blocks, Value::Number(n)) => {
            t.blocks = (pattern == Pattern::Bulk).then_some(*n as u32);
            t.blocks.is_some()
        }
        (Factor::Transfer, Value::Number(n)) => {
            let on = matches!(pattern, Pattern::PingPong | Pattern::Stream);
            t.transfer_bytes = on.then_some(*n);
            on
        }
        (Factor::Cpus, Value::Cpus(h, p)) => {
            t.cpus = Some((*h, *p));
            true
        }
        (Factor::Sched, Value::Sched(s)) => {
            t.sched = Some(*s);
            true
        }
        (Factor::Wait, Value::Text(w)) => apply_wait(t, w, lv)?,
        (Factor::Direction, Value::Text(d)) => {
            let on = oneway || pattern == Pattern::Stream;
            t.direction = on.then(|| d.clone());
            on
        }
        _ => unreachable!("levels resolve to their factor's value"),
    })
}

/// `wait` applies to links that have a wait parameter: the link runs with
/// it, and the link as declared is stored as the `link` factor, so that
/// link and wait are two factors.
fn apply_wait(t: &mut Treatment, w: &str, lv: &Levels) -> Result<bool, PlanError> {
    let (l, spec) = lv.link();
    if !has_wait(spec) {
        return Ok(false);
    }
    if spec.param("wait").is_some() {
        return Err(PlanError::at(
            l.line,
            format!(
                "link = {} already sets wait, and wait is a factor: declare the link without ?wait=",
                l.label
            ),
        ));
    }
    let mut s = spec.clone();
    s.params.insert("wait".into(), w.to_string());
    t.link = s.to_string();
    t.factors.insert("link".into(), spec.to_string());
    Ok(true)
}

/// Why a factor applies to no cell.
fn applies_to(f: Factor) -> &'static str {
    match f {
        Factor::Wait => "only links with a wait parameter (shm) have a wait strategy",
        Factor::Direction => "only the oneway and stream patterns have a direction",
        Factor::Blocks => "only the bulk pattern has blocks",
        Factor::Transfer => "only pingpong and stream move a transfer",
        _ => "it applies to every cell",
    }
}

/// Expands a plan file into its cells, in run order.
pub fn expand(file: &PlanFile, ctx: &Context) -> Result<Plan, PlanError> {
    let cols = columns(file, ctx)?;
    let combos = combinations(file, &cols, ctx)?;
    let mut applied = HashSet::new();
    let mut seen = HashSet::new();
    let mut treatments = Vec::new();
    for combo in &combos {
        let t = treatment(&cols, combo, &mut applied)?;
        if seen.insert(t.clone()) {
            treatments.push(t);
        }
    }
    if let Some(c) = cols.iter().find(|c| c.line > 0 && !applied.contains(&c.factor)) {
        return Err(PlanError::at(
            c.line,
            format!(
                "{} applies to no cell of this plan: {}",
                c.factor.as_str(),
                applies_to(c.factor)
            ),
        ));
    }
    let reps = file.repetitions;
    // Issue #30 item 6: 216 treatments × 100 000 repetitions built 21.6
    // million cells (4.9 GB) before a word was printed.
    let total = treatments.len().checked_mul(reps as usize);
    if total.is_none_or(|n| n > MAX_CELLS) {
        return Err(PlanError::whole(format!(
            "{} cells × {reps} repetitions is more than {MAX_CELLS} blocks: fewer \
             repetitions or a subset with [[cell]]",
            treatments.len()
        )));
    }
    let mut cells = Vec::with_capacity(treatments.len() * reps as usize);
    for t in treatments {
        for rep in 0..reps {
            let mut factors = t.factors.clone();
            if reps > 1 {
                factors.insert("rep".into(), rep.to_string());
            }
            cells.push(PlanCell {
                index: 0,
                link: t.link.clone(),
                pattern: t.pattern,
                size_bytes: t.size_bytes,
                blocks: t.blocks,
                channels: t.channels,
                transfer_bytes: t.transfer_bytes,
                direction: t.direction.clone(),
                cpus: t.cpus,
                sched: t.sched,
                rep,
                factors,
            });
        }
    }
    let seed = file.seed.unwrap_or(ctx.seed_if_absent);
    if file.order == Order::Random {
        order::shuffle(&mut cells, seed);
    }
    for (i, c) in cells.iter_mut().enumerate() {
        c.index = i as u32;
    }
    let nanos = |d: Duration| d.as_nanos().min(u128::from(u64::MAX)) as u64;
    Ok(Plan {
        name: file.name.clone(),
        seed,
        order: file.order,
        repetitions: reps,
        cell_time_ns: nanos(file.cell_time.unwrap_or(ctx.default_cell_time)),
        budget_ns: file.budget.map(nanos),
        varied: cols
            .iter()
            .filter(|c| c.levels.len() > 1 && applied.contains(&c.factor))
            .map(|c| c.factor.as_str().to_string())
            .collect(),
        cells,
    })
}

#[cfg(test)]
mod tests;
