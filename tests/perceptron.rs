//! Paper D (Ramdas–Peña): every outcome verified independently, every iteration count compared
//! with the paper's bound for the separately measured margin ρ_K, the margin checked against a
//! brute-force search, the simplex projection against two brute-force references.
#![cfg(not(target_arch = "wasm32"))]

use std::sync::Arc;

use kernel_playground::exec::{Run, Stepper, Stop};
use kernel_playground::kernels::{Bandwidth, Kernel};
use kernel_playground::papers::perceptron::testbeds::{arc, circles, overlapping, separable, xor};
use kernel_playground::rng::Rng;
use kernel_playground::solvers::perceptron::bounds::{
    certificate_bound, separator_bound, snkpvn_certificate_bound,
};
use kernel_playground::solvers::perceptron::margin::{
    margin, min_norm_point, normalized_margin, Margin, MarginOptions, Separability,
};
use kernel_playground::solvers::perceptron::simplex::{project_onto_simplex, simplex_threshold};
use kernel_playground::solvers::perceptron::{
    start, Isnkpvn, Nvn, Outcome, PerceptronAlgorithm, PerceptronProblem, Snkp, Snkpvn,
};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;

// ------------------------------------------------------------------ data: kernel_playground::papers::perceptron::testbeds

fn problem(x: &DMatrix<f64>, y: &[f64], k: Kernel) -> Arc<PerceptronProblem> {
    Arc::new(PerceptronProblem::new(x, y, &k).unwrap())
}

fn gaussian() -> Kernel {
    Kernel::gaussian(Bandwidth::Heuristic)
}

/// Brute force for the linear kernel in 2-D: ρ_K = max over unit u of min_i ⟨u, y_i x_i/‖x_i‖⟩.
/// The objective is 1-Lipschitz in the angle, so a grid of spacing h is within h/2 of the max.
fn brute_force_rho_2d(x: &DMatrix<f64>, y: &[f64]) -> (f64, f64) {
    let m = 200_000;
    let h = 2.0 * std::f64::consts::PI / m as f64;
    let v: Vec<(f64, f64)> = (0..x.nrows())
        .map(|i| {
            let r = (x[(i, 0)].powi(2) + x[(i, 1)].powi(2)).sqrt();
            (y[i] * x[(i, 0)] / r, y[i] * x[(i, 1)] / r)
        })
        .collect();
    let mut best = f64::NEG_INFINITY;
    for k in 0..m {
        let t = k as f64 * h;
        let (c, s) = (t.cos(), t.sin());
        let val = v.iter().map(|&(a, b)| a * c + b * s).fold(f64::INFINITY, f64::min);
        best = best.max(val);
    }
    (best, h / 2.0 + 1e-12)
}

/// `algo` on `pb` through the executor ([`Run`], capped at `cap`): its verified outcome, its
/// iterations and the length of the executor's trace.
fn run_capped(
    pb: &Arc<PerceptronProblem>,
    algo: PerceptronAlgorithm,
    cap: usize,
) -> kernel_playground::error::Result<(Outcome, usize, usize)> {
    let mut run = Run::new(start(pb.clone(), algo)?).capped(cap);
    let stop = run.run();
    let iters = run.last().iter;
    Ok((Outcome::of(stop, iters, &run.solution(), &algo, pb)?, iters, run.trace().len()))
}

fn q0_norm(pb: &PerceptronProblem) -> f64 {
    let n = pb.n();
    pb.norm_g(&DVector::from_element(n, 1.0 / n as f64))
}

fn measured_margin(pb: &PerceptronProblem) -> Margin {
    let m = margin(pb.gram(), &MarginOptions::default()).unwrap();
    assert!(m.lower <= m.upper + 1e-12, "bracket [{}, {}]", m.lower, m.upper);
    // The witnesses certify the bracket when recomputed from G.
    let a = DVector::from_vec(m.alpha.clone());
    assert!(normalized_margin(pb.gram(), &a).unwrap() >= m.lower - 1e-12);
    if !m.exact || m.separability == Separability::Separable {
        assert!(pb.norm_g(&DVector::from_vec(m.p.clone())) <= m.upper + 1e-12);
    }
    m
}

// ------------------------------------------------------------------ the normalized Gram

#[test]
fn gram_is_normalized_signed_and_decision_function_agrees() {
    let (x, y) = separable(30, 0.2, 1);
    for k in [Kernel::linear(), Kernel::polynomial(3, 1.0), gaussian()] {
        let pb = problem(&x, &y, k.clone());
        let g = pb.gram();
        let r = k.resolve(&x).unwrap();
        for i in 0..30 {
            assert_eq!(g[(i, i)], 1.0);
            for j in 0..30 {
                let xi: Vec<f64> = x.row(i).iter().copied().collect();
                let xj: Vec<f64> = x.row(j).iter().copied().collect();
                let want =
                    y[i] * y[j] * r.eval(&xi, &xj) / (r.eval(&xi, &xi) * r.eval(&xj, &xj)).sqrt();
                assert!((g[(i, j)] - want).abs() < 1e-12);
            }
        }
        // Lemma 1: y_j f(x_j)/√K_jj = (Gα)_j for any α.
        let mut rng = Rng::new(5);
        let alpha: Vec<f64> = (0..30).map(|_| rng.normal()).collect();
        let f = pb.decision_function(&alpha, &x).unwrap();
        let ga = g * DVector::from_vec(alpha.clone());
        for j in 0..30 {
            let xj: Vec<f64> = x.row(j).iter().copied().collect();
            assert!((y[j] * f[j] / r.eval(&xj, &xj).sqrt() - ga[j]).abs() < 1e-10);
        }
    }
}

// ------------------------------------------------------------------ the margin

#[test]
fn margin_matches_brute_force_in_the_plane() {
    // Separable, overlapping, circles, XOR with the linear kernel: ρ_K from the min-norm point
    // (separable) or the exact hull depth (inseparable) against an angle grid.
    let sets = [
        separable(50, 0.15, 2),
        overlapping(50, 3),
        circles(40, 4),
        xor(40, 5),
        separable(50, 0.0, 6),
        arc(50, 80.0, 7),
        arc(50, 100.0, 8),
    ];
    for (x, y) in sets.iter() {
        let pb = problem(x, y, Kernel::linear());
        let m = measured_margin(&pb);
        let (bf, acc) = brute_force_rho_2d(x, y);
        assert!(
            m.lower <= bf + acc && bf - acc <= m.upper,
            "brute force {bf} outside [{}, {}]",
            m.lower,
            m.upper
        );
        assert!((m.rho - bf).abs() <= acc + 1e-6, "rho {} vs brute force {bf}", m.rho);
        if bf > 1e-3 {
            assert_eq!(m.separability, Separability::Separable);
        }
        if bf < -1e-3 {
            assert_eq!(m.separability, Separability::Inseparable);
            assert!(m.exact);
        }
    }
}

#[test]
fn min_norm_point_fw_gap_certifies_against_projected_gradient() {
    // A different algorithm for min_{p∈Δ} ½pᵀGp: projected gradient with the simplex projection.
    let (x, y) = circles(30, 7);
    let pb = problem(&x, &y, Kernel::polynomial(2, 1.0));
    let g = pb.gram();
    let mnp = min_norm_point(g, 1e-10, 1e-12, 200_000).unwrap();
    let lmax = g.clone().symmetric_eigen().eigenvalues.max();
    let mut p = DVector::from_element(30, 1.0 / 30.0);
    for _ in 0..20_000 {
        let grad = g * &p;
        let v: Vec<f64> = (&p - grad / lmax).iter().copied().collect();
        p = DVector::from_vec(project_onto_simplex(&v).unwrap());
    }
    let pg = pb.norm_g(&p);
    assert!(
        mnp.lower <= pg + 1e-9 && pg <= mnp.norm_g + 1e-6,
        "PG {pg} vs [{}, {}]",
        mnp.lower,
        mnp.norm_g
    );
    assert!(mnp.norm_g - mnp.lower <= 1e-6 * mnp.norm_g.max(1e-300) + 1e-12);
}

// ------------------------------------------------------------------ primal algorithms

fn primal_algorithms(rho_lower: f64) -> Vec<PerceptronAlgorithm> {
    vec![
        PerceptronAlgorithm::Perceptron,
        PerceptronAlgorithm::Nkp,
        PerceptronAlgorithm::Snkp,
        PerceptronAlgorithm::Snkpvn { delta: 0.5 * rho_lower },
        PerceptronAlgorithm::Isnkpvn { gamma: 2.0, epsilon: 0.5 * rho_lower },
    ]
}

fn check_separators_within_bounds(pb: Arc<PerceptronProblem>, label: &str) {
    let m = measured_margin(&pb);
    assert_eq!(m.separability, Separability::Separable, "{label}");
    let rho = m.lower;
    for algo in primal_algorithms(rho) {
        let bound = separator_bound(&algo, pb.n(), rho, q0_norm(&pb)).unwrap();
        let cap = bound.ceil() as usize + 1;
        let (out, iters, _) = run_capped(&pb, algo, cap).unwrap();
        match out {
            Outcome::Separator { check, .. } => {
                assert!(check.verified, "{label} {}: {check:?}", algo.name());
                assert_eq!(check.correct, pb.n());
                // Lemma 3: no normalized margin exceeds ρ_K.
                assert!(check.normalized_margin.unwrap() <= m.upper + 1e-9);
            }
            other => panic!("{label} {}: expected a separator, got {other:?}", algo.name()),
        }
        assert!(
            iters as f64 <= bound,
            "{label} {}: {iters} iterations > bound {bound}",
            algo.name()
        );
    }
}

#[test]
fn separable_linear_data_each_primal_algorithm_within_its_bound() {
    let (x, y) = separable(60, 0.3, 11);
    check_separators_within_bounds(problem(&x, &y, Kernel::linear()), "linear");
    let (x, y) = separable(60, 0.1, 12);
    check_separators_within_bounds(problem(&x, &y, Kernel::linear()), "linear small margin");
    for a in [70.0, 80.0, 85.0] {
        let (x, y) = arc(60, a, 13);
        let pb = problem(&x, &y, Kernel::linear());
        let rho = measured_margin(&pb).rho;
        assert!((rho - a.to_radians().cos()).abs() < 1e-9, "arc {a}: ρ_K = {rho}");
        check_separators_within_bounds(pb, &format!("arc {a}°"));
    }
}

#[test]
fn gaussian_kernel_separates_xor_and_circles_within_bounds() {
    for (name, (x, y)) in [("xor", xor(40, 13)), ("circles", circles(40, 14))] {
        let pb = problem(&x, &y, gaussian());
        // Distinct points: G is positive definite, so no p ∈ Δ has ‖p‖_G = 0 (Theorem 2).
        let lmin = pb.gram().clone().symmetric_eigen().eigenvalues.min();
        assert!(lmin > 0.0, "{name}: λ_min = {lmin}");
        // ρ_K ≥ ... : ‖p‖²_G ≥ λ_min ‖p‖² ≥ λ_min/n on the simplex.
        let m = measured_margin(&pb);
        assert!(m.upper * m.upper >= lmin / 40.0 - 1e-12);
        check_separators_within_bounds(pb, name);
    }
    // And the polynomial kernel of degree 2 separates the circles (feature x₁² + x₂²).
    let (x, y) = circles(40, 15);
    check_separators_within_bounds(problem(&x, &y, Kernel::polynomial(2, 1.0)), "poly circles");
}

#[test]
fn snkp_follows_algorithm_4_and_lemma_5() {
    // μ_k = 4/((k+1)(k+2)), α_k, p_k ∈ Δ, and the excessive-gap inequality of Lemma 5
    // L_μk(α_k) ≤ −½‖p_k‖²_G, with L_μ(α) = μ log Σ exp(−(Gα)_i/μ) − μ log n + ½‖α‖²_G.
    let (x, y) = overlapping(40, 16);
    let pb = problem(&x, &y, Kernel::linear());
    let g = pb.gram().clone();
    let mut st = Snkp::new(pb.clone()).unwrap();
    for k in 0..200 {
        let r = st.record();
        assert_eq!(r.iter, k);
        let mu = st.mu();
        assert!((mu - 4.0 / ((k + 1) as f64 * (k + 2) as f64)).abs() < 1e-12 * mu.max(1.0));
        let a = st.alpha().clone();
        let p = st.p().clone();
        for v in [&a, &p] {
            assert!(v.min() >= 0.0 && (v.sum() - 1.0).abs() < 1e-12);
        }
        let ga = &g * &a;
        let zmin = ga.min();
        let lse = -zmin / mu + ga.iter().map(|v| (-(v - zmin) / mu).exp()).sum::<f64>().ln();
        let l_mu = mu * lse - mu * (40f64).ln() + 0.5 * a.dot(&ga);
        let np2 = p.dot(&(&g * &p));
        assert!(l_mu <= -0.5 * np2 + 1e-9, "k={k}: L_mu {l_mu} > −½‖p‖² {}", -0.5 * np2);
        st.step();
    }
}

#[test]
fn entropy_smoothed_minimizer_is_the_argmin_and_stable() {
    use kernel_playground::solvers::perceptron::algorithms::entropy_smoothed_minimizer;
    // Variational check of Eq. (12): p_μ minimizes ⟨c, p⟩ + μ Σ p log p over random simplex points.
    let mut rng = Rng::new(30);
    let c: Vec<f64> = (0..6).map(|_| rng.normal()).collect();
    let mu = 0.3;
    let mut p = vec![0.0; 6];
    entropy_smoothed_minimizer(&c, mu, &mut p);
    let obj = |p: &[f64]| {
        p.iter()
            .zip(&c)
            .map(|(pi, ci)| pi * ci + if *pi > 0.0 { mu * pi * pi.ln() } else { 0.0 })
            .sum::<f64>()
    };
    for _ in 0..2000 {
        let w: Vec<f64> = (0..6).map(|_| -rng.uniform().ln()).collect();
        let s: f64 = w.iter().sum();
        let r: Vec<f64> = w.iter().map(|v| v / s).collect();
        assert!(obj(&p) <= obj(&r) + 1e-12);
    }
    // Tiny μ: no overflow, the mass goes to the argmin; huge |c|/μ on both sides.
    let mut q = vec![0.0; 3];
    entropy_smoothed_minimizer(&[-1.0, 0.5, 1.0], 1e-9, &mut q);
    assert_eq!(q, vec![1.0, 0.0, 0.0]);
    entropy_smoothed_minimizer(&[0.25, 0.25, 1.0], 1e-12, &mut q);
    assert_eq!(q, vec![0.5, 0.5, 0.0]);
}

#[test]
fn smoothing_stays_finite_when_mu_is_tiny() {
    // After 6000 iterations μ_k ≈ 1e-7: a softmax without the max-subtraction would overflow
    // (exp(|Gα|/μ) = exp(1e6)); the projection must stay exact.
    let (x, y) = overlapping(30, 29);
    let pb = problem(&x, &y, Kernel::linear());
    let mut snkp = Snkp::new(pb.clone()).unwrap();
    let mut snkpvn = Snkpvn::new(pb.clone(), None, 1e-300).unwrap();
    for _ in 0..6000 {
        snkp.step();
        snkpvn.step();
    }
    let states = [
        (snkp.record(), snkp.stop(), snkp.mu(), snkp.alpha().clone(), snkp.p().clone()),
        (snkpvn.record(), snkpvn.stop(), snkpvn.mu(), snkpvn.alpha().clone(), snkpvn.p().clone()),
    ];
    for (which, (r, stop, mu, alpha, p)) in states.into_iter().enumerate() {
        assert!(stop == Stop::Running && mu < 1e-5);
        assert!(r.min_g_alpha.unwrap().is_finite() && r.norm_p_g.unwrap().is_finite());
        for v in [&alpha, &p] {
            assert!(v.iter().all(|x| x.is_finite() && *x >= 0.0) && (v.sum() - 1.0).abs() < 1e-9);
        }
        // Inseparable data: L(α) ≥ 0 (take p ∈ W in Eq. (9)). SNKP: Lemmas 4–5 give
        // ‖p_k‖²_G ≤ 2μ_k log n. SNKPVN: Lemma 9 gives ‖p_k‖_G ≤ 2√(2n)/(k+1).
        let np = r.norm_p_g.unwrap();
        let bound = if which == 0 {
            (2.0 * mu * (30f64).ln()).sqrt()
        } else {
            2.0 * (60f64).sqrt() / 6001.0
        };
        assert!(np <= bound + 1e-12, "{which}: ‖p‖_G = {np} > {bound}");
    }
}

#[test]
fn snkpvn_follows_algorithm_6_and_lemma_8() {
    // μ_k = 4n/((k+1)(k+2)) and L^q_μk(α_k) ≤ −½‖p_k‖²_G with
    // L^q_μ(α) = max_{p∈Δ} {−⟨Gα,p⟩ − (μ/2)‖p − q‖²} + ½‖α‖²_G, the max evaluated at its
    // maximizer found by bisection on the threshold (not by the solver's projection).
    let (x, y) = overlapping(30, 17);
    let pb = problem(&x, &y, Kernel::linear());
    let g = pb.gram().clone();
    let n = 30.0;
    let q = DVector::from_element(30, 1.0 / n);
    let mut st = Snkpvn::new(pb.clone(), None, 1e-12).unwrap();
    for k in 0..150 {
        assert_eq!(st.record().iter, k);
        let mu = st.mu();
        assert!((mu - 4.0 * n / ((k + 1) as f64 * (k + 2) as f64)).abs() < 1e-10 * mu);
        let a = st.alpha().clone();
        let p = st.p().clone();
        let ga = &g * &a;
        let v: Vec<f64> = (&q - &ga / mu).iter().copied().collect();
        let pm = DVector::from_vec(bisection_projection(&v));
        let inner = -ga.dot(&pm) - 0.5 * mu * (&pm - &q).norm_squared();
        let lq = inner + 0.5 * a.dot(&ga);
        assert!(lq <= -0.5 * p.dot(&(&g * &p)) + 1e-9, "k={k}");
        st.step();
    }
}

// ------------------------------------------------------------------ certificates

fn check_certificates(pb: Arc<PerceptronProblem>, eps: f64, label: &str) {
    let m = measured_margin(&pb);
    assert_eq!(m.separability, Separability::Inseparable, "{label}");
    let rho_abs = (-m.upper).max(0.0); // certified lower bound on |ρ_K|
    let q0 = q0_norm(&pb);
    for algo in [
        PerceptronAlgorithm::Nvn { epsilon: eps },
        PerceptronAlgorithm::Snkpvn { delta: eps },
        PerceptronAlgorithm::Isnkpvn { gamma: 2.0, epsilon: eps },
    ] {
        let (out, iters, _) = run_capped(&pb, algo, 2_000_000).unwrap();
        match &out {
            Outcome::Certificate { check, norm_g, .. } => {
                assert!(check.verified, "{label} {}: {check:?}", algo.name());
                assert!(*norm_g <= eps);
            }
            other => panic!("{label} {}: expected a certificate, got {other:?}", algo.name()),
        }
        if let Some(b) = certificate_bound(&algo, pb.n(), q0, rho_abs) {
            assert!(iters as f64 <= b + 1.0, "{label} {}: {iters} > bound {b}", algo.name());
        }
    }
    // ISNKPVN: each phase within Lemma 9's bound for its (q_t, δ_t), ‖q_t‖_G = γ δ_t.
    let mut st = Isnkpvn::new(pb.clone(), 2.0, eps).unwrap();
    while st.step().is_some() {}
    assert_eq!(st.stop(), Stop::Certificate);
    for &(k, delta) in st.phases() {
        let b = snkpvn_certificate_bound(pb.n(), delta, 2.0 * delta, rho_abs);
        assert!(k as f64 <= b + 1.0, "{label} ISNKPVN phase: {k} > {b}");
    }
}

#[test]
fn inseparable_data_give_verified_certificates_within_bounds() {
    let (x, y) = overlapping(60, 21);
    check_certificates(problem(&x, &y, Kernel::linear()), 0.05, "overlap");
    let (x, y) = circles(40, 22);
    check_certificates(problem(&x, &y, Kernel::linear()), 0.02, "circles, linear");
    let (x, y) = xor(40, 23);
    check_certificates(problem(&x, &y, Kernel::linear()), 0.02, "xor, linear");
    // Rank 6 (polynomial features of degree 2): inseparable, ρ_K only bracketed.
    let (x, y) = overlapping(60, 28);
    let pb = problem(&x, &y, Kernel::polynomial(2, 1.0));
    let m = measured_margin(&pb);
    assert!(!m.exact && m.lower < 0.0 && m.upper <= 1e-7, "{} {}", m.lower, m.upper);
    check_certificates(pb, 0.02, "overlap, polynomial");
    for a in [95.0, 100.0, 120.0] {
        let (x, y) = arc(60, a, 14);
        let pb = problem(&x, &y, Kernel::linear());
        let rho = measured_margin(&pb).rho;
        assert!((rho - a.to_radians().cos()).abs() < 1e-9, "arc {a}: ρ_K = {rho}");
        check_certificates(pb, 0.01, &format!("arc {a}°"));
    }
}

#[test]
fn nvn_obeys_dantzig_rate_and_the_linear_combination_shrinks() {
    // ‖p_k‖²_G ≤ 1/k when 0 is in the hull, and ‖Σ p_i y_i x_i/‖x_i‖‖ = ‖p‖_G (linear kernel).
    let (x, y) = overlapping(50, 24);
    let pb = problem(&x, &y, Kernel::linear());
    let mut st = Nvn::new(pb.clone(), 1e-4).unwrap();
    let mut prev = f64::INFINITY;
    for _ in 0..500 {
        let r = st.step().unwrap();
        if st.stop() != Stop::Running {
            break;
        }
        let np = r.norm_p_g.unwrap();
        assert!(np * np <= 1.0 / r.iter as f64 + 1e-12);
        assert!(np <= prev + 1e-15, "line search never increases ‖p‖_G");
        prev = np;
        let p: Vec<f64> = st.p().iter().copied().collect();
        let w = pb.linear_combination(&p).unwrap();
        assert!((w.norm() - np).abs() < 1e-10);
    }
}

#[test]
fn nvn_finds_a_separator_on_separable_data() {
    let (x, y) = separable(40, 0.3, 25);
    let pb = problem(&x, &y, Kernel::linear());
    let (out, _, _) = run_capped(&pb, PerceptronAlgorithm::Nvn { epsilon: 1e-6 }, 100_000).unwrap();
    assert!(matches!(out, Outcome::Separator { .. }) && out.verified(), "{out:?}");
}

#[test]
fn iteration_cap_is_reported() {
    let (x, y) = overlapping(30, 26);
    let pb = problem(&x, &y, Kernel::linear());
    let (out, iters, trace) = run_capped(&pb, PerceptronAlgorithm::Snkp, 25).unwrap();
    assert_eq!(out, Outcome::IterationCap { iterations: 25 });
    assert_eq!((iters, trace), (25, 26));
}

#[test]
fn forged_outcomes_fail_verification() {
    let (x, y) = overlapping(30, 27);
    let pb = problem(&x, &y, Kernel::linear());
    let uniform = vec![1.0 / 30.0; 30];
    assert!(!pb.verify_separator(&uniform).unwrap().verified);
    let mut off = uniform.clone();
    off[0] += 1e-9;
    assert!(!pb.verify_certificate(&off, 10.0).unwrap().verified, "sum ≠ 1");
    let mut neg = uniform.clone();
    neg[0] = -0.1;
    neg[1] += 0.1;
    assert!(!pb.verify_certificate(&neg, 10.0).unwrap().verified, "negative weight");
    assert!(!pb.verify_certificate(&uniform, 1e-9).unwrap().verified, "‖p‖_G > ε");
}

// ------------------------------------------------------------------ simplex projection

fn bisection_projection(v: &[f64]) -> Vec<f64> {
    let f = |t: f64| v.iter().map(|x| (x - t).max(0.0)).sum::<f64>() - 1.0;
    let mut lo = v.iter().copied().fold(f64::INFINITY, f64::min) - 1.0;
    let mut hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let t = 0.5 * (lo + hi);
    v.iter().map(|x| (x - t).max(0.0)).collect()
}

/// Enumerate supports S: on S the KKT point is v − τ_S with τ_S = (Σ_S v − 1)/|S|; keep the
/// feasible candidate nearest v.
fn support_enumeration_projection(v: &[f64]) -> Vec<f64> {
    let n = v.len();
    let mut best: Option<(f64, Vec<f64>)> = None;
    for mask in 1u32..(1 << n) {
        let s: Vec<usize> = (0..n).filter(|i| mask & (1 << i) != 0).collect();
        let tau = (s.iter().map(|&i| v[i]).sum::<f64>() - 1.0) / s.len() as f64;
        let mut x = vec![0.0; n];
        for &i in &s {
            x[i] = v[i] - tau;
        }
        if x.iter().all(|&xi| xi >= -1e-12) {
            let d: f64 = x.iter().zip(v).map(|(a, b)| (a - b) * (a - b)).sum();
            if best.as_ref().is_none_or(|(bd, _)| d < *bd) {
                best = Some((d, x));
            }
        }
    }
    best.unwrap().1
}

proptest! {
    #[test]
    fn projection_matches_bisection(v in prop::collection::vec(-50.0f64..50.0, 1..40)) {
        let p = project_onto_simplex(&v).unwrap();
        let r = bisection_projection(&v);
        prop_assert!(p.iter().all(|&x| x >= 0.0));
        prop_assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        for (a, b) in p.iter().zip(&r) {
            prop_assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        }
        // τ satisfies Σ(v_i − τ)_+ = 1.
        let tau = simplex_threshold(&v, &mut Vec::new()).unwrap();
        let s: f64 = v.iter().map(|x| (x - tau).max(0.0)).sum();
        prop_assert!((s - 1.0).abs() < 1e-12);
    }

    #[test]
    fn projection_matches_support_enumeration(v in prop::collection::vec(-3.0f64..3.0, 1..7)) {
        let p = project_onto_simplex(&v).unwrap();
        let r = support_enumeration_projection(&v);
        for (a, b) in p.iter().zip(&r) {
            prop_assert!((a - b).abs() < 1e-10, "{a} vs {b}");
        }
    }

    #[test]
    fn arbitrary_inputs_never_panic(
        coords in prop::collection::vec(prop_oneof![Just(f64::NAN), Just(0.0), -5.0f64..5.0], 0..16),
        labels in prop::collection::vec(prop_oneof![Just(1.0), Just(-1.0), Just(0.0), Just(2.0)], 0..9),
        kind in 0usize..3,
        eps in prop_oneof![Just(-1.0), Just(0.0), Just(f64::NAN), 0.001f64..0.5],
        gamma in prop_oneof![Just(1.0), Just(0.5), 1.01f64..4.0],
    ) {
        let n = coords.len() / 2;
        let x = DMatrix::from_fn(n, 2, |i, j| coords[2 * i + j]);
        let k = [Kernel::linear(), Kernel::polynomial(2, 0.0), gaussian()][kind].clone();
        if let Ok(pb) = PerceptronProblem::new(&x, &labels, &k) {
            let pb = Arc::new(pb);
            for algo in [PerceptronAlgorithm::Nvn { epsilon: eps }, PerceptronAlgorithm::Isnkpvn { gamma, epsilon: eps },
                         PerceptronAlgorithm::Snkpvn { delta: eps }, PerceptronAlgorithm::Snkp] {
                let _ = run_capped(&pb, algo, 50);
            }
            let _ = margin(pb.gram(), &MarginOptions { max_iter: 200, search_iter: 20, ..Default::default() });
        }
    }
}

// ------------------------------------------------------------------ bad input

#[test]
fn bad_inputs_are_errors_with_clear_messages() {
    let x = DMatrix::from_row_slice(3, 2, &[1.0, 0.0, 0.0, 1.0, -1.0, -1.0]);
    let msg = |r: Result<PerceptronProblem, kernel_playground::KpError>| r.unwrap_err().to_string();
    assert!(
        msg(PerceptronProblem::new(&x, &[1.0, 1.0, 1.0], &Kernel::linear())).contains("same label")
    );
    assert!(msg(PerceptronProblem::new(&x.rows(0, 1).into_owned(), &[1.0], &Kernel::linear()))
        .contains("at least 2"));
    assert!(
        msg(PerceptronProblem::new(&x, &[1.0, 0.0, -1.0], &Kernel::linear())).contains("+1 or −1")
    );
    assert!(msg(PerceptronProblem::new(&x, &[1.0, -1.0], &Kernel::linear())).contains("labels"));
    let mut xn = x.clone();
    xn[(1, 1)] = f64::NAN;
    assert!(
        msg(PerceptronProblem::new(&xn, &[1.0, -1.0, 1.0], &Kernel::linear())).contains("point 2")
    );
    let mut x0 = x.clone();
    x0[(2, 0)] = 0.0;
    x0[(2, 1)] = 0.0;
    let e = msg(PerceptronProblem::new(&x0, &[1.0, -1.0, 1.0], &Kernel::linear()));
    assert!(e.contains("point 3") && e.contains("normalized"), "{e}");
    let e = msg(PerceptronProblem::new(&x0, &[1.0, -1.0, 1.0], &Kernel::polynomial(2, 0.0)));
    assert!(e.contains("point 3"), "{e}");
    // A Gaussian kernel is never zero on the diagonal: the origin is fine.
    assert!(PerceptronProblem::new(&x0, &[1.0, -1.0, 1.0], &gaussian()).is_ok());

    let pb = Arc::new(PerceptronProblem::new(&x, &[1.0, -1.0, 1.0], &Kernel::linear()).unwrap());
    for (algo, name) in [
        (PerceptronAlgorithm::Nvn { epsilon: 0.0 }, "epsilon"),
        (PerceptronAlgorithm::Nvn { epsilon: -1.0 }, "epsilon"),
        (PerceptronAlgorithm::Snkpvn { delta: f64::NAN }, "delta"),
        (PerceptronAlgorithm::Isnkpvn { gamma: 1.0, epsilon: 0.1 }, "gamma"),
        (PerceptronAlgorithm::Isnkpvn { gamma: 0.5, epsilon: 0.1 }, "gamma"),
        (PerceptronAlgorithm::Isnkpvn { gamma: 2.0, epsilon: 0.0 }, "epsilon"),
    ] {
        let e = start(pb.clone(), algo).err().expect("must be rejected").to_string();
        assert!(e.contains(name), "{e}");
    }
    assert!(Snkpvn::new(pb.clone(), Some(DVector::from_vec(vec![0.5, 0.6, -0.1])), 0.1).is_err());
    assert!(Snkpvn::new(pb.clone(), Some(DVector::from_vec(vec![0.5, 0.5])), 0.1).is_err());
    assert!(pb.verify_separator(&[1.0]).is_err());
    assert!(pb.verify_certificate(&[0.5, f64::NAN, 0.5], 0.1).is_err());
    assert!(pb.decision_function(&[1.0, 2.0], &x).is_err());
    assert!(margin(&DMatrix::zeros(0, 0), &MarginOptions::default()).is_err());
}

#[test]
fn serde_of_algorithm_and_outcome() {
    let a: PerceptronAlgorithm =
        serde_json::from_str(r#"{"kind":"isnkpvn","gamma":2.0,"epsilon":0.01}"#).unwrap();
    assert_eq!(a, PerceptronAlgorithm::Isnkpvn { gamma: 2.0, epsilon: 0.01 });
    assert!(serde_json::from_str::<PerceptronAlgorithm>(r#"{"kind":"nvn"}"#).is_err());
}
