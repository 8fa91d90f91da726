//! Tests of the tensor kernels and the Gram tensor (paper A, Sections 2.2–2.3, Remark 2.4).
//! Every quantity is checked against an independent computation: the explicit feature map
//! (features path), brute-force sums over all n^q ordered tuples, finite differences, and
//! the homogeneity identities of a degree-q form.
#![cfg(not(target_arch = "wasm32"))]

use kernel_playground::error::KpError;
use kernel_playground::lp::DualPolynomial;
use kernel_playground::rng::Rng;
use kernel_playground::tensor::*;
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;

const BIG: u64 = 1 << 30;

fn random_x(n: usize, d: usize, scale: f64, seed: u64) -> DMatrix<f64> {
    let mut rng = Rng::new(seed);
    DMatrix::from_fn(n, d, |_, _| scale * rng.normal())
}

fn random_alpha(n: usize, seed: u64) -> DVector<f64> {
    let mut rng = Rng::new(seed);
    DVector::from_fn(n, |_, _| rng.normal())
}

fn rel_vec(a: &[f64], b: &[f64]) -> f64 {
    let diff: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    norm(&diff) / norm(b).max(1e-300)
}

/// The Euclidean norm, scaled by the largest magnitude first so that it neither overflows
/// nor underflows: the exponential kernel reaches e^470 ≈ 1e204 on the property test's
/// inputs, whose square is not a finite double.
fn norm(v: &[f64]) -> f64 {
    let m = v.iter().fold(0.0f64, |m, y| m.max(y.abs()));
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    m * v.iter().map(|y| (y / m) * (y / m)).sum::<f64>().sqrt()
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

fn cfg(kernel: TensorKernel, q: usize) -> TensorKernelConfig {
    TensorKernelConfig::new(kernel, q).unwrap()
}

/// The kernel computed here from its definition (Section 2.2), independently of the library.
fn kernel_direct(kernel: TensorKernel, x: &DMatrix<f64>, idx: &[usize]) -> f64 {
    let s: f64 = (0..x.ncols()).map(|k| idx.iter().map(|&i| x[(i, k)]).product::<f64>()).sum();
    match kernel {
        TensorKernel::Linear => s,
        TensorKernel::Polynomial { degree } => s.powi(degree as i32),
        TensorKernel::Exponential => s.exp(),
    }
}

/// All n^q ordered tuples.
fn all_tuples(n: usize, q: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut t = vec![0usize; q];
    loop {
        out.push(t.clone());
        let mut j = 0;
        loop {
            if j == q {
                return out;
            }
            t[j] += 1;
            if t[j] < n {
                break;
            }
            t[j] = 0;
            j += 1;
        }
    }
}

const KERNELS_FINITE: [TensorKernel; 3] = [
    TensorKernel::Linear,
    TensorKernel::Polynomial { degree: 2 },
    TensorKernel::Polynomial { degree: 3 },
];

#[test]
fn tensor_path_equals_features_path() {
    for &q in &[4usize, 6] {
        let (n, d) = if q == 4 { (9, 4) } else { (6, 3) };
        for (ki, &kernel) in KERNELS_FINITE.iter().enumerate() {
            let c = cfg(kernel, q);
            let x = random_x(n, d, 0.8, 10 + ki as u64 + q as u64);
            let k = GramTensor::build(&x, c, BIG).unwrap();
            let f = feature_polynomial(&x, &c, BIG).unwrap();
            assert_eq!(f.x.ncols() as u64, feature_count(d, &c).unwrap());
            for seed in 0..3 {
                let a = random_alpha(n, 100 + seed);
                let (pk, pf) = (k.value(&a), f.value(&a));
                assert!(rel(pk, pf) < 1e-10, "q={q} {kernel:?}: P {pk} vs {pf}");
                let mut gk = DVector::zeros(n);
                let mut gf = DVector::zeros(n);
                let vk = k.value_grad(&a, &mut gk);
                let vf = f.value_grad(&a, &mut gf);
                assert!(rel(vk, vf) < 1e-10);
                assert!(
                    rel_vec(gk.as_slice(), gf.as_slice()) < 1e-10,
                    "q={q} {kernel:?}: gradient"
                );
                let (hk, hf) = (k.hessian(&a), f.hessian(&a));
                assert!(rel_vec(hk.as_slice(), hf.as_slice()) < 1e-10, "q={q} {kernel:?}: Hessian");
            }
        }
    }
}

#[test]
fn symmetric_storage_equals_brute_force_full_tensor() {
    for &q in &[4usize, 6] {
        let n = 4;
        for kernel in [
            TensorKernel::Linear,
            TensorKernel::Polynomial { degree: 2 },
            TensorKernel::Exponential,
        ] {
            let x = random_x(n, 3, 0.7, 7);
            let k = GramTensor::build(&x, cfg(kernel, q), BIG).unwrap();
            assert_eq!(k.values().len() as u64, symmetry_classes(n, q).unwrap());
            let a = random_alpha(n, 3);
            let mut p = 0.0;
            let mut g = vec![0.0; n];
            let mut h = DMatrix::<f64>::zeros(n, n);
            for t in all_tuples(n, q) {
                let kv = kernel_direct(kernel, &x, &t);
                let stored = k.get(&t).unwrap();
                assert!(rel(stored, kv) < 1e-12, "{t:?}: stored {stored} vs {kv}");
                let prod_rest: f64 = t[1..].iter().map(|&i| a[i]).product();
                p += kv * a[t[0]] * prod_rest;
                g[t[0]] += kv * prod_rest;
                let prod_rest2: f64 = t[2..].iter().map(|&i| a[i]).product();
                h[(t[0], t[1])] += (q as f64 - 1.0) * kv * prod_rest2;
            }
            p /= q as f64;
            assert!(rel(k.value(&a), p) < 1e-12, "q={q} {kernel:?}: P");
            let mut gk = DVector::zeros(n);
            k.value_grad(&a, &mut gk);
            assert!(rel_vec(gk.as_slice(), &g) < 1e-12, "q={q} {kernel:?}: ∇P");
            assert!(
                rel_vec(k.hessian(&a).as_slice(), h.as_slice()) < 1e-12,
                "q={q} {kernel:?}: ∇²P"
            );
        }
    }
}

#[test]
fn exponential_gradient_and_hessian_match_finite_differences() {
    for &q in &[4usize, 6] {
        let n = if q == 4 { 8 } else { 5 };
        let x = random_x(n, 3, 0.6, 21);
        let k = GramTensor::build(&x, cfg(TensorKernel::Exponential, q), BIG).unwrap();
        let a = random_alpha(n, 22);
        let mut g = DVector::zeros(n);
        let p = k.value_grad(&a, &mut g);
        let h = k.hessian(&a);
        let eps = 1e-5;
        let mut g_fd = vec![0.0; n];
        let mut h_fd = DMatrix::<f64>::zeros(n, n);
        for i in 0..n {
            let mut ap = a.clone();
            let mut am = a.clone();
            ap[i] += eps;
            am[i] -= eps;
            g_fd[i] = (k.value(&ap) - k.value(&am)) / (2.0 * eps);
            let mut gp = DVector::zeros(n);
            let mut gm = DVector::zeros(n);
            k.value_grad(&ap, &mut gp);
            k.value_grad(&am, &mut gm);
            h_fd.set_column(i, &((gp - gm) / (2.0 * eps)));
        }
        assert!(rel_vec(g.as_slice(), &g_fd) < 1e-7, "q={q}: gradient vs finite differences");
        assert!(
            rel_vec(h.as_slice(), h_fd.as_slice()) < 1e-7,
            "q={q}: Hessian vs finite differences"
        );
        // P is a form of degree q in α: ⟨α, ∇P⟩ = qP and ∇²P α = (q − 1)∇P (Euler).
        assert!(rel(a.dot(&g), q as f64 * p) < 1e-12);
        assert!(rel_vec((&h * &a).as_slice(), (&g * (q as f64 - 1.0)).as_slice()) < 1e-12);
        assert!(p > 0.0, "P is a sum of q-th powers (eq. 16), so positive for α ≠ 0");
    }
}

#[test]
fn ranking_enumerates_colex_order_bijectively() {
    for &q in &[4usize, 6] {
        let n = 7;
        let total = symmetry_classes(n, q).unwrap();
        let mut seen = vec![false; total as usize];
        for t in all_tuples(n, q).into_iter().filter(|t| t.windows(2).all(|w| w[0] <= w[1])) {
            let r = rank(&t).unwrap();
            assert!(r < total);
            assert!(!seen[r as usize], "rank {r} hit twice");
            seen[r as usize] = true;
            assert_eq!(unrank(r, q), t);
        }
        assert!(seen.iter().all(|&s| s));
        // Unsorted tuples have no rank.
        assert_eq!(rank(&[1, 0, 2, 3]), None);
    }
}

proptest! {
    #[test]
    fn rank_unrank_roundtrip(n in 1usize..40, q6 in any::<bool>(), raw in proptest::collection::vec(0usize..1000, 6)) {
        let q = if q6 { 6 } else { 4 };
        let mut t: Vec<usize> = raw[..q].iter().map(|v| v % n).collect();
        t.sort_unstable();
        let r = rank(&t).unwrap();
        prop_assert!(r < symmetry_classes(n, q).unwrap());
        prop_assert_eq!(unrank(r, q), t);
    }

    #[test]
    fn unrank_rank_roundtrip(r in 0u64..1_000_000_000, q6 in any::<bool>()) {
        let q = if q6 { 6 } else { 4 };
        let t = unrank(r, q);
        prop_assert!(t.windows(2).all(|w| w[0] <= w[1]));
        prop_assert_eq!(rank(&t), Some(r));
    }
}

#[test]
fn predictor_at_training_points_is_the_gradient() {
    for &q in &[4usize, 6] {
        let n = if q == 4 { 8 } else { 5 };
        for kernel in [
            TensorKernel::Linear,
            TensorKernel::Polynomial { degree: 2 },
            TensorKernel::Exponential,
        ] {
            let c = cfg(kernel, q);
            let x = random_x(n, 2, 0.7, 31);
            let a = random_alpha(n, 32);
            let k = GramTensor::build(&x, c, BIG).unwrap();
            let mut g = DVector::zeros(n);
            k.value_grad(&a, &mut g);
            let f = TensorPredictor::new(&x, &a, c).unwrap();
            let fx = f.predict_rows(&x).unwrap();
            assert!(rel_vec(fx.as_slice(), g.as_slice()) < 1e-11, "q={q} {kernel:?}");
            let row: Vec<f64> = x.row(2).iter().copied().collect();
            assert!(rel(f.predict(&row).unwrap(), g[2]) < 1e-11);
        }
    }
}

#[test]
fn predictor_at_new_points_equals_features_primal() {
    // For a finite kernel f(x) = ⟨φ(x), w⟩ with w = J_q(Φᵀα) (Remark 2.4 with Theorem 2.3's w).
    for &q in &[4usize, 6] {
        let c = cfg(TensorKernel::Polynomial { degree: 2 }, q);
        let (n, d) = (6, 3);
        let x = random_x(n, d, 0.9, 41);
        let a = random_alpha(n, 42);
        let phi = tensor_features(&x, &c, BIG).unwrap();
        let w = phi.tr_mul(&a).map(|u| u.signum() * u.abs().powi(q as i32 - 1));
        let new = random_x(5, d, 1.1, 43);
        let phi_new = tensor_features(&new, &c, BIG).unwrap();
        let want = &phi_new * &w;
        let got = TensorPredictor::new(&x, &a, c).unwrap().predict_rows(&new).unwrap();
        assert!(rel_vec(got.as_slice(), want.as_slice()) < 1e-11, "q={q}");
    }
}

#[test]
fn feature_map_of_table_2() {
    // Table 2: degree 2, q = 4, Φ(x) = (x_1², …, x_d², 2^(1/4) x_1 x_2, …), N = d(d+1)/2.
    let c = cfg(TensorKernel::Polynomial { degree: 2 }, 4);
    assert_eq!(feature_count(650, &c).unwrap(), 211_575);
    let x = DMatrix::from_row_slice(1, 2, &[3.0, -5.0]);
    let phi = tensor_features(&x, &c, BIG).unwrap();
    let mons = feature_monomials(2, &c, 100).unwrap();
    assert_eq!(mons, vec![vec![0, 0], vec![0, 1], vec![1, 1]]);
    let r = 2f64.powf(0.25);
    let want = [9.0, r * -15.0, 25.0];
    assert!(rel_vec(phi.as_slice(), &want) < 1e-15);
    // The exponential kernel has no finite feature map.
    let e = cfg(TensorKernel::Exponential, 4);
    assert!(matches!(tensor_features(&x, &e, BIG), Err(KpError::Parameter { .. })));
    assert!(feature_count(2, &e).is_err());
}

#[test]
fn chunked_build_equals_one_shot_and_reports_progress() {
    let x = random_x(11, 5, 1.0, 51);
    let c = cfg(TensorKernel::Polynomial { degree: 2 }, 4);
    let whole = GramTensor::build(&x, c, BIG).unwrap();
    let mut b = GramTensorBuild::new(&x, c, BIG).unwrap();
    assert_eq!(b.cost().entries, symmetry_classes(11, 4).unwrap());
    assert_eq!(b.progress().done, 0);
    let mut last = 0;
    let mut calls = 0;
    loop {
        let p = b.advance(20).unwrap();
        assert!(p.done > last && p.done <= p.total);
        last = p.done;
        calls += 1;
        if p.is_done() {
            break;
        }
    }
    assert!(calls > 5, "the build should take several chunks");
    assert!(b.is_done());
    let chunked = b.finish().unwrap();
    assert_eq!(chunked.values(), whole.values());
    // An unfinished build cannot be finished.
    let mut b = GramTensorBuild::new(&x, c, BIG).unwrap();
    b.advance(1).unwrap();
    assert!(b.finish().is_err());
}

#[test]
fn values_round_trip_through_from_values() {
    // The page builds the tensor in a Web Worker and sends its values back: the rebuilt tensor
    // must give the same P(α) and ω = ∇P(α), and agree with the features path (Remark 2.5).
    for (kernel, q, n, d) in [
        (TensorKernel::Polynomial { degree: 2 }, 4, 9, 4),
        (TensorKernel::Linear, 6, 6, 3),
        (TensorKernel::Exponential, 4, 7, 3),
    ] {
        let x = random_x(n, d, 0.7, 81);
        let c = cfg(kernel, q);
        let t = GramTensor::build(&x, c, BIG).unwrap();
        let back = GramTensor::from_values(c, n, d, t.values().to_vec()).unwrap();
        assert_eq!(back.values(), t.values());
        assert_eq!(back.d(), d);
        let a = random_alpha(n, 82);
        let (mut g1, mut g2) = (DVector::zeros(n), DVector::zeros(n));
        let (p1, p2) = (t.value_grad(&a, &mut g1), back.value_grad(&a, &mut g2));
        assert_eq!(p1.to_bits(), p2.to_bits());
        assert_eq!(g1.as_slice(), g2.as_slice());
        if c.has_finite_features() {
            let f = feature_polynomial(&x, &c, BIG).unwrap();
            let mut gf = DVector::zeros(n);
            let pf = f.value_grad(&a, &mut gf);
            assert!(rel(p2, pf) < 1e-12, "{kernel:?} q={q}: tensor {p2} vs features {pf}");
            assert!(rel_vec(g2.as_slice(), gf.as_slice()) < 1e-12);
        }
        // into_values is the inverse.
        assert_eq!(back.into_values(), t.values());
    }
}

#[test]
fn from_values_refuses_a_wrong_count_or_a_non_finite_value() {
    let x = random_x(6, 3, 1.0, 91);
    let c = cfg(TensorKernel::Linear, 4);
    let good = GramTensor::build(&x, c, BIG).unwrap().values().to_vec();
    assert_eq!(good.len() as u64, symmetry_classes(6, 4).unwrap()); // C(9, 4) = 126
    assert_eq!(good.len(), 126);
    for len in [0, 125, 127] {
        let mut v = good.clone();
        v.resize(len, 1.0);
        match GramTensor::from_values(c, 6, 3, v) {
            Err(KpError::Parameter { name: "tensor", reason }) => {
                assert!(reason.contains("126") && reason.contains(&len.to_string()), "{reason}")
            }
            other => panic!("length {len} accepted: {other:?}"),
        }
    }
    // The same values claimed for another n or q.
    assert!(GramTensor::from_values(c, 7, 3, good.clone()).is_err());
    assert!(GramTensor::from_values(cfg(TensorKernel::Linear, 6), 6, 3, good.clone()).is_err());
    assert!(GramTensor::from_values(c, 0, 3, vec![]).is_err());
    assert!(GramTensor::from_values(c, 6, 0, good.clone()).is_err());
    // A NaN or an infinity anywhere, named by its tuple (samples counted from 1).
    let r = rank(&[1, 2, 2, 4]).unwrap() as usize;
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut v = good.clone();
        v[r] = bad;
        match GramTensor::from_values(c, 6, 3, v) {
            Err(KpError::NonFinite(msg)) => assert!(msg.contains("K(x2, x3, x3, x5)"), "{msg}"),
            other => panic!("{bad} accepted: {other:?}"),
        }
    }
    assert!(GramTensor::from_values(c, 6, 3, good).is_ok());
}

#[test]
fn over_budget_is_refused_with_the_numbers() {
    let x = random_x(30, 4, 1.0, 61);
    let c = cfg(TensorKernel::Linear, 4);
    let entries = symmetry_classes(30, 4).unwrap();
    match GramTensor::build(&x, c, 1000) {
        Err(KpError::Parameter { name, reason }) => {
            assert_eq!(name, "memory budget");
            assert!(reason.contains(&entries.to_string()), "{reason}");
            assert!(reason.contains("1000"), "{reason}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    let p = cfg(TensorKernel::Polynomial { degree: 3 }, 4);
    assert!(matches!(tensor_features(&x, &p, 1000), Err(KpError::Parameter { .. })));
    // A tensor whose size overflows u64 is refused, not computed.
    assert!(estimate_cost(usize::MAX / 2, 3, &c).is_err());
}

#[test]
fn exponential_overflow_is_detected_and_names_the_tuple() {
    let mut x = random_x(6, 3, 0.5, 71);
    x[(4, 0)] = 30.0; // x_5 ⊙ x_5 ⊙ x_5 ⊙ x_5 has 30⁴ = 810 000 in its first coordinate
    let c = cfg(TensorKernel::Exponential, 4);
    let mut b = GramTensorBuild::new(&x, c, BIG).unwrap();
    let mut err = None;
    for _ in 0..1000 {
        match b.advance(3) {
            Ok(p) if p.is_done() => break,
            Ok(_) => {}
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    match err {
        Some(KpError::NonFinite(msg)) => assert!(msg.contains("x5"), "{msg}"),
        other => panic!("expected a non-finite error, got {other:?}"),
    }
    assert!(b.advance(3).is_err(), "a failed build stays failed");
    // The polynomial kernel overflows too with a high degree.
    let p = cfg(TensorKernel::Polynomial { degree: 64 }, 4);
    assert!(matches!(GramTensor::build(&(&x * 10.0), p, BIG), Err(KpError::NonFinite(_))));
    assert!(GramTensor::build(&x, c, BIG).is_err());
    // Non-finite inputs are refused before any work.
    x[(0, 0)] = f64::NAN;
    assert!(matches!(GramTensorBuild::new(&x, c, BIG), Err(KpError::Parameter { name: "x", .. })));
}

#[test]
fn configs_are_validated() {
    let lin = TensorKernel::Linear;
    match TensorKernelConfig::new(lin, 5) {
        Err(KpError::Parameter { name: "q", reason }) => assert!(reason.contains("odd")),
        other => panic!("{other:?}"),
    }
    assert!(TensorKernelConfig::new(lin, 8).is_err());
    assert!(TensorKernelConfig::new(lin, 2).is_err());
    assert!(TensorKernelConfig::new(TensorKernel::Polynomial { degree: 0 }, 4).is_err());
    assert_eq!(TensorKernelConfig::from_p(lin, 4.0 / 3.0).unwrap().q(), 4);
    assert_eq!(TensorKernelConfig::from_p(lin, 6.0 / 5.0).unwrap().q(), 6);
    assert!(TensorKernelConfig::from_p(lin, 1.5).is_err()); // q = 3
    assert!(TensorKernelConfig::from_p(lin, 1.25).is_err()); // q = 5
    assert!(TensorKernelConfig::from_p(lin, 2.5).is_err());
    let c = cfg(TensorKernel::Polynomial { degree: 2 }, 4);
    assert!(rel(c.p(), 4.0 / 3.0) < 1e-15);
    let (u, v) = ([1.0, 2.0], [3.0, 4.0]);
    assert_eq!(c.eval(&[&u, &v, &u, &v]).unwrap(), (9.0f64 + 64.0).powi(2));
    assert!(c.eval(&[&u, &v]).is_err());
}

#[test]
fn line_polynomial_matches_values_along_the_line() {
    for &q in &[4usize, 6] {
        let n = if q == 4 { 9 } else { 6 };
        let x = random_x(n, 3, 0.8, 81);
        let k = GramTensor::build(&x, cfg(TensorKernel::Exponential, q), BIG).unwrap();
        let a = random_alpha(n, 82);
        let v = random_alpha(n, 83);
        let coef = k.line_polynomial(&a, &v);
        assert_eq!(coef.len(), q + 1);
        for &lam in &[-0.7, 0.0, 0.3, 1.9] {
            let poly: f64 =
                coef.iter().enumerate().map(|(j, c)| c * f64::powi(lam, j as i32)).sum();
            let direct = k.value(&(&a + &v * lam));
            assert!(rel(poly, direct) < 1e-11, "q={q} λ={lam}: {poly} vs {direct}");
        }
    }
}

#[test]
fn grids_evaluate_the_predictor() {
    let c = cfg(TensorKernel::Polynomial { degree: 2 }, 4);
    let x1 = random_x(7, 1, 1.0, 91);
    let a = random_alpha(7, 92);
    let f1 = TensorPredictor::new(&x1, &a, c).unwrap();
    let g1 = f1.grid_1d(-2.0, 2.0, 9).unwrap();
    assert_eq!(g1.xs.len(), 9);
    assert_eq!(g1.xs[0], -2.0);
    assert_eq!(g1.xs[8], 2.0);
    for (x, v) in g1.xs.iter().zip(&g1.values) {
        assert!(rel(*v, f1.predict(&[*x]).unwrap()) < 1e-12);
    }
    assert!(f1.grid_2d((0.0, 1.0), (0.0, 1.0), 3, 3).is_err());
    assert!(f1.grid_1d(1.0, 0.0, 5).is_err());
    assert!(f1.grid_1d(0.0, 1.0, 1).is_err());
    assert!(f1.predict(&[1.0, 2.0]).is_err());

    let x2 = random_x(7, 2, 1.0, 93);
    let f2 = TensorPredictor::new(&x2, &a, cfg(TensorKernel::Exponential, 4)).unwrap();
    let g2 = f2.grid_2d((-1.0, 1.0), (0.0, 2.0), 4, 3).unwrap();
    assert_eq!(g2.values.len(), 12);
    for (j, &y) in g2.ys.iter().enumerate() {
        for (i, &xv) in g2.xs.iter().enumerate() {
            assert!(rel(g2.values[j * 4 + i], f2.predict(&[xv, y]).unwrap()) < 1e-12);
        }
    }
    // Overflow of the predictor is an error, not a silent infinity.
    assert!(matches!(f2.predict(&[1e6, 1e6]), Err(KpError::NonFinite(_))));
}

#[test]
fn cost_estimate_of_table_2() {
    let c = cfg(TensorKernel::Polynomial { degree: 2 }, 4);
    let cost = estimate_cost(90, 650, &c).unwrap();
    assert_eq!(cost.entries, 93 * 92 * 91 * 90 / 24);
    assert_eq!(cost.bytes, 8 * cost.entries);
    assert_eq!(cost.build_multiplications, 650.0 * cost.entries as f64);
    let paper = cost.paper_gradient_multiplications.unwrap();
    assert_eq!(paper, 90.0 * 90.0 * 91.0 * 91.0 / 4.0);
    assert!(cost.gradient_multiplications < paper);
}

#[test]
fn predictor_batches_and_zero_coefficients() {
    // More points than one batch, and α with zeros (skipped blocks): each value must equal the
    // single-point evaluation and, at training points, ∇P(α).
    let c = cfg(TensorKernel::Polynomial { degree: 3 }, 6);
    let n = 6;
    let x = random_x(n, 2, 0.8, 101);
    let mut a = random_alpha(n, 102);
    a[0] = 0.0;
    a[3] = 0.0;
    let f = TensorPredictor::new(&x, &a, c).unwrap();
    let pts = random_x(300, 2, 1.0, 103);
    let all = f.predict_rows(&pts).unwrap();
    for r in [0, 1, 255, 256, 299] {
        let p: Vec<f64> = pts.row(r).iter().copied().collect();
        assert!(rel(all[r], f.predict(&p).unwrap()) < 1e-12);
    }
    let k = GramTensor::build(&x, c, BIG).unwrap();
    let mut g = DVector::zeros(n);
    k.value_grad(&a, &mut g);
    assert!(rel_vec(f.predict_rows(&x).unwrap().as_slice(), g.as_slice()) < 1e-11);
}

/// Algorithm 2.1 (square loss) written here over the trait only, so both paths run the very
/// same iterations; returns the iterates up to ‖∇Λ(α)‖ ≤ 1e-6‖y‖ (beyond, the linesearch test is decided by rounding).
fn algorithm_2_1<P: DualPolynomial>(
    poly: &P,
    y: &DVector<f64>,
    gamma: f64,
    iters: usize,
) -> Vec<DVector<f64>> {
    let n = poly.n();
    let (delta, theta, step0) = (0.5, 0.5, gamma);
    let lam = |a: &DVector<f64>| poly.value(a) + a.norm_squared() / (2.0 * gamma) - y.dot(a);
    let mut alpha = DVector::zeros(n);
    let mut out = vec![alpha.clone()];
    let mut gp = DVector::zeros(n);
    for _ in 0..iters {
        poly.value_grad(&alpha, &mut gp);
        let grad = &gp + &alpha / gamma - y;
        let g2 = grad.norm_squared();
        if g2.sqrt() <= 1e-6 * y.norm() {
            break; // converged: further linesearch decisions would be decided by rounding
        }
        let base = lam(&alpha);
        let mut step = step0;
        while base - lam(&(&alpha - &grad * step)) < step * (1.0 - delta) * g2 && step > 1e-20 {
            step *= theta;
        }
        alpha -= &grad * step;
        out.push(alpha.clone());
    }
    out
}

#[test]
fn tensor_and_feature_paths_give_the_same_iterates() {
    for &q in &[4usize, 6] {
        let (n, d) = if q == 4 { (10, 5) } else { (7, 3) };
        let c = cfg(TensorKernel::Polynomial { degree: 2 }, q);
        let x = random_x(n, d, 0.7, 111);
        let y = random_alpha(n, 112) * 0.1;
        let k = GramTensor::build(&x, c, BIG).unwrap();
        let f = feature_polynomial(&x, &c, BIG).unwrap();
        let it_k = algorithm_2_1(&k, &y, 10.0, 500);
        let it_f = algorithm_2_1(&f, &y, 10.0, 500);
        // Both converge, at the same iteration up to the stopping test's rounding.
        assert!(it_k.len().abs_diff(it_f.len()) <= 1);
        assert!(it_k.len() < 500 && it_f.len() < 500, "q={q}: no convergence in 500 iterations");
        for (i, (ak, af)) in it_k.iter().zip(&it_f).enumerate().skip(1) {
            let e = rel_vec(ak.as_slice(), af.as_slice());
            assert!(e < 1e-10, "q={q}: iterate {i} differs by {e:e}");
        }
        // Λ decreases at every step (the linesearch's sufficient decrease) and ∇Λ shrinks.
        let lam = |a: &DVector<f64>| k.value(a) + a.norm_squared() / 20.0 - y.dot(a);
        for w in it_k.windows(2) {
            assert!(lam(&w[1]) <= lam(&w[0]));
        }
        let grad_norm = |a: &DVector<f64>| {
            let mut gp = DVector::zeros(n);
            k.value_grad(a, &mut gp);
            (&gp + a / 10.0 - &y).norm()
        };
        let (g0, g1) = (grad_norm(&it_k[0]), grad_norm(it_k.last().unwrap()));
        assert!(g1 <= 1e-6 * y.norm() && g0 > 1e-3 * y.norm(), "q={q}: ‖∇Λ‖ from {g0} to {g1}");
    }
}

#[test]
fn larger_build_matches_the_kernel_on_sampled_classes() {
    // n above the build's panel width, so blocks are computed in several column panels.
    for (q, n) in [(4usize, 45usize), (6, 26)] {
        let kernel = TensorKernel::Polynomial { degree: 2 };
        let x = random_x(n, 3, 0.6, 121);
        let k = GramTensor::build(&x, cfg(kernel, q), BIG).unwrap();
        let total = k.values().len() as u64;
        assert_eq!(total, symmetry_classes(n, q).unwrap());
        let mut r = 0;
        while r < total {
            let t = unrank(r, q);
            let want = kernel_direct(kernel, &x, &t);
            assert!(
                (k.values()[r as usize] - want).abs() <= 1e-12 * want.abs().max(1.0),
                "q={q} {t:?}"
            );
            r += 97;
        }
        let last = unrank(total - 1, q);
        assert_eq!(last, vec![n - 1; q]);
        assert!(rel(k.values()[total as usize - 1], kernel_direct(kernel, &x, &last)) < 1e-12);
    }
}

fn brute_force(
    kernel: TensorKernel,
    q: usize,
    x: &DMatrix<f64>,
    a: &DVector<f64>,
) -> (f64, Vec<f64>, DMatrix<f64>) {
    let n = x.nrows();
    let mut p = 0.0;
    let mut g = vec![0.0; n];
    let mut h = DMatrix::<f64>::zeros(n, n);
    for t in all_tuples(n, q) {
        let kv = kernel_direct(kernel, x, &t);
        let rest: f64 = t[1..].iter().map(|&i| a[i]).product();
        let rest2: f64 = t[2..].iter().map(|&i| a[i]).product();
        p += kv * a[t[0]] * rest;
        g[t[0]] += kv * rest;
        h[(t[0], t[1])] += (q as f64 - 1.0) * kv * rest2;
    }
    (p / q as f64, g, h)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// P, ∇P, ∇²P and the predictor against brute-force sums over all n^q ordered tuples, for
    /// any small n (including n = 1, 2), both orders and the three kernels.
    #[test]
    fn one_pass_sums_equal_brute_force(n in 1usize..6, q6 in any::<bool>(), which in 0usize..3, seed in 0u64..1000) {
        let q = if q6 { 6 } else { 4 };
        let n = if q6 { n.min(4) } else { n };
        let kernel = [TensorKernel::Linear, TensorKernel::Polynomial { degree: 3 }, TensorKernel::Exponential][which];
        let x = random_x(n, 2, 0.7, seed);
        let a = random_alpha(n, seed + 1);
        let c = cfg(kernel, q);
        let k = GramTensor::build(&x, c, BIG).unwrap();
        let (p, g, h) = brute_force(kernel, q, &x, &a);
        // The sums cancel (signed α, signed inputs): measure errors against the sums of the
        // terms' magnitudes, i.e. the same sums over |x| and |α| (|K(x…)| ≤ K(|x|…) for
        // these kernels), so rounding at the terms' scale is not mistaken for a wrong sum.
        let (p_abs, g_abs, h_abs) = brute_force(kernel, q, &x.abs(), &a.abs());
        let close = |u: &[f64], v: &[f64], scale: &[f64]| rel_vec(u, v) * norm(v) <= 1e-11 * norm(scale).max(1e-300);
        let mut gk = DVector::zeros(n);
        let pk = k.value_grad(&a, &mut gk);
        prop_assert!((pk - p).abs() <= 1e-11 * p_abs.abs().max(1e-3));
        prop_assert!((k.value(&a) - p).abs() <= 1e-11 * p_abs.abs().max(1e-3));
        prop_assert!(close(gk.as_slice(), &g, &g_abs), "gradient {:?} vs {:?}", gk.as_slice(), g);
        prop_assert!(close(k.hessian(&a).as_slice(), h.as_slice(), h_abs.as_slice()));
        let f = TensorPredictor::new(&x, &a, c).unwrap();
        prop_assert!(close(f.predict_rows(&x).unwrap().as_slice(), &g, &g_abs));
    }
}
