//! Paper A beyond the square loss: Algorithm 3.3 for every loss, the primal baselines (GD with
//! Armijo, FISTA) and the dual Newton method, each checked against something independent:
//! brute-force 1-D minimizations, the Fenchel conjugates of `src/losses/`, KKT residuals, a
//! brute-force primal minimization over w ∈ R², and the other solvers.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use kernel_playground::data::SparseRegression;
use kernel_playground::datasets::blobs::TwoBlobs;
use kernel_playground::exec::{Record, Run, Stepper, Stop};
use kernel_playground::losses::Loss;
use kernel_playground::lp::{
    conjugate_exponent, j_map_into, norm_pow, DualPolynomial, FeaturePolynomial,
};
use kernel_playground::papers::lp::watch_to;
use kernel_playground::rng::Rng;
use kernel_playground::solvers::dual_lp::{DualLp, Linesearch};
use kernel_playground::solvers::dual_newton::{DualNewton, NewtonConfig};
use kernel_playground::solvers::primal::{
    prox_lp_pow, prox_pow_43, prox_pow_54, prox_pow_newton, Armijo, Fista, GapMeasure,
    PrimalConfig, PrimalGd,
};
use kernel_playground::solvers::prox_dual::{features_w, ProxDual, ProxDualConfig};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;

/// A paper-A record's measures as numbers (paper A sets them all).
#[derive(Debug, Clone, Copy)]
struct Rec {
    iter: usize,
    primal: f64,
    dual: f64,
    gap: f64,
    rel_gap: f64,
    step: f64,
    backtracks: usize,
}

fn nums(r: Record) -> Rec {
    Rec {
        iter: r.iter,
        primal: r.primal.expect("primal"),
        dual: r.dual.expect("dual"),
        gap: r.gap.expect("gap"),
        rel_gap: r.rel_gap.expect("rel_gap"),
        step: r.step.expect("step"),
        backtracks: r.backtracks.expect("backtracks"),
    }
}

/// A paper-A algorithm under the executor: converged at relative gap ≤ `tol`, capped at `cap`
/// iterations ([`watch_to`]), read as numbers.
struct Drive<S: Stepper> {
    run: Run<S>,
}

impl<S: Stepper> Drive<S> {
    fn new(s: S, tol: f64, cap: usize) -> Self {
        Self { run: Run::with_watch(s, watch_to(tol, cap)) }
    }
    fn run(&mut self) -> Stop {
        self.run.run()
    }
    fn last(&self) -> Rec {
        nums(self.run.last())
    }
    fn status(&self) -> Stop {
        self.run.stop()
    }
    fn solver(&self) -> &S {
        self.run.stepper()
    }
    fn trace(&self) -> Vec<Rec> {
        self.run.kept().iter().map(|r| nums(*r)).collect()
    }
    /// One more step of the algorithm past the executor's end (its tolerance or cap), unless
    /// the algorithm itself has ended.
    fn one_more(self) -> Option<Rec> {
        self.run.into_stepper().step().map(nums)
    }
}

/// Every loss of the catalogue (a new loss joins these tests by being in `Loss::ALL`).
const ALL_LOSSES: &[Loss] = Loss::ALL;

// ---------------------------------------------------------------- brute-force 1-D minimizer

/// Minimize a convex `h` on `[lo, hi]`: a grid of 4001 points, then golden section in the
/// cells around the best grid point. Non-finite values count as +∞.
fn brute_min(h: impl Fn(f64) -> f64, lo: f64, hi: f64) -> f64 {
    let hh = |a: f64| {
        let v = h(a);
        if v.is_finite() {
            v
        } else {
            f64::MAX
        }
    };
    let m = 4000;
    let dx = (hi - lo) / m as f64;
    let mut best = (f64::MAX, lo);
    for k in 0..=m {
        let a = if k == m { hi } else { lo + k as f64 * dx };
        let v = hh(a);
        if v < best.0 {
            best = (v, a);
        }
    }
    let (mid, _) = common::golden_section(hh, (best.1 - dx).max(lo), (best.1 + dx).min(hi));
    [mid, lo, hi].into_iter().min_by(|x, y| hh(*x).total_cmp(&hh(*y))).unwrap_or(mid)
}

/// The domain of `a ↦ γL*(y, −a/γ)`, read off the conjugates (Appendix A.2 / B.2), intersected
/// with a box that must contain the prox.
fn prox_search_interval(loss: &Loss, y: f64, v: f64, step: f64, gamma: f64) -> (f64, f64) {
    let r = v.abs() + step * (y.abs() + 1.0) + 1.0;
    match *loss {
        Loss::Square => (-r, r),
        Loss::Absolute | Loss::EpsInsensitive { .. } => (-gamma, gamma),
        Loss::Huber { rho } => (-rho * gamma, rho * gamma),
        Loss::Hinge | Loss::Logistic | Loss::SmoothedHinge { .. } => {
            if y > 0.0 {
                (0.0, gamma)
            } else {
                (-gamma, 0.0)
            }
        }
        Loss::SquaredHinge => {
            if y > 0.0 {
                (0.0, r)
            } else {
                (-r, 0.0)
            }
        }
    }
}

fn label_or_target(loss: &Loss, y: f64) -> f64 {
    if loss.is_classification() {
        if y >= 0.0 {
            1.0
        } else {
            -1.0
        }
    } else {
        y
    }
}

/// The logistic dual prox solves `step·logit(b/γ) + b = y v` (`b = y a`) numerically; on a grid
/// far wider than the property test's (|v| to 60, step and γ over six decades) its result
/// satisfies the condition in the form `b = γσ((y v − b)/step)`, which needs no logit of a
/// value rounded to 0 or γ.
#[test]
fn logistic_prox_dual_satisfies_its_optimality_condition_on_a_wide_grid() {
    let sig = |x: f64| if x >= 0.0 { 1.0 / (1.0 + (-x).exp()) } else { x.exp() / (1.0 + x.exp()) };
    for y in [-1.0, 1.0] {
        for step in [1e-3, 0.05, 1.0, 20.0, 1e3] {
            for gamma in [1e-3, 0.2, 1.0, 14.2, 1e3] {
                for k in -240..=240 {
                    let v = 0.25 * k as f64;
                    let a = Loss::Logistic.prox_dual(y, v, step, gamma);
                    let b = y * a;
                    assert!((0.0..=gamma).contains(&b), "b = {b} outside [0, {gamma}]");
                    let res = (gamma * sig((y * v - b) / step) - b).abs();
                    // Rounding in b (relative ε) moves the right side by γ/(4 step) times it.
                    let tol = 1e-13 * (1.0 + gamma)
                        + 4.0 * f64::EPSILON * (v.abs() + gamma) * (1.0 + gamma / step);
                    assert!(
                        res <= tol,
                        "y={y} v={v} step={step} γ={gamma}: b={b}, residual {res:e}"
                    );
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `dual_term` (the closed forms of Appendix B.2) equals `γ L*(y, −a/γ)` from the conjugates.
    #[test]
    fn dual_term_is_gamma_conjugate(li in 0usize..ALL_LOSSES.len(), y in -2.0f64..2.0, a in -3.0f64..3.0, gamma in 0.2f64..5.0) {
        let loss = ALL_LOSSES[li];
        let y = label_or_target(&loss, y);
        let ours = loss.dual_term(y, a, gamma);
        let reference = gamma * loss.conjugate(y, -a / gamma);
        if ours.is_finite() && reference.is_finite() {
            prop_assert!((ours - reference).abs() <= 1e-10 * (1.0 + reference.abs()), "{loss:?}: {ours} vs {reference}");
        } else {
            // Both infinite, unless a sits within rounding of the domain's edge.
            let (lo, hi) = prox_search_interval(&loss, y, 0.0, 0.0, gamma);
            let near_edge = (a - lo).abs() < 1e-12 * gamma || (a - hi).abs() < 1e-12 * gamma;
            prop_assert!(ours.is_finite() == reference.is_finite() || near_edge, "{loss:?} at a = {a}: {ours} vs {reference}");
        }
    }

    /// The prox of `step·γL*(y, −·/γ)` against a brute-force minimization built on `conjugate`.
    #[test]
    fn prox_dual_matches_brute_force(li in 0usize..ALL_LOSSES.len(), y in -2.0f64..2.0, v in -4.0f64..4.0,
                                     step in 0.01f64..20.0, gamma in 0.2f64..5.0) {
        let loss = ALL_LOSSES[li];
        let y = label_or_target(&loss, y);
        let h = |a: f64| step * gamma * loss.conjugate(y, -a / gamma) + 0.5 * (a - v) * (a - v);
        let (lo, hi) = prox_search_interval(&loss, y, v, step, gamma);
        let brute = brute_min(h, lo, hi);
        let ours = loss.prox_dual(y, v, step, gamma);
        prop_assert!(ours >= lo - 1e-12 && ours <= hi + 1e-12, "{loss:?}: prox {ours} outside [{lo}, {hi}]");
        let scale = 1.0 + v.abs() + gamma;
        prop_assert!((ours - brute).abs() <= 1e-6 * scale, "{loss:?} y={y} v={v} step={step} γ={gamma}: {ours} vs brute {brute}");
    }

    /// prox of `(t/p)|·|^p`: closed forms (p = 4/3, 5/4) and Newton against brute force.
    #[test]
    fn prox_lp_pow_matches_brute_force(v in -50.0f64..50.0, t in 1e-3f64..30.0, which in 0usize..4, pr in 1.02f64..1.98) {
        let p = [4.0 / 3.0, 1.25, pr, 1.05][which];
        let h = |x: f64| t / p * x.abs().powf(p) + 0.5 * (x - v) * (x - v);
        let brute = brute_min(h, -v.abs() - 1.0, v.abs() + 1.0);
        let ours = prox_lp_pow(v, t, p);
        prop_assert!((ours - brute).abs() <= 1e-6 * (1.0 + v.abs()), "p={p} v={v} t={t}: {ours} vs {brute}");
        // Optimality condition t·J_p(x) + x − v = 0, relative to |v|.
        let res = t * ours.signum() * ours.abs().powf(p - 1.0) + ours - v;
        prop_assert!(res.abs() <= 1e-9 * (1.0 + v.abs()), "p={p}: residual {res}");
    }

    /// The closed forms agree with the Newton solve to rounding.
    #[test]
    fn closed_form_prox_equals_newton(v in -1e3f64..1e3, t in 1e-4f64..1e3) {
        let a = prox_pow_43(v, t);
        let b = prox_pow_newton(v, t, 4.0 / 3.0);
        prop_assert!((a - b).abs() <= 1e-11 * (a.abs().max(b.abs()) + 1e-300), "4/3: {a} vs {b}");
        let a = prox_pow_54(v, t);
        let b = prox_pow_newton(v, t, 1.25);
        prop_assert!((a - b).abs() <= 1e-11 * (a.abs().max(b.abs()) + 1e-300), "5/4: {a} vs {b}");
    }
}

// ---------------------------------------------------------------- problems

fn regression(n: usize, d: usize, seed: u64) -> (DMatrix<f64>, DVector<f64>) {
    let k = d.min(5);
    let ds = SparseRegression { n, d, k, sigma: 0.1, seed }.generate().expect("valid generator");
    (ds.x, ds.y)
}

fn blobs(n: usize, seed: u64) -> (DMatrix<f64>, DVector<f64>) {
    let ds = TwoBlobs { n, separation: 2.5, spread: 1.0, flip: 0.1, seed }
        .generate()
        .expect("valid generator");
    (ds.x, ds.y)
}

fn data_for(loss: &Loss, seed: u64) -> (DMatrix<f64>, DVector<f64>) {
    if loss.is_classification() {
        blobs(40, seed)
    } else {
        regression(40, 10, seed)
    }
}

fn run_prox(
    x: DMatrix<f64>,
    y: DVector<f64>,
    loss: Loss,
    gamma: f64,
    p: f64,
    tol: f64,
    cap: usize,
) -> Drive<ProxDual<FeaturePolynomial>> {
    let poly = FeaturePolynomial { x, q: conjugate_exponent(p) };
    let solver =
        ProxDual::new(poly, y, ProxDualConfig::new(loss, gamma)).expect("valid configuration");
    let mut drv = Drive::new(solver, tol, cap);
    drv.run();
    drv
}

/// The KKT residual `max_i dist(−α_i/γ, ∂L(y_i, t))` over t within `dt` of `t_i = ∇P(α)_i`
/// (the union of the subdifferentials over `[t_i − dt, t_i + dt]` is the interval
/// `[lo(t_i − dt), hi(t_i + dt)]`, the subdifferential being monotone).
fn kkt_residual(
    loss: &Loss,
    y: &DVector<f64>,
    alpha: &DVector<f64>,
    t: &DVector<f64>,
    gamma: f64,
    dt: f64,
) -> f64 {
    let mut worst = 0.0f64;
    for i in 0..y.len() {
        let s = -alpha[i] / gamma;
        let lo = loss.subdifferential(y[i], t[i] - dt).0;
        let hi = loss.subdifferential(y[i], t[i] + dt).1;
        let dist = if s < lo {
            lo - s
        } else if s > hi {
            s - hi
        } else {
            0.0
        };
        worst = worst.max(dist);
    }
    worst
}

/// `F(w)` and `Λ(α)` term by term from `w = J_q(Xᵀα)` (no shortcut through `P` or Euler).
fn primal_dual_direct(
    x: &DMatrix<f64>,
    y: &DVector<f64>,
    loss: &Loss,
    gamma: f64,
    p: f64,
    alpha: &DVector<f64>,
) -> (f64, f64) {
    let q = conjugate_exponent(p);
    let u = x.tr_mul(alpha);
    let mut w = DVector::zeros(u.len());
    j_map_into(u.as_slice(), q, w.as_mut_slice());
    let xw = x * &w;
    let f = gamma * (0..y.len()).map(|i| loss.value(y[i], xw[i])).sum::<f64>()
        + norm_pow(w.as_slice(), p) / p;
    let lam = norm_pow(u.as_slice(), q) / q
        + gamma * (0..y.len()).map(|i| loss.conjugate(y[i], -alpha[i] / gamma)).sum::<f64>();
    (f, lam)
}

// ---------------------------------------------------------------- Algorithm 3.3

#[test]
fn fenchel_young_gap_equals_f_plus_lambda() {
    let mut rng = Rng::new(11);
    for &loss in ALL_LOSSES {
        let (x, y) = data_for(&loss, 3);
        let gamma = 2.0;
        let p = 1.4;
        // A random interior point of the dual domain.
        let alpha = DVector::from_fn(y.len(), |i, _| {
            let u = 0.05 + 0.9 * rng.uniform();
            match loss {
                Loss::Hinge | Loss::Logistic | Loss::SmoothedHinge { .. } => y[i] * gamma * u,
                Loss::SquaredHinge => y[i] * 3.0 * u,
                Loss::Huber { rho } => rho * gamma * (2.0 * u - 1.0),
                Loss::Absolute | Loss::EpsInsensitive { .. } => gamma * (2.0 * u - 1.0),
                Loss::Square => 4.0 * (2.0 * u - 1.0),
            }
        });
        let poly = FeaturePolynomial { x: x.clone(), q: conjugate_exponent(p) };
        let mut gp = DVector::zeros(y.len());
        let pv = poly.value_grad(&alpha, &mut gp);
        let gap: f64 = (0..y.len()).map(|i| loss.dual_gap_term(y[i], alpha[i], gp[i], gamma)).sum();
        let (f, lam) = primal_dual_direct(&x, &y, &loss, gamma, p, &alpha);
        assert!(f.is_finite() && lam.is_finite() && pv.is_finite());
        assert!(gap > 0.0, "{loss:?}: gap {gap}");
        assert!(
            (gap - (f + lam)).abs() <= 1e-9 * (f.abs() + lam.abs()),
            "{loss:?}: FY gap {gap} vs F + Λ = {}",
            f + lam
        );
    }
}

#[test]
fn algorithm_3_3_converges_with_kkt_for_every_loss() {
    let cases = [
        (Loss::Square, 4.0 / 3.0, 1e-9),
        (Loss::EpsInsensitive { eps: 0.1 }, 1.5, 1e-9),
        (Loss::Huber { rho: 0.05 }, 4.0 / 3.0, 1e-9),
        (Loss::Hinge, 1.5, 1e-9),
        (Loss::Logistic, 4.0 / 3.0, 1e-9),
        (Loss::Absolute, 1.5, 1e-9),
        (Loss::SquaredHinge, 1.5, 1e-9),
    ];
    for (loss, p, tol) in cases {
        let (x, y) = data_for(&loss, 5);
        let gamma = 2.0;
        let drv = run_prox(x.clone(), y.clone(), loss, gamma, p, tol, 20_000);
        let last = drv.last();
        assert_eq!(
            drv.status(),
            Stop::Converged,
            "{loss:?}: {:?} after {} iterations, rel gap {}",
            drv.status(),
            last.iter,
            last.rel_gap
        );
        // The records are consistent: gap = primal − dual, and the gap agrees with F + Λ term by term.
        assert!(
            (last.gap - (last.primal - last.dual)).abs() <= 1e-7 * last.primal.abs(),
            "{loss:?}"
        );
        let alpha = drv.solver().alpha().clone();
        let (f, lam) = primal_dual_direct(&x, &y, &loss, gamma, p, &alpha);
        assert!(
            (f - last.primal).abs() <= 1e-10 * f.abs(),
            "{loss:?}: F {f} vs reported {}",
            last.primal
        );
        assert!(
            ((f + lam) / f).abs() <= 2.0 * tol,
            "{loss:?}: direct relative gap {}",
            (f + lam) / f
        );
        // KKT: −α_i/γ ∈ ∂L(y_i, ⟨x_i, w̄⟩), with ⟨x_i, w̄⟩ from w = J_q(Xᵀα) directly.
        let t: DVector<f64> = &x * features_w(&x, &alpha, conjugate_exponent(p));
        let res = kkt_residual(&loss, &y, &alpha, &t, gamma, 1e-5);
        assert!(res <= 1e-4, "{loss:?}: KKT residual {res}");
        // The check can fail: at α = 0 (the start) it does, for every loss here.
        let zero = DVector::zeros(y.len());
        let t0 = DVector::zeros(y.len());
        assert!(
            kkt_residual(&loss, &y, &zero, &t0, gamma, 1e-5) > 1e-2,
            "{loss:?}: KKT holds at α = 0?"
        );
        // One more step cannot make the gap meaningfully larger.
        if let Some(r) = drv.one_more() {
            assert!(r.rel_gap <= 10.0 * tol, "{loss:?}");
        }
    }
}

#[test]
fn algorithm_3_3_dual_feasible_and_gap_nonnegative_along_the_run() {
    for loss in
        [Loss::Hinge, Loss::Logistic, Loss::EpsInsensitive { eps: 0.2 }, Loss::Huber { rho: 0.3 }]
    {
        let (x, y) = data_for(&loss, 9);
        let poly = FeaturePolynomial { x, q: 3.0 };
        let mut s = ProxDual::new(poly, y, ProxDualConfig::new(loss, 1.5)).expect("valid");
        for _ in 0..50 {
            let r = nums(s.step().expect("steps"));
            assert!(r.gap >= 0.0 && r.dual <= r.primal, "{loss:?}: {r:?}");
            assert!(s.dual_objective().is_finite(), "{loss:?}: iterate left the dual domain");
        }
    }
}

/// Minimize a convex function of w ∈ R² by nested golden sections on a box.
fn primal_brute_2d(f: impl Fn(f64, f64) -> f64, r: f64) -> (f64, f64, f64) {
    let golden = |h: &dyn Fn(f64) -> f64, a: f64, b: f64| common::golden_section(h, a, b);
    let inner = |w1: f64| golden(&|w2| f(w1, w2), -r, r);
    let (w1, _) = golden(&|w1| inner(w1).1, -r, r);
    let (w2, fv) = inner(w1);
    (w1, w2, fv)
}

#[test]
fn dual_optimum_matches_brute_force_primal_on_r2() {
    let cases = [
        (Loss::Square, 4.0 / 3.0),
        (Loss::EpsInsensitive { eps: 0.2 }, 1.5),
        (Loss::Huber { rho: 0.5 }, 1.25),
        (Loss::Hinge, 1.5),
        (Loss::Logistic, 4.0 / 3.0),
    ];
    for (loss, p) in cases {
        let (x, y) = if loss.is_classification() { blobs(30, 21) } else { regression(25, 2, 21) };
        let gamma = 1.5;
        let f = |w1: f64, w2: f64| {
            let mut s = 0.0;
            for i in 0..y.len() {
                s += loss.value(y[i], x[(i, 0)] * w1 + x[(i, 1)] * w2);
            }
            gamma * s + (w1.abs().powf(p) + w2.abs().powf(p)) / p
        };
        // (1/p)‖w̄‖_p^p ≤ F(0) bounds the box.
        let r = (p * f(0.0, 0.0)).powf(1.0 / p) + 1.0;
        let (w1, w2, fref) = primal_brute_2d(f, r);
        // F(w(α)) − min F ≤ gap: a relative gap of 1e-9 certifies the 1e-8 comparison below.
        let mut drv = run_prox(x.clone(), y.clone(), loss, gamma, p, 1e-9, 200_000);
        let last = drv.last();
        assert!(last.rel_gap <= 1e-9, "{loss:?}: rel gap {} ({:?})", last.rel_gap, drv.status());
        let w = drv.solver().w();
        let fdual = f(w[0], w[1]);
        assert!(
            (fdual - fref).abs() <= 1e-8 * fref,
            "{loss:?}: F(w(ᾱ)) = {fdual}, brute-force min F = {fref}"
        );
        // Weak duality: the brute-force minimum lies above the dual value −Λ(ᾱ).
        assert!(fref >= last.dual - 1e-12 * fref.abs(), "{loss:?}: {fref} < {}", last.dual);
        assert!(
            ((w[0] - w1).powi(2) + (w[1] - w2).powi(2)).sqrt() <= 1e-4 * (1.0 + w.norm()),
            "{loss:?}: w {w:?} vs ({w1}, {w2})"
        );
        drv.run();
    }
}

// ---------------------------------------------------------------- square loss: four solvers agree

#[test]
fn newton_dual_lp_and_algorithm_3_3_reach_the_same_w() {
    for p in [4.0 / 3.0, 1.25, 1.5] {
        let (x, y) = regression(30, 80, 4);
        let gamma = 10.0;
        let q = conjugate_exponent(p);
        let newton = DualNewton::new(
            FeaturePolynomial { x: x.clone(), q },
            y.clone(),
            NewtonConfig::new(gamma),
        )
        .expect("valid");
        let mut dn = Drive::new(newton, 1e-13, 200);
        dn.run();
        assert!(
            dn.last().rel_gap <= 1e-12,
            "Newton p={p}: {:?} rel gap {}",
            dn.status(),
            dn.last().rel_gap
        );
        assert!(dn.last().iter <= 60, "Newton p={p} took {} iterations", dn.last().iter);
        let ls = Linesearch { delta: 0.5, theta: 0.5, step0: gamma, max_backtracks: 80 };
        let mut dl = Drive::new(DualLp::new(x.clone(), y.clone(), gamma, p, ls), 1e-13, 50_000);
        dl.run();
        assert!(
            dl.last().rel_gap <= 1e-12,
            "Alg 2.1 p={p}: {:?} rel gap {}",
            dl.status(),
            dl.last().rel_gap
        );
        let mut px = run_prox(x.clone(), y.clone(), Loss::Square, gamma, p, 1e-13, 50_000);
        assert!(
            px.last().rel_gap <= 1e-12,
            "Alg 3.3 p={p}: {:?} rel gap {}",
            px.status(),
            px.last().rel_gap
        );
        let wn = dn.solver().w();
        let wl = dl.solver().w().clone();
        let wp = px.solver().w();
        let scale = wn.norm();
        assert!(
            (&wn - &wl).norm() <= 1e-5 * scale,
            "p={p}: Newton vs Alg 2.1: {}",
            (&wn - &wl).norm() / scale
        );
        assert!(
            (&wn - &wp).norm() <= 1e-5 * scale,
            "p={p}: Newton vs Alg 3.3: {}",
            (&wn - &wp).norm() / scale
        );
        // Newton's gap (γ/2)‖∇Λ‖² agrees with F + Λ computed term by term.
        let (f, lam) = primal_dual_direct(&x, &y, &Loss::Square, gamma, p, dn.solver().alpha());
        assert!((f + lam).abs() <= 1e-10 * f, "p={p}: F + Λ = {}", f + lam);
        px.run();
    }
}

#[test]
fn primal_gd_and_fista_decrease_f_and_reach_the_dual_optimum() {
    let (x, y) = regression(20, 40, 8);
    let gamma = 1.0;
    for p in [4.0 / 3.0, 1.25, 1.5] {
        let q = conjugate_exponent(p);
        let mut dn = Drive::new(
            DualNewton::new(
                FeaturePolynomial { x: x.clone(), q },
                y.clone(),
                NewtonConfig::new(gamma),
            )
            .expect("valid"),
            1e-15,
            200,
        );
        dn.run();
        let fstar = dn.last().primal;
        let w_star = dn.solver().w();

        // FISTA with the certified duality gap.
        let cfg = PrimalConfig { gamma, p, measure: GapMeasure::Duality };
        let mut fi =
            Drive::new(Fista::new(x.clone(), y.clone(), cfg, None).expect("valid"), 1e-9, 20_000);
        fi.run();
        assert_eq!(
            fi.status(),
            Stop::Converged,
            "FISTA p={p}: rel gap {} after {}",
            fi.last().rel_gap,
            fi.last().iter
        );
        let ff = fi.last().primal;
        assert!(ff >= fstar * (1.0 - 1e-12), "p={p}: FISTA below the optimum");
        assert!((ff - fstar) / fstar <= 1e-9, "p={p}: FISTA F {ff} vs F* {fstar}");
        assert!((fi.solver().w() - &w_star).norm() <= 1e-3 * w_star.norm(), "p={p}: FISTA w");
        assert!(fi.trace().last().map(|r| r.primal).unwrap_or(0.0) < fi.trace()[0].primal);
        // The certified gap bounds the true error: F − F* ≤ gap.
        for r in &fi.trace() {
            assert!(
                r.primal - fstar <= r.gap + 1e-10 * fstar,
                "p={p}: FISTA gap not an upper bound at {}",
                r.iter
            );
        }

        // Primal GD: monotone decrease, against the reference optimum.
        let cfg = PrimalConfig { gamma, p, measure: GapMeasure::Reference(fstar) };
        let mut gd = Drive::new(
            PrimalGd::new(x.clone(), y.clone(), cfg, Armijo::default()).expect("valid"),
            1e-8,
            20_000,
        );
        gd.run();
        for pair in gd.trace().windows(2) {
            assert!(
                pair[1].primal <= pair[0].primal * (1.0 + 1e-14),
                "p={p}: GD increased F at {}",
                pair[1].iter
            );
        }
        let last = gd.last();
        assert!(last.primal >= fstar * (1.0 - 1e-12), "p={p}: GD below the optimum");
        // Primal GD is slow (Table 1: > 5000 iterations), but it does approach F*.
        assert!(
            last.rel_gap <= 1e-4,
            "p={p}: GD relative error {} ({:?})",
            last.rel_gap,
            gd.status()
        );
    }
}

// ---------------------------------------------------------------- bad input

#[test]
fn bad_parameters_are_refused_with_errors() {
    let (x, y) = regression(10, 5, 1);
    let poly = |q: f64| FeaturePolynomial { x: x.clone(), q };
    let bad_losses = [
        Loss::EpsInsensitive { eps: -0.1 },
        Loss::Huber { rho: 0.0 },
        Loss::Huber { rho: f64::NAN },
    ];
    for loss in bad_losses {
        assert!(
            ProxDual::new(poly(3.0), y.clone(), ProxDualConfig::new(loss, 1.0)).is_err(),
            "{loss:?}"
        );
    }
    // Labels other than ±1 for the margin losses.
    for loss in [Loss::Hinge, Loss::Logistic] {
        let e = ProxDual::new(poly(3.0), y.clone(), ProxDualConfig::new(loss, 1.0))
            .err()
            .expect("refused");
        assert!(e.to_string().contains("±1"), "{e}");
    }
    // γ ≤ 0, p outside (1, 2) (q ≤ 2), wrong number of targets, non-finite targets.
    assert!(ProxDual::new(poly(3.0), y.clone(), ProxDualConfig::new(Loss::Square, 0.0)).is_err());
    assert!(ProxDual::new(poly(2.0), y.clone(), ProxDualConfig::new(Loss::Square, 1.0)).is_err());
    assert!(ProxDual::new(poly(1.5), y.clone(), ProxDualConfig::new(Loss::Square, 1.0)).is_err());
    assert!(ProxDual::new(poly(3.0), DVector::zeros(3), ProxDualConfig::new(Loss::Square, 1.0))
        .is_err());
    let mut ynan = y.clone();
    ynan[0] = f64::NAN;
    assert!(ProxDual::new(poly(3.0), ynan, ProxDualConfig::new(Loss::Square, 1.0)).is_err());
    let mut cfg = ProxDualConfig::new(Loss::Square, 1.0);
    cfg.linesearch.theta = 1.0;
    assert!(ProxDual::new(poly(3.0), y.clone(), cfg).is_err());
    assert!(DualNewton::new(poly(3.0), y.clone(), NewtonConfig::new(-1.0)).is_err());
    for p in [1.0, 2.0, 0.5, f64::NAN] {
        let cfg = PrimalConfig { gamma: 1.0, p, measure: GapMeasure::Duality };
        assert!(PrimalGd::new(x.clone(), y.clone(), cfg, Armijo::default()).is_err(), "p = {p}");
        assert!(Fista::new(x.clone(), y.clone(), cfg, None).is_err(), "p = {p}");
    }
    let cfg = PrimalConfig { gamma: 1.0, p: 1.5, measure: GapMeasure::Reference(-1.0) };
    assert!(Fista::new(x.clone(), y.clone(), cfg, None).is_err());
    for bad in [
        TwoBlobs { n: 0, separation: 1.0, spread: 1.0, flip: 0.0, seed: 1 },
        TwoBlobs { n: 10, separation: -1.0, spread: 1.0, flip: 0.0, seed: 1 },
        TwoBlobs { n: 10, separation: 1.0, spread: 0.0, flip: 0.0, seed: 1 },
        TwoBlobs { n: 10, separation: 1.0, spread: 1.0, flip: 0.7, seed: 1 },
    ] {
        assert!(bad.generate().is_err(), "{bad:?}");
    }
}

#[test]
fn two_blobs_are_seeded_labelled_and_flip_at_the_set_rate() {
    let g = TwoBlobs { n: 4000, separation: 4.0, spread: 0.5, flip: 0.2, seed: 3 };
    let a = g.generate().expect("valid");
    let b = g.generate().expect("valid");
    assert_eq!(a.digest(), b.digest());
    assert!(a.y.iter().all(|&v| v == 1.0 || v == -1.0));
    let flipped = (0..a.n()).filter(|&i| a.y[i] != if i % 2 == 0 { 1.0 } else { -1.0 }).count()
        as f64
        / a.n() as f64;
    assert!((flipped - 0.2).abs() < 0.03, "flip rate {flipped}");
    // Far apart, tight blobs: the side of the line ⟨x, (2, 1)⟩ = 0 gives the (unflipped) class.
    let c = TwoBlobs { n: 400, separation: 10.0, spread: 0.5, flip: 0.0, seed: 4 }
        .generate()
        .expect("valid");
    let agree =
        (0..c.n()).filter(|&i| (2.0f64 * c.x[(i, 0)] + c.x[(i, 1)]).signum() == c.y[i]).count();
    assert_eq!(agree, c.n());
}

#[test]
fn warm_started_linesearch_reaches_the_same_optimum() {
    for loss in [Loss::Square, Loss::Hinge, Loss::Logistic] {
        let (x, y) = data_for(&loss, 13);
        let q = 3.0;
        let mut runs = Vec::new();
        for warm in [false, true] {
            let cfg = ProxDualConfig { warm_start: warm, ..ProxDualConfig::new(loss, 2.0) };
            let s = ProxDual::new(FeaturePolynomial { x: x.clone(), q }, y.clone(), cfg)
                .expect("valid");
            let mut drv = Drive::new(s, 1e-11, 20_000);
            drv.run();
            assert!(drv.last().rel_gap <= 1e-11, "{loss:?} warm={warm}: {:?}", drv.status());
            runs.push(drv.solver().w());
        }
        let scale = runs[0].norm();
        assert!(
            (&runs[0] - &runs[1]).norm() <= 1e-4 * scale,
            "{loss:?}: {}",
            (&runs[0] - &runs[1]).norm() / scale
        );
    }
}

#[test]
fn logistic_newton_agrees_with_algorithm_3_3() {
    let (x, y) = blobs(40, 17);
    let gamma = 2.0;
    for p in [4.0 / 3.0, 1.5] {
        let q = conjugate_exponent(p);
        let cfg = NewtonConfig::with_loss(Loss::Logistic, gamma);
        let mut dn = Drive::new(
            DualNewton::new(FeaturePolynomial { x: x.clone(), q }, y.clone(), cfg).expect("valid"),
            1e-13,
            200,
        );
        dn.run();
        assert!(
            dn.last().rel_gap <= 1e-12,
            "p={p}: {:?} rel gap {}",
            dn.status(),
            dn.last().rel_gap
        );
        assert!(dn.last().iter <= 60, "p={p}: {} iterations", dn.last().iter);
        let px = run_prox(x.clone(), y.clone(), Loss::Logistic, gamma, p, 1e-12, 50_000);
        assert!(px.last().rel_gap <= 1e-12, "p={p}: Alg 3.3 {:?}", px.status());
        let (wn, wp) = (dn.solver().w(), px.solver().w());
        assert!(
            (&wn - &wp).norm() <= 1e-5 * wn.norm(),
            "p={p}: {}",
            (&wn - &wp).norm() / wn.norm()
        );
        // The gap is F + Λ computed term by term.
        let (f, lam) = primal_dual_direct(&x, &y, &Loss::Logistic, gamma, p, dn.solver().alpha());
        assert!((f + lam).abs() <= 1e-10 * f, "p={p}: F + Λ = {}", f + lam);
        // KKT at the Newton optimum (the gap is quadratic in the KKT residual: 1e-13 ↔ ~1e-6).
        let t: DVector<f64> = &x * wn;
        let res = kkt_residual(&Loss::Logistic, &y, dn.solver().alpha(), &t, gamma, 0.0);
        assert!(res <= 1e-5, "p={p}: KKT residual {res}");
    }
    // Non-smooth duals are refused.
    let (x, y) = blobs(10, 1);
    assert!(DualNewton::new(
        FeaturePolynomial { x, q: 3.0 },
        y,
        NewtonConfig::with_loss(Loss::Hinge, 1.0)
    )
    .is_err());
}

/// A q = 4 Gram tensor `K_ijkl = Σ_m x_im x_jm x_km x_lm` (linear tensor kernel, eq. 13–14) held
/// densely, written here independently of `lp.rs` to check that the solvers are generic over
/// [`DualPolynomial`] and that the tensor path gives the features path's iterates.
struct DenseTensor4 {
    n: usize,
    k: Vec<f64>,
}

impl DenseTensor4 {
    fn new(x: &DMatrix<f64>) -> Self {
        let (n, d) = x.shape();
        let mut k = vec![0.0; n * n * n * n];
        for i in 0..n {
            for j in 0..n {
                for a in 0..n {
                    for b in 0..n {
                        k[((i * n + j) * n + a) * n + b] =
                            (0..d).map(|m| x[(i, m)] * x[(j, m)] * x[(a, m)] * x[(b, m)]).sum();
                    }
                }
            }
        }
        Self { n, k }
    }
    fn at(&self, i: usize, j: usize, a: usize, b: usize) -> f64 {
        self.k[((i * self.n + j) * self.n + a) * self.n + b]
    }
}

impl DualPolynomial for DenseTensor4 {
    fn n(&self) -> usize {
        self.n
    }
    fn weights(&self, _alpha: &DVector<f64>) -> Option<DVector<f64>> {
        None
    }
    fn q(&self) -> f64 {
        4.0
    }
    fn value(&self, alpha: &DVector<f64>) -> f64 {
        let mut g = DVector::zeros(self.n);
        self.value_grad(alpha, &mut g)
    }
    fn value_grad(&self, alpha: &DVector<f64>, grad: &mut DVector<f64>) -> f64 {
        let n = self.n;
        for i in 0..n {
            let mut s = 0.0;
            for j in 0..n {
                for a in 0..n {
                    for b in 0..n {
                        s += self.at(i, j, a, b) * alpha[j] * alpha[a] * alpha[b];
                    }
                }
            }
            grad[i] = s;
        }
        grad.dot(alpha) / 4.0
    }
    fn hessian(&self, alpha: &DVector<f64>) -> DMatrix<f64> {
        let n = self.n;
        DMatrix::from_fn(n, n, |i, j| {
            3.0 * (0..n)
                .flat_map(|a| (0..n).map(move |b| (a, b)))
                .map(|(a, b)| self.at(i, j, a, b) * alpha[a] * alpha[b])
                .sum::<f64>()
        })
    }
}

#[test]
fn solvers_run_on_a_gram_tensor_and_match_the_features_path() {
    let (x, y) = blobs(8, 31);
    let tensor = DenseTensor4::new(&x);
    for loss in [Loss::Hinge, Loss::Logistic, Loss::Square] {
        let cfg = ProxDualConfig::new(loss, 2.0);
        let mut a = ProxDual::new(FeaturePolynomial { x: x.clone(), q: 4.0 }, y.clone(), cfg)
            .expect("valid");
        let mut b = ProxDual::new(DenseTensor4::new(&x), y.clone(), cfg).expect("valid");
        for _ in 0..30 {
            let (ra, rb) = (nums(a.step().expect("features")), nums(b.step().expect("tensor")));
            assert_eq!(ra.backtracks, rb.backtracks, "{loss:?}");
            assert!((ra.primal - rb.primal).abs() <= 1e-10 * ra.primal.abs(), "{loss:?}");
        }
        let diff = (a.alpha() - b.alpha()).norm();
        assert!(diff <= 1e-10 * (1.0 + a.alpha().norm()), "{loss:?}: iterates differ by {diff}");
    }
    let cfg = NewtonConfig::with_loss(Loss::Logistic, 2.0);
    let mut a = Drive::new(
        DualNewton::new(FeaturePolynomial { x: x.clone(), q: 4.0 }, y.clone(), cfg).expect("valid"),
        1e-13,
        100,
    );
    let mut b = Drive::new(DualNewton::new(tensor, y.clone(), cfg).expect("valid"), 1e-13, 100);
    a.run();
    b.run();
    assert!(b.last().rel_gap <= 1e-12, "{:?}", b.status());
    assert!((a.solver().alpha() - b.solver().alpha()).norm() <= 1e-8 * a.solver().alpha().norm());
}

// ------------------------------------------- Algorithm 2.1: the one-pass iteration (issue 12)

/// Algorithm 2.1 written the direct way (three products with X per iteration, `u = Xᵀα`
/// recomputed from α, the Bregman test summed in full for every trial step), as an independent
/// reference for the solver's fused single pass.
fn alg21_reference_step(
    x: &DMatrix<f64>,
    y: &DVector<f64>,
    gamma: f64,
    q: f64,
    alpha: &mut DVector<f64>,
) -> (f64, usize) {
    use kernel_playground::solvers::dual_lp::bregman_term;
    let grad_at = |a: &DVector<f64>| {
        let mut w = DVector::zeros(x.ncols());
        j_map_into((x.transpose() * a).as_slice(), q, w.as_mut_slice());
        x * w - y + a / gamma
    };
    let g = grad_at(alpha);
    let g2 = g.norm_squared();
    let u = x.transpose() * &*alpha;
    let z = x.transpose() * &g;
    let (mut step, mut backtracks) = (gamma, 0);
    loop {
        let b: f64 = u.iter().zip(z.iter()).map(|(&uj, &zj)| bregman_term(uj, step * zj, q)).sum();
        if step * (0.5 - step / (2.0 * gamma)) * g2 >= b {
            break;
        }
        step *= 0.5;
        backtracks += 1;
        assert!(backtracks <= 80, "reference linesearch stalled");
    }
    alpha.axpy(-step, &g, 1.0);
    (step, backtracks)
}

#[test]
fn algorithm_2_1_one_pass_follows_the_direct_three_pass_iteration() {
    // Same trial steps (the accepted step λ̄θ^k is exact, so equal k means equal steps), and α
    // equal to rounding: the fused pass sums in another order and updates u = Xᵀα_k − λXᵀg.
    // n = 43, d = 1100: a last block of 3 rows and a last tile of 76 columns in the row pass.
    // p = 1.1, 5/4, 6/5, 8/7: the integer-q linesearch and `|u|^(q−1)` by multiplications (issue 21)
    // against the reference's general Bregman form and `pow`.
    for (p, iters) in [(4.0 / 3.0, 40), (1.1, 200), (1.25, 60), (1.2, 60), (8.0 / 7.0, 80)] {
        let (x, y) = regression(43, 1100, 11);
        let gamma = 10.0;
        let q = conjugate_exponent(p);
        let ls = Linesearch { delta: 0.5, theta: 0.5, step0: gamma, max_backtracks: 80 };
        let mut fused = DualLp::new(x.clone(), y.clone(), gamma, p, ls);
        let mut alpha = DVector::zeros(43);
        let mut worst: f64 = 0.0;
        for k in 0..iters {
            let rec = nums(fused.step().expect("the fused iteration stepped"));
            let (step, backtracks) = alg21_reference_step(&x, &y, gamma, q, &mut alpha);
            assert_eq!(
                (rec.step, rec.backtracks),
                (step, backtracks),
                "p={p}, iteration {}",
                k + 1
            );
            let dev = (fused.alpha() - &alpha).norm() / alpha.norm();
            worst = worst.max(dev);
            assert!(dev <= 1e-11, "p={p}, iteration {}: ‖Δα‖/‖α‖ = {dev:e}", k + 1);
        }
        // The primal iterate is J_q(Xᵀα) of the solver's own α, to rounding.
        let mut w = DVector::zeros(1100);
        j_map_into((x.transpose() * fused.alpha()).as_slice(), q, w.as_mut_slice());
        assert!((fused.w() - &w).norm() <= 1e-12 * w.norm(), "p={p}: w drifted from J_q(Xᵀα)");
        eprintln!("p={p}: largest relative deviation of α over {iters} iterations: {worst:e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The one-pass `value_grad` (issue 12) does the operations of `Xᵀα`, `X·J_q(u)` and
    /// `norm_pow` in their order: the same bits, for any shape (including d not a multiple of 4).
    #[test]
    fn feature_value_grad_one_pass_equals_the_two_products_bit_for_bit(
        n in 1usize..9, d in 1usize..23, p in 1.05f64..1.95, seed in 0u64..1000,
    ) {
        let mut rng = Rng::new(seed);
        let x = DMatrix::from_fn(n, d, |_, _| rng.normal());
        let alpha = DVector::from_fn(n, |_, _| rng.normal());
        let q = conjugate_exponent(p);
        let poly = FeaturePolynomial { x: x.clone(), q };
        let mut g = DVector::zeros(n);
        let v = poly.value_grad(&alpha, &mut g);
        let u = x.tr_mul(&alpha);
        let mut w = DVector::zeros(d);
        j_map_into(u.as_slice(), q, w.as_mut_slice());
        let mut g2 = DVector::zeros(n);
        g2.gemv(1.0, &x, &w, 0.0);
        let v2 = norm_pow(u.as_slice(), q) / q;
        prop_assert_eq!(v.to_bits(), v2.to_bits());
        for i in 0..n {
            prop_assert_eq!(g[i].to_bits(), g2[i].to_bits(), "gradient {}", i);
        }
    }

    /// The Hessian `(q − 1)·X diag(|Xᵀα|^(q−2)) Xᵀ` by faer's blocked product (issue 12) is
    /// symmetric and agrees with the direct nalgebra product within rounding (a different
    /// summation order), for blocks that split d unevenly.
    /// (About 2 MB of columns per block: n = 150 gives blocks of 1747 columns.)
    #[test]
    fn feature_hessian_by_blocks_equals_the_direct_product(
        n in prop_oneof![1usize..12, 150usize..151], d in 1usize..4000, p in 1.05f64..1.95, seed in 0u64..1000,
    ) {
        let mut rng = Rng::new(seed);
        let x = DMatrix::from_fn(n, d, |_, _| rng.normal());
        let alpha = DVector::from_fn(n, |_, _| rng.normal());
        let q = conjugate_exponent(p);
        let h = FeaturePolynomial { x: x.clone(), q }.hessian(&alpha);
        let u = x.tr_mul(&alpha);
        let mut xs = x.clone();
        for (j, mut col) in xs.column_iter_mut().enumerate() {
            col *= (q - 1.0) * u[j].abs().powf(q - 2.0);
        }
        let direct = &xs * x.transpose();
        // |Σ_k a_k b_k| ≤ Σ_k |a_k||b_k|: the rounding of any order is below d·ε of that sum.
        let abs = xs.abs() * x.abs().transpose();
        for i in 0..n {
            for j in 0..n {
                prop_assert_eq!(h[(i, j)].to_bits(), h[(j, i)].to_bits());
                let tol = 4.0 * d as f64 * f64::EPSILON * abs[(i, j)] + 1e-300;
                prop_assert!((h[(i, j)] - direct[(i, j)]).abs() <= tol, "({}, {}): {} vs {}", i, j, h[(i, j)], direct[(i, j)]);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// The q = 4 Bregman term as a polynomial (the linesearch's fast path) equals the general
    /// evaluation to the general form's rounding: `|u|^q/q·φ(t)`, `t = −h/u`, with φ as its
    /// binomial series for |t| < 10⁻³ (a few ulps) and as `expm1(q·log1p(t)) − qt` beyond, whose
    /// subtraction loses about `ε·2q|t|/φ(t) ≈ 1.3ε/|t|` relative (≈ 3·10⁻¹³ at |t| = 10⁻³).
    #[test]
    fn bregman_quartic_polynomial_equals_the_general_evaluation(u in -1e3f64..1e3, r in -3.0f64..3.0, e in -12i32..2) {
        use kernel_playground::solvers::dual_lp::{bregman_term, bregman_term_q4};
        let h = u * r * 10f64.powi(e);
        let (fast, general) = (bregman_term_q4(u, h), bregman_term(u, h, 4.0));
        prop_assert!(fast >= 0.0);
        let t = (h / u).abs();
        let rel = 64.0 * f64::EPSILON * if t < 1e-3 { 1.0 } else { 1.0 + 1.0 / t };
        prop_assert!((fast - general).abs() <= rel * general.abs() + 1e-300, "u = {}, h = {}: {} vs {}", u, h, fast, general);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The integer-q Bregman term (issue 21: the linesearch at p = 1.1, 5/4, 6/5, 8/7, …) against
    /// exact integer arithmetic: `q·B = |u − h|^q − |u|^q + q·sign(u)|u|^(q−1)·h` in i128 for
    /// integer u, h (|u − h| ≤ 2⁷, q ≤ 16: below 2¹²⁷), with the documented bound `4q·ε` relative.
    /// Powers of two scale both sides exactly, so integers cover every magnitude's rounding.
    #[test]
    fn bregman_integer_q_is_within_4q_eps_of_exact(u in -64i64..=64, h in -64i64..=64, qi in prop::sample::select(vec![3u32, 5, 6, 7, 8, 9, 11, 12, 16])) {
        use kernel_playground::solvers::dual_lp::bregman_term_int;
        let v = u - h;
        let pow = |x: i64, k: u32| (x.abs() as i128).pow(k);
        let sign = u.signum() as i128;
        let exact_q = pow(v, qi) - pow(u, qi) + qi as i128 * sign * pow(u, qi - 1) * h as i128;
        prop_assert!(exact_q >= 0);
        let exact = exact_q as f64 / qi as f64; // two roundings: 2ε
        let fast = bregman_term_int(u as f64, h as f64, qi);
        let tol = (4.0 * qi as f64 + 2.0) * f64::EPSILON * exact;
        prop_assert!((fast - exact).abs() <= tol, "u = {}, h = {}, q = {}: {} vs {}", u, h, qi, fast, exact);
    }

    /// The integer-q form equals the general evaluation (`bregman_term`, which the direct reference
    /// of Algorithm 2.1 keeps) to the general form's rounding, as for q = 4.
    #[test]
    fn bregman_integer_q_equals_the_general_evaluation(u in -1e2f64..1e2, r in -3.0f64..3.0, e in -12i32..2, qi in prop::sample::select(vec![3u32, 5, 6, 7, 8, 11, 21])) {
        use kernel_playground::solvers::dual_lp::{bregman_term, bregman_term_int};
        let h = u * r * 10f64.powi(e);
        let (fast, general) = (bregman_term_int(u, h, qi), bregman_term(u, h, qi as f64));
        prop_assert!(fast >= 0.0);
        let t = (h / u).abs();
        // The general form: the series (a few ulps, more terms as q grows) or expm1(q·log1p(t)) − qt,
        // whose subtraction loses about ε·2q|t|/φ(t) relative; the integer form adds 4q·ε.
        let qf = qi as f64;
        let rel = 16.0 * qf * f64::EPSILON * if t < 1e-3 { 1.0 } else { 1.0 + 1.0 / t };
        prop_assert!((fast - general).abs() <= rel * general.abs() + 1e-300, "u = {}, h = {}, q = {}: {} vs {}", u, h, qi, fast, general);
    }
}

#[test]
fn integer_exponents_of_the_linesearch() {
    use kernel_playground::solvers::dual_lp::integer_exponent;
    for (p, q) in [
        (1.1, Some(11)),
        (1.25, Some(5)),
        (1.2, Some(6)),
        (8.0 / 7.0, Some(8)),
        (1.05, Some(21)),
        (1.5, Some(3)),
    ] {
        assert_eq!(integer_exponent(conjugate_exponent(p)), q, "p = {p}");
    }
    for p in [4.0 / 3.0, 1.3, 1.01, 1.7] {
        assert_eq!(integer_exponent(conjugate_exponent(p)), None, "p = {p}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// `abs_powi` (binary powering, Algorithm 2.1's `|u|^(q−1)` at integer q) is within `k·ε`
    /// relative of `pow` (itself within an ulp), over the magnitudes the iterates take.
    #[test]
    fn abs_powi_is_within_k_eps_of_pow(t in -1e3f64..1e3, e in -8i32..3, k in 1u32..33) {
        use kernel_playground::lp::abs_powi;
        let t = t * 10f64.powi(e);
        let (fast, reference) = (abs_powi(t, k), kernel_playground::fmath::pow(t.abs(), k as f64));
        prop_assume!(reference.is_normal() && reference < f64::MAX / 4.0);
        prop_assert!((fast - reference).abs() <= (k as f64 + 1.0) * f64::EPSILON * reference, "|{}|^{}: {} vs {}", t, k, fast, reference);
    }
}
