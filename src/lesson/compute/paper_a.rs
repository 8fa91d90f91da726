//! Paper A's independent computations for §2.3 and §3 (Salzo–Suykens–Rosasco): Algorithm 2.1
//! replayed exactly as printed in eq. (17)–(18), with the Gram tensor built here entry by entry
//! as the n² × n² matrix [K] (no symmetry, no features, not the engine's tensor code); and the
//! duality gap of Theorem 3.1 for a general loss (hinge, logistic, square) computed here from the
//! data and the run's α with the loss and its Fenchel conjugate written here.

use nalgebra::{DMatrix, DVector};
use serde_json::Value;

use super::spec_values::{lp_params, lp_tensor_kernel, num, TensorOf};
use crate::lesson::format::vector;
use crate::papers::{self, Spec};

/// The largest n for the n² × n² matrix [K] built here (n⁴ entries, each a d-term sum).
pub const MAX_N_GRAM_MATRIX: usize = 24;

/// The most backtracks of one linesearch of the replay (λ̄θ⁸⁰ is below any useful step).
const MAX_BACKTRACKS: usize = 80;

/// [K] = reshape(K, n², n²) of §2.3, entry ((i, j), (k, l)) at row i + n·j and column k + n·l:
/// K(x_i, x_j, x_k, x_l) = κ(Σ_t x_it x_jt x_kt x_lt), every one of the n⁴ entries summed here.
fn gram_matrix(x: &DMatrix<f64>, kernel: TensorOf) -> Result<DMatrix<f64>, String> {
    let (n, d) = (x.nrows(), x.ncols());
    if n > MAX_N_GRAM_MATRIX {
        return Err(format!(
            "n = {n} is above {MAX_N_GRAM_MATRIX} for the n² × n² matrix [K] built here"
        ));
    }
    let mut k = DMatrix::zeros(n * n, n * n);
    let mut prod = vec![0.0; d];
    for i in 0..n {
        for j in 0..n {
            for (t, p) in prod.iter_mut().enumerate() {
                *p = x[(i, t)] * x[(j, t)];
            }
            for a in 0..n {
                for b in 0..n {
                    let mut s = 0.0;
                    for (t, p) in prod.iter().enumerate() {
                        s += p * x[(a, t)] * x[(b, t)];
                    }
                    k[(i + n * j, a + n * b)] = kernel.apply(s);
                }
            }
        }
    }
    Ok(k)
}

/// The quartic form and its gradient at α: ([α ⊗ α]ᵀ[K][α ⊗ α], ω) with
/// ω = reshape([K][α ⊗ α], n, n) α, the first line of Algorithm 2.1 (eq. 18).
fn quartic(k: &DMatrix<f64>, alpha: &DVector<f64>) -> (f64, DVector<f64>) {
    let n = alpha.len();
    let v = DVector::from_fn(n * n, |r, _| alpha[r % n] * alpha[r / n]);
    let u = k * &v;
    let m = DMatrix::from_column_slice(n, n, u.as_slice());
    (v.dot(&u), m * alpha)
}

/// Λ(α) of eq. (17) for q = 4: (1/4)[α ⊗ α]ᵀ[K][α ⊗ α] + ‖α‖²/(2γ) − yᵀα.
fn dual_17(k: &DMatrix<f64>, y: &DVector<f64>, alpha: &DVector<f64>, gamma: f64) -> f64 {
    quartic(k, alpha).0 / 4.0 + alpha.norm_squared() / (2.0 * gamma) - y.dot(alpha)
}

impl Replay {
    /// The median accepted step (the upper one of an even count), or an error when no step was
    /// accepted or the replay did not reach the tolerance.
    pub fn median_step(&self) -> Result<f64, String> {
        if !self.converged {
            return Err(format!("the replay did not converge in {} iterations", self.iterations));
        }
        let mut s = self.steps.clone();
        s.sort_by(f64::total_cmp);
        s.get(s.len() / 2).copied().ok_or_else(|| "the replay accepted no step".into())
    }

    /// The largest (`largest`) or the smallest accepted step, or an error when no step was
    /// accepted or the replay did not reach the tolerance.
    pub fn extreme_step(&self, largest: bool) -> Result<f64, String> {
        if !self.converged {
            return Err(format!("the replay did not converge in {} iterations", self.iterations));
        }
        let pick = if largest { f64::max } else { f64::min };
        let init = if largest { f64::NEG_INFINITY } else { f64::INFINITY };
        match self.steps.iter().copied().fold(init, pick) {
            v if v.is_finite() => Ok(v),
            _ => Err("the replay accepted no step".into()),
        }
    }
}

/// The end of the replay of Algorithm 2.1.
pub struct Replay {
    /// Accepted steps until the relative gap reached the spec's tolerance (or the cap).
    pub iterations: usize,
    /// The accepted steps λ_m, in order.
    pub steps: Vec<f64>,
    /// Λ(α) of eq. (17) at the last iterate.
    pub lambda: f64,
    /// Whether the relative gap reached the tolerance.
    pub converged: bool,
}

/// Algorithm 2.1 as printed (eq. 18, q = 4, square loss; the printed α_k read as α_m), on [K]
/// built here: from α₀ = 0, each iteration ω_m = reshape([K][α_m ⊗ α_m], n, n)α_m,
/// ∇Λ(α_m) = ω_m − y + α_m/γ; λ_m from λ̄ (the spec's `solver.step0`, else γ/(2(1 − δ)), the
/// interval's end) times θ while Λ(α_m) − Λ(α_m − λ_m∇Λ(α_m)) < λ_m(1 − δ)‖∇Λ(α_m)‖²; then
/// α_{m+1} = (1 − λ_m/γ)α_m − λ_m(ω_m − y). It stops when F(w(α)) + Λ(α) ≤ tol·|F(w(α))|, with
/// F = (γ/2)‖ω − y‖² + (1/p)[α ⊗ α]ᵀ[K][α ⊗ α] (ω are the predictions ⟨w(α), Φ(x_i)⟩ and
/// ‖w(α)‖_p^p = ‖Φ_n*α‖_q^q, eq. 14–16), or at the spec's `solver.max_iter`.
pub fn replay_algorithm_21(spec: &Spec, spec_v: &Value) -> Result<Replay, String> {
    replay_algorithm_21_with(spec, spec_v, None)
}

/// [`replay_algorithm_21`] with the tensor kernel `kernel` in place of the spec's (`None`: the
/// spec's), on the same data and settings (the linear kernel's replay of a polynomial step).
pub(super) fn replay_algorithm_21_with(
    spec: &Spec,
    spec_v: &Value,
    kernel: Option<TensorOf>,
) -> Result<Replay, String> {
    let (p, q, gamma) = lp_params(spec_v)?;
    if (q - 4.0).abs() > 1e-9 {
        return Err(format!("Algorithm 2.1 is written here for q = 4 (this spec's q is {q})"));
    }
    let loss = crate::lesson::format::lookup(spec_v, "model.loss.kind")
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "square".into());
    if loss != "square" {
        return Err(format!("Algorithm 2.1 is the square loss's (this spec's loss is `{loss}`)"));
    }
    let opt = |path: &str, default: f64| {
        crate::lesson::format::lookup(spec_v, path).ok().and_then(|v| v.as_f64()).unwrap_or(default)
    };
    let delta = opt("solver.delta", 0.5);
    let theta = opt("solver.theta", 0.5);
    let step0 = opt("solver.step0", gamma / (2.0 * (1.0 - delta)));
    let tol = num(spec_v, "solver.tol")?;
    let cap = num(spec_v, "solver.max_iter")? as usize;
    let data = papers::data(spec).map_err(|e| e.to_string())?;
    let y = &data.y;
    let kernel = match kernel {
        Some(k) => k,
        None => lp_tensor_kernel(spec_v)?,
    };
    let k = gram_matrix(&data.x, kernel)?;
    let n = y.len();
    let mut alpha = DVector::zeros(n);
    let mut iterations = 0;
    let mut steps = Vec::new();
    loop {
        let (quart, omega) = quartic(&k, &alpha);
        let lambda = quart / 4.0 + alpha.norm_squared() / (2.0 * gamma) - y.dot(&alpha);
        let primal = gamma / 2.0 * (&omega - y).norm_squared() + quart / p;
        let converged = primal + lambda <= tol * primal.abs();
        if converged || iterations >= cap {
            return Ok(Replay { iterations, steps, lambda, converged });
        }
        let grad = &omega - y + &alpha / gamma;
        let g2 = grad.norm_squared();
        let mut step = step0;
        let mut backtracks = 0;
        while lambda - dual_17(&k, y, &(&alpha - &grad * step), gamma) < step * (1.0 - delta) * g2 {
            if backtracks == MAX_BACKTRACKS {
                return Ok(Replay { iterations, steps, lambda, converged: false });
            }
            step *= theta;
            backtracks += 1;
        }
        alpha = &alpha * (1.0 - step / gamma) - (&omega - y) * step;
        steps.push(step);
        iterations += 1;
    }
}

/// The duality gap of Theorem 3.1 at the run's α, relative to |F|, for the linear kernel on
/// the features path (Φ(x) = x), computed here: w = J_q(Xᵀα) (eq. 23),
/// F(w) = γ Σ L(y_i, ⟨x_i, w⟩) + ‖w‖_p^p/p (eq. 20) and
/// Λ(α) = ‖Xᵀα‖_q^q/q + γ Σ L*(y_i, −α_i/γ) (eq. 22), with L and L* written here:
/// hinge (1 − yt)_+, L*(y, s) = ys on ys ∈ [−1, 0]; logistic log(1 + e^(−yt)),
/// L*(y, s) = (−ys)log(−ys) + (1 + ys)log(1 + ys) on ys ∈ [−1, 0]; square (y − t)²/2,
/// L*(y, s) = s²/2 + sy. An α outside L*'s domain gives +∞ (Λ(α) = +∞).
pub fn general_loss_rel_gap(spec: &Spec, spec_v: &Value, report: &Value) -> Result<f64, String> {
    let (p, q, gamma) = lp_params(spec_v)?;
    if !matches!(lp_tensor_kernel(spec_v)?, TensorOf::Power(1)) {
        return Err("written here for the linear kernel (features X)".into());
    }
    let loss = crate::lesson::format::lookup(spec_v, "model.loss.kind")
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "square".into());
    let data = papers::data(spec).map_err(|e| e.to_string())?;
    let (x, y) = (&data.x, &data.y);
    let alpha = DVector::from_vec(vector(report, "solution.alpha")?);
    if alpha.len() != y.len() {
        return Err("solution.alpha has the wrong length".into());
    }
    let u = x.transpose() * &alpha;
    let w = u.map(|v| v.signum() * v.abs().powf(q - 1.0));
    let t = x * &w;
    let value = |yi: f64, ti: f64| -> Result<f64, String> {
        Ok(match loss.as_str() {
            "hinge" => (1.0 - yi * ti).max(0.0),
            "logistic" => {
                let r = yi * ti;
                // log(1 + e^(−r)) without overflow.
                if r > 0.0 {
                    (-r).exp().ln_1p()
                } else {
                    -r + r.exp().ln_1p()
                }
            }
            "square" => (yi - ti) * (yi - ti) / 2.0,
            other => return Err(format!("the `{other}` loss is not written here")),
        })
    };
    let conj = |yi: f64, s: f64| -> f64 {
        match loss.as_str() {
            "square" => s * s / 2.0 + s * yi,
            _ => {
                let b = yi * s;
                if !(-1.0..=0.0).contains(&b) {
                    return f64::INFINITY;
                }
                if loss == "hinge" {
                    b
                } else {
                    let xlogx = |v: f64| if v > 0.0 { v * v.ln() } else { 0.0 };
                    xlogx(-b) + xlogx(1.0 + b)
                }
            }
        }
    };
    let mut lsum = 0.0;
    let mut csum = 0.0;
    for i in 0..y.len() {
        lsum += value(y[i], t[i])?;
        csum += conj(y[i], -alpha[i] / gamma);
    }
    let primal = gamma * lsum + w.iter().map(|v| v.abs().powf(p)).sum::<f64>() / p;
    let dual = u.iter().map(|v| v.abs().powf(q)).sum::<f64>() / q + gamma * csum;
    Ok((primal + dual) / primal.abs())
}

/// The run's trace as (iteration, gap) pairs, records without either left out.
fn trace_gap_points(report: &Value) -> Result<Vec<(f64, f64)>, String> {
    let trace =
        crate::lesson::format::lookup(report, "trace")?.as_array().cloned().unwrap_or_default();
    Ok(trace
        .iter()
        .filter_map(|r| Some((r.get("iter")?.as_f64()?, r.get("gap")?.as_f64()?)))
        .collect())
}

/// From the run's trace: the gap at the last record over the gap at the record nearest half
/// its iterations. A gap falling like C/m gives about 1/2 here, like C/m² about 1/4; a linear
/// rate r per iteration gives r^(M/2).
pub fn trace_gap_half_drop(report: &Value) -> Result<f64, String> {
    let points = trace_gap_points(report)?;
    let Some(&(last_iter, last_gap)) = points.last() else {
        return Err("the trace is empty".into());
    };
    if last_iter < 4.0 {
        return Err(format!("the trace ends at iteration {last_iter}: too short for a rate"));
    }
    let half = last_iter / 2.0;
    let (_, half_gap) = points
        .iter()
        .copied()
        .min_by(|a, b| (a.0 - half).abs().total_cmp(&(b.0 - half).abs()))
        .ok_or("the trace is empty")?;
    if half_gap.is_nan() || half_gap <= 0.0 {
        return Err(format!("the gap at iteration {half} is {half_gap}"));
    }
    Ok(last_gap / half_gap)
}

/// From the run's trace: the least-squares slope of ln(gap) against the iteration over the
/// records of the last quarter (3M/4 to M, M the last record's iteration) over the same slope
/// over the quarter before (M/2 to 3M/4). A straight fall on the log plot (a linear rate) gives
/// 1; a power law C/m^k about 0.71 whatever k (the slope −k/m at the windows' middles, 7M/8
/// and 5M/8); a fall that flattens less, one that steepens more. Fitting every record of a
/// window, not its two ends, keeps one bump of the gap from deciding.
pub fn trace_gap_rate_ratio(report: &Value) -> Result<f64, String> {
    let points = trace_gap_points(report)?;
    let Some(&(last, _)) = points.last() else {
        return Err("the trace is empty".into());
    };
    let slope = |from: f64, to: f64| -> Result<f64, String> {
        let window: Vec<(f64, f64)> =
            points.iter().copied().filter(|&(i, _)| i >= from && i <= to).collect();
        if window.len() < 3 {
            return Err(format!(
                "the trace has {} records between iterations {from} and {to}: too few for a slope",
                window.len()
            ));
        }
        if let Some(&(i, g)) = window.iter().find(|(_, g)| g.is_nan() || *g <= 0.0) {
            return Err(format!("the gap at iteration {i} is {g}"));
        }
        let k = window.len() as f64;
        let (mi, mg) =
            window.iter().fold((0.0, 0.0), |(a, b), &(i, g)| (a + i / k, b + g.ln() / k));
        let (sxy, sxx) = window.iter().fold((0.0, 0.0), |(a, b), &(i, g)| {
            (a + (i - mi) * (g.ln() - mg), b + (i - mi) * (i - mi))
        });
        Ok(sxy / sxx)
    };
    let early = slope(last / 2.0, 0.75 * last)?;
    let late = slope(0.75 * last, last)?;
    if early >= 0.0 {
        return Err(format!(
            "the gap did not fall over iterations {} to {}",
            last / 2.0,
            0.75 * last
        ));
    }
    Ok(late / early)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [K] of the linear kernel is Σ_t vec(x_t x_tᵀ)vec(x_t x_tᵀ)ᵀ, so [α⊗α]ᵀ[K][α⊗α] =
    /// Σ_t (xᵀ_t α)⁴ = ‖Xᵀα‖₄⁴ and ω = X (Xᵀα)³ (eq. 15–16 with Φ = x).
    #[test]
    fn quartic_of_the_linear_kernel_is_the_features_sum() {
        let x = DMatrix::from_fn(5, 3, |i, j| ((i * 3 + j) as f64 * 0.37).sin());
        let alpha = DVector::from_fn(5, |i, _| 0.2 - 0.15 * i as f64);
        let k = gram_matrix(&x, TensorOf::Power(1)).expect("small n");
        let (quart, omega) = quartic(&k, &alpha);
        let u = x.transpose() * &alpha;
        let want = u.iter().map(|v| v.powi(4)).sum::<f64>();
        assert!((quart - want).abs() <= 1e-14 * want.abs().max(1.0), "{quart} vs {want}");
        let want_omega = &x * u.map(|v| v * v * v);
        assert!((omega - &want_omega).amax() <= 1e-14 * want_omega.amax().max(1.0));
    }

    #[test]
    fn gram_matrix_refuses_a_large_n() {
        let x = DMatrix::zeros(MAX_N_GRAM_MATRIX + 1, 2);
        assert!(gram_matrix(&x, TensorOf::Exp).is_err());
    }
}
