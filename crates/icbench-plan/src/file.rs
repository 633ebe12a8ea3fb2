//! Reading a plan file: TOML in, [`PlanFile`] out, every error naming its
//! line. Only the shape is checked here (known keys and factors, levels
//! present, numbers where numbers belong); what the levels mean is checked
//! by [`crate::expand`], which still knows each level's line.
//!
//! ```toml
//! name = "003 matrix"
//! seed = 7                 # optional: drawn and recorded when absent
//! order = "random"         # or "listed"
//! repetitions = 3
//! cell_time = "100ms"
//! budget = "30min"
//!
//! [factors]
//! link = ["unix", "seqpacket"]
//! pattern = "stream"
//! size = [1, 16, 64, 256, 496]
//! channels = [1, 8, 32]
//!
//! [[exclude]]              # drop matching combinations
//! channels = 32
//! size = 1
//! ```

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::Order;
use crate::units;

/// A plan error, with the 1-based line it concerns when there is one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
pub struct PlanError {
    pub line: Option<usize>,
    pub message: String,
}

impl PlanError {
    pub fn at(line: usize, message: impl Into<String>) -> PlanError {
        PlanError { line: Some(line), message: message.into() }
    }
    pub fn whole(message: impl Into<String>) -> PlanError {
        PlanError { line: None, message: message.into() }
    }
}

/// The factors a plan can vary, in the order `docs/plans.md` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Factor {
    Link,
    Pattern,
    Size,
    Blocks,
    Channels,
    Transfer,
    Cpus,
    Wait,
    Sched,
    Direction,
}

impl Factor {
    pub const ALL: [Factor; 10] = [
        Factor::Link,
        Factor::Pattern,
        Factor::Size,
        Factor::Blocks,
        Factor::Channels,
        Factor::Transfer,
        Factor::Cpus,
        Factor::Wait,
        Factor::Sched,
        Factor::Direction,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Factor::Link => "link",
            Factor::Pattern => "pattern",
            Factor::Size => "size",
            Factor::Blocks => "blocks",
            Factor::Channels => "channels",
            Factor::Transfer => "transfer",
            Factor::Cpus => "cpus",
            Factor::Wait => "wait",
            Factor::Sched => "sched",
            Factor::Direction => "direction",
        }
    }

    fn parse(name: &str, line: usize) -> Result<Factor, PlanError> {
        Factor::ALL.into_iter().find(|f| f.as_str() == name).ok_or_else(|| {
            let known: Vec<&str> = Factor::ALL.iter().map(|f| f.as_str()).collect();
            PlanError::at(line, format!("unknown factor '{name}': use {}", known.join(", ")))
        })
    }
}

/// One level as written, with its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    pub text: String,
    pub line: usize,
}

/// A factor and its levels, as declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub factor: Factor,
    pub levels: Vec<Level>,
    pub line: usize,
}

/// An `[[exclude]]` or `[[cell]]` table: for each named factor, the levels
/// it matches (a cell matches when every named factor has one of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    pub entries: Vec<Declared>,
    pub line: usize,
}

/// A plan file as written.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanFile {
    pub name: Option<String>,
    pub seed: Option<u64>,
    pub order: Order,
    pub repetitions: u32,
    pub cell_time: Option<Duration>,
    pub budget: Option<Duration>,
    /// In declared order.
    pub factors: Vec<Declared>,
    pub exclude: Vec<Selector>,
    pub cells: Vec<Selector>,
}

impl PlanFile {
    pub fn declared(&self, f: Factor) -> Option<&Declared> {
        self.factors.iter().find(|d| d.factor == f)
    }
}

type Table = BTreeMap<Spanned<String>, Spanned<toml::Value>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    name: Option<String>,
    seed: Option<Spanned<i64>>,
    order: Option<Spanned<String>>,
    repetitions: Option<Spanned<i64>>,
    cell_time: Option<Spanned<String>>,
    budget: Option<Spanned<String>>,
    factors: Option<Spanned<Table>>,
    #[serde(default)]
    exclude: Vec<Spanned<Table>>,
    #[serde(default)]
    cell: Vec<Spanned<Table>>,
}

/// 1-based line of a byte offset.
fn line_of(src: &str, offset: usize) -> usize {
    src[..offset.min(src.len())].bytes().filter(|&b| b == b'\n').count() + 1
}

/// Parses a plan file's text.
pub fn parse(src: &str) -> Result<PlanFile, PlanError> {
    let raw: Raw = toml::from_str(src).map_err(|e| {
        let line = e.span().map(|s| line_of(src, s.start));
        // toml's message is one line; its Display adds a multi-line excerpt.
        PlanError { line, message: e.message().trim().to_string() }
    })?;
    let at = |span: std::ops::Range<usize>| line_of(src, span.start);
    let Some(factors) = raw.factors else {
        return Err(PlanError::whole(
            "no [factors] table: declare at least one factor, e.g. [factors] link = [\"pipe\", \"unix\"]",
        ));
    };
    let factors_line = at(factors.span());
    let factors = table(src, factors.get_ref(), true)?;
    if factors.is_empty() {
        return Err(PlanError::at(factors_line, "[factors] is empty: declare at least one factor"));
    }
    let selectors = |list: &[Spanned<Table>], what: &str| -> Result<Vec<Selector>, PlanError> {
        list.iter()
            .map(|t| {
                let line = at(t.span());
                let entries = table(src, t.get_ref(), false)?;
                if entries.is_empty() {
                    return Err(PlanError::at(line, format!("an empty [[{what}]] table")));
                }
                Ok(Selector { entries, line })
            })
            .collect()
    };
    let order = match raw.order.as_ref().map(|o| (o.get_ref().as_str(), at(o.span()))) {
        None | Some(("random", _)) => Order::Random,
        Some(("listed", _)) => Order::Listed,
        Some((other, line)) => {
            return Err(PlanError::at(line, format!("order = \"{other}\": use random or listed")));
        }
    };
    let repetitions = match raw.repetitions {
        None => 1,
        Some(r) => match u32::try_from(*r.get_ref()) {
            Ok(n @ 1..=100_000) => n,
            _ => {
                return Err(PlanError::at(
                    at(r.span()),
                    format!("repetitions = {}: give 1 to 100000", r.get_ref()),
                ));
            }
        },
    };
    let seed = match raw.seed {
        None => None,
        Some(s) => Some(u64::try_from(*s.get_ref()).map_err(|_| {
            PlanError::at(at(s.span()), "seed: give a whole number from 0 up".to_string())
        })?),
    };
    let duration = |d: Option<Spanned<String>>, key: &str| {
        d.map(|d| {
            units::duration(d.get_ref())
                .map_err(|e| PlanError::at(at(d.span()), format!("{key}: {e}")))
        })
        .transpose()
    };
    Ok(PlanFile {
        name: raw.name,
        seed,
        order,
        repetitions,
        cell_time: duration(raw.cell_time, "cell_time")?,
        budget: duration(raw.budget, "budget")?,
        factors,
        exclude: selectors(&raw.exclude, "exclude")?,
        cells: selectors(&raw.cell, "cell")?,
    })
}

/// A table of factor = level(s), in the order written.
fn table(src: &str, t: &Table, declaring: bool) -> Result<Vec<Declared>, PlanError> {
    let mut out: Vec<Declared> = t
        .iter()
        .map(|(k, v)| {
            let line = line_of(src, k.span().start);
            let factor = Factor::parse(k.get_ref(), line)?;
            let levels = levels(src, k.get_ref(), v)?;
            if declaring {
                let mut seen = std::collections::HashSet::new();
                if let Some(dup) = levels.iter().find(|l| !seen.insert(l.text.as_str())) {
                    return Err(PlanError::at(
                        dup.line,
                        format!("{}: level '{}' is listed twice", k.get_ref(), dup.text),
                    ));
                }
            }
            Ok(Declared { factor, levels, line })
        })
        .collect::<Result<_, _>>()?;
    out.sort_by_key(|d| d.line);
    Ok(out)
}

/// A value or an array of values: strings and whole numbers.
fn levels(src: &str, name: &str, v: &Spanned<toml::Value>) -> Result<Vec<Level>, PlanError> {
    let line = line_of(src, v.span().start);
    let one = |x: &toml::Value| match x {
        toml::Value::String(s) if !s.trim().is_empty() => Ok(Level { text: s.trim().into(), line }),
        toml::Value::Integer(i) => Ok(Level { text: i.to_string(), line }),
        other => Err(PlanError::at(
            line,
            format!("{name}: a level is a string or a whole number, not {}", other.type_str()),
        )),
    };
    match v.get_ref() {
        toml::Value::Array(a) if a.is_empty() => Err(PlanError::at(
            line,
            format!("{name} = []: a factor needs at least one level (or leave it out)"),
        )),
        toml::Value::Array(a) => a.iter().map(one).collect(),
        x => Ok(vec![one(x)?]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_plan_with_factors_in_declared_order() {
        let p = parse(
            "name = \"t\"\nseed = 7\nrepetitions = 3\ncell_time = \"10ms\"\n\n[factors]\n\
             size = [64, \"4K\"]\nlink = \"pipe\"\n\n[[exclude]]\nsize = 64\n",
        )
        .unwrap();
        assert_eq!(p.seed, Some(7));
        assert_eq!(p.repetitions, 3);
        assert_eq!(p.order, Order::Random);
        assert_eq!(p.cell_time, Some(Duration::from_millis(10)));
        let names: Vec<_> = p.factors.iter().map(|d| d.factor).collect();
        assert_eq!(names, [Factor::Size, Factor::Link]);
        assert_eq!(p.factors[0].levels[1], Level { text: "4K".into(), line: 7 });
        assert_eq!(p.exclude.len(), 1);
        assert_eq!(p.exclude[0].entries[0].levels[0].text, "64");
    }

    #[test]
    fn errors_name_their_line() {
        let e = parse("[factors]\nlink = [\"pipe\"]\ncolour = [\"red\"]\n").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("unknown factor 'colour'"), "{e}");
        assert!(e.message.contains("link, pattern, size"), "{e}");

        let e = parse("[factors]\nlink = [\"pipe\"]\nsize = []\n").unwrap_err();
        assert_eq!((e.line, e.to_string().contains("at least one level")), (Some(3), true));

        let e = parse("repetitions = 0\n[factors]\nlink = \"pipe\"\n").unwrap_err();
        assert_eq!(e.line, Some(1));

        let e = parse("[factors]\nlink = [\"pipe\", \"pipe\"]\n").unwrap_err();
        assert!(e.to_string().starts_with("line 2: link: level 'pipe' is listed twice"), "{e}");

        let e = parse("colour = 1\n[factors]\nlink = \"pipe\"\n").unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("colour"), "{e}");

        let e = parse("[factors]\nlink = [\"pipe\"\n").unwrap_err();
        assert!(e.line.is_some(), "a syntax error names its line: {e}");

        let e = parse("seed = 1\n").unwrap_err();
        assert!(e.message.contains("no [factors]"), "{e}");

        let e = parse("[factors]\nsize = [1.5]\n").unwrap_err();
        assert!(e.message.contains("not float"), "{e}");

        let e = parse("cell_time = \"fast\"\n[factors]\nlink = \"pipe\"\n").unwrap_err();
        assert_eq!(e.line, Some(1));
    }
}
