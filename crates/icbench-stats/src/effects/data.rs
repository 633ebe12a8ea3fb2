//! The observations coded by level, and the split of their variation
//! into main effects, interactions, higher-order terms and error (Jain
//! ch. 18, 21–23; the formulas are in the parent module's docs).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use statrs::distribution::{ContinuousCDF, FisherSnedecor};

use super::*;
use crate::ci::{mean_ci95, t_975};

/// The observations, coded: each a level index per varied factor.
pub(super) struct Data {
    scale: Scale,
    /// Varied factors: name and levels.
    pub(super) levels: Vec<(String, Vec<String>)>,
    pub(super) not_varied: Vec<NotVaried>,
    /// Level indices of each observation, one per varied factor.
    codes: Vec<Vec<usize>>,
    /// The response on the analysed scale.
    pub(super) z: Vec<f64>,
    pub(super) grand: f64,
}

impl Data {
    pub(super) fn new(obs: &[&Observation], scale: Scale) -> Data {
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

    pub(super) fn design(&self) -> (bool, Design) {
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

    pub(super) fn balanced(&self, e: &mut Effects) {
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
    pub(super) fn unbalanced(&self, e: &mut Effects) {
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
///
/// The p is statrs 0.19.1's `FisherSnedecor::sf`: the regularized
/// incomplete beta's continued fraction, at most 140 terms, so bounded time
/// for any df. Its error grows with df_e (#35); against mpmath (`betainc`,
/// 40 digits), for df 1 … 100 and F 0.5 … 20 with p ≥ 10⁻¹⁰⁰:
///
/// | df_e | relative error of p |
/// |---|---|
/// | 1 … 10³ | ≤ 10⁻¹² |
/// | 10⁴ … 10⁶ | ≤ 2·10⁻⁹ |
/// | 10⁷ / 10⁸ | ≤ 9·10⁻⁸ |
/// | 1.5·10⁹ | ≤ 7·10⁻⁶ |
/// | 10¹² | ≤ 10⁻² |
///
/// df_e is the number of observations less the treatments, and every
/// observation is held in memory (≥ 16 bytes each): 1.5·10⁹ is past what
/// 24 GiB holds, so no guard is applied. Known answers below.
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
mod f_test_tests {
    use super::f_test;

    #[test]
    fn f_test_p_known_answers_up_to_huge_error_df() {
        // mpmath: betainc(df_e/2, df/2, 0, df_e/(df_e + df·F), regularized=True).
        for (df, df_e, f, want) in [
            (1usize, 10usize, 2.0, 0.187_669_870_869_603),
            (2, 1_000_000, 2.0, 0.135_335_824_577_384_74),
            (5, 100_000_000, 2.0, 0.075_235_256_063_606_48),
            (20, 100_000_000, 1.5, 0.069_853_689_865_859_4),
            (20, 1_500_000_000, 2.0, 0.004_995_412_734_836_741),
        ] {
            let (got_f, p) = f_test(f * df as f64, df, Some(1.0), Some(df_e));
            assert_eq!(got_f, Some(f));
            let p = p.unwrap();
            let tol = if df_e > 100_000_000 { 1e-5 } else { 1e-7 };
            assert!(((p - want) / want).abs() < tol, "F({df}, {df_e}) = {f}: {p} vs {want}");
        }
    }
}
