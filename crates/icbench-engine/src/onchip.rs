//! On-chip cells (issue #16): the two cores of one microcontroller measure
//! between themselves, and icbench drives them through the initiator core
//! over a serial link in the icb protocol (docs/on-chip.md).
//!
//! [`run_chip`] opens one session, asks the firmware what it offers
//! (`CHIP`), refuses in one line before measuring a cell that names a
//! region, notify mode or size the chip lacks, then has the initiator run
//! each cell (`RUN` → `RESULT`). Each result is an ordinary cell — latency
//! in ns from the chip's timer, `direction` (`i2a`, `a2i`), `region` and
//! `notify` as factors — so every reading command works on it unchanged.
//! A cell whose reply is lost or damaged (the link, a CRC) is requested
//! once more on a fresh session, then failed; the run goes on.

use std::sync::atomic::Ordering;

use icbench_link::LinkSpec;
use icbench_model::{CellKey, CellOutcome, CellResult, Pattern};
pub use icbench_proto::onchip::{Chip, OnChipDirection, notify};
use icbench_proto::onchip::{OnChipPattern, RunCell};

use crate::pattern::CellError;
use crate::remote::icb::onchip_cell_data;
use crate::session::Session;
use crate::watchdog::Watchdog;
use crate::{EngineConfig, LinkRun, Observer};

/// One on-chip cell as the user asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChipCell {
    /// oneway, pingpong, stream or bulk.
    pub pattern: Pattern,
    /// Message bytes (bulk: block bytes).
    pub size_bytes: u32,
    /// Bulk: blocks per transfer.
    pub blocks: u32,
    pub direction: OnChipDirection,
    /// A region name the chip offers ("D1", "ram0").
    pub region: String,
    /// One [`notify`] bit.
    pub notify: u8,
    /// Measured repetitions (stream: messages).
    pub count: u32,
    pub warmup: u32,
    /// Stream: messages in flight.
    pub window: u32,
    /// The repetition of a plan this cell is (stored as the `rep` factor,
    /// so that repetitions are replicate blocks of one cell); 0: none.
    pub rep: u32,
    /// Bring every sample back too, not only the histogram.
    pub raw: bool,
    /// The firmware image the cell runs on (a path for `--flash-cmd`),
    /// stored as the `image` factor; None: whatever the chip runs.
    pub image: Option<String>,
}

/// The factor value of an on-chip direction.
pub fn direction_name(d: OnChipDirection) -> &'static str {
    match d {
        OnChipDirection::I2a => "i2a",
        OnChipDirection::A2i => "a2i",
    }
}

/// An image's factor level: its file name, without the directories.
pub fn image_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The name of one notify bit.
pub fn notify_name(bit: u8) -> &'static str {
    notify::NAMES.iter().find(|(b, _)| *b == bit).map_or("?", |(_, n)| n)
}

impl ChipCell {
    /// The stored key: link, icb, pattern, size (bulk: block), with
    /// `direction`, `region` and `notify` as factors.
    pub fn key(&self, spec: &LinkSpec) -> CellKey {
        let key = CellKey {
            protocol: Some("icb".into()),
            blocks: (self.pattern == Pattern::Bulk).then_some(self.blocks),
            ..CellKey::new(spec.to_string(), self.pattern, u64::from(self.size_bytes))
        }
        .with("direction", direction_name(self.direction))
        .with("region", &self.region)
        .with("notify", notify_name(self.notify));
        let key = match &self.image {
            Some(i) => key.with("image", image_name(i)),
            None => key,
        };
        if self.rep > 0 { key.with("rep", self.rep) } else { key }
    }

    fn run_cell(&self, chip: &Chip, timeout_ms: u32) -> RunCell {
        let region = chip.regions.iter().position(|r| *r == self.region).unwrap_or(0) as u8;
        let (pattern, size, window) = match self.pattern {
            Pattern::OneWay => (OnChipPattern::Oneway, self.size_bytes, 0),
            Pattern::Stream => (OnChipPattern::Stream, self.size_bytes, self.window),
            Pattern::Bulk => {
                (OnChipPattern::Bulk, self.size_bytes.saturating_mul(self.blocks), self.size_bytes)
            }
            _ => (OnChipPattern::Pingpong, self.size_bytes, 0),
        };
        RunCell {
            pattern,
            direction: self.direction,
            region,
            notify: self.notify,
            raw: self.raw && self.pattern != Pattern::Stream,
            size,
            count: self.count,
            warmup: self.warmup,
            window,
            timeout_ms,
        }
    }
}

/// Why the chip cannot run `cell`, in one line; `None` when it can.
pub fn refuse(chip: &Chip, cell: &ChipCell) -> Option<String> {
    if !chip.regions.contains(&cell.region) {
        return Some(format!(
            "region '{}' is not on this chip: it offers {}",
            cell.region,
            chip.regions.join(", ")
        ));
    }
    if chip.notify & cell.notify == 0 {
        let offered: Vec<&str> =
            notify::NAMES.iter().filter(|(b, _)| chip.notify & b != 0).map(|(_, n)| *n).collect();
        return Some(format!(
            "notify '{}' is not offered by this firmware: it offers {}",
            notify_name(cell.notify),
            offered.join(", ")
        ));
    }
    if cell.size_bytes > chip.max_size {
        return Some(format!(
            "{} B messages exceed the largest the chip's transport carries, {} B",
            cell.size_bytes, chip.max_size
        ));
    }
    None
}

/// Opens a session and asks the firmware what it offers.
fn open(cfg: &EngineConfig, spec: &LinkSpec) -> Result<(Session, Chip), String> {
    let mut s = Session::open(cfg, spec, None)?;
    let wd = Watchdog::start(cfg.timeout, s.abort.clone(), s.pidfd(), None, cfg.stop);
    let got = match s.icb.as_mut() {
        Some(icb) => icb.chip(s.host.as_mut()),
        None => Err(CellError::Unsupported("on-chip cells need --protocol icb".into())),
    };
    wd.finish();
    s.abort.clear();
    match got {
        Ok(chip) => Ok((s, chip)),
        Err(e) => {
            s.close(false);
            Err(format!("asking the chip what it offers (CHIP): {e}"))
        }
    }
}

/// One cell on an open session; the session back when it is still sound.
fn measure(
    cfg: &EngineConfig,
    mut s: Session,
    chip: &Chip,
    cell: &ChipCell,
) -> (Result<icbench_model::CellData, String>, Option<Session>) {
    let timeout_ms = u32::try_from(cfg.timeout.as_millis()).unwrap_or(u32::MAX);
    let run = cell.run_cell(chip, timeout_ms);
    // The chip bounds each of its waits by the timeout; the host allows
    // every repetition one more before it gives up on the whole cell.
    let wd = Watchdog::start(
        cfg.timeout.saturating_mul(2).saturating_add(cfg.timeout.saturating_mul(run.count.min(64))),
        s.abort.clone(),
        s.pidfd(),
        None,
        cfg.stop,
    );
    let got = match s.icb.as_mut() {
        Some(icb) => icb.run_on_chip(s.host.as_mut(), &run),
        None => Err(CellError::Unsupported("no handshake".into())),
    };
    wd.finish();
    s.abort.clear();
    match got {
        Ok(res) => (
            onchip_cell_data(&run, &res, chip.timer_hz, cfg.timeout).map_err(|e| e.to_string()),
            Some(s),
        ),
        // The link or the chip gave out: say how the peer ended, if it did.
        Err(e) => {
            let reason = e.to_string();
            let how = s.close(false);
            (
                Err(match how {
                    Some(h) if !reason.contains(&h) => format!("{reason} ({h})"),
                    _ => reason,
                }),
                None,
            )
        }
    }
}

/// Puts a firmware image on the chip between cells: the user's
/// `--flash-cmd` with the image's path; `Err` says why it could not.
pub type Flash<'a> = &'a mut dyn FnMut(&str) -> Result<(), String>;

/// Measures `cells` on the chip behind `spec`, reporting each to `obs`.
/// `on_chip`: the image already on it (None: whatever is there). When a
/// cell names another image, the session closes, `flash` puts that image
/// on the chip, and the next session asks again what the chip offers (its
/// labels go to the run's notes through `obs`); a cell the new image cannot
/// run fails with the reason. A cell whose reply is lost or damaged is
/// asked for once more on a fresh session.
pub fn run_chip(
    cfg: &EngineConfig,
    spec: &LinkSpec,
    cells: &[ChipCell],
    obs: &mut dyn Observer,
    on_chip: Option<String>,
    flash: Flash<'_>,
) -> LinkRun {
    let mut image = on_chip;
    let mut now: Option<(Session, Chip)> = None;
    let mut chip: Option<Chip> = None;
    for cell in cells {
        if cfg.stop.load(Ordering::SeqCst) {
            if let Some((s, _)) = now.take() {
                s.close(false);
            }
            return LinkRun::Interrupted;
        }
        let key = cell.key(spec);
        obs.cell_started(&key);
        let outcome = match prepare(cfg, spec, cell, &mut image, &mut now, &mut chip, obs, flash) {
            Err(reason) => CellOutcome::Failed { reason },
            Ok(()) => {
                let c = chip.as_ref().expect("prepared");
                let (outcome, back) = attempt(cfg, spec, now.take().map(|(s, _)| s), c, cell);
                now = back.map(|s| (s, c.clone()));
                outcome
            }
        };
        obs.cell_finished(&CellResult { key, outcome });
    }
    if let Some((s, _)) = now {
        s.close(true);
    }
    LinkRun::Completed
}

/// Gets the chip ready for `cell`: its image flashed if it names another,
/// a session open, the cell within what the chip offers.
#[allow(clippy::too_many_arguments)]
fn prepare(
    cfg: &EngineConfig,
    spec: &LinkSpec,
    cell: &ChipCell,
    image: &mut Option<String>,
    now: &mut Option<(Session, Chip)>,
    chip: &mut Option<Chip>,
    obs: &mut dyn Observer,
    flash: Flash<'_>,
) -> Result<(), String> {
    if let Some(want) = cell.image.as_ref().filter(|w| image.as_ref() != Some(*w)) {
        if let Some((s, _)) = now.take() {
            s.close(true);
        }
        *chip = None;
        *image = None;
        flash(want).map_err(|why| format!("flashing {want}: {why}"))?;
        *image = Some(want.clone());
    }
    if now.is_none() {
        let (s, c) = open(cfg, spec)?;
        if chip.as_ref() != Some(&c) {
            let labels: Vec<String> = c.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            obs.run_note(&format!(
                "image {}: firmware built with {}",
                image.as_deref().unwrap_or("as found"),
                if labels.is_empty() { "no labels".to_string() } else { labels.join(", ") }
            ));
        }
        *chip = Some(c.clone());
        *now = Some((s, c));
    }
    match refuse(chip.as_ref().expect("just set"), cell) {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

/// Measures a cell, once more on a fresh session if the first reply was
/// lost or damaged; the session back when it is still sound.
fn attempt(
    cfg: &EngineConfig,
    spec: &LinkSpec,
    mut session: Option<Session>,
    chip: &Chip,
    cell: &ChipCell,
) -> (CellOutcome, Option<Session>) {
    let mut outcome = CellOutcome::Failed { reason: "not measured".into() };
    for attempt in 0..2 {
        let s = match session.take() {
            Some(s) => s,
            None => match open(cfg, spec) {
                Ok((s, _)) => s,
                Err(reason) => return (CellOutcome::Failed { reason }, None),
            },
        };
        let (got, back) = measure(cfg, s, chip, cell);
        session = back;
        outcome = match got {
            Ok(d) => CellOutcome::Measured(d),
            Err(reason) => CellOutcome::Failed { reason },
        };
        if session.is_some() || attempt == 1 || cfg.stop.load(Ordering::SeqCst) {
            break;
        }
    }
    (outcome, session)
}

/// Asks the firmware behind `spec` what it offers, and lets it go.
pub fn probe_chip(cfg: &EngineConfig, spec: &LinkSpec) -> Result<Chip, String> {
    let (s, chip) = open(cfg, spec)?;
    s.close(true);
    Ok(chip)
}
