//! Theorem 5 (Dinuzzo): the fixed point of eq. 10 is a stationary point of a functional built
//! from the loss's Moreau envelope and K_α = αK − I (not positive semidefinite once α·k_min < 1,
//! so "stationary", not "minimizer"); the envelope curve and K_α's spectrum the page draws.

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use super::problem::{Operator, RegularizationProblem};
use crate::error::{KpError, Result};
use crate::losses::Loss;

/// Largest n for which the helpers form a dense symmetric eigendecomposition.
pub const MAX_EIGEN_N: usize = 2500;

/// One point of the Theorem 5 picture: the loss `L(y, t)/λ` and its Moreau–Yosida envelope
/// `f_α(t) = min_s L(y, s)/λ + (α/2)(s − t)²` (paper C, appendix definition).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EnvelopePoint {
    pub t: f64,
    pub loss: f64,
    pub envelope: f64,
}

/// The loss and its Moreau–Yosida envelope sampled at `points` evenly spaced `t` in
/// `[t_min, t_max]` (Theorem 5: the non-smooth loss beside its smooth twin).
pub fn envelope_curve(
    loss: Loss,
    y: f64,
    alpha: f64,
    lambda: f64,
    t_min: f64,
    t_max: f64,
    points: usize,
) -> Result<Vec<EnvelopePoint>> {
    loss.validate()?;
    loss.check_targets(&[y])?;
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(KpError::Parameter {
            name: "alpha",
            reason: format!("α must be a finite number > 0 (got {alpha})"),
        });
    }
    if !(lambda.is_finite() && lambda > 0.0) {
        return Err(KpError::Parameter {
            name: "lambda",
            reason: format!("λ must be a finite number > 0 (got {lambda})"),
        });
    }
    if !(t_min.is_finite() && t_max.is_finite() && t_min < t_max) {
        return Err(KpError::Parameter {
            name: "range",
            reason: format!("need finite t_min < t_max (got {t_min}, {t_max})"),
        });
    }
    if !(2..=100_000).contains(&points) {
        return Err(KpError::Parameter {
            name: "points",
            reason: format!("between 2 and 100000 grid points (got {points})"),
        });
    }
    Ok((0..points)
        .map(|k| {
            let t = t_min + (t_max - t_min) * k as f64 / (points - 1) as f64;
            EnvelopePoint {
                t,
                loss: loss.value(y, t) / lambda,
                envelope: loss.moreau_envelope(y, t, alpha, lambda),
            }
        })
        .collect())
}

/// The smooth functional of Theorem 5 at `c`, in the scaling that is stationary at a solution
/// for every α: `G_α(c) = α·f_α(K_α c/α) + cᵀK_α c/2`, with `f_α` the envelope of
/// [`Loss::moreau_envelope`] (appendix definition) and `K_α = αK − I`. At α = 1 it is the
/// printed `α⁻¹f_α(K_α c) + cᵀK_α c/2`; for α ≠ 1 the printed form is not stationary with
/// the appendix's envelope (the tests check `∇G_α(c*) = 0` by finite differences).
pub fn theorem5_functional(
    problem: &RegularizationProblem,
    c: &DVector<f64>,
    alpha: f64,
) -> Result<f64> {
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(KpError::Parameter {
            name: "alpha",
            reason: format!("α must be a finite number > 0 (got {alpha})"),
        });
    }
    if c.len() != problem.n() {
        return Err(KpError::Parameter {
            name: "coefficients",
            reason: format!("expected {} coefficients, got {}", problem.n(), c.len()),
        });
    }
    // K_α c = αKc − c
    let kac = problem.kc(c) * alpha - c;
    let env: f64 = (0..problem.n())
        .map(|i| problem.loss.moreau_envelope(problem.y[i], kac[i] / alpha, alpha, problem.lambda))
        .sum();
    Ok(alpha * env + 0.5 * c.dot(&kac))
}

/// The eigenvalues of `K_α = αK − I` in increasing order (Theorem 5: `α·μ_i − 1` for the
/// eigenvalues `μ_i` of K; negative ones: the reformulated kernel is not positive semidefinite).
pub fn k_alpha_eigenvalues(problem: &RegularizationProblem, alpha: f64) -> Result<Vec<f64>> {
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(KpError::Parameter {
            name: "alpha",
            reason: format!("α must be a finite number > 0 (got {alpha})"),
        });
    }
    if problem.n() > MAX_EIGEN_N {
        return Err(KpError::Parameter {
            name: "n",
            reason: format!(
                "the eigenvalue plot is limited to n ≤ {MAX_EIGEN_N} points (got {})",
                problem.n()
            ),
        });
    }
    k_alpha_eigenvalues_of_block(problem, problem.n(), alpha)
}

/// [`k_alpha_eigenvalues`] of the leading `m × m` block of K (the page's Theorem 5 picture for
/// large n), by `faer`'s self-adjoint eigenvalue solver (values only; no copy of the whole K).
pub fn k_alpha_eigenvalues_of_block(
    problem: &RegularizationProblem,
    m: usize,
    alpha: f64,
) -> Result<Vec<f64>> {
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(KpError::Parameter {
            name: "alpha",
            reason: format!("α must be a finite number > 0 (got {alpha})"),
        });
    }
    let m = m.min(problem.n());
    if m > MAX_EIGEN_N {
        return Err(KpError::Parameter {
            name: "n",
            reason: format!("the eigenvalue plot is limited to n ≤ {MAX_EIGEN_N} points (got {m})"),
        });
    }
    let a = match &problem.op {
        Operator::Gram(k) => faer::Mat::<f64>::from_fn(m, m, |i, j| k[(i, j)]),
        Operator::Features { x, .. } => {
            let xb = x.rows(0, m);
            let k = xb * xb.transpose();
            faer::Mat::<f64>::from_fn(m, m, |i, j| k[(i, j)])
        }
        Operator::Rows { .. } => {
            let mut block = DMatrix::zeros(m, m);
            let mut row = DVector::zeros(problem.n());
            for i in 0..m {
                problem.kernel_row_into(i, &mut row);
                block.set_column(i, &row.rows(0, m));
            }
            faer::Mat::<f64>::from_fn(m, m, |i, j| block[(i, j)])
        }
    };
    let (values, _) = crate::par::self_adjoint_evd(a.as_ref(), false)
        .ok_or_else(|| KpError::NonFinite("the eigenvalues of K did not converge".into()))?;
    let mut ev: Vec<f64> = values.column_vector().iter().map(|&v| alpha * v - 1.0).collect();
    ev.sort_by(f64::total_cmp);
    Ok(ev)
}
