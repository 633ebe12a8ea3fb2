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
//! Pure: observations in, numbers out. This file holds the results' types
//! and [`analyse`]; `data` codes the observations and splits their
//! variation; `tests` checks both against Jain's worked examples.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::interval::Interval;

mod data;
#[cfg(test)]
mod tests;

use data::Data;

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
