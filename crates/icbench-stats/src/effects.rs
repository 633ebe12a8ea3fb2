//! Which factors matter: main effects, two-factor interactions and the
//! allocation of variation of a factorial experiment.
//!
//! The method is the analysis of a full factorial design as R. Jain, *The
//! Art of Computer Systems Performance Analysis* (Wiley, 1991) teaches it:
//! ch. 18 (2^k r designs: effects, allocation of variation, confidence
//! intervals for effects; §18.7 multiplicative models), ch. 21–22 (two
//! factors without and with replication) and ch. 23 (general full factorial
//! designs with k factors). In a *balanced* design — every combination of the
//! varied factors' levels observed, each the same number of times r — the
//! total variation splits exactly:
//!
//! ```text
//! SST = Σ_factors SS_A + Σ_pairs SS_AB + SS_higher-order + SS_E
//! SS_A  = Σ_j n_j·α_j²,        α_j  = ȳ_{A=j} − ȳ                (main effect of level j)
//! SS_AB = Σ_ij n_ij·γ_ij²,     γ_ij = ȳ_ij − ȳ_i − ȳ_j + ȳ        (interaction)
//! SS_E  = Σ (y − ȳ_treatment)²                                      (between replicates)
//! ```
//!
//! and the share of variation a factor explains is `SS_A / SST`. The error
//! term that the F tests and the confidence intervals use is, in order of
//! preference: the variation between replicates (r ≥ 2, df = N − T); with one
//! observation per treatment, the interactions of three or more factors,
//! assumed negligible (Jain §23); with two factors and no replicates, their
//! interaction (Jain ch. 21, the additive model); with one factor and no
//! replicates there is none, and no test or interval is given.
//!
//! Confidence intervals (95 %, Student's t on the error's df, s_e = √MSE):
//! a level mean `ȳ_j ± t·s_e/√n_j`; a level's effect
//! `α_j ± t·s_e·√((a − 1)/N)` (Jain's s_q for a 2^k r design); the range
//! `ȳ_max − ȳ_min ± t·s_e·√(2/n_j)`. F = MS_term/MSE, p from Fisher–Snedecor.
//!
//! **Unbalanced designs** (a combination missing, e.g. a size a link cannot
//! carry, or unequal replicates) do not split: the factors' sums of squares
//! overlap. They fall back to each level's mean with a t interval from the
//! observations at that level alone (which includes the other factors'
//! variation, so it is wide) and report no shares, tests or interactions.
//!
//! **Scale.** [`Scale::Log`] analyses ln y (Jain §18.7: when effects
//! multiply, as a link's overhead multiplies across message sizes, and when
//! y spans orders of magnitude): means come back as geometric means, effects
//! and ranges as ratios. [`Scale::Linear`] analyses y: effects are
//! differences in y's unit.
//!
//! Pure: observations in, numbers out.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, FisherSnedecor};

use crate::ci::{mean_ci95, t_975};
use crate::interval::Interval;

/// One measured response of one treatment (a factor → level map). Two
/// observations with the same treatment are replicates.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// Factor → level.
    pub treatment: BTreeMap<String, String>,
    /// The response, in its unit (e.g. ns or B/s).
    pub value: f64,
}

/// The scale the response is analysed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// y itself: effects are differences, in y's unit.
    Linear,
    /// ln y: means are geometric, effects and ranges are ratios.
    Log,
}

/// The level a factor takes in an observation whose treatment lacks it.
pub const UNSET: &str = "(unset)";

/// How many missing combinations [`Design::missing_examples`] names.
pub const MISSING_EXAMPLES: usize = 3;

/// Significance level of the F tests (`significant` is `p < ALPHA`).
pub const ALPHA: f64 = 0.05;

/// A term of the analysis of variance, on the analysed scale.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Term {
    /// Sum of squares.
    pub ss: f64,
    /// Degrees of freedom.
    pub df: usize,
    /// `ss / SST`: the share of the total variation (0…1); `None` if the
    /// response does not vary at all.
    pub share: Option<f64>,
    /// `(ss/df) / MSE`; infinite when the error is exactly 0. `None`
    /// without an error term (or for the error itself).
    pub f: Option<f64>,
    /// P(F(df, df_E) ≥ f).
    pub p: Option<f64>,
}

impl Term {
    /// `p < ALPHA`, when there is a test.
    pub fn significant(&self) -> Option<bool> {
        self.p.map(|p| p < ALPHA)
    }
}

/// What the error term is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorSource {
    /// Variation between replicates of the same treatment.
    Replicates,
    /// No replicates: the interactions of three or more factors, assumed 0.
    HigherOrderInteractions,
    /// No replicates, two factors: their interaction, assumed 0.
    TwoFactorInteraction,
}

/// The error term.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ErrorTerm {
    /// What it is made of.
    pub source: ErrorSource,
    /// Its sum of squares, df and share (no F or p).
    pub term: Term,
    /// s_e = √(SS_E/df), on the analysed scale (ln units for `log`).
    pub stddev: f64,
}

/// One level of a factor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Level {
    /// The level's name.
    pub level: String,
    /// Observations at this level.
    pub n: usize,
    /// Mean response at this level, in the response's unit (geometric mean
    /// on the log scale).
    pub mean: f64,
    /// 95 % CI of `mean` (balanced: from the error term; unbalanced: from
    /// the observations at this level alone).
    pub mean_ci95: Option<Interval>,
    /// The level's effect α_j: its mean minus the grand mean (linear), or
    /// divided by it (log: a ratio). `None` in an unbalanced design.
    pub effect: Option<f64>,
    /// 95 % CI of `effect`.
    pub effect_ci95: Option<Interval>,
}

/// A factor's main effect.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FactorEffect {
    /// The factor's name.
    pub factor: String,
    /// In numeric order when every level is a number, else in text order.
    pub levels: Vec<Level>,
    /// The level with the smallest and the largest mean.
    pub lowest: String,
    /// See `lowest`.
    pub highest: String,
    /// Largest level mean over the smallest (log: a ratio ≥ 1) or minus it
    /// (linear, in the response's unit).
    pub range: f64,
    /// 95 % CI of `range` (a ratio or a difference, as `range`); `None` in
    /// an unbalanced design or without an error term. It is a CI for a
    /// difference chosen after looking (the extremes), so optimistic when
    /// there are many levels.
    pub range_ci95: Option<Interval>,
    /// The factor's line of the analysis of variance (balanced designs).
    pub anova: Option<Term>,
}

/// One cell of a two-factor interaction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InteractionCell {
    /// The two factors' levels, in the order of [`Interaction::factors`].
    pub levels: [String; 2],
    /// γ_ij: how far this combination's mean lies from what the two main
    /// effects predict; a ratio on the log scale, a difference on the linear.
    pub effect: f64,
}

/// A two-factor interaction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interaction {
    /// The two factors.
    pub factors: [String; 2],
    /// Whether the design lets the interaction be estimated.
    pub estimable: bool,
    /// Why it is not estimated, or not tested.
    pub note: Option<String>,
    /// Its line of the analysis of variance.
    pub anova: Option<Term>,
    /// The combination furthest from additivity.
    pub largest: Option<InteractionCell>,
}

/// The design, as the observations show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Design {
    /// Observations analysed.
    pub observations: usize,
    /// Distinct treatments (combinations of the varied factors' levels).
    pub treatments: usize,
    /// Π levels of the varied factors.
    pub combinations: usize,
    /// Combinations with no observation.
    pub missing: usize,
    /// Up to [`MISSING_EXAMPLES`] of the missing combinations, factor →
    /// level, in the order of the levels.
    pub missing_examples: Vec<BTreeMap<String, String>>,
    /// Observations per treatment, fewest and most.
    pub replicates_min: usize,
    /// See `replicates_min`.
    pub replicates_max: usize,
    /// Complete, with equal replicates: the variation splits exactly.
    pub balanced: bool,
}

/// A factor that took one level only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotVaried {
    /// The factor.
    pub factor: String,
    /// Its only level.
    pub level: String,
}

/// Everything [`analyse`] finds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Effects {
    /// The scale analysed on.
    pub scale: Scale,
    /// The design the observations form.
    pub design: Design,
    /// Observations left out: non-finite, or ≤ 0 on the log scale.
    pub rejected: usize,
    /// Mean of all observations, in the response's unit (geometric on log).
    pub grand_mean: f64,
    /// Factors with one level, left out of the analysis.
    pub not_varied: Vec<NotVaried>,
    /// The factors with two or more levels, largest share (or range) first.
    pub factors: Vec<FactorEffect>,
    /// Every pair of varied factors.
    pub interactions: Vec<Interaction>,
    /// Interactions of three or more factors, when they have df and are not
    /// the error.
    pub higher_order: Option<Term>,
    /// The error term, when the design has one.
    pub error: Option<ErrorTerm>,
    /// SST and N − 1, on the analysed scale.
    pub total: Option<Term>,
}

/// Analyses `obs` on `scale`. Factors are every key of any treatment; a
/// treatment lacking one has the level [`UNSET`]. With no varied factor the
/// result has empty `factors` (and says which factors did not vary).
pub fn analyse(obs: &[Observation], scale: Scale) -> Effects {
    let usable: Vec<&Observation> = obs.iter().filter(|o| accepts(scale, o.value)).collect();
    let rejected = obs.len() - usable.len();
    let data = Data::new(&usable, scale);
    let (balanced, design) = data.design();
    let mut e = Effects {
        scale,
        design,
        rejected,
        grand_mean: scale.back(data.grand),
        not_varied: data.not_varied.clone(),
        factors: Vec::new(),
        interactions: Vec::new(),
        higher_order: None,
        error: None,
        total: None,
    };
    if data.levels.is_empty() || data.z.is_empty() {
        return e;
    }
    if balanced {
        data.balanced(&mut e);
    } else {
        data.unbalanced(&mut e);
    }
    e.factors.sort_by(|a, b| {
        let key = |f: &FactorEffect| f.anova.and_then(|t| t.share).unwrap_or(0.0);
        key(b).total_cmp(&key(a)).then(scale.spread(b.range).total_cmp(&scale.spread(a.range)))
    });
    e
}

fn accepts(scale: Scale, v: f64) -> bool {
    v.is_finite() && (scale == Scale::Linear || v > 0.0)
}

impl Scale {
    fn to(self, v: f64) -> f64 {
        match self {
            Scale::Linear => v,
            Scale::Log => v.ln(),
        }
    }

    /// A mean (or a bound of one) back in the response's unit.
    fn back(self, z: f64) -> f64 {
        match self {
            Scale::Linear => z,
            Scale::Log => z.exp(),
        }
    }

    /// A difference of means back as a difference or a ratio.
    fn back_diff(self, d: f64) -> f64 {
        self.back(d)
    }

    fn back_interval(self, lo: f64, hi: f64) -> Interval {
        Interval::new(self.back(lo), self.back(hi))
    }

    /// A range as a distance on the analysed scale, for ordering.
    fn spread(self, range: f64) -> f64 {
        match self {
            Scale::Linear => range.abs(),
            Scale::Log => range.ln().abs(),
        }
    }
}

/// The observations, coded: each a level index per varied factor.
struct Data {
    scale: Scale,
    /// Varied factors: name and levels.
    levels: Vec<(String, Vec<String>)>,
    not_varied: Vec<NotVaried>,
    /// Level indices of each observation, one per varied factor.
    codes: Vec<Vec<usize>>,
    /// The response on the analysed scale.
    z: Vec<f64>,
    grand: f64,
}

impl Data {
    fn new(obs: &[&Observation], scale: Scale) -> Data {
        let names: BTreeSet<&str> =
            obs.iter().flat_map(|o| o.treatment.keys().map(String::as_str)).collect();
        let level_of = |o: &Observation, f: &str| -> String {
            o.treatment.get(f).cloned().unwrap_or_else(|| UNSET.to_string())
        };
        let mut levels = Vec::new();
        let mut not_varied = Vec::new();
        for f in names {
            let set: BTreeSet<String> = obs.iter().map(|o| level_of(o, f)).collect();
            let mut l: Vec<String> = set.into_iter().collect();
            if l.len() < 2 {
                not_varied.push(NotVaried { factor: f.to_string(), level: l.remove(0) });
            } else {
                sort_levels(&mut l);
                levels.push((f.to_string(), l));
            }
        }
        let codes = obs
            .iter()
            .map(|o| {
                levels
                    .iter()
                    .map(|(f, l)| {
                        let v = level_of(o, f);
                        l.iter().position(|x| *x == v).unwrap_or(0)
                    })
                    .collect()
            })
            .collect();
        let z: Vec<f64> = obs.iter().map(|o| scale.to(o.value)).collect();
        let grand = if z.is_empty() { f64::NAN } else { z.iter().sum::<f64>() / z.len() as f64 };
        Data { scale, levels, not_varied, codes, z, grand }
    }

    fn n(&self) -> usize {
        self.z.len()
    }

    /// Observations per treatment (by level codes).
    fn treatments(&self) -> HashMap<&[usize], Vec<f64>> {
        let mut t: HashMap<&[usize], Vec<f64>> = HashMap::new();
        for (c, z) in self.codes.iter().zip(&self.z) {
            t.entry(c.as_slice()).or_default().push(*z);
        }
        t
    }

    fn design(&self) -> (bool, Design) {
        let t = self.treatments();
        let combinations =
            self.levels.iter().try_fold(1usize, |acc, (_, l)| acc.checked_mul(l.len()));
        let reps = t.values().map(Vec::len);
        let (rmin, rmax) = (reps.clone().min().unwrap_or(0), reps.max().unwrap_or(0));
        let combinations = combinations.unwrap_or(usize::MAX);
        let missing = combinations.saturating_sub(t.len());
        let balanced = missing == 0 && rmin == rmax && rmin > 0;
        let d = Design {
            observations: self.n(),
            treatments: t.len(),
            combinations,
            missing,
            missing_examples: if missing > 0 {
                self.missing_examples(&t, combinations)
            } else {
                vec![]
            },
            replicates_min: rmin,
            replicates_max: rmax,
            balanced,
        };
        (balanced, d)
    }

    /// The first missing combinations, counting through them in mixed radix
    /// (only when there are at most a million).
    fn missing_examples(
        &self,
        t: &HashMap<&[usize], Vec<f64>>,
        combinations: usize,
    ) -> Vec<BTreeMap<String, String>> {
        let mut out = Vec::new();
        let mut code = vec![0usize; self.levels.len()];
        for _ in 0..combinations.min(1_000_000) {
            if !t.contains_key(code.as_slice()) {
                let named =
                    self.levels.iter().zip(&code).map(|((f, l), &i)| (f.clone(), l[i].clone()));
                out.push(named.collect());
                if out.len() == MISSING_EXAMPLES {
                    break;
                }
            }
            for (d, (_, l)) in code.iter_mut().zip(&self.levels).rev() {
                *d += 1;
                if *d < l.len() {
                    break;
                }
                *d = 0;
            }
        }
        out
    }

    /// Mean of z per level of factor `f`.
    fn level_means(&self, f: usize) -> Vec<(usize, f64)> {
        let a = self.levels[f].1.len();
        let mut sum = vec![(0usize, 0.0f64); a];
        for (c, z) in self.codes.iter().zip(&self.z) {
            sum[c[f]].0 += 1;
            sum[c[f]].1 += z;
        }
        sum.into_iter().map(|(n, s)| (n, s / n as f64)).collect()
    }

    /// Mean of z per combination of levels of factors `f` and `g`, row-major.
    fn pair_means(&self, f: usize, g: usize) -> Vec<(usize, f64)> {
        let b = self.levels[g].1.len();
        let mut sum = vec![(0usize, 0.0f64); self.levels[f].1.len() * b];
        for (c, z) in self.codes.iter().zip(&self.z) {
            let i = c[f] * b + c[g];
            sum[i].0 += 1;
            sum[i].1 += z;
        }
        sum.into_iter().map(|(n, s)| (n, s / n as f64)).collect()
    }

    fn sst(&self) -> f64 {
        self.z.iter().map(|z| (z - self.grand).powi(2)).sum()
    }

    fn pure_error_ss(&self) -> f64 {
        self.treatments()
            .values()
            .map(|v| {
                let m = v.iter().sum::<f64>() / v.len() as f64;
                v.iter().map(|z| (z - m).powi(2)).sum::<f64>()
            })
            .sum()
    }
}

/// Numeric order when every level parses as a number, else text order.
fn sort_levels(l: &mut [String]) {
    if l.iter().all(|x| x.parse::<f64>().is_ok()) {
        l.sort_by(|a, b| {
            a.parse::<f64>().unwrap_or(0.0).total_cmp(&b.parse::<f64>().unwrap_or(0.0))
        });
    } else {
        l.sort();
    }
}

/// The sums of squares of a balanced design, before the error is chosen.
struct Split {
    main: Vec<(f64, usize)>,
    pairs: Vec<(usize, usize, f64, usize)>,
    pure: (f64, usize),
    higher: (f64, usize),
    total: (f64, usize),
}

impl Data {
    fn split(&self) -> Split {
        let n = self.n();
        let k = self.levels.len();
        let main: Vec<(f64, usize)> = (0..k)
            .map(|f| {
                let ss: f64 = self
                    .level_means(f)
                    .into_iter()
                    .map(|(n, m)| n as f64 * (m - self.grand).powi(2))
                    .sum();
                (ss, self.levels[f].1.len() - 1)
            })
            .collect();
        let mut pairs = Vec::new();
        for f in 0..k {
            for g in f + 1..k {
                let ss = self.gammas(f, g).iter().map(|(n, _, _, gm)| *n as f64 * gm * gm).sum();
                pairs.push((f, g, ss, main[f].1 * main[g].1));
            }
        }
        let treatments = self.treatments().len();
        let pure = (self.pure_error_ss(), n - treatments);
        let total = (self.sst(), n - 1);
        let ss_model: f64 =
            main.iter().map(|m| m.0).sum::<f64>() + pairs.iter().map(|p| p.2).sum::<f64>();
        let df_model: usize =
            main.iter().map(|m| m.1).sum::<usize>() + pairs.iter().map(|p| p.3).sum::<usize>();
        let higher_df = (treatments - 1).saturating_sub(df_model);
        let higher_ss = if higher_df == 0 { 0.0 } else { (total.0 - ss_model - pure.0).max(0.0) };
        Split { main, pairs, pure, higher: (higher_ss, higher_df), total }
    }

    /// (n_ij, i, j, γ_ij) for every combination of factors f and g.
    fn gammas(&self, f: usize, g: usize) -> Vec<(usize, usize, usize, f64)> {
        let (mf, mg) = (self.level_means(f), self.level_means(g));
        let b = mg.len();
        self.pair_means(f, g)
            .into_iter()
            .enumerate()
            .map(|(ij, (n, m))| {
                let (i, j) = (ij / b, ij % b);
                (n, i, j, m - mf[i].1 - mg[j].1 + self.grand)
            })
            .collect()
    }

    fn balanced(&self, e: &mut Effects) {
        let s = self.split();
        let sst = s.total.0;
        let share = |ss: f64| (sst > 0.0).then(|| (ss / sst).clamp(0.0, 1.0));
        let only_pair_is_error = s.pure.1 == 0 && s.higher.1 == 0 && s.pairs.len() == 1;
        let error = if s.pure.1 > 0 {
            Some((ErrorSource::Replicates, s.pure))
        } else if s.higher.1 > 0 {
            Some((ErrorSource::HigherOrderInteractions, s.higher))
        } else if only_pair_is_error && s.pairs[0].3 > 0 {
            Some((ErrorSource::TwoFactorInteraction, (s.pairs[0].2, s.pairs[0].3)))
        } else {
            None
        };
        let mse = error.map(|(_, (ss, df))| ss / df as f64);
        let df_e = error.map(|(_, (_, df))| df);
        let term = |ss: f64, df: usize| {
            let (f, p) = f_test(ss, df, mse, df_e);
            Term { ss, df, share: share(ss), f, p }
        };
        e.error = error.map(|(source, (ss, df))| ErrorTerm {
            source,
            term: Term { ss, df, share: share(ss), f: None, p: None },
            stddev: (ss / df as f64).sqrt(),
        });
        e.total = Some(Term { ss: sst, df: s.total.1, share: share(sst), f: None, p: None });
        if s.higher.1 > 0 && s.pure.1 > 0 {
            e.higher_order = Some(term(s.higher.0, s.higher.1));
        }
        let ci = mse.zip(df_e).map(|(m, df)| (t_975(df as f64), m.sqrt()));
        for (f, &(ss, df)) in s.main.iter().enumerate() {
            e.factors.push(self.factor_balanced(f, term(ss, df), ci));
        }
        for &(f, g, ss, df) in &s.pairs {
            let mut it = self.interaction(f, g);
            if only_pair_is_error {
                it.anova = Some(Term { ss, df, share: share(ss), f: None, p: None });
                it.note = Some(
                    "not tested: without replicates the interaction is the error term \
                     (assumed 0); repeat the cells to test it"
                        .into(),
                );
            } else {
                it.anova = Some(term(ss, df));
            }
            e.interactions.push(it);
        }
    }

    /// A factor's levels, effects and range in a balanced design; `ci` is
    /// (t(0.975; df_E), s_e) when there is an error term.
    fn factor_balanced(&self, f: usize, anova: Term, ci: Option<(f64, f64)>) -> FactorEffect {
        let sc = self.scale;
        let n = self.n() as f64;
        let means = self.level_means(f);
        let a = means.len() as f64;
        let levels = means
            .iter()
            .zip(&self.levels[f].1)
            .map(|(&(nj, m), name)| {
                let alpha = m - self.grand;
                Level {
                    level: name.clone(),
                    n: nj,
                    mean: sc.back(m),
                    mean_ci95: ci.map(|(t, s)| {
                        let h = t * s / (nj as f64).sqrt();
                        sc.back_interval(m - h, m + h)
                    }),
                    effect: Some(sc.back_diff(alpha)),
                    effect_ci95: ci.map(|(t, s)| {
                        let h = t * s * ((a - 1.0) / n).sqrt();
                        sc.back_interval(alpha - h, alpha + h)
                    }),
                }
            })
            .collect();
        let (lo, hi) = extremes(&means);
        let d = means[hi].1 - means[lo].1;
        let nj = means[hi].0 as f64;
        FactorEffect {
            factor: self.levels[f].0.clone(),
            levels,
            lowest: self.levels[f].1[lo].clone(),
            highest: self.levels[f].1[hi].clone(),
            range: sc.back_diff(d),
            range_ci95: ci.map(|(t, s)| {
                let h = t * s * (2.0 / nj).sqrt();
                sc.back_interval(d - h, d + h)
            }),
            anova: Some(anova),
        }
    }

    fn interaction(&self, f: usize, g: usize) -> Interaction {
        let largest =
            self.gammas(f, g).into_iter().max_by(|x, y| x.3.abs().total_cmp(&y.3.abs())).map(
                |(_, i, j, gm)| InteractionCell {
                    levels: [self.levels[f].1[i].clone(), self.levels[g].1[j].clone()],
                    effect: self.scale.back_diff(gm),
                },
            );
        Interaction {
            factors: [self.levels[f].0.clone(), self.levels[g].0.clone()],
            estimable: true,
            note: None,
            anova: None,
            largest,
        }
    }

    /// Per-level means only, each with the t interval of its own observations.
    fn unbalanced(&self, e: &mut Effects) {
        let sc = self.scale;
        for (f, (name, names)) in self.levels.iter().enumerate() {
            let means = self.level_means(f);
            let levels = means
                .iter()
                .zip(names)
                .enumerate()
                .map(|(j, (&(nj, m), level))| {
                    let zs: Vec<f64> = self
                        .codes
                        .iter()
                        .zip(&self.z)
                        .filter(|(c, _)| c[f] == j)
                        .map(|(_, z)| *z)
                        .collect();
                    Level {
                        level: level.clone(),
                        n: nj,
                        mean: sc.back(m),
                        mean_ci95: mean_ci95(&zs).map(|i| sc.back_interval(i.lo, i.hi)),
                        effect: None,
                        effect_ci95: None,
                    }
                })
                .collect();
            let (lo, hi) = extremes(&means);
            e.factors.push(FactorEffect {
                factor: name.clone(),
                levels,
                lowest: names[lo].clone(),
                highest: names[hi].clone(),
                range: sc.back_diff(means[hi].1 - means[lo].1),
                range_ci95: None,
                anova: None,
            });
        }
        let d = &e.design;
        let reps = if d.replicates_min == d.replicates_max {
            format!("{}", d.replicates_min)
        } else {
            format!("{}–{}", d.replicates_min, d.replicates_max)
        };
        let why = format!(
            "not estimable: the design is unbalanced ({} of {} level combinations missing, \
             {reps} replicates each)",
            d.missing, d.combinations
        );
        for f in 0..self.levels.len() {
            for g in f + 1..self.levels.len() {
                e.interactions.push(Interaction {
                    factors: [self.levels[f].0.clone(), self.levels[g].0.clone()],
                    estimable: false,
                    note: Some(why.clone()),
                    anova: None,
                    largest: None,
                });
            }
        }
    }
}

/// Indices of the smallest and the largest mean (first of equals).
fn extremes(means: &[(usize, f64)]) -> (usize, usize) {
    let mut lo = 0;
    let mut hi = 0;
    for (i, (_, m)) in means.iter().enumerate() {
        if *m < means[lo].1 {
            lo = i;
        }
        if *m > means[hi].1 {
            hi = i;
        }
    }
    (lo, hi)
}

/// F = (ss/df)/mse and its upper-tail p on (df, df_e).
fn f_test(ss: f64, df: usize, mse: Option<f64>, df_e: Option<usize>) -> (Option<f64>, Option<f64>) {
    let (Some(mse), Some(df_e)) = (mse, df_e) else { return (None, None) };
    if df == 0 {
        return (None, None);
    }
    let ms = ss / df as f64;
    if mse <= 0.0 {
        // No noise at all: any real effect is certain; none is undefined.
        return if ms > 0.0 { (Some(f64::INFINITY), Some(0.0)) } else { (None, None) };
    }
    let f = ms / mse;
    let p = FisherSnedecor::new(df as f64, df_e as f64).ok().map(|d| d.sf(f));
    (Some(f), p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(levels: &[(&str, &str)], value: f64) -> Observation {
        Observation {
            treatment: levels.iter().map(|(f, l)| (f.to_string(), l.to_string())).collect(),
            value,
        }
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1.0)
    }

    fn factor<'a>(e: &'a Effects, name: &str) -> &'a FactorEffect {
        e.factors.iter().find(|f| f.factor == name).unwrap()
    }

    fn level<'a>(f: &'a FactorEffect, name: &str) -> &'a Level {
        f.levels.iter().find(|l| l.level == name).unwrap()
    }

    /// Jain (1991) Example 18.1/18.2, the 2²3 memory–cache study:
    /// y = 15 18 12 | 45 48 51 | 25 28 19 | 75 75 81 for (A,B) = (−,−),
    /// (+,−), (−,+), (+,+). Jain's answers: q0 = 41, qA = 21.5, qB = 9.5,
    /// qAB = 5; SST = 7032 = SSA 5547 + SSB 1083 + SSAB 300 + SSE 102
    /// (78.88 %, 15.40 %, 4.27 %, 1.45 %); s_e = √(102/8) = 3.57.
    /// Beyond the book (python3 + mpmath): t(0.975; 8) = 2.3060041352;
    /// F_A = 5547/12.75 = 435.0588, p = 2.92775e-8; F_B = 84.9412,
    /// p = 1.55566e-5; F_AB = 23.5294, p = 0.00127070; half-widths: level
    /// mean t·s_e/√6 = 3.3615498, effect t·s_e/√12 = 2.3769747, range
    /// t·s_e·√(2/6) = 4.7539493.
    #[test]
    fn jain_2x2x3_example_gives_the_textbook_numbers() {
        let mut o = Vec::new();
        for (a, b, ys) in [
            ("-1", "-1", [15.0, 18.0, 12.0]),
            ("1", "-1", [45.0, 48.0, 51.0]),
            ("-1", "1", [25.0, 28.0, 19.0]),
            ("1", "1", [75.0, 75.0, 81.0]),
        ] {
            // Replicates are repeated treatments (the caller drops "rep").
            for y in ys {
                o.push(obs(&[("A", a), ("B", b)], y));
            }
        }
        let e = analyse(&o, Scale::Linear);
        assert!(e.design.balanced);
        assert_eq!((e.design.replicates_min, e.design.treatments), (3, 4));
        assert!(close(e.grand_mean, 41.0, 1e-12));
        let total = e.total.unwrap();
        assert!(close(total.ss, 7032.0, 1e-12) && total.df == 11);
        let err = e.error.unwrap();
        assert_eq!(err.source, ErrorSource::Replicates);
        assert!(close(err.term.ss, 102.0, 1e-12) && err.term.df == 8);
        assert!(close(err.stddev, 3.570_714_214_271_425, 1e-12));
        let a = factor(&e, "A");
        let b = factor(&e, "B");
        assert_eq!(e.factors[0].factor, "A", "largest share first");
        let (ta, tb) = (a.anova.unwrap(), b.anova.unwrap());
        assert!(close(ta.ss, 5547.0, 1e-12) && close(tb.ss, 1083.0, 1e-12));
        assert!(close(ta.share.unwrap(), 5547.0 / 7032.0, 1e-12)); // 78.88 %
        assert!(close(ta.f.unwrap(), 435.05882352941, 1e-10));
        assert!(close(ta.p.unwrap(), 2.92774664229793e-8, 1e-6));
        assert!(close(tb.p.unwrap(), 1.55566001254137e-5, 1e-6));
        assert_eq!(ta.significant(), Some(true));
        // qA = 21.5: the + level's effect; level means 19.5 and 62.5.
        let hi = level(a, "1");
        assert!(close(hi.effect.unwrap(), 21.5, 1e-12));
        assert!(close(level(b, "1").effect.unwrap(), 9.5, 1e-12));
        assert!(close(hi.mean, 62.5, 1e-12) && close(level(a, "-1").mean, 19.5, 1e-12));
        assert!(close(hi.mean_ci95.unwrap().half_width(), 3.36154979542246, 1e-9));
        assert!(close(hi.effect_ci95.unwrap().half_width(), 2.37697465563947, 1e-9));
        assert!(close(a.range, 43.0, 1e-12));
        assert!(close(a.range_ci95.unwrap().half_width(), 4.75394931127894, 1e-9));
        assert_eq!((a.lowest.as_str(), a.highest.as_str()), ("-1", "1"));
        let ab = &e.interactions[0];
        assert!(ab.estimable);
        let tab = ab.anova.unwrap();
        assert!(close(tab.ss, 300.0, 1e-12) && tab.df == 1);
        assert!(close(tab.p.unwrap(), 0.00127070325248913, 1e-6));
        // γ = ±qAB = ±5 in every cell.
        assert!(close(ab.largest.as_ref().unwrap().effect.abs(), 5.0, 1e-12));
        assert_eq!(e.higher_order, None, "two factors have no higher-order term");
    }

    /// A 2×3 design, one observation per treatment, y = 100 + a_i + b_j with
    /// a = (−10, +10) and b = (−5, 0, +5), no noise: the effects come back
    /// exactly, the two factors explain 100 % (SSA = 6·10² = 600,
    /// SSB = 2·(25+0+25) = 100), the interaction (the error here) is 0.
    #[test]
    fn exact_additive_effects_explain_everything() {
        let mut o = Vec::new();
        for (la, a) in [("x", -10.0), ("y", 10.0)] {
            for (lb, b) in [("1", -5.0), ("2", 0.0), ("3", 5.0)] {
                o.push(obs(&[("A", la), ("B", lb)], 100.0 + a + b));
            }
        }
        let e = analyse(&o, Scale::Linear);
        assert!(e.design.balanced && e.design.replicates_max == 1);
        let (a, b) = (factor(&e, "A"), factor(&e, "B"));
        assert!(close(a.anova.unwrap().ss, 600.0, 1e-12));
        assert!(close(b.anova.unwrap().ss, 100.0, 1e-12));
        let explained = a.anova.unwrap().share.unwrap() + b.anova.unwrap().share.unwrap();
        assert!(close(explained, 1.0, 1e-12), "{explained}");
        assert!(close(level(a, "x").effect.unwrap(), -10.0, 1e-12));
        assert!(close(level(b, "3").effect.unwrap(), 5.0, 1e-12));
        assert!(close(level(b, "1").mean, 95.0, 1e-12));
        assert!(close(b.range, 10.0, 1e-12));
        let err = e.error.unwrap();
        assert_eq!(err.source, ErrorSource::TwoFactorInteraction);
        assert!(err.term.ss < 1e-20 && err.term.df == 2);
        let ab = &e.interactions[0];
        assert!(ab.anova.unwrap().p.is_none() && ab.note.as_deref().unwrap().contains("error"));
        assert_eq!(a.anova.unwrap().significant(), Some(true));
    }

    /// On the log scale multiplicative effects come back as exact ratios:
    /// y = 100 · 2^i · 3^j, i ∈ {0,1}, j ∈ {0,1,2}.
    #[test]
    fn log_scale_reports_ratios() {
        let mut o = Vec::new();
        for i in 0..2 {
            for j in 0..3 {
                let y = 100.0 * 2f64.powi(i) * 3f64.powi(j);
                o.push(obs(
                    &[
                        ("link", ["pipe", "unix"][i as usize]),
                        ("size", ["64", "512", "4096"][j as usize]),
                    ],
                    y,
                ));
            }
        }
        let e = analyse(&o, Scale::Log);
        let (link, size) = (factor(&e, "link"), factor(&e, "size"));
        assert!(close(link.range, 2.0, 1e-12), "{}", link.range);
        assert!(close(size.range, 9.0, 1e-12), "{}", size.range);
        assert_eq!(
            size.levels.iter().map(|l| l.level.as_str()).collect::<Vec<_>>(),
            ["64", "512", "4096"]
        );
        // Geometric grand mean 100·√2·3; level 4096's effect ×3.
        assert!(close(e.grand_mean, 100.0 * 2f64.sqrt() * 3.0, 1e-12));
        assert!(close(level(size, "4096").effect.unwrap(), 3.0, 1e-12));
        assert!(close(level(link, "unix").mean, 100.0 * 2.0 * 3.0, 1e-12));
        assert_eq!(e.factors[0].factor, "size", "largest share first");
        assert_eq!(
            analyse(&[obs(&[("a", "1")], 0.0), obs(&[("a", "2")], 1.0)], Scale::Log).rejected,
            1
        );
    }

    #[test]
    fn a_factor_with_one_level_is_not_varied() {
        let o = [
            obs(&[("link", "pipe"), ("pattern", "pingpong")], 1.0),
            obs(&[("link", "unix"), ("pattern", "pingpong")], 2.0),
        ];
        let e = analyse(&o, Scale::Linear);
        assert_eq!(
            e.not_varied,
            [NotVaried { factor: "pattern".into(), level: "pingpong".into() }]
        );
        assert_eq!(e.factors.len(), 1);
        // One factor, one observation per level: no error, so no test or CI.
        assert!(e.error.is_none() && e.factors[0].anova.unwrap().p.is_none());
        assert!(e.factors[0].levels[0].mean_ci95.is_none());
        assert!(close(e.factors[0].anova.unwrap().share.unwrap(), 1.0, 1e-12));
        let none = analyse(&o[..1], Scale::Linear);
        assert!(none.factors.is_empty() && none.not_varied.len() == 2);
    }

    /// 2×2 with 2 replicates: y = 10 + 4·[A=hi ∧ B=hi] ± 0.1. Hand-worked:
    /// cell means 10, 10, 10, 14; grand 11; level means 10/12 for each
    /// factor; γ = ±1 in every cell; SSAB = 8·1 = 8, SSA = SSB = 8·1 = 8,
    /// SSE = 8·0.01 = 0.08 (df 4), so F_AB = 8/0.02 = 400.
    #[test]
    fn an_interaction_in_the_data_is_detected() {
        let mut o = Vec::new();
        for (a, b) in [("lo", "lo"), ("lo", "hi"), ("hi", "lo"), ("hi", "hi")] {
            let base = if a == "hi" && b == "hi" { 14.0 } else { 10.0 };
            o.push(obs(&[("A", a), ("B", b)], base + 0.1));
            o.push(obs(&[("A", a), ("B", b)], base - 0.1));
        }
        let e = analyse(&o, Scale::Linear);
        let ab = &e.interactions[0];
        let t = ab.anova.unwrap();
        assert!(close(t.ss, 8.0, 1e-12) && close(t.f.unwrap(), 400.0, 1e-9), "{t:?}");
        assert_eq!(t.significant(), Some(true));
        assert!(close(t.share.unwrap(), 8.0 / 24.08, 1e-12));
        let c = ab.largest.as_ref().unwrap();
        assert!(close(c.effect.abs(), 1.0, 1e-12));
        // Without the interaction, the same design finds none.
        let flat: Vec<Observation> = o
            .iter()
            .map(|x| {
                let hi = x.treatment["A"] == "hi";
                Observation {
                    value: x.value - if hi && x.treatment["B"] == "hi" { 4.0 } else { 0.0 },
                    ..x.clone()
                }
            })
            .collect();
        let e = analyse(&flat, Scale::Linear);
        assert_eq!(e.interactions[0].anova.unwrap().significant(), Some(false));
    }

    /// Three factors without replicates: the three-factor interaction is the
    /// error, and the two-factor interactions are tested against it.
    #[test]
    fn without_replicates_higher_order_interactions_are_the_error() {
        let mut o = Vec::new();
        let noise = [0.3, -0.1, 0.4, -0.1, 0.5, -0.9, 0.2, 0.6, -0.5, 0.3, -0.5, 0.8];
        for a in ["0", "1"] {
            for b in ["0", "1"] {
                for c in ["0", "1", "2"] {
                    let y = 50.0 + if a == "1" { 20.0 } else { 0.0 } + noise[o.len()];
                    o.push(obs(&[("a", a), ("b", b), ("c", c)], y));
                }
            }
        }
        let e = analyse(&o, Scale::Linear);
        let err = e.error.unwrap();
        assert_eq!(err.source, ErrorSource::HigherOrderInteractions);
        assert_eq!(err.term.df, 2); // (2−1)(2−1)(3−1)
        assert_eq!(e.interactions.len(), 3);
        assert!(e.interactions.iter().all(|i| i.anova.unwrap().p.is_some()));
        assert_eq!(e.factors[0].factor, "a");
        // Shares add up to 1 over mains, pairs and the error.
        let sum: f64 = e.factors.iter().map(|f| f.anova.unwrap().share.unwrap()).sum::<f64>()
            + e.interactions.iter().map(|i| i.anova.unwrap().share.unwrap()).sum::<f64>()
            + err.term.share.unwrap();
        assert!(close(sum, 1.0, 1e-9), "{sum}");
    }

    #[test]
    fn unbalanced_designs_fall_back_to_level_means() {
        // (hi, hi) missing: 3 of 4 combinations, 2 replicates each.
        let o = [
            obs(&[("A", "lo"), ("B", "lo")], 10.0),
            obs(&[("A", "lo"), ("B", "lo")], 12.0),
            obs(&[("A", "lo"), ("B", "hi")], 20.0),
            obs(&[("A", "lo"), ("B", "hi")], 22.0),
            obs(&[("A", "hi"), ("B", "lo")], 30.0),
            obs(&[("A", "hi"), ("B", "lo")], 32.0),
        ];
        let e = analyse(&o, Scale::Linear);
        assert!(!e.design.balanced);
        assert_eq!((e.design.missing, e.design.combinations), (1, 4));
        let hole: BTreeMap<String, String> =
            [("A", "hi"), ("B", "hi")].map(|(f, l)| (f.to_string(), l.to_string())).into();
        assert_eq!(e.design.missing_examples, [hole]);
        assert!(e.error.is_none() && e.total.is_none());
        let a = factor(&e, "A");
        assert!(a.anova.is_none() && a.range_ci95.is_none());
        // A=lo: 10 12 20 22, mean 16, s² = (36+16+16+36)/3, t(0.975; 3)·s/2.
        let lo = level(a, "lo");
        assert!(close(lo.mean, 16.0, 1e-12) && lo.effect.is_none());
        let half = 3.182446305284263 * (104.0f64 / 3.0).sqrt() / 2.0;
        assert!(close(lo.mean_ci95.unwrap().half_width(), half, 1e-9));
        assert!(close(a.range, 15.0, 1e-12));
        let ab = &e.interactions[0];
        assert!(!ab.estimable && ab.note.as_deref().unwrap().contains("unbalanced"));
    }

    #[test]
    fn a_missing_factor_is_its_own_level_and_numbers_sort_as_numbers() {
        let o = [
            obs(&[("size", "1024")], 3.0),
            obs(&[("size", "64")], 1.0),
            obs(&[("size", "512"), ("blocks", "2")], 2.0),
        ];
        let e = analyse(&o, Scale::Linear);
        let s = factor(&e, "size");
        assert_eq!(
            s.levels.iter().map(|l| l.level.as_str()).collect::<Vec<_>>(),
            ["64", "512", "1024"]
        );
        let b = factor(&e, "blocks");
        assert_eq!(b.levels.iter().map(|l| l.level.as_str()).collect::<Vec<_>>(), [UNSET, "2"]);
    }
}
