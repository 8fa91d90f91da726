//! Mathematics of the walking skeleton (issue 2): the duality maps of ℓp, Algorithm 2.1 of
//! paper A on `F(w) = (γ/2)‖Xw − y‖² + (1/p)‖w‖_p^p`, its runs under the executor and the data generator.
//!
//! Every value the solver reports is checked against something computed independently here:
//! the primal and dual objectives summed term by term with `powf`, the identity
//! `F(w(α)) + Λ(α) = (γ/2)‖∇Λ(α)‖²`, the first-order optimality condition
//! `γXᵀ(Xw − y) + J_p(w) = 0`, and separable problems (d = 1, orthogonal design) solved
//! coordinate by coordinate by bisection.
#![cfg(not(target_arch = "wasm32"))]

use kernel_playground::data::SparseRegression;
use kernel_playground::exec::Stop;
use kernel_playground::exec::{Run, Stepper};
use kernel_playground::lp::{conjugate_exponent, j_map_into, j_scalar, norm_pow};
use kernel_playground::papers::lp::watch_to;
use kernel_playground::papers::lp::LpSpec;
use kernel_playground::rng::Rng;
use kernel_playground::solvers::dual_lp::{DualLp, Linesearch};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;

// ---------------------------------------------------------------- independent references

/// Algorithm 2.1's parameters as the spec's defaults give them (δ = θ = 1/2, λ̄ = γ/(2(1 − δ))).
fn linesearch(gamma: f64) -> Linesearch {
    Linesearch { delta: 0.5, theta: 0.5, step0: gamma, max_backtracks: 80 }
}

/// `sign(t)|t|^(r−1)` with `powf`, written independently of `crate::lp`.
fn jr(t: f64, r: f64) -> f64 {
    if t == 0.0 {
        0.0
    } else {
        t.signum() * t.abs().powf(r - 1.0)
    }
}

/// `Xw` by explicit loops.
fn matvec(x: &DMatrix<f64>, w: &[f64]) -> Vec<f64> {
    (0..x.nrows()).map(|i| (0..x.ncols()).map(|j| x[(i, j)] * w[j]).sum()).collect()
}

/// `Xᵀa` by explicit loops.
fn matvec_t(x: &DMatrix<f64>, a: &[f64]) -> Vec<f64> {
    (0..x.ncols()).map(|j| (0..x.nrows()).map(|i| x[(i, j)] * a[i]).sum()).collect()
}

fn norm2(v: &[f64]) -> f64 {
    v.iter().map(|t| t * t).sum::<f64>().sqrt()
}

/// `F(w) = (γ/2)‖Xw − y‖² + (1/p)Σ|w_j|^p`, term by term.
fn primal_ref(x: &DMatrix<f64>, y: &DVector<f64>, w: &[f64], gamma: f64, p: f64) -> f64 {
    let xw = matvec(x, w);
    let fit: f64 = xw.iter().zip(y.iter()).map(|(a, b)| (a - b) * (a - b)).sum();
    let reg: f64 = w.iter().map(|t| t.abs().powf(p)).sum();
    0.5 * gamma * fit + reg / p
}

/// The three terms of `Λ(α) = (1/q)‖Xᵀα‖_q^q + (1/(2γ))‖α‖² − ⟨y, α⟩`.
fn dual_terms(x: &DMatrix<f64>, y: &DVector<f64>, alpha: &[f64], gamma: f64, q: f64) -> [f64; 3] {
    let u = matvec_t(x, alpha);
    let poly: f64 = u.iter().map(|t| t.abs().powf(q)).sum::<f64>() / q;
    let quad: f64 = alpha.iter().map(|a| a * a).sum::<f64>() / (2.0 * gamma);
    let lin: f64 = y.iter().zip(alpha).map(|(a, b)| a * b).sum();
    [poly, quad, -lin]
}

/// `w(α) = J_q(Xᵀα)`, independently.
fn w_of_alpha(x: &DMatrix<f64>, alpha: &[f64], q: f64) -> Vec<f64> {
    matvec_t(x, alpha).iter().map(|&t| jr(t, q)).collect()
}

/// The optimality residual `γXᵀ(Xw − y) + J_p(w)` and the scale of its two terms
/// `‖γXᵀ(Xw − y)‖ + ‖J_p(w)‖`.
fn kkt(x: &DMatrix<f64>, y: &DVector<f64>, w: &[f64], gamma: f64, p: f64) -> (f64, f64) {
    let r: Vec<f64> = matvec(x, w).iter().zip(y.iter()).map(|(a, b)| a - b).collect();
    let fit: Vec<f64> = matvec_t(x, &r).iter().map(|t| gamma * t).collect();
    let reg: Vec<f64> = w.iter().map(|&t| jr(t, p)).collect();
    let res: Vec<f64> = fit.iter().zip(&reg).map(|(a, b)| a + b).collect();
    (norm2(&res), norm2(&fit) + norm2(&reg))
}

/// The optimality residual is bounded by the gap: with `w = J_q(Xᵀα)`, `J_p(w) = Xᵀα`, so
/// `γXᵀ(Xw − y) + J_p(w) = γXᵀ∇Λ(α)` and `‖·‖ ≤ ‖X‖₂·√(2γ·gap)` since `gap = (γ/2)‖∇Λ‖²`.
/// `‖X‖₂` comes from nalgebra's SVD; the residual from [`kkt`].
fn check_optimality(
    s: &DualLp,
    x: &DMatrix<f64>,
    y: &DVector<f64>,
    gamma: f64,
    p: f64,
) -> std::result::Result<(), TestCaseError> {
    let (res, scale) = kkt(x, y, s.w().as_slice(), gamma, p);
    let xnorm = x.clone().singular_values().max();
    let bound = xnorm * (2.0 * gamma * s.gap()).sqrt();
    prop_assert!(
        res <= 1.001 * bound + 1e-12 * scale,
        "optimality residual {res:e} above ‖X‖√(2γ gap) = {bound:e}"
    );
    Ok(())
}

/// The root of `γ(a w − b) + sign(w)|w|^(p−1) = 0` (a > 0) by bisection: the left side is
/// strictly increasing, negative at 0 and positive at b/a when b > 0 (mirror for b < 0).
fn scalar_root(a: f64, b: f64, gamma: f64, p: f64) -> f64 {
    let g = |w: f64| gamma * (a * w - b) + jr(w, p);
    let (mut lo, mut hi) = if b >= 0.0 { (0.0, b / a) } else { (b / a, 0.0) };
    assert!(g(lo) <= 0.0 && g(hi) >= 0.0, "bracket");
    for _ in 0..2000 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if g(mid) <= 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// A standard normal n × d matrix times `scale`, from the crate's seeded generator.
fn normal_matrix(rng: &mut Rng, n: usize, d: usize, scale: f64) -> DMatrix<f64> {
    DMatrix::from_fn(n, d, |_, _| scale * rng.normal())
}

fn normal_vector(rng: &mut Rng, n: usize, scale: f64) -> DVector<f64> {
    DVector::from_fn(n, |_, _| scale * rng.normal())
}

/// Checks every quantity of the current iterate against the references; returns Λ(α).
fn check_iterate(s: &DualLp, x: &DMatrix<f64>, y: &DVector<f64>, gamma: f64, p: f64) -> f64 {
    let q = conjugate_exponent(p);
    let alpha = s.alpha().as_slice();
    // w(α) = J_q(Xᵀα)
    let w_ref = w_of_alpha(x, alpha, q);
    for (a, b) in s.w().iter().zip(&w_ref) {
        assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "w = J_q(Xᵀα): {a} vs {b}");
    }
    // F and Λ against the term-by-term sums
    let f = primal_ref(x, y, s.w().as_slice(), gamma, p);
    let terms = dual_terms(x, y, alpha, gamma, q);
    let lam = terms.iter().sum::<f64>();
    let scale = f.abs() + terms.iter().map(|t| t.abs()).sum::<f64>();
    let tol = 1e-12 * scale.max(1e-300);
    assert!((s.primal_objective() - f).abs() <= tol, "F: {} vs {f}", s.primal_objective());
    assert!((s.dual_objective() - lam).abs() <= tol, "Λ: {} vs {lam}", s.dual_objective());
    // weak duality on the independent values, and the gap identity F + Λ = (γ/2)‖∇Λ‖²
    let gap = s.gap();
    assert!(gap >= 0.0);
    assert!(f + lam >= -tol, "weak duality violated: F + Λ = {}", f + lam);
    assert!((gap - (f + lam)).abs() <= tol, "gap {gap} vs F + Λ = {} (scale {scale})", f + lam);
    assert!(
        (s.gap() - (s.primal_objective() + s.dual_objective())).abs() <= tol,
        "gap() vs primal_objective() + dual_objective()"
    );
    // the record carries the same numbers, with dual = −Λ
    let rec = s.record();
    let (primal, dual, rgap) = (rec.primal.unwrap(), rec.dual.unwrap(), rec.gap.unwrap());
    assert_eq!(primal, s.primal_objective());
    assert_eq!(dual, -s.dual_objective());
    assert_eq!(rgap, gap);
    assert!((rgap - (primal - dual)).abs() <= tol);
    lam
}

// ---------------------------------------------------------------- duality maps

proptest! {
    /// `J_p ∘ J_q = Id` and `J_q ∘ J_p = Id` with `1/p + 1/q = 1`, for p in (1, 2), over
    /// magnitudes where `|t|^(q−1)` stays a normal number.
    #[test]
    fn duality_maps_are_inverse(p in 1.01f64..1.999, t in 1f64..2.0, e in -60i32..60, neg in any::<bool>()) {
        let q = conjugate_exponent(p);
        prop_assert!((1.0 / p + 1.0 / q - 1.0).abs() < 1e-14);
        let t = if neg { -t } else { t } * 2f64.powi(e);
        prop_assume!(((q - 1.0) * t.abs().log2()).abs() < 1000.0);
        let back = j_scalar(j_scalar(t, q), p);
        prop_assert!((back - t).abs() <= 1e-11 * t.abs(), "J_p(J_q({t})) = {back}");
        let back = j_scalar(j_scalar(t, p), q);
        prop_assert!((back - t).abs() <= 1e-11 * t.abs(), "J_q(J_p({t})) = {back}");
        // the map is the independent sign(t)|t|^(r−1), odd, and fixes 0
        let r = jr(t, q);
        prop_assert!((j_scalar(t, q) - r).abs() <= 1e-14 * r.abs());
        prop_assert_eq!(j_scalar(-t, q), -j_scalar(t, q));
        prop_assert_eq!(j_scalar(0.0, q), 0.0);
        prop_assert_eq!(j_scalar(0.0, p), 0.0);
    }

    /// The vector map and `norm_pow` agree with direct sums; `⟨J_q(u), u⟩ = ‖u‖_q^q` and
    /// `‖J_q(u)‖_p^p = ‖u‖_q^q` (used by the solver to get ‖w‖_p^p from Xᵀα).
    #[test]
    fn vector_duality_map(p in 1.01f64..1.99, u in proptest::collection::vec(-50f64..50.0, 0..23)) {
        let q = conjugate_exponent(p);
        let mut w = vec![0.0; u.len()];
        j_map_into(&u, q, &mut w);
        let mut back = vec![0.0; u.len()];
        j_map_into(&w, p, &mut back);
        for (a, b) in back.iter().zip(&u) {
            prop_assert!((a - b).abs() <= 1e-11 * b.abs().max(1e-300));
        }
        let sq: f64 = u.iter().map(|t| t.abs().powf(q)).sum();
        let tol = 1e-12 * sq.max(1e-300);
        prop_assert!((norm_pow(&u, q) - sq).abs() <= tol);
        let inner: f64 = w.iter().zip(&u).map(|(a, b)| a * b).sum();
        prop_assert!((inner - sq).abs() <= tol);
        prop_assert!((norm_pow(&w, p) - sq).abs() <= tol);
    }

    /// J_q is the gradient of (1/q)|t|^q: central finite differences.
    #[test]
    fn duality_map_is_gradient(p in 1.05f64..1.95, t in 0.1f64..10.0, neg in any::<bool>()) {
        let t = if neg { -t } else { t };
        for r in [p, conjugate_exponent(p)] {
            let h = 1e-6 * t.abs();
            let fd = ((t + h).abs().powf(r) - (t - h).abs().powf(r)) / (2.0 * h * r);
            prop_assert!((fd - j_scalar(t, r)).abs() <= 1e-6 * fd.abs().max(1.0));
        }
    }

    /// Weak duality for ANY α, and the identity the solver's gap rests on:
    /// `F(J_q(Xᵀα)) + Λ(α) = (γ/2)‖X J_q(Xᵀα) − y + α/γ‖² ≥ 0`.
    #[test]
    fn gap_identity_any_alpha(
        n in 1usize..7, d in 1usize..9, p in 1.05f64..1.95, lg in -1f64..2.0,
        seed in any::<u64>(), ascale in 0.01f64..10.0,
    ) {
        let gamma = 10f64.powf(lg);
        let q = conjugate_exponent(p);
        let mut rng = Rng::new(seed);
        let x = normal_matrix(&mut rng, n, d, 1.0);
        let y = normal_vector(&mut rng, n, 1.0);
        let alpha: Vec<f64> = (0..n).map(|_| ascale * rng.normal()).collect();
        let w = w_of_alpha(&x, &alpha, q);
        let f = primal_ref(&x, &y, &w, gamma, p);
        let terms = dual_terms(&x, &y, &alpha, gamma, q);
        let lam: f64 = terms.iter().sum();
        let xw = matvec(&x, &w);
        let g: Vec<f64> = (0..n).map(|i| xw[i] - y[i] + alpha[i] / gamma).collect();
        let gap = 0.5 * gamma * g.iter().map(|t| t * t).sum::<f64>();
        let scale = f.abs() + terms.iter().map(|t| t.abs()).sum::<f64>();
        prop_assert!(f + lam >= -1e-12 * scale);
        prop_assert!((f + lam - gap).abs() <= 1e-11 * scale, "F+Λ = {}, (γ/2)‖∇Λ‖² = {gap}", f + lam);
    }
}

// ---------------------------------------------------------------- Algorithm 2.1, step by step

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// On random small problems: every iterate's w, F, Λ and gap match the references; the gap
    /// is ≥ 0 at α = 0 and after every step; each accepted step satisfies the sufficient-decrease
    /// condition of Algorithm 2.1 on the independently computed Λ, so Λ decreases monotonically
    /// (the dual objective −Λ increases); α moves by exactly −λ∇Λ.
    #[test]
    fn every_step_is_a_valid_dual_descent_step(
        n in 1usize..8, d in 1usize..12, p in 1.05f64..1.95, lg in -1f64..2.0,
        xs in -1f64..1.0, ys in -1f64..1.0, seed in any::<u64>(),
    ) {
        let gamma = 10f64.powf(lg);
        let q = conjugate_exponent(p);
        let mut rng = Rng::new(seed);
        let x = normal_matrix(&mut rng, n, d, 10f64.powf(xs));
        let y = normal_vector(&mut rng, n, 10f64.powf(ys));
        let ls = linesearch(gamma);
        let mut s = DualLp::new(x.clone(), y.clone(), gamma, p, ls);
        prop_assert!(s.alpha().iter().all(|&a| a == 0.0));
        let mut lam = check_iterate(&s, &x, &y, gamma, p);
        // at α = 0: w = 0, F = (γ/2)‖y‖², Λ = 0, gap = F
        prop_assert!(s.w().iter().all(|&t| t == 0.0));
        prop_assert_eq!(lam, 0.0);
        prop_assert!((s.gap() - 0.5 * gamma * y.norm_squared()).abs() <= 1e-14 * s.gap());
        for k in 1..=40 {
            let alpha_old = s.alpha().clone();
            let g_old = s.grad().clone();
            let g2 = g_old.norm_squared();
            let rec = match s.step() {
                Some(r) => r,
                None => {
                    // only legitimate when the gap is already at rounding level
                    prop_assert_eq!(s.stop(), Stop::Stalled);
                    let rel = s.record().rel_gap.unwrap();
                    prop_assert!(rel < 1e-12, "stalled at rel gap {}", rel);
                    break;
                }
            };
            prop_assert_eq!(rec.iter, k);
            let (step, backtracks) = (rec.step.unwrap(), rec.backtracks.unwrap());
            prop_assert!(step > 0.0 && step <= ls.step0);
            prop_assert_eq!(step, ls.step0 * ls.theta.powi(backtracks as i32));
            for i in 0..n {
                let a = alpha_old[i] - step * g_old[i];
                prop_assert!((s.alpha()[i] - a).abs() <= 1e-14 * (a.abs() + alpha_old[i].abs()));
            }
            let new = check_iterate(&s, &x, &y, gamma, p);
            let terms = dual_terms(&x, &y, s.alpha().as_slice(), gamma, q);
            let scale = terms.iter().map(|t| t.abs()).sum::<f64>() + lam.abs();
            prop_assert!(new <= lam + 1e-12 * scale, "Λ increased: {lam} -> {new}");
            let want = step * (1.0 - ls.delta) * g2;
            prop_assert!(lam - new >= want - 1e-10 * scale,
                "sufficient decrease: Λ fell by {} < λ(1−δ)‖∇Λ‖² = {want}", lam - new);
            lam = new;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// The gap tends to 0: a run under the executor reaches rel_gap ≤ 1e-10 with status Converged, and
    /// then `γXᵀ(Xw − y) + J_p(w) = 0` to a tight tolerance relative to its terms.
    #[test]
    fn runs_converge_and_satisfy_optimality(
        n in 1usize..8, d in 1usize..12, p in 1.1f64..1.9, lg in -1f64..2.0, seed in any::<u64>(),
    ) {
        let gamma = 10f64.powf(lg);
        let mut rng = Rng::new(seed);
        let x = normal_matrix(&mut rng, n, d, 1.0);
        let y = normal_vector(&mut rng, n, 1.0);
        let mut run = Run::with_watch(DualLp::new(x.clone(), y.clone(), gamma, p, linesearch(gamma)), watch_to(1e-10, 100_000));
        let status = run.run();
        let last = run.last();
        let rel = last.rel_gap.unwrap();
        prop_assert_eq!(status, Stop::Converged, "after {} iterations, rel gap {}", last.iter, rel);
        prop_assert!(rel <= 1e-10);
        prop_assert_eq!(run.kept().len(), last.iter + 1);
        let s = run.stepper();
        check_iterate(s, &x, &y, gamma, p);
        let f = primal_ref(&x, &y, s.w().as_slice(), gamma, p);
        prop_assert!(s.gap() <= 1e-10 * f * (1.0 + 1e-12));
        check_optimality(s, &x, &y, gamma, p)?;
        // pushed to the rounding floor, the residual is small against its terms
        let s = tighten(run.into_stepper());
        let (res, scale) = kkt(&x, &y, s.w().as_slice(), gamma, p);
        prop_assert!(res <= 1e-5 * scale, "optimality residual {res:e} vs scale {scale:e}");
        check_optimality(&s, &x, &y, gamma, p)?;
    }
}

/// Continues a solver towards the tightest gap floating point allows: tol 1e-16 on the relative
/// gap, for up to 50 000 more iterations, accepting the cap or a stall (the linesearch cannot
/// see a decrease below rounding) only once the relative gap is ≤ 1e-12. Returns the solver.
/// The driver's cap counts the solver's iterations from its start, so it is set past the ones
/// already done (a first run of 46 496 iterations once left only 3 504 here: n = 7, d = 3,
/// p = 1.115, γ = 65.9, which needs 9 684 more to reach 1e-12).
fn tighten(s: DualLp) -> DualLp {
    let done = s.record().iter;
    let mut run = Run::with_watch(s, watch_to(1e-16, done + 50_000));
    let status = run.run();
    let last = run.last();
    let rel = last.rel_gap.unwrap();
    assert!(
        status == Stop::Converged || rel <= 1e-12,
        "status {status:?} after {} iterations at rel gap {}",
        last.iter,
        rel
    );
    run.into_stepper()
}

fn solve_tight(x: &DMatrix<f64>, y: &DVector<f64>, gamma: f64, p: f64) -> DualLp {
    tighten(DualLp::new(x.clone(), y.clone(), gamma, p, linesearch(gamma)))
}

/// Compares the solution of a separable problem (`XᵀX = diag(a)`) with the coordinatewise
/// bisection roots `w̄`:
/// * within the certificate that weak duality gives, `|w_j − w̄_j| ≤ √(2·gap/(γ a_j))`
///   (F is a sum of γa_j-strongly convex scalar functions and `F(w) − min F ≤ gap`);
/// * within 1e-8 on the scale of the problem, `max(1, |w̄_j|, ‖y‖/√a_j)`: a relative gap of
///   1e-16 (about the rounding floor of the solver's linesearch) certifies exactly that, since
///   `F(w) ≤ F(0) = (γ/2)‖y‖²` gives `√(2·1e-16·F/(γa_j)) ≤ 1e-8·‖y‖/√a_j`.
fn check_separable(
    s: &DualLp,
    a: &[f64],
    b: &[f64],
    ynorm: f64,
    gamma: f64,
    p: f64,
) -> std::result::Result<(), TestCaseError> {
    let gap = s.gap();
    for j in 0..a.len() {
        let w_ref = scalar_root(a[j], b[j], gamma, p);
        let w = s.w()[j];
        let err = (w - w_ref).abs();
        let cert = (2.0 * gap / (gamma * a[j])).sqrt();
        let scale = w_ref.abs().max(1.0).max(ynorm / a[j].sqrt());
        prop_assert!(
            err <= 1e-8 * scale,
            "w_{j} = {w}, bisection {w_ref} (rel gap {:e})",
            s.record().rel_gap.unwrap()
        );
        prop_assert!(
            err <= 1.01 * cert + 1e-13 * w_ref.abs().max(1.0),
            "w_{j}: error {err:e} above the gap certificate {cert:e}"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// d = 1: `F(w) = (γ/2)‖xw − y‖² + |w|^p/p` has its minimum at the root of
    /// `γ(‖x‖²w − ⟨x, y⟩) + sign(w)|w|^(p−1)`, found by bisection.
    #[test]
    fn one_dimensional_problem_matches_bisection(
        n in 1usize..20, p in 1.1f64..1.9, lg in -1f64..2.0, seed in any::<u64>(),
    ) {
        let gamma = 10f64.powf(lg);
        let mut rng = Rng::new(seed);
        let x = normal_matrix(&mut rng, n, 1, 1.0);
        let y = normal_vector(&mut rng, n, 1.0);
        let a = x.column(0).norm_squared();
        let b = x.column(0).dot(&y);
        let s = solve_tight(&x, &y, gamma, p);
        check_separable(&s, &[a], &[b], y.norm(), gamma, p)?;
    }

    /// Orthogonal design `X = Q diag(c)` (QᵀQ = I): F separates into d scalar problems
    /// `γ(c_j² w_j − (Xᵀy)_j) + sign(w_j)|w_j|^(p−1) = 0`, each solved by bisection.
    #[test]
    fn orthogonal_design_matches_coordinatewise_bisection(
        d in 1usize..8, extra in 0usize..6, p in 1.1f64..1.9, lg in -1f64..2.0, seed in any::<u64>(),
    ) {
        let n = d + extra;
        let gamma = 10f64.powf(lg);
        let mut rng = Rng::new(seed);
        let g = normal_matrix(&mut rng, n, d, 1.0);
        let qmat = g.qr().q();
        let c: Vec<f64> = (0..d).map(|_| 0.5 + 2.5 * rng.uniform()).collect();
        let x = DMatrix::from_fn(n, d, |i, j| qmat[(i, j)] * c[j]);
        let y = normal_vector(&mut rng, n, 2.0);
        // the design really is orthogonal
        let xtx = x.transpose() * &x;
        for i in 0..d {
            for j in 0..d {
                let want = if i == j { c[i] * c[i] } else { 0.0 };
                prop_assert!((xtx[(i, j)] - want).abs() < 1e-12);
            }
        }
        let b = matvec_t(&x, y.as_slice());
        let s = solve_tight(&x, &y, gamma, p);
        let a: Vec<f64> = c.iter().map(|t| t * t).collect();
        check_separable(&s, &a, &b, y.norm(), gamma, p)?;
    }
}

/// A diagonal design (n = d, X = diag(c)): the same separable check with an exact zero
/// pattern, and a coordinate with y_j = 0 whose solution is exactly 0.
#[test]
fn diagonal_design_matches_bisection() {
    let c = [0.3, 1.0, 2.5, 0.7, 4.0];
    let yv = [1.5, -2.0, 0.0, 0.25, -10.0];
    let x = DMatrix::from_fn(5, 5, |i, j| if i == j { c[i] } else { 0.0 });
    let y = DVector::from_column_slice(&yv);
    for (p, gamma) in [(4.0 / 3.0, 10.0), (1.25, 0.3), (1.7, 50.0)] {
        let s = solve_tight(&x, &y, gamma, p);
        let a: Vec<f64> = c.iter().map(|t| t * t).collect();
        let b: Vec<f64> = c.iter().zip(&yv).map(|(s, t)| s * t).collect();
        if let Err(e) = check_separable(&s, &a, &b, y.norm(), gamma, p) {
            panic!("p = {p}, γ = {gamma}: {e}");
        }
        assert_eq!(s.w()[2], 0.0);
    }
}

// ---------------------------------------------------------------- Algorithm 2.1 under the executor

#[test]
fn the_executor_stops_algorithm_2_1_at_the_iteration_cap() {
    let data = SparseRegression { n: 20, d: 60, k: 3, sigma: 0.1, seed: 3 }.generate().unwrap();
    let gamma = 10.0;
    for cap in [1usize, 3, 7] {
        let s = DualLp::new(data.x.clone(), data.y.clone(), gamma, 4.0 / 3.0, linesearch(gamma));
        let mut run = Run::with_watch(s, watch_to(1e-300, cap));
        assert_eq!(run.stop(), Stop::Running);
        assert_eq!(run.run(), Stop::MaxIterations);
        assert_eq!(run.kept().len(), cap + 1);
        assert_eq!(run.last().iter, cap);
        for (i, r) in run.kept().iter().enumerate() {
            assert_eq!(r.iter, i);
        }
        // a finished run does not advance
        assert!(run.step().is_none());
        assert_eq!(run.kept().len(), cap + 1);
        // ... but the algorithm itself is not ended: the cap is the executor's, so a run
        // continued under a higher cap takes the next step
        let mut more = Run::with_watch(run.into_stepper(), watch_to(1e-300, cap + 1));
        let r = more.step().expect("one more step");
        assert_eq!(r.iter, cap + 1);
        assert_eq!(more.stop(), Stop::MaxIterations);
    }
}

/// y = 0: α = 0 is optimal (w = 0, F = Λ = 0), so the run is converged before any step and a
/// raw step reports a stall instead of dividing by zero.
#[test]
fn zero_targets_are_solved_at_the_start() {
    let x = DMatrix::from_fn(4, 3, |i, j| (i + 2 * j) as f64 - 2.0);
    let y = DVector::zeros(4);
    let mut s = DualLp::new(x, y, 2.0, 1.5, linesearch(2.0));
    assert_eq!(s.gap(), 0.0);
    assert_eq!(s.step(), None);
    assert_eq!(s.stop(), Stop::Stalled);
    let x = DMatrix::from_fn(4, 3, |i, j| (i + 2 * j) as f64 - 2.0);
    let run = Run::with_watch(
        DualLp::new(x, DVector::zeros(4), 2.0, 1.5, linesearch(2.0)),
        watch_to(1e-10, 10),
    );
    assert_eq!(run.stop(), Stop::Converged);
    assert_eq!(run.kept().len(), 1);
}

/// The trace of a run: consecutive iterations, gap = primal − dual, rel_gap = gap/|primal|,
/// the dual objective −Λ non-decreasing, the primal bounded below by every dual value.
fn check_trace(run: &Run<DualLp>) {
    let mut best_dual = f64::NEG_INFINITY;
    for (i, r) in run.kept().iter().enumerate() {
        assert_eq!(r.iter, i);
        let (primal, dual, gap, rel_gap, step) = (
            r.primal.unwrap(),
            r.dual.unwrap(),
            r.gap.unwrap(),
            r.rel_gap.unwrap(),
            r.step.unwrap(),
        );
        let r = Rec { primal, dual, gap, rel_gap, step, time_ms: r.time_ms };
        let scale = r.primal.abs() + r.dual.abs();
        assert!(
            (r.gap - (r.primal - r.dual)).abs() <= 1e-11 * scale,
            "iter {i}: gap {} vs {}",
            r.gap,
            r.primal - r.dual
        );
        assert!((r.rel_gap - r.gap / r.primal.abs()).abs() <= 1e-15 * r.rel_gap.abs().max(1e-300));
        assert!(r.dual >= best_dual - 1e-12 * scale, "dual objective fell at iteration {i}");
        best_dual = best_dual.max(r.dual);
        assert!(
            r.primal >= best_dual - 1e-11 * scale,
            "primal below a dual value at iteration {i}"
        );
        if i > 0 {
            assert!(r.step > 0.0 && r.time_ms >= 0.0);
        }
    }
}

/// A record's measures as plain numbers (paper A sets them all).
struct Rec {
    primal: f64,
    dual: f64,
    gap: f64,
    rel_gap: f64,
    step: f64,
    time_ms: f64,
}

// ---------------------------------------------------------------- the issue's workload, scaled

/// The "done when" workload of issue 2 (n = 200, d = 10 000, k = 10, σ = 0.05, γ = 10,
/// p = 4/3, rel gap ≤ 1e-10) at a scale a debug build runs in seconds: n = 50, d = 2000, k = 5.
#[test]
fn skeleton_workload_small_scale() {
    let spec = r#"{
        "data": {"kind": "sparse_regression", "n": 50, "d": 2000, "k": 5, "sigma": 0.05, "seed": 7},
        "model": {"problem": "lp_regression", "p": 1.3333333333333333, "gamma": 10},
        "solver": {"algorithm": "dual_gradient", "tol": 1e-10, "max_iter": 5000}
    }"#;
    let valid = LpSpec::from_json(spec).unwrap().validate().unwrap();
    let (x, y) = (valid.data.x.clone(), valid.data.y.clone());
    let (p, gamma) = (valid.p, valid.gamma);
    // Algorithm 2.1 itself, as the spec's `dual_gradient` configures it.
    let solver = DualLp::new(x.clone(), y.clone(), gamma, p, valid.linesearch);
    let mut run = Run::with_watch(solver, valid.watch());
    let status = run.run();
    let last = run.last();
    let rel = last.rel_gap.unwrap();
    eprintln!("skeleton n=50 d=2000: {status:?} after {} iterations, rel gap {rel:e}", last.iter);
    assert_eq!(status, Stop::Converged);
    assert!(rel <= 1e-10);
    check_trace(&run);
    let s = run.stepper();
    check_iterate(s, &x, &y, gamma, p);
    check_optimality(s, &x, &y, gamma, p).unwrap();
    let (res, scale) = kkt(&x, &y, s.w().as_slice(), gamma, p);
    eprintln!("optimality residual {res:e}, scale {scale:e}");
    // continued to the rounding floor, the optimality condition holds tightly
    let s = tighten(run.into_stepper());
    check_optimality(&s, &x, &y, gamma, p).unwrap();
    let (res, scale) = kkt(&x, &y, s.w().as_slice(), gamma, p);
    eprintln!(
        "tightened: rel gap {:e}, optimality residual {res:e}, scale {scale:e}",
        s.record().rel_gap.unwrap()
    );
    assert!(res <= 1e-5 * scale, "optimality residual {res:e} vs scale {scale:e}");
}

// ---------------------------------------------------------------- the data generator

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Same seed ⇒ identical data and digest; another seed ⇒ another digest; w* has exactly k
    /// non-zeros at distinct places; y − Xw* = σε with the same ε for every σ (the noise is drawn
    /// last), so σ = 0 gives y = Xw* exactly.
    #[test]
    fn generator_is_seeded_and_sparse(
        n in 1usize..30, d in 1usize..40, kf in 0f64..=1.0, seed in any::<u64>(), sigma in 0.01f64..3.0,
    ) {
        let k = ((d as f64) * kf).round() as usize;
        let g = SparseRegression { n, d, k, sigma, seed };
        let a = g.generate().unwrap();
        let b = g.generate().unwrap();
        prop_assert_eq!(a.digest(), b.digest());
        prop_assert_eq!(&a.x, &b.x);
        prop_assert_eq!(&a.y, &b.y);
        prop_assert_eq!(a.digest().len(), 16);
        prop_assert!(a.digest().chars().all(|c| c.is_ascii_hexdigit()));
        let other = SparseRegression { seed: seed.wrapping_add(1), ..g }.generate().unwrap();
        prop_assert_ne!(a.digest(), other.digest());
        prop_assert_eq!(a.x.shape(), (n, d));
        prop_assert_eq!(a.y.len(), n);
        prop_assert_eq!(a.feature_names.len(), d);
        let w = a.w_true.clone().unwrap();
        prop_assert_eq!(w.len(), d);
        // k non-zeros (normal draws are non-zero with probability 1); distinct places follow
        // from counting non-zero coordinates of one vector
        prop_assert_eq!(w.iter().filter(|&&t| t != 0.0).count(), k);
        // σ = 0: same X and w*, y = Xw* exactly
        let exact = SparseRegression { sigma: 0.0, ..g }.generate().unwrap();
        prop_assert_eq!(&exact.x, &a.x);
        prop_assert_eq!(exact.w_true.as_ref().unwrap(), &w);
        let xw = matvec(&a.x, w.as_slice());
        for (yi, xwi) in exact.y.iter().zip(&xw) {
            prop_assert!((yi - xwi).abs() <= 1e-12 * (1.0 + xwi.abs()));
        }
        prop_assert_eq!(&exact.y, &(&a.x * &w));
        // y − Xw* = σε with ε independent of σ
        let twice = SparseRegression { sigma: 2.0 * sigma, ..g }.generate().unwrap();
        for i in 0..n {
            let e1 = (a.y[i] - exact.y[i]) / sigma;
            let e2 = (twice.y[i] - exact.y[i]) / (2.0 * sigma);
            prop_assert!((e1 - e2).abs() <= 1e-9 * (1.0 + e1.abs() + exact.y[i].abs() / sigma));
        }
    }
}

/// The entries of X and the noise ε are standard normal: sample mean and variance within
/// five standard errors (fixed seeds, so the test is deterministic).
#[test]
fn generator_draws_standard_normals() {
    for seed in [1u64, 2, 3] {
        let g = SparseRegression { n: 400, d: 50, k: 0, sigma: 0.5, seed };
        let data = g.generate().unwrap();
        let m = (data.n() * data.d()) as f64;
        let mean = data.x.iter().sum::<f64>() / m;
        let var = data.x.iter().map(|t| (t - mean) * (t - mean)).sum::<f64>() / (m - 1.0);
        assert!(mean.abs() < 5.0 / m.sqrt(), "mean {mean}");
        assert!((var - 1.0).abs() < 5.0 * (2.0 / m).sqrt(), "variance {var}");
        // k = 0: w* = 0 and y = σε
        assert!(data.w_true.as_ref().unwrap().iter().all(|&t| t == 0.0));
        let e: Vec<f64> = data.y.iter().map(|t| t / 0.5).collect();
        let n = e.len() as f64;
        let em = e.iter().sum::<f64>() / n;
        let ev = e.iter().map(|t| (t - em) * (t - em)).sum::<f64>() / (n - 1.0);
        assert!(em.abs() < 5.0 / n.sqrt(), "noise mean {em}");
        assert!((ev - 1.0).abs() < 5.0 * (2.0 / n).sqrt(), "noise variance {ev}");
    }
}

/// The support of w* is spread over all places: over many seeds every index is hit.
#[test]
fn generator_support_covers_every_place() {
    let d = 12;
    let mut hits = vec![0usize; d];
    for seed in 0..200u64 {
        let w = SparseRegression { n: 1, d, k: 3, sigma: 0.0, seed }
            .generate()
            .unwrap()
            .w_true
            .unwrap();
        for j in 0..d {
            if w[j] != 0.0 {
                hits[j] += 1;
            }
        }
    }
    // 600 draws over 12 places: 50 expected each
    assert!(hits.iter().all(|&h| h > 20 && h < 90), "{hits:?}");
}
