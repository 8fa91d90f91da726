//! Benchmarks of the Gram tensor (paper A, Section 2.3 and Table 2).
//!
//! * Build rate (values per second) for q = 4, linear and polynomial degree 2.
//! * The Table 2 workload: n = 90, d = 650, polynomial degree 2 (N = 211 575 features):
//!   build time, one gradient from the tensor against one from the features, and a solve by
//!   Algorithm 2.1 (square loss, γ = 10, δ = θ = 0.5, λ̄ = γ/(2(1 − δ)), to a relative duality
//!   gap of 1e-8) with and without the tensor. Paper (MATLAB, Core 2 Duo 2 GHz): build 2.73 s,
//!   solve with K 2.49 s / 29 iterations, without K 9.87 s / 28 iterations.

use std::time::Instant;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kernel_playground::lp::{DualPolynomial, FeaturePolynomial};
use kernel_playground::rng::Rng;
use kernel_playground::tensor::*;
use nalgebra::{DMatrix, DVector};

const BUDGET: u64 = 4 << 30;

fn normal_matrix(n: usize, d: usize, seed: u64) -> DMatrix<f64> {
    let mut rng = Rng::new(seed);
    DMatrix::from_fn(n, d, |_, _| rng.normal())
}

/// How P is evaluated along a search line `α − λg` inside the linesearch.
trait Line: DualPolynomial {
    /// `λ ↦ P(α + λ v)` after one preparatory pass.
    fn line(&self, alpha: &DVector<f64>, dir: &DVector<f64>) -> Box<dyn Fn(f64) -> f64 + '_>;
}

impl Line for GramTensor {
    /// One pass gives the q + 1 coefficients of the polynomial; a trial is then O(q).
    fn line(&self, alpha: &DVector<f64>, dir: &DVector<f64>) -> Box<dyn Fn(f64) -> f64 + '_> {
        let c = self.line_polynomial(alpha, dir);
        Box::new(move |l| c.iter().rev().fold(0.0, |acc, ck| acc * l + ck))
    }
}

impl Line for FeaturePolynomial {
    /// `Xᵀα` and `Xᵀv` once; a trial is then O(N).
    fn line(&self, alpha: &DVector<f64>, dir: &DVector<f64>) -> Box<dyn Fn(f64) -> f64 + '_> {
        let u = self.x.tr_mul(alpha);
        let v = self.x.tr_mul(dir);
        let q = self.q;
        Box::new(move |l| u.iter().zip(v.iter()).map(|(a, b)| (a + l * b).powi(4)).sum::<f64>() / q)
    }
}

/// Linesearch trials by a full evaluation of P (`Naive`) or along the prepared line (`Line`).
#[derive(Clone, Copy, PartialEq)]
enum Trials {
    Naive,
    Line,
}

/// Algorithm 2.1 on the square-loss dual `Λ(α) = P(α) + ‖α‖²/(2γ) − ⟨y, α⟩`, generic over how
/// P is computed. The gap uses `Φ_n w(α) = ∇P(α)` and `‖w(α)‖_p^p = qP(α)`:
/// `F(w(α)) = (γ/2)‖∇P(α) − y‖² + (q/p)P(α)`. Returns (iterations, relative gap).
fn solve<P: Line>(
    poly: &P,
    y: &DVector<f64>,
    gamma: f64,
    tol: f64,
    max_iter: usize,
    trials: Trials,
) -> (usize, f64) {
    let n = poly.n();
    let q = poly.q();
    assert_eq!(q, 4.0, "the line of FeaturePolynomial above is written for q = 4");
    let p = q / (q - 1.0);
    let (delta, theta) = (0.5, 0.5);
    let step0 = gamma / (2.0 * (1.0 - delta));
    let mut alpha = DVector::zeros(n);
    let mut gp = DVector::zeros(n);
    let lam = |pv: f64, a: &DVector<f64>| pv + a.norm_squared() / (2.0 * gamma) - y.dot(a);
    let mut pv = poly.value_grad(&alpha, &mut gp);
    let mut rel_gap = f64::INFINITY;
    for it in 0..=max_iter {
        let primal = 0.5 * gamma * (&gp - y).norm_squared() + q / p * pv;
        let dual = lam(pv, &alpha);
        rel_gap = (primal + dual) / primal.abs().max(1e-300);
        if rel_gap <= tol || it == max_iter {
            return (it, rel_gap);
        }
        let grad = &gp + &alpha / gamma - y;
        let g2 = grad.norm_squared();
        let line = (trials == Trials::Line).then(|| poly.line(&alpha, &grad));
        let mut step = step0;
        for _ in 0..80 {
            let trial = &alpha - &grad * step;
            let pt = match &line {
                Some(f) => f(-step),
                None => poly.value(&trial),
            };
            if dual - lam(pt, &trial) >= step * (1.0 - delta) * g2 {
                break;
            }
            step *= theta;
        }
        alpha.axpy(-step, &grad, 1.0);
        pv = poly.value_grad(&alpha, &mut gp);
    }
    (max_iter, rel_gap)
}

/// CPU time of this thread in seconds (Linux, from /proc; the machine is shared, so wall-clock
/// times are inflated by other processes while CPU times are not).
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Run `f` once; print wall and CPU seconds.
fn timed<T>(label: &str, f: impl FnOnce() -> T) -> T {
    let c0 = cpu_seconds();
    let t0 = Instant::now();
    let out = f();
    let wall = t0.elapsed().as_secs_f64();
    let cpu = c0.and_then(|c0| cpu_seconds().map(|c1| c1 - c0));
    match cpu {
        Some(c) => eprintln!("{label}: wall {wall:.3} s, cpu {c:.2} s"),
        None => eprintln!("{label}: wall {wall:.3} s"),
    }
    out
}

fn build_rate(c: &mut Criterion) {
    let mut group = c.benchmark_group("gram_tensor_build_q4");
    group.sample_size(10);
    let (n, d) = (60, 200);
    let x = normal_matrix(n, d, 1);
    for (name, kernel) in
        [("linear", TensorKernel::Linear), ("poly2", TensorKernel::Polynomial { degree: 2 })]
    {
        let cfg = TensorKernelConfig::new(kernel, 4).unwrap();
        let entries = estimate_cost(n, d, &cfg).unwrap().entries;
        group.throughput(Throughput::Elements(entries));
        group.bench_with_input(BenchmarkId::new(name, format!("n{n}_d{d}")), &x, |b, x| {
            b.iter(|| GramTensor::build(x, cfg, BUDGET).unwrap())
        });
    }
    group.finish();
}

fn table2(c: &mut Criterion) {
    let (n, d, gamma) = (90, 650, 10.0);
    let cfg = TensorKernelConfig::new(TensorKernel::Polynomial { degree: 2 }, 4).unwrap();
    let x = normal_matrix(n, d, 2);
    let phi =
        timed("table2: feature matrix 90 × 211575", || tensor_features(&x, &cfg, BUDGET).unwrap());
    let big_n = phi.ncols();
    let mut rng = Rng::new(3);
    let mut w_star = DVector::zeros(big_n);
    for j in rng.choose_distinct(big_n, 6) {
        w_star[j] = rng.normal();
    }
    let mut y = &phi * &w_star;
    for v in y.iter_mut() {
        *v += 0.05 * rng.normal();
    }
    let features = FeaturePolynomial { x: phi, q: 4.0 };
    let k = timed("table2: build the Gram tensor (2 919 735 values; paper 2.73 s)", || {
        GramTensor::build(&x, cfg, BUDGET).unwrap()
    });
    for (trials, name) in
        [(Trials::Line, "one pass per linesearch"), (Trials::Naive, "one pass per trial step")]
    {
        let (it, gap) =
            timed(&format!("table2: solve with K, {name} (paper 2.49 s, 29 it.)"), || {
                solve(&k, &y, gamma, 1e-8, 2000, trials)
            });
        eprintln!("    {it} iterations, relative gap {gap:.2e}");
        let (it, gap) =
            timed(&format!("table2: solve without K, {name} (paper 9.87 s, 28 it.)"), || {
                solve(&features, &y, gamma, 1e-8, 2000, trials)
            });
        eprintln!("    {it} iterations, relative gap {gap:.2e}");
    }
    let alpha = DVector::from_fn(n, |i, _| ((i * 7919) % 13) as f64 / 13.0 - 0.5);
    let mut g = DVector::zeros(n);
    timed("table2: 20 gradients from the tensor", || {
        (0..20).for_each(|_| {
            k.value_grad(&alpha, &mut g);
        })
    });
    timed("table2: 20 gradients from the features", || {
        (0..20).for_each(|_| {
            features.value_grad(&alpha, &mut g);
        })
    });

    let mut group = c.benchmark_group("table2_n90_d650_poly2");
    group.sample_size(10);
    group.bench_function("build_gram_tensor", |b| {
        b.iter(|| GramTensor::build(&x, cfg, BUDGET).unwrap())
    });
    group.bench_function("gradient_from_tensor", |b| b.iter(|| k.value_grad(&alpha, &mut g)));
    group.bench_function("gradient_from_features", |b| {
        b.iter(|| features.value_grad(&alpha, &mut g))
    });
    group.bench_function("hessian_from_tensor", |b| b.iter(|| k.hessian(&alpha)));
    group.bench_function("solve_with_tensor", |b| {
        b.iter(|| solve(&k, &y, gamma, 1e-8, 2000, Trials::Line))
    });
    group.bench_function("solve_with_features", |b| {
        b.iter(|| solve(&features, &y, gamma, 1e-8, 2000, Trials::Line))
    });
    group.finish();
}

criterion_group!(benches, build_rate, table2);
criterion_main!(benches);
