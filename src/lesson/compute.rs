//! Long file: the one catalogue of a claim's independent computations (the enum, its cost bound
//! and its dispatch); the per-paper bodies live in compute/.
//!
//! Independent computations a claim may compare a run with: closed forms, KKT conditions,
//! eigenvalues of a Gram matrix built here (not by the engine's kernel code), and counts from
//! the run's solution and the data's generating vector. Each reads the step's data through
//! [`crate::papers::data`] and the step's `kplay run` report.

use nalgebra::{DMatrix, DVector, SymmetricEigen};

use serde_json::Value;

use crate::papers::{self, Spec};

mod paper_a;
mod paper_c;
mod paper_d;
mod spec_values;

/// Why a claim was not evaluated: the process-wide deadline ([`crate::clock::set_deadline`])
/// passed before or while it ran (a step's run cut at `time_limit` is not a result to judge).
pub const NOT_RUN: &str = "not run: the time limit came first";

pub use super::format::Compute;

/// The most operations one claim's computation may cost (the page runs the same claims; about
/// a few seconds natively). Checked when the lesson is parsed ([`check_costs`]).
pub const CLAIM_FLOPS: f64 = 2e10;

/// What a computation costs on n points of dimension d, in operations (an estimate of its
/// leading term), and what that is in words.
fn cost(what: Compute, n: f64, d: f64) -> (f64, &'static str) {
    let gram = n * n * d;
    match what {
        Compute::LooMaxLambda2Change
        | Compute::LooWorstLambda2
        | Compute::LooFixedLambda2Gap
        | Compute::LooOwnLambda2Gap
        | Compute::LooMaxChange => (
            gram + 10.0 * n * n * n * n,
            "refits M-RLSR once per left-out point (n eigendecompositions of an (n − 1) × (n − 1) matrix, ≈ 10·n⁴ operations)",
        ),
        Compute::ScanLambda2MoveSlope => (
            gram + 10.7 * n * n * n * n,
            "refits M-RLSR once per left-out point at n/8, n/4, n/2 and n (≈ 10·n⁴ operations in all)",
        ),
        Compute::ExampleLooMaxChange
        | Compute::KrrLooMaxChange
        | Compute::ScanKrrChangeSlope
        | Compute::ScanExampleChangeSlope => (
            gram + 0.4 * n * n * n * n,
            "factors an (n − 1) × (n − 1) matrix once per left-out point (≈ n⁴/3 operations; a scan adds n/8, n/4, n/2)",
        ),
        Compute::RlsObjective
        | Compute::KrrNorm
        | Compute::GramNorm
        | Compute::GramMinEigRatio
        | Compute::FRoot
        | Compute::FMaxSecondDiff
        | Compute::FMinSecondDiff
        | Compute::FMaxFirstDiff
        | Compute::KrrTwinGap
        | Compute::Theorem5Descent
        | Compute::EquivalenceGapFirst
        | Compute::EquivalenceGapOthersMin
        | Compute::EquivalenceOwnLambda2Ratio => (
            gram + 10.0 * n * n * n,
            "factors or diagonalizes the n × n Gram matrix (≈ 10·n³ operations)",
        ),
        Compute::FitMaxMove | Compute::FitMaxMoveAt => (
            gram + 20.0 * n * n * n + 2002.0 * n,
            "diagonalizes the n × n Gram matrix at both ends of the fit (≈ 20·n³ operations)",
        ),
        Compute::Alg21TensorIterations
        | Compute::Alg21TensorDual
        | Compute::Alg21TensorMedianStep
        | Compute::Alg21LinearIterations
        | Compute::Alg21LinearMedianStep
        | Compute::Alg21LinearMinStep
        | Compute::Alg21LinearMaxStep => (
            n * n * n * n * d + 2000.0 * n * n * n * n,
            "builds the n² × n² matrix [K] entry by entry (n⁴·d) and replays Algorithm 2.1 (≈ 2n⁴ per linesearch trial)",
        ),
        Compute::DistToOptimum => (
            50.0 * (gram + n * n * n / 3.0),
            "runs dual Newton to a relative gap of 10⁻¹³ (up to ≈ 50 Hessians of n² · d and their factorizations)",
        ),
        _ => (gram, "builds the n × n Gram matrix or scans the pairs of points (≈ n²·d operations)"),
    }
}

/// The computations a claim's quantity asks for, with the (0-based) step whose data each reads.
fn computes(q: &super::format::Quantity, step: usize, out: &mut Vec<(Compute, usize)>) {
    use super::format::Quantity as Q;
    match q {
        Q::Compute(c) => out.push((*c, step)),
        Q::StepCompute(k, c) => out.push((*c, k.saturating_sub(1))),
        Q::Add(b) | Q::Sub(b) | Q::Mul(b) | Q::Div(b) | Q::Pow(b) => {
            computes(&b[0], step, out);
            computes(&b[1], step, out);
        }
        Q::Ln(a) | Q::Sqrt(a) | Q::Abs(a) => computes(a, step, out),
        _ => {}
    }
}

/// Refuse a lesson whose claims would cost more than [`CLAIM_FLOPS`] each, naming the step,
/// the claim, the computation, its cost and the largest n that fits (checked at parse time, so
/// `kplay lesson check` and the page refuse it before running anything).
pub fn check_costs(parsed: &super::format::Parsed) -> Result<(), String> {
    let mut sizes: Vec<Option<(f64, f64)>> = vec![None; parsed.specs.len()];
    for (i, step) in parsed.lesson.steps.iter().enumerate() {
        for (j, c) in step.claims.iter().enumerate() {
            let mut asked = Vec::new();
            computes(&c.lhs, i, &mut asked);
            for q in c.rhs.iter().chain(c.range.iter().flatten()) {
                computes(q, i, &mut asked);
            }
            for (what, k) in asked {
                let Some(spec) = parsed.specs.get(k) else { continue };
                let (n, d) = match sizes[k] {
                    Some(nd) => nd,
                    None => {
                        // The data as the claim reads them; data that cannot be built are the
                        // claim's own error when it runs.
                        let Ok(data) = papers::data(spec) else { continue };
                        let nd = (data.n() as f64, data.d().max(1) as f64);
                        sizes[k] = Some(nd);
                        nd
                    }
                };
                let (ops, how) = cost(what, n, d);
                if ops > CLAIM_FLOPS {
                    // The largest n within the bound (cost grows with n).
                    let (mut fit, mut over) = (1.0f64, n);
                    while over - fit > 1.0 {
                        let mid = ((fit + over) / 2.0).floor();
                        if cost(what, mid, d).0 > CLAIM_FLOPS {
                            over = mid;
                        } else {
                            fit = mid;
                        }
                    }
                    let name = serde_json::to_value(what)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default();
                    return Err(format!(
                        "steps[{i}].claims[{j}] (`{}`): {{\"compute\": \"{name}\"}} on step {}'s data {how}: about {ops:.1e} at n = {}, over the {CLAIM_FLOPS:.0e} a lesson claim may cost; use n ≤ {}",
                        c.id,
                        k + 1,
                        crate::budget::group(n),
                        crate::budget::group(fit),
                    ));
                }
            }
        }
    }
    Ok(())
}

use super::format::vector;
use spec_values::{lp_params, lp_tensor_kernel, num, TensorOf};

/// The Gaussian width μ of the spec (k = exp(−‖x − x′‖²/μ)): `fixed`, or the heuristic mean
/// squared pairwise distance (paper B's choice), computed here.
fn width(spec: &Value, x: &DMatrix<f64>) -> Result<f64, String> {
    let kind = super::format::lookup(spec, "kernel.kind")?;
    let kind = kind.as_str().unwrap_or("");
    if kind != "gaussian" {
        return Err(format!("needs a Gaussian kernel (the spec's is `{kind}`)"));
    }
    if let Ok(mu) = num(spec, "kernel.bandwidth.fixed") {
        return Ok(mu);
    }
    let n = x.nrows();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += (x.row(i) - x.row(j)).norm_squared();
        }
    }
    Ok(s / (n * n) as f64)
}

fn gram(x: &DMatrix<f64>, mu: f64) -> DMatrix<f64> {
    let n = x.nrows();
    DMatrix::from_fn(n, n, |i, j| (-(x.row(i) - x.row(j)).norm_squared() / mu).exp())
}

/// The largest n for which a computation builds an n × n matrix here.
const MAX_N: usize = 2000;

/// The data's x and y and the Gaussian Gram matrix built here.
type DataGram = (DMatrix<f64>, DVector<f64>, DMatrix<f64>);

fn data_gram(spec: &Spec, spec_v: &Value) -> Result<DataGram, String> {
    let data = papers::data(spec).map_err(|e| e.to_string())?;
    if data.n() > MAX_N {
        return Err(format!("n = {} is above {MAX_N} for a Gram matrix built here", data.n()));
    }
    let mu = width(spec_v, &data.x)?;
    let k = gram(&data.x, mu);
    Ok((data.x, data.y, k))
}

fn solve(a: DMatrix<f64>, b: &DVector<f64>) -> Result<DVector<f64>, String> {
    a.cholesky()
        .map(|c| c.solve(b))
        .ok_or_else(|| "the closed form's matrix is not positive definite".to_string())
}

/// Theorem 1's F(C) = (Σ 4dᵢy′ᵢ²/(2dᵢ + λmnC)²)^(m/2−1) − C over the eigenvalues above n·ε·max.
fn theorem1_f(d: &[f64], yp: &[f64], lambda: f64, m: f64, c: f64) -> f64 {
    let n = d.len() as f64;
    let s: f64 = d
        .iter()
        .zip(yp)
        .filter(|(di, _)| **di > 0.0)
        .map(|(di, y)| 4.0 * di * y * y / (2.0 * di + lambda * m * n * c).powi(2))
        .sum();
    s.powf(m / 2.0 - 1.0) - c
}

/// Theorem 1's positive root C₀ of F by bisection (F(0) > 0 needed), over the eigenvalues `d`
/// (numerically zero ones set to 0) and y′ = Qᵀy.
fn f_root(d: &[f64], yp: &[f64], lambda: f64, m: f64) -> Result<f64, String> {
    let f = |c: f64| theorem1_f(d, yp, lambda, m, c);
    if f(0.0) <= 0.0 {
        return Err("F(0) ≤ 0: no positive root".into());
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    let mut guard = 0;
    while f(hi) > 0.0 {
        hi *= 2.0;
        guard += 1;
        if guard > 200 {
            return Err("F has no sign change below 2²⁰⁰".into());
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(0.5 * (lo + hi))
}

/// K's eigenvalues (numerically zero ones, below n·ε·max, set to 0) and y′ = Qᵀy, with Q.
fn spectrum(k: DMatrix<f64>, y: &DVector<f64>) -> (Vec<f64>, Vec<f64>, DMatrix<f64>) {
    let eig = SymmetricEigen::new(k);
    let n = y.len();
    let dmax = eig.eigenvalues.max();
    let d: Vec<f64> = eig
        .eigenvalues
        .iter()
        .map(|&v| if v > n as f64 * f64::EPSILON * dmax { v } else { 0.0 })
        .collect();
    let yp: Vec<f64> = (0..n).map(|i| eig.eigenvectors.column(i).dot(y)).collect();
    (d, yp, eig.eigenvectors)
}

/// Paper B: M-RLSR on (K, y) by Theorem 1 (eq. 5), α = Q·2y′/(2d + λmnC₀); returns (α, C₀).
fn mrlsr_fit(
    k: &DMatrix<f64>,
    y: &DVector<f64>,
    lambda: f64,
    m: f64,
) -> Result<(DVector<f64>, f64), String> {
    let n = y.len();
    let (d, yp, q) = spectrum(k.clone(), y);
    let c0 = f_root(&d, &yp, lambda, m)?;
    let ap = DVector::from_fn(n, |i, _| {
        if d[i] > 0.0 {
            2.0 * yp[i] / (2.0 * d[i] + lambda * m * n as f64 * c0)
        } else {
            0.0
        }
    });
    Ok((q * ap, c0))
}

/// ‖Σ aᵢk(·, xᵢ)‖_H = √(aᵀKa).
fn h_norm(k: &DMatrix<f64>, a: &DVector<f64>) -> f64 {
    (k * a).dot(a).max(0.0).sqrt()
}

/// K and y without point i.
fn drop_point(k: &DMatrix<f64>, y: &DVector<f64>, i: usize) -> (DMatrix<f64>, DVector<f64>) {
    (k.clone().remove_row(i).remove_column(i), y.clone().remove_row(i))
}

/// α of the n − 1 points of Zⁱ put back into n coordinates (0 at i).
fn pad(a: &DVector<f64>, i: usize) -> DVector<f64> {
    a.clone().insert_row(i, 0.0)
}

/// Paper B, uniform stability: one value of the `Loo…`/`Theorem3Bound` family.
fn loo(what: Compute, spec: &Spec, spec_v: &Value) -> Result<f64, String> {
    if num(spec_v, "kernel.bandwidth.fixed").is_err() {
        return Err("needs a fixed Gaussian μ (the heuristic μ changes with the sample, and \
                    with it the kernel)"
            .into());
    }
    let (_, y, k) = data_gram(spec, spec_v)?;
    let (lambda, m) = (num(spec_v, "lambda")?, num(spec_v, "m")?);
    let n = y.len();
    if n < 3 {
        return Err("needs n ≥ 3".into());
    }
    if m.is_nan() || m <= 1.0 {
        return Err("needs m > 1 (Theorem 1)".into());
    }
    if what == Compute::Theorem3Bound {
        let cy = y.amax();
        let kappa = 1.0;
        let c = 2.0 * (cy + kappa * (cy * cy / lambda).powf(1.0 / m));
        return Ok((2f64.powf(m - 2.0) * c * kappa / (lambda * n as f64)).powf(1.0 / (m - 1.0)));
    }
    let (alpha, c0) = mrlsr_fit(&k, &y, lambda, m)?;
    let l2 = m / 2.0 * c0 * lambda;
    let mut worst = (0usize, f64::NEG_INFINITY, 0.0);
    let mut change = 0.0f64;
    for i in 0..n {
        if crate::clock::deadline_passed() {
            return Err(NOT_RUN.into());
        }
        let (ki, yi) = drop_point(&k, &y, i);
        let (ai, ci) = mrlsr_fit(&ki, &yi, lambda, m)?;
        let l2i = m / 2.0 * ci * lambda;
        let moved = (l2i - l2).abs() / l2;
        if moved > worst.1 {
            worst = (i, moved, l2i);
        }
        if what == Compute::LooMaxChange {
            change = change.max(h_norm(&k, &(&alpha - pad(&ai, i))));
        }
    }
    let (i, moved, l2i) = worst;
    Ok(match what {
        Compute::LooMaxLambda2Change => moved,
        Compute::LooWorstLambda2 => l2i,
        Compute::LooMaxChange => change,
        _ => {
            let (ki, yi) = drop_point(&k, &y, i);
            let (ai, _) = mrlsr_fit(&ki, &yi, lambda, m)?;
            let l = if what == Compute::LooOwnLambda2Gap { l2i } else { l2 };
            let nn = (n - 1) as f64;
            let b = solve(&ki + DMatrix::identity(n - 1, n - 1) * (nn * l), &yi)?;
            h_norm(&ki, &(&ai - b)) / h_norm(&ki, &ai)
        }
    })
}

/// maxᵢ ‖f_Z − f_Zⁱ‖_H for kernel ridge written as α = (K + sI)⁻¹y with the shift s(n) of a
/// sample of n points: s = nλ for kernel ridge (2) at λ, s = λ_B for B of §4's Example (the
/// regularizer λ_B/n times n).
fn ridge_loo_max_change(
    k: &DMatrix<f64>,
    y: &DVector<f64>,
    shift: impl Fn(usize) -> f64,
) -> Result<f64, String> {
    let n = y.len();
    let a = solve(k + DMatrix::identity(n, n) * shift(n), y)?;
    let mut change = 0.0f64;
    for i in 0..n {
        if crate::clock::deadline_passed() {
            return Err(NOT_RUN.into());
        }
        let (ki, yi) = drop_point(k, y, i);
        let ai = solve(&ki + DMatrix::identity(n - 1, n - 1) * shift(n - 1), &yi)?;
        change = change.max(h_norm(k, &(&a - pad(&ai, i))));
    }
    Ok(change)
}

/// maxᵢ |λ₂(λ, Zⁱ) − λ₂(λ, Z)| with λ₂ = (m/2)C₀λ (Proposition 5.1), M-RLSR by Theorem 1 here.
fn lambda2_max_move(
    k: &DMatrix<f64>,
    y: &DVector<f64>,
    lambda: f64,
    m: f64,
) -> Result<f64, String> {
    let (_, c0) = mrlsr_fit(k, y, lambda, m)?;
    let mut moved = 0.0f64;
    for i in 0..y.len() {
        if crate::clock::deadline_passed() {
            return Err(NOT_RUN.into());
        }
        let (ki, yi) = drop_point(k, y, i);
        let (_, ci) = mrlsr_fit(&ki, &yi, lambda, m)?;
        moved = moved.max(m / 2.0 * lambda * (ci - c0).abs());
    }
    Ok(moved)
}

/// The least-squares slope of ln v against ln n over the points (n, v).
fn log_log_slope(points: &[(f64, f64)]) -> Result<f64, String> {
    if points.iter().any(|&(n, v)| !(n > 0.0 && v > 0.0 && v.is_finite())) {
        return Err("a scanned value is not positive: no log–log slope".into());
    }
    let k = points.len() as f64;
    let (mx, my) =
        points.iter().fold((0.0, 0.0), |(a, b), &(n, v)| (a + n.ln() / k, b + v.ln() / k));
    let (sxy, sxx) = points.iter().fold((0.0, 0.0), |(a, b), &(n, v)| {
        let dx = n.ln() - mx;
        (a + dx * (v.ln() - my), b + dx * dx)
    });
    Ok(sxy / sxx)
}

/// Paper B, §4's Example and the λ₂ scan: one value of the `Example…`/`Scan…` family.
fn example(what: Compute, spec: &Spec, spec_v: &Value) -> Result<f64, String> {
    if num(spec_v, "kernel.bandwidth.fixed").is_err() {
        return Err("needs a fixed Gaussian μ (the heuristic μ changes with the sample, and \
                    with it the kernel)"
            .into());
    }
    let (lambda, m) = (num(spec_v, "lambda")?, num(spec_v, "m")?);
    let (_, y, k) = data_gram(spec, spec_v)?;
    let big_n = y.len();
    if big_n < 3 {
        return Err("needs n ≥ 3".into());
    }
    let lambda_b = big_n as f64 * lambda;
    let value = |k: &DMatrix<f64>, y: &DVector<f64>| -> Result<f64, String> {
        match what {
            Compute::ScanKrrChangeSlope | Compute::KrrLooMaxChange => {
                ridge_loo_max_change(k, y, |n| n as f64 * lambda)
            }
            Compute::ScanLambda2MoveSlope => {
                if m.is_nan() || m <= 1.0 {
                    return Err("needs m > 1 (Theorem 1)".into());
                }
                lambda2_max_move(k, y, lambda, m)
            }
            _ => ridge_loo_max_change(k, y, |_| lambda_b),
        }
    };
    if matches!(what, Compute::ExampleLooMaxChange | Compute::KrrLooMaxChange) {
        return value(&k, &y);
    }
    if big_n < 24 {
        return Err("needs n ≥ 24 (the scan goes down to n/8 ≥ 3)".into());
    }
    let mut points = Vec::new();
    for n in [big_n / 8, big_n / 4, big_n / 2, big_n] {
        let mut v = spec_v.clone();
        super::format::set_path(&mut v, "data.n", Value::from(n))?;
        let s = super::format::parse_spec("scan", super::format::Page::Mrlsr, &v)?;
        let (_, yn, kn) = data_gram(&s, &v)?;
        points.push((n as f64, value(&kn, &yn)?));
    }
    log_log_slope(&points)
}

/// The number of points of the x-grid on which `fit_max_move` compares the two fits.
const FIT_GRID: usize = 1001;

/// Paper B, a `fit` step on 1-D data: (max |f_end − f_start| over [FIT_GRID] evenly spaced x in
/// the data's range, where it is as a fraction of the range). Both fits M-RLSR by Theorem 1
/// here (m > 1), the Gaussian Gram matrix and μ built here; f(x) = Σ αᵢ exp(−(x − xᵢ)²/μ).
fn fit_max_move(start: &Value, spec: &Spec, spec_v: &Value) -> Result<(f64, f64), String> {
    let (x, y, k) = data_gram(spec, spec_v)?;
    if x.ncols() != 1 {
        return Err(format!("compares the curves of 1-D data (these have d = {})", x.ncols()));
    }
    let mu = width(spec_v, &x)?;
    let fit = |v: &Value| -> Result<DVector<f64>, String> {
        let (lambda, m) = (num(v, "lambda")?, num(v, "m")?);
        if m.is_nan() || m <= 1.0 {
            return Err(format!("needs m > 1 at both ends (Theorem 1; here m = {m})"));
        }
        Ok(mrlsr_fit(&k, &y, lambda, m)?.0)
    };
    let (a0, a1) = (fit(start)?, fit(spec_v)?);
    let diff = a1 - a0;
    let (lo, hi) = (x.column(0).min(), x.column(0).max());
    let (mut best, mut at) = (0.0f64, 0.0);
    for j in 0..FIT_GRID {
        let t = j as f64 / (FIT_GRID - 1) as f64;
        let xt = lo + t * (hi - lo);
        let f: f64 = (0..y.len()).map(|i| diff[i] * (-(xt - x[(i, 0)]).powi(2) / mu).exp()).sum();
        if f.abs() > best {
            (best, at) = (f.abs(), t);
        }
    }
    Ok((best, at))
}

/// Paper B, Fig. 1 as the page's equivalence experiment runs it: the data split into 4 parts
/// by the engine's split (the data's seed), λ chosen on Z₁ by the engine's 10-fold CV; then on
/// each part, here: the Gaussian Gram matrix (one μ, the whole sample's), M-RLSR(λ) by Theorem 1,
/// kernel ridge at λ₂ = (m/2)C₀(Z₁)λ by Cholesky, and ‖f_M − f_KRR‖_H / ‖f_M‖_H; beside each
/// gap, the part's own λ₂ = (m/2)C₀(Zₖ)λ.
fn equivalence_gaps(spec: &Spec, spec_v: &Value) -> Result<(Vec<f64>, Vec<f64>), String> {
    const PARTS: usize = 4;
    const FOLDS: usize = 10;
    let Spec::Mrlsr(s) = spec else { return Err("needs a page B spec".into()) };
    // The spec checked as the page checks it (its data within MAX_N): the experiment's input.
    let checked = crate::papers::mrlsr::MrlsrChecked::check(s, MAX_N).map_err(|e| e.to_string())?;
    let data = checked.data();
    let seed = num(spec_v, "data.seed").map(|v| v as u64).unwrap_or(0);
    let report = crate::papers::mrlsr::equivalence(&checked, PARTS, FOLDS, seed)
        .map_err(|e| e.to_string())?;
    let (lambda, m) = (report.lambda, s.m);
    let mu = width(spec_v, &data.x)?;
    let parts =
        crate::papers::mrlsr::cv::split_parts(data.n(), PARTS, seed).map_err(|e| e.to_string())?;
    let mut lambda2 = None;
    let mut gaps = Vec::with_capacity(parts.len());
    let mut own = Vec::with_capacity(parts.len());
    for idx in &parts {
        let xp = DMatrix::from_fn(idx.len(), data.d(), |r, c| data.x[(idx[r], c)]);
        let yp = DVector::from_fn(idx.len(), |r, _| data.y[idx[r]]);
        let k = gram(&xp, mu);
        let n = yp.len();
        // Theorem 1's α = Q·2y′/(2d + λmnC₀) on every eigenvector, the numerically null ones
        // included (as kernel ridge's Cholesky solve keeps them), so that the H-distance
        // compares the two α and not a truncation.
        let eig = SymmetricEigen::new(k.clone());
        let (d, ypr, _) = spectrum(k.clone(), &yp);
        let c0 = f_root(&d, &ypr, lambda, m)?;
        let shift = lambda * m * n as f64 * c0;
        let ap = DVector::from_fn(n, |i, _| {
            2.0 * eig.eigenvectors.column(i).dot(&yp) / (2.0 * eig.eigenvalues[i] + shift)
        });
        let a = &eig.eigenvectors * ap;
        own.push(m / 2.0 * c0 * lambda);
        let l2 = *lambda2.get_or_insert(m / 2.0 * c0 * lambda);
        let b = solve(&k + DMatrix::identity(n, n) * (n as f64 * l2), &yp)?;
        gaps.push(h_norm(&k, &(&a - &b)) / h_norm(&k, &a));
    }
    if gaps.len() < 2 {
        return Err("the split gave fewer than two parts".into());
    }
    Ok((gaps, own))
}

// ---- Paper A helpers (Salzo–Suykens–Rosasco) ------------------------------------------------

/// J_r(u) = sign(u)|u|^(r−1), the duality map of (1/r)|·|^r, component-wise.
fn duality_map(u: &DVector<f64>, r: f64) -> DVector<f64> {
    u.map(|v| v.signum() * v.abs().powf(r - 1.0))
}

/// The kernel of a paper A spec as the degree s of `(sum(x'_1 ⊙ ⋯ ⊙ x'_q))^s` (linear: 1); the
/// exponential kernel has no finite degree (no finite feature map).
fn lp_kernel_degree(spec_v: &Value) -> Result<u32, String> {
    match lp_tensor_kernel(spec_v)? {
        TensorOf::Power(s) => Ok(s),
        TensorOf::Exp => {
            Err("the exponential tensor kernel has no finite feature map to write here".into())
        }
    }
}

/// The largest n for the n³ tensor sums of eq. (14) built here.
const MAX_N_TENSOR_SUM: usize = 40;

/// f_α(x_m) = Σ_ijk K(x_i, x_j, x_k, x_m) α_i α_j α_k for every training point (eq. 14, q = 4),
/// the tensor kernel K = (Σ_t x_it x_jt x_kt x_mt)^s, or exp(Σ_t x_it x_jt x_kt x_mt) for the
/// exponential kernel (Section 2.2), evaluated here entry by entry.
fn tensor_predictions(
    x: &DMatrix<f64>,
    alpha: &DVector<f64>,
    kernel: TensorOf,
) -> Result<Vec<f64>, String> {
    let (n, d) = (x.nrows(), x.ncols());
    if n > MAX_N_TENSOR_SUM {
        return Err(format!("n = {n} is above {MAX_N_TENSOR_SUM} for the tensor sum built here"));
    }
    let mut out = vec![0.0; n];
    let mut prod = vec![0.0; d];
    for (m, o) in out.iter_mut().enumerate() {
        let mut f = 0.0;
        for i in 0..n {
            for j in 0..n {
                for t in 0..d {
                    prod[t] = x[(i, t)] * x[(j, t)] * x[(m, t)];
                }
                for k in 0..n {
                    let mut sum = 0.0;
                    for t in 0..d {
                        sum += prod[t] * x[(k, t)];
                    }
                    f += kernel.apply(sum) * alpha[i] * alpha[j] * alpha[k];
                }
            }
        }
        *o = f;
    }
    Ok(out)
}

/// ⟨w, Φ(x_m)⟩ with w = J_4(Φ_n*α) from explicit features: Φ(x) = x (s = 1) or the ordered
/// pairs x_t x_u (s = 2, whose 4-fold products sum to (Σ_t x_1t⋯x_4t)²).
fn feature_predictions(x: &DMatrix<f64>, alpha: &DVector<f64>, s: u32) -> Result<Vec<f64>, String> {
    match s {
        1 => {
            let w = duality_map(&(x.transpose() * alpha), 4.0);
            Ok((x * w).iter().copied().collect())
        }
        2 => {
            let u = x.transpose() * DMatrix::from_diagonal(alpha) * x;
            let w = u.map(|v| v * v * v);
            Ok((0..x.nrows())
                .map(|m| {
                    let r = x.row(m).transpose();
                    (&w * &r).dot(&r)
                })
                .collect())
        }
        _ => Err(format!("features of the polynomial kernel of degree {s} are not written here")),
    }
}

fn lp_alpha(report: &Value, n: usize) -> Result<DVector<f64>, String> {
    let alpha = DVector::from_vec(vector(report, "solution.alpha")?);
    if alpha.len() != n {
        return Err("solution.alpha has the wrong length".into());
    }
    Ok(alpha)
}

/// Evaluate paper A's section-2 computations (see [`Compute`]).
fn eval_lp(what: Compute, spec: &Spec, spec_v: &Value, report: &Value) -> Result<f64, String> {
    let data = papers::data(spec).map_err(|e| e.to_string())?;
    let (x, y) = (&data.x, &data.y);
    let (p, q, gamma) = lp_params(spec_v)?;
    let alpha = lp_alpha(report, x.nrows())?;
    let pnorm = |v: &DVector<f64>| v.iter().map(|t| t.abs().powf(p)).sum::<f64>().powf(1.0 / p);
    match what {
        Compute::RepresenterGap | Compute::Prop32Bound => {
            if lp_kernel_degree(spec_v)? != 1 {
                return Err("written here for the linear kernel (features X)".into());
            }
            let u = x.transpose() * &alpha;
            let w = duality_map(&u, q);
            if what == Compute::RepresenterGap {
                let rw = DVector::from_vec(vector(report, "solution.w")?);
                if rw.len() != w.len() {
                    return Err("solution.w has the wrong length".into());
                }
                return Ok((&rw - &w).amax() / rw.amax());
            }
            let lambda = u.iter().map(|t| t.abs().powf(q)).sum::<f64>() / q
                + alpha.norm_squared() / (2.0 * gamma)
                - y.dot(&alpha);
            let f = gamma / 2.0 * (x * &w - y).norm_squared()
                + w.iter().map(|t| t.abs().powf(p)).sum::<f64>() / p;
            let gap = (f + lambda).max(0.0);
            let cp = (p - 1.0) / 2.0;
            let scale =
                (2f64.powf(p) * q * (lambda + gamma * y.norm_squared() / 2.0)).powf((2.0 - p) / p);
            Ok((scale * gap / cp).sqrt())
        }
        Compute::DistToOptimum => {
            let w = DVector::from_vec(vector(report, "solution.w")?);
            let mut v = spec_v.clone();
            super::format::set_path(&mut v, "solver.algorithm", Value::from("dual_newton"))?;
            super::format::set_path(&mut v, "solver.tol", Value::from(1e-13))?;
            let tight = super::format::parse_spec("dist_to_optimum", super::format::Page::Lp, &v)?;
            let r = papers::run(&tight).map_err(|e| format!("dual Newton: {e}"))?.to_json();
            let wbar = DVector::from_vec(vector(&r, "solution.w")?);
            if wbar.len() != w.len() {
                return Err("solution.w has the wrong length".into());
            }
            Ok(pnorm(&(w - wbar)))
        }
        Compute::PredictorFeatureGap | Compute::PredictorKkt => {
            if (q - 4.0).abs() > 1e-9 {
                return Err(format!("eq. (14) is summed here for q = 4 (this spec's q is {q})"));
            }
            let kernel = lp_tensor_kernel(spec_v)?;
            let f = tensor_predictions(x, &alpha, kernel)?;
            if what == Compute::PredictorKkt {
                let worst = (0..f.len())
                    .map(|m| (f[m] - (y[m] - alpha[m] / gamma)).abs())
                    .fold(0.0, f64::max);
                return Ok(worst / y.amax());
            }
            let g = feature_predictions(x, &alpha, lp_kernel_degree(spec_v)?)?;
            let scale = g.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            Ok(f.iter().zip(&g).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max) / scale)
        }
        other => Err(format!("{other:?} is not one of paper A's section-2 computations")),
    }
}

/// Evaluate `what` on the step's spec and report (a step without `to`; [`eval_from`] otherwise).
pub fn eval(what: Compute, spec: &Spec, spec_v: &Value, report: &Value) -> Result<f64, String> {
    eval_from(what, None, spec, spec_v, report)
}

/// Evaluate `what` on the step's spec (after `to`) and report; `start` is the step's spec
/// before `to` on a page B `fit` step (what `fit_max_move` compares with), `None` elsewhere.
pub fn eval_from(
    what: Compute,
    start: Option<&Value>,
    spec: &Spec,
    spec_v: &Value,
    report: &Value,
) -> Result<f64, String> {
    match what {
        Compute::FitMaxMove | Compute::FitMaxMoveAt => {
            let start = start.ok_or("needs a `fit` step (a spec before `to` to compare with)")?;
            let (size, at) = fit_max_move(start, spec, spec_v)?;
            Ok(if what == Compute::FitMaxMove { size } else { at })
        }
        Compute::EquivalenceGapFirst
        | Compute::EquivalenceGapOthersMin
        | Compute::EquivalenceOwnLambda2Ratio => {
            let (gaps, own) = equivalence_gaps(spec, spec_v)?;
            Ok(match what {
                Compute::EquivalenceGapFirst => gaps[0],
                Compute::EquivalenceGapOthersMin => {
                    gaps[1..].iter().copied().fold(f64::INFINITY, f64::min)
                }
                _ => {
                    let max = own.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    max / own.iter().copied().fold(f64::INFINITY, f64::min)
                }
            })
        }
        Compute::RlsObjective => {
            let (_, y, k) = data_gram(spec, spec_v)?;
            let lambda = num(spec_v, "lambda")?;
            let n = y.len();
            let c = solve(&k + DMatrix::identity(n, n) * lambda, &y)?;
            let z = &k * &c;
            Ok((&z - &y).norm_squared() / (2.0 * lambda) + z.dot(&c) / 2.0)
        }
        Compute::KrrNorm => {
            let (_, y, k) = data_gram(spec, spec_v)?;
            let lambda = num(spec_v, "lambda")?;
            let n = y.len();
            let a = solve(&k + DMatrix::identity(n, n) * (n as f64 * lambda), &y)?;
            Ok((&k * &a).dot(&a).max(0.0).sqrt())
        }
        Compute::KktViolation | Compute::StrictlyActive | Compute::OnEdge => {
            let (_, y, k) = data_gram(spec, spec_v)?;
            let lambda = num(spec_v, "lambda")?;
            let c = DVector::from_vec(vector(report, "solution.c")?);
            if c.len() != y.len() {
                return Err("solution.c has the wrong length".into());
            }
            let z = &k * &c;
            let cap = 1.0 / lambda;
            let loss =
                super::format::lookup(spec_v, "loss.kind")?.as_str().unwrap_or("").to_string();
            let tol = 1e-5;
            let (mut worst, mut active, mut edge) = (0.0f64, 0usize, 0usize);
            for i in 0..y.len() {
                let (ci, yi, zi) = (c[i], y[i], z[i]);
                // The subgradient set of the loss at zᵢ, scaled by 1/λ, must contain −(−cᵢ) = cᵢ
                // (0 ∈ ∂f(Kc) + c with f = Σ L/λ and ∂L taken with respect to f(xᵢ), sign −).
                let v = match loss.as_str() {
                    "square" => (ci - (yi - zi) / lambda).abs(),
                    "hinge" => {
                        let m = yi * zi;
                        let yc = yi * ci;
                        if m < 1.0 - tol {
                            active += 1;
                            (yc - cap).abs()
                        } else if m > 1.0 + tol {
                            ci.abs()
                        } else {
                            if ci != 0.0 {
                                edge += 1;
                            }
                            (-yc).max(yc - cap).max(0.0)
                        }
                    }
                    "eps_insensitive" => {
                        let eps = num(spec_v, "loss.eps")?;
                        let r = yi - zi;
                        if r.abs() > eps + tol {
                            active += 1;
                            (ci - r.signum() * cap).abs()
                        } else if r.abs() < eps - tol {
                            ci.abs()
                        } else {
                            if ci != 0.0 {
                                edge += 1;
                            }
                            (-(ci * r.signum())).max(ci.abs() - cap).max(0.0)
                        }
                    }
                    other => {
                        return Err(format!(
                            "KKT conditions for the `{other}` loss are not written here"
                        ))
                    }
                };
                worst = worst.max(v);
            }
            Ok(match what {
                Compute::KktViolation => worst / cap,
                Compute::StrictlyActive => active as f64,
                _ => edge as f64,
            })
        }
        Compute::GramNorm | Compute::GramMinEigRatio => {
            let (_, _, k) = data_gram(spec, spec_v)?;
            let e = SymmetricEigen::new(k).eigenvalues;
            let max = e.max();
            Ok(if what == Compute::GramNorm { max } else { e.min() / max })
        }
        Compute::MinPairDistance => {
            let data = papers::data(spec).map_err(|e| e.to_string())?;
            let n = data.n().min(MAX_N);
            let mut best = f64::INFINITY;
            for i in 0..n {
                for j in 0..i {
                    best = best.min((data.x.row(i) - data.x.row(j)).norm());
                }
            }
            Ok(best)
        }
        Compute::Recovered | Compute::AboveTau => {
            let w = vector(report, "solution.w")?;
            let max = w.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            if what == Compute::AboveTau {
                return Ok(w.iter().filter(|x| x.abs() > 0.1 * max).count() as f64);
            }
            let data = papers::data(spec).map_err(|e| e.to_string())?;
            let truth = data.w_true.ok_or("the data have no generating w*")?;
            let support: Vec<usize> = (0..truth.len()).filter(|&j| truth[j] != 0.0).collect();
            let mut order: Vec<usize> = (0..w.len()).collect();
            order.sort_by(|&a, &b| w[b].abs().total_cmp(&w[a].abs()));
            Ok(order.iter().take(support.len()).filter(|j| support.contains(j)).count() as f64)
        }
        Compute::MedianStep => {
            let s = accepted_steps(report)?;
            Ok(s[s.len() / 2])
        }
        Compute::MinStep => Ok(accepted_steps(report)?[0]),
        Compute::MaxStep => Ok(*accepted_steps(report)?.last().ok_or("no accepted step")?),
        Compute::StepFactorDecrease => {
            let trace =
                super::format::lookup(report, "trace")?.as_array().cloned().unwrap_or_default();
            let gamma = num(spec_v, "model.gamma")?;
            let delta = super::format::lookup(spec_v, "solver.delta")
                .ok()
                .and_then(|v| v.as_f64())
                .unwrap_or(0.5);
            let steps: Vec<f64> =
                trace.iter().filter_map(|r| r.get("step")?.as_f64()).filter(|x| *x > 0.0).collect();
            if steps.is_empty() {
                return Err("the trace has no accepted step".into());
            }
            let mut log_product = 0.0;
            for l in steps {
                let factor = 1.0 - 2.0 * l * (1.0 - delta) / gamma;
                if factor <= 0.0 {
                    return Err(format!("a step {l} makes Theorem 2.2's factor non-positive"));
                }
                log_product += factor.ln();
            }
            Ok((-log_product).exp())
        }
        Compute::LastGrowth => {
            let trace =
                super::format::lookup(report, "trace")?.as_array().cloned().unwrap_or_default();
            let h: Vec<f64> = trace.iter().filter_map(|r| r.get("max_h")?.as_f64()).collect();
            if h.len() < 2 || h[h.len() - 2] == 0.0 {
                return Err("the trace has fewer than two max|h| values".into());
            }
            Ok(h[h.len() - 1] / h[h.len() - 2])
        }
        Compute::FRoot
        | Compute::FMaxSecondDiff
        | Compute::FMinSecondDiff
        | Compute::FMaxFirstDiff => {
            let (_, y, k) = data_gram(spec, spec_v)?;
            let (lambda, m) = (num(spec_v, "lambda")?, num(spec_v, "m")?);
            let (d, yp, _) = spectrum(k, &y);
            let f = |c: f64| theorem1_f(&d, &yp, lambda, m, c);
            let root = f_root(&d, &yp, lambda, m)?;
            if what == Compute::FRoot {
                return Ok(root);
            }
            let h = 2.0 * root / 200.0;
            let v: Vec<f64> = (0..=200).map(|i| f(i as f64 * h)).collect();
            let scale = v.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            let d1: Vec<f64> = v.windows(2).map(|w| w[1] - w[0]).collect();
            let d2: Vec<f64> = d1.windows(2).map(|w| (w[1] - w[0]) / scale).collect();
            Ok(match what {
                Compute::FMaxSecondDiff => d2.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                Compute::FMinSecondDiff => d2.iter().copied().fold(f64::INFINITY, f64::min),
                _ => d1.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            })
        }
        Compute::NonZero => {
            Ok(vector(report, "solution.w")?.iter().filter(|x| **x != 0.0).count() as f64)
        }
        Compute::TraceMinGap => {
            let trace =
                super::format::lookup(report, "trace")?.as_array().cloned().unwrap_or_default();
            let gaps: Vec<f64> = trace
                .iter()
                .filter_map(|r| Some(r.get("primal")?.as_f64()? - r.get("dual")?.as_f64()?))
                .collect();
            if gaps.is_empty() {
                return Err("the trace has no primal and dual values".into());
            }
            Ok(gaps.into_iter().fold(f64::INFINITY, f64::min))
        }
        Compute::KrrTwinGap => {
            let (_, y, k) = data_gram(spec, spec_v)?;
            let l2 = num(report, "solution.lambda2")?;
            let alpha = DVector::from_vec(vector(report, "solution.alpha")?);
            let n = y.len();
            if alpha.len() != n {
                return Err("solution.alpha has the wrong length".into());
            }
            let f = &k * &alpha;
            let a = solve(&k + DMatrix::identity(n, n) * (n as f64 * l2), &y)?;
            let g = &k * &a;
            Ok((&f - &g).amax() / f.amax())
        }
        Compute::RepresenterGap
        | Compute::Prop32Bound
        | Compute::DistToOptimum
        | Compute::PredictorFeatureGap
        | Compute::PredictorKkt => eval_lp(what, spec, spec_v, report),
        Compute::Alg21TensorIterations => {
            Ok(paper_a::replay_algorithm_21(spec, spec_v)?.iterations as f64)
        }
        Compute::Alg21TensorDual => {
            let r = paper_a::replay_algorithm_21(spec, spec_v)?;
            if !r.converged {
                return Err(format!("the replay did not converge in {} iterations", r.iterations));
            }
            Ok(-r.lambda)
        }
        Compute::Alg21TensorMedianStep => paper_a::replay_algorithm_21(spec, spec_v)?.median_step(),
        Compute::Alg21LinearIterations
        | Compute::Alg21LinearMedianStep
        | Compute::Alg21LinearMinStep
        | Compute::Alg21LinearMaxStep => {
            let r = paper_a::replay_algorithm_21_with(spec, spec_v, Some(TensorOf::Power(1)))?;
            match what {
                Compute::Alg21LinearIterations => Ok(r.iterations as f64),
                Compute::Alg21LinearMedianStep => r.median_step(),
                Compute::Alg21LinearMinStep => r.extreme_step(false),
                _ => r.extreme_step(true),
            }
        }
        Compute::TraceGapRateRatio => paper_a::trace_gap_rate_ratio(report),
        Compute::GeneralLossRelGap => paper_a::general_loss_rel_gap(spec, spec_v, report),
        Compute::TraceGapHalfDrop => paper_a::trace_gap_half_drop(report),
        Compute::PlaneRho => paper_d::plane_rho(spec, spec_v),
        Compute::TraceMinNormP => paper_d::trace_min_norm_p(report),
        Compute::PTop3Mass => paper_d::p_top3_mass(report),
        Compute::UniformNormG => paper_d::uniform_norm_g(spec, spec_v),
        Compute::PlaneRhoRaw => paper_d::plane_rho_raw(spec, spec_v),
        Compute::MaxNormSq => paper_d::max_norm_sq(spec),
        Compute::RawPerceptronUpdates => paper_d::raw_perceptron_updates(spec, spec_v),
        Compute::PhaseMaxIterations
        | Compute::PhaseSumIterations
        | Compute::PhaseBoundSum
        | Compute::PhaseMaxRatio => paper_d::phases(what, spec, spec_v, report),
        Compute::LinearGramNorm => {
            let kind = super::format::lookup(spec_v, "kernel.kind")?;
            if kind.as_str() != Some("linear") {
                return Err(format!("needs the linear kernel (the spec's is `{kind}`)"));
            }
            let data = papers::data(spec).map_err(|e| e.to_string())?;
            paper_c::linear_gram_norm(&data.x)
        }
        Compute::LinearPrimalObjective
        | Compute::LinearKkt
        | Compute::NullShiftKkt
        | Compute::NullShiftObjective
        | Compute::NullDim => {
            let kind = super::format::lookup(spec_v, "kernel.kind")?;
            if kind.as_str() != Some("linear") {
                return Err(format!("needs the linear kernel (the spec's is `{kind}`)"));
            }
            let loss = super::format::lookup(spec_v, "loss.kind")?;
            if loss.as_str() != Some("square") {
                return Err(format!("written here for the square loss (the spec's is `{loss}`)"));
            }
            let data = papers::data(spec).map_err(|e| e.to_string())?;
            if data.n() > MAX_N {
                return Err(format!("n = {} is above {MAX_N} here", data.n()));
            }
            let lambda = num(spec_v, "lambda")?;
            use paper_c::LinearWhat as W;
            let w = match what {
                Compute::LinearPrimalObjective => W::PrimalObjective,
                Compute::LinearKkt => W::Kkt,
                Compute::NullShiftKkt => W::NullShiftKkt,
                Compute::NullShiftObjective => W::NullShiftObjective,
                _ => W::NullDim,
            };
            let c = match w {
                W::PrimalObjective | W::NullDim => None,
                _ => Some(DVector::from_vec(vector(report, "solution.c")?)),
            };
            paper_c::linear_square(&data.x, &data.y, c.as_ref(), lambda, w)
        }
        Compute::Table1Residual
        | Compute::Table1PrintedAtStep
        | Compute::Table1CorrectedAtStep
        | Compute::Theorem5Gradient
        | Compute::Theorem5Descent => {
            let (_, y, k) = data_gram(spec, spec_v)?;
            let lambda = num(spec_v, "lambda")?;
            let c = DVector::from_vec(vector(report, "solution.c")?);
            if c.len() != y.len() {
                return Err("solution.c has the wrong length".into());
            }
            let loss =
                super::format::lookup(spec_v, "loss.kind")?.as_str().unwrap_or("").to_string();
            let eps = if loss == "eps_insensitive" { num(spec_v, "loss.eps")? } else { 0.0 };
            let step = || num(report, "solution.alpha");
            use paper_c::Operator as Op;
            match what {
                Compute::Table1Residual => {
                    paper_c::fixed_point_residual(&k, &y, &c, &loss, lambda, eps, Op::TableAtOne)
                }
                Compute::Table1PrintedAtStep => {
                    let op = Op::PrintedAt(step()?);
                    paper_c::fixed_point_residual(&k, &y, &c, &loss, lambda, eps, op)
                }
                Compute::Table1CorrectedAtStep => {
                    let op = Op::CorrectedAt(step()?);
                    paper_c::fixed_point_residual(&k, &y, &c, &loss, lambda, eps, op)
                }
                Compute::Theorem5Gradient => {
                    let k1 = &k - DMatrix::identity(y.len(), y.len());
                    paper_c::theorem5_gradient(&k1, &y, &c, &loss, lambda, eps)
                }
                _ => paper_c::theorem5_descent(&k, &y, &c, &loss, lambda, eps),
            }
        }
        Compute::DualMaxDrop | Compute::PrimalRises | Compute::PrimalMaxRise => {
            let pd = paper_c::primal_dual(report)?;
            Ok(match what {
                Compute::DualMaxDrop => paper_c::dual_max_drop(&pd),
                Compute::PrimalRises => paper_c::primal_rises(&pd),
                _ => paper_c::primal_max_rise(&pd),
            })
        }
        Compute::PolyFeatureCount => {
            let d = num(spec_v, "data.d")?;
            let s = num(spec_v, "model.kernel.degree")?;
            let mut r = 1.0;
            let mut i = 1.0;
            while i <= s {
                r = r * (d - 1.0 + i) / i;
                i += 1.0;
            }
            Ok(r)
        }
        Compute::LooMaxLambda2Change
        | Compute::LooWorstLambda2
        | Compute::LooFixedLambda2Gap
        | Compute::LooOwnLambda2Gap
        | Compute::LooMaxChange
        | Compute::Theorem3Bound => loo(what, spec, spec_v),
        Compute::ExampleLooMaxChange
        | Compute::KrrLooMaxChange
        | Compute::ScanKrrChangeSlope
        | Compute::ScanExampleChangeSlope
        | Compute::ScanLambda2MoveSlope => example(what, spec, spec_v),
    }
}

/// The steps the linesearch accepted over a run's trace (the positive `step` fields), sorted;
/// an error when there is none (for `median_step`, `min_step`, `max_step`).
fn accepted_steps(report: &Value) -> Result<Vec<f64>, String> {
    let trace = super::format::lookup(report, "trace")?.as_array().cloned().unwrap_or_default();
    let mut s: Vec<f64> =
        trace.iter().filter_map(|r| r.get("step")?.as_f64()).filter(|x| *x > 0.0).collect();
    if s.is_empty() {
        return Err("the trace has no accepted step".into());
    }
    s.sort_by(f64::total_cmp);
    Ok(s)
}
