//! Tests of [`super::bounds`]: the cheap bounds' verdicts against the full evaluation
//! ([`super::bregman_sum_within`]); a sibling of `bounds.rs` so that `bounds.rs` does not import
//! its parent (issue 34: no parent ⇄ child import cycle).

use super::bounds::*;
use super::bregman_sum_within;
use pulp::WithSimd;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// A value in [−1, 1) from the generator.
fn unit(rng: &mut rand_chacha::ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

/// Both paths of the bounds (the CPU's vector unit and plain scalars) must give one verdict.
fn verdict(u: &[f64], z: &[f64], step: f64, bound: f64, q: u32) -> Verdict {
    let (mut hu, mut hz) = (Vec::new(), Vec::new());
    let upow: Vec<f64> = u.iter().map(|&t| crate::lp::abs_powi(t, q)).collect();
    gather_heavy(&upow, u, z, 7, &mut hu, &mut hz);
    let op = || TrialBounds { u, z, step, bound, q, heavy: (&hu, &hz) };
    let (fast, plain) = (pulp::Arch::new().dispatch(op()), op().with_simd(pulp::Scalar::new()));
    assert_eq!(fast, plain, "vector and scalar verdicts differ");
    fast
}

/// The full evaluation's decision, as Algorithm 2.1 takes it: accept iff a finite sum ≤ bound.
fn exact_accepts(u: &[f64], z: &[f64], step: f64, bound: f64, q: u32) -> bool {
    let upow: Vec<f64> = u.iter().map(|&t| crate::lp::abs_powi(t, q)).collect();
    bregman_sum_within(u, z, &upow, q as f64, step, bound).is_some_and(f64::is_finite)
}

/// Every verdict the bounds give is the full evaluation's decision — including at bounds within
/// a few ulps of the sum, where only the margin κ keeps them apart — over random `u` (with
/// zeros, tiny and large entries), `z`, steps from 10⁻⁹ to 10 (sign flips included) and every
/// integer q the linesearch uses; and small steps (|λz| ≤ 10⁻³|u|) are decided 5 % from the sum.
#[test]
fn verdicts_are_the_full_sums_decisions() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
    let (mut decided, mut cases) = (0usize, 0usize);
    for case in 0..400 {
        let d = [1usize, 3, 4, 7, 255, 256, 257, 1029][case % 8];
        let q = [3u32, 5, 6, 7, 8, 11, 21][case % 7];
        let scale = 10f64.powi((case % 5) as i32 - 2);
        let u: Vec<f64> = (0..d)
            .map(|j| match j % 9 {
                0 => 0.0,
                1 => 1e-30 * unit(&mut rng),
                _ => scale * unit(&mut rng),
            })
            .collect();
        let z: Vec<f64> = (0..d).map(|_| unit(&mut rng)).collect();
        let small = case % 3 == 0;
        let step = if small {
            // |λz_j| ≤ 10⁻³|u_j| on the nonzero u (zero u are left at z = 0 below).
            1e-3 * u
                .iter()
                .zip(&z)
                .filter(|(t, _)| **t != 0.0)
                .map(|(t, s)| t.abs() / s.abs().max(1e-300))
                .fold(f64::INFINITY, f64::min)
                .min(1.0)
        } else {
            10f64.powf(-9.0 + 10.0 * (unit(&mut rng) + 1.0) / 2.0)
        };
        let z: Vec<f64> = if small {
            z.iter().zip(&u).map(|(s, t)| if *t == 0.0 { 0.0 } else { *s }).collect()
        } else {
            z
        };
        let upow: Vec<f64> = u.iter().map(|&t| crate::lp::abs_powi(t, q)).collect();
        let b = bregman_sum_within(&u, &z, &upow, q as f64, step, f64::INFINITY).expect("no bound");
        if !(b.is_finite() && b > 1e-250) {
            continue;
        }
        for r in [-0.5, -0.05, -1e-6, -1e-12, -4e-16, 0.0, 4e-16, 1e-12, 1e-6, 0.05, 0.5, 10.0] {
            let bound = b * (1.0 + r);
            let v = verdict(&u, &z, step, bound, q);
            let exact = exact_accepts(&u, &z, step, bound, q);
            match v {
                Verdict::Accept => {
                    assert!(exact, "case {case}: accepted, the full sum rejects (r = {r})")
                }
                Verdict::Reject => {
                    assert!(!exact, "case {case}: rejected, the full sum accepts (r = {r})")
                }
                Verdict::Undecided => {}
            }
            if r.abs() < 1e-15 {
                // Within rounding of B: the bounds must not pretend to know.
                assert_eq!(v, Verdict::Undecided, "case {case}: decided within rounding (r = {r})");
            }
            if small && r.abs() == 0.05 {
                cases += 1;
                decided += (v != Verdict::Undecided) as usize;
                assert_ne!(
                    v,
                    Verdict::Undecided,
                    "case {case}: a small step 5 % from the bound, q = {q}"
                );
            }
        }
    }
    assert!(cases >= 100 && decided == cases, "{decided} of {cases} small-step cases decided");
}

/// The heavy coordinates are those of the largest octaves of `|u|^q` that fit in the cap, in
/// order; the largest is always among them unless its own octave overflows the cap.
#[test]
fn heavy_coordinates_are_the_largest_octaves() {
    let u = [0.1, -3.0, 2.9, 0.0, 1.0, -2.0, 3.1, 0.5];
    let z: Vec<f64> = (0..u.len()).map(|j| j as f64).collect();
    let upow: Vec<f64> = u.iter().map(|&t| crate::lp::abs_powi(t, 11)).collect();
    let (mut hu, mut hz) = (Vec::new(), Vec::new());
    for cap in 0..=u.len() {
        gather_heavy(&upow, &u, &z, cap, &mut hu, &mut hz);
        assert!(hu.len() <= cap, "cap {cap}");
        // Every gathered coordinate is at least as large as every one left out.
        let least = hu.iter().map(|&t| crate::lp::abs_powi(t, 11)).fold(f64::INFINITY, f64::min);
        let left = u
            .iter()
            .filter(|t| !hu.contains(t))
            .map(|&t| crate::lp::abs_powi(t, 11))
            .fold(0.0, f64::max);
        assert!(hu.is_empty() || least >= left, "cap {cap}: {hu:?}");
        for (a, b) in hu.iter().zip(&hz) {
            assert_eq!(u[*b as usize], *a, "u and z gathered together, in order");
        }
        assert!(hz.windows(2).all(|w| w[0] < w[1]), "in order");
    }
    gather_heavy(&upow, &u, &z, 3, &mut hu, &mut hz);
    assert_eq!(
        hu,
        vec![-3.0, 2.9, 3.1],
        "|u|^11: 3.1 and −3 in the top octave, 2.9 in the next, 2 far below"
    );
}

/// The edges hand over to the full evaluation: a bound of 0 or below 10⁻²⁸⁰, a non-finite
/// bound, and sums whose exact terms could overflow.
#[test]
fn edges_are_undecided() {
    let (u, z) = ([1.0, -2.0, 0.5, 3.0, 0.25], [0.1, 0.2, -0.1, 0.3, 0.0]);
    for bound in [0.0, -1.0, 1e-300, f64::INFINITY, f64::NAN] {
        assert_eq!(verdict(&u, &z, 0.01, bound, 11), Verdict::Undecided, "bound {bound}");
    }
    let big = [1e40, 1.0, 1.0, 1.0];
    let zb = [1e-300, 0.0, 0.0, 0.0];
    assert_eq!(verdict(&big, &zb, 1.0, 1e300, 11), Verdict::Undecided);
}
