//! `icbench chip --plan FILE`: an on-chip experiment in a file — the
//! factors (pattern, size, direction, region, notify), the repetitions and
//! the order — so that reference 002's whole experiment is one command
//! (plans/002-onchip.toml). The file's levels become the same comma lists
//! the flags take, and are checked by the same code.

use std::path::Path;

use anyhow::Result;
use serde::Deserialize;

use crate::error::bad;

/// The largest plan file read, bytes.
const MAX_BYTES: u64 = 1 << 20;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ChipPlan {
    pub name: Option<String>,
    /// Seed of the random order (default: from the clock, stored in the notes).
    pub seed: Option<u64>,
    /// `random` (default) or `declared`.
    pub order: Option<String>,
    pub repetitions: Option<u32>,
    pub count: Option<u32>,
    pub warmup: Option<u32>,
    pub window: Option<u32>,
    pub blocks: Option<u32>,
    pub factors: Factors,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Factors {
    pub pattern: Option<Levels>,
    pub size: Option<Levels>,
    pub direction: Option<Levels>,
    /// `"all"`: every region the chip offers.
    pub region: Option<Levels>,
    pub notify: Option<Levels>,
    /// Firmware images (files), put on the chip by `--flash-cmd`.
    pub image: Option<Levels>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum Level {
    Text(String),
    Number(u64),
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum Levels {
    One(Level),
    Many(Vec<Level>),
}

impl Levels {
    /// The levels as a comma list, as the flags write them.
    pub fn joined(&self) -> String {
        let one = |l: &Level| match l {
            Level::Text(s) => s.clone(),
            Level::Number(n) => n.to_string(),
        };
        match self {
            Levels::One(l) => one(l),
            Levels::Many(v) => v.iter().map(one).collect::<Vec<_>>().join(","),
        }
    }
}

/// Reads and parses a plan file; every failure is one line naming the file
/// (and the line, for a parse error).
pub(super) fn read(path: &Path) -> Result<ChipPlan> {
    let shown = path.display();
    let text =
        crate::files::read_text(path, MAX_BYTES, "plan").map_err(|e| bad(format!("--plan {e}")))?;
    toml::from_str(&text).map_err(|e| {
        let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        let msg = e.message().lines().next().unwrap_or("not a plan").to_string();
        match line {
            Some(n) => bad(format!("--plan {shown}: line {n}: {msg}")),
            None => bad(format!("--plan {shown}: {msg}")),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_become_the_flags_lists_and_bad_files_are_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("p.toml");
        std::fs::write(
            &p,
            "repetitions = 3\n[factors]\npattern = \"oneway\"\nsize = [4, 64, \"1K\"]\n\
             direction = [\"i2a\", \"a2i\"]\nregion = \"all\"\n",
        )
        .unwrap();
        let plan = read(&p).unwrap();
        assert_eq!(plan.repetitions, Some(3));
        assert_eq!(plan.factors.size.unwrap().joined(), "4,64,1K");
        assert_eq!(plan.factors.direction.unwrap().joined(), "i2a,a2i");
        assert_eq!(plan.factors.pattern.unwrap().joined(), "oneway");
        std::fs::write(&p, "[factors]\nspeed = [1]\n").unwrap();
        let e = read(&p).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("speed") && !e.contains('\n'), "{e}");
        assert!(read(dir.path()).unwrap_err().to_string().contains("not a regular file"));
    }
}
