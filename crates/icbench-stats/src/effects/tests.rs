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
    assert_eq!(e.not_varied, [NotVaried { factor: "pattern".into(), level: "pingpong".into() }]);
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
