//! Paper C's (Dinuzzo) independent computations for lesson C's main results (issue 19, section 2):
//! Table 1's operators applied to a run's own `z = Kc` (a fixed-point residual of eq. 7), the
//! primal and dual along a coordinate-descent trace (Algorithm 1 is ascent on the dual), and
//! Theorem 5's smooth functional at α = 1 (stationary, not minimized). Everything here is written
//! from the paper's formulas, not from the engine's loss code: the Gram matrix comes from
//! [`super::data_gram`], the operators and proximal maps are closed forms written below.

use nalgebra::{DMatrix, DVector, SymmetricEigen};

/// `sign(x)` with `sign(0) = 0`.
fn sign0(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// Table 1's printed entry `−J_α(v)` for one coordinate (paper C, Table 1, as printed; it is
/// `−J_α` itself at α = 1 only — in general the printed entry is `−J_α(αv)/α`, DIGEST.md).
pub(super) fn table1(
    loss: &str,
    y: f64,
    v: f64,
    alpha: f64,
    lambda: f64,
    eps: f64,
) -> Result<f64, String> {
    let cap = 1.0 / (alpha * lambda);
    Ok(match loss {
        "hinge" => y * cap.min((1.0 - y * v).max(0.0)),
        "squared_hinge" => y * (1.0 - y * v).max(0.0) / (1.0 + alpha * lambda),
        "square" => (y - v) / (1.0 + alpha * lambda),
        "absolute" => sign0(y - v) * cap.min((y - v).abs()),
        "eps_insensitive" => sign0(y - v) * cap.min(((y - v).abs() - eps).max(0.0)),
        other => return Err(format!("Table 1 has no operator for the `{other}` loss")),
    })
}

/// Which `−J_α` a fixed-point residual uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Operator {
    /// Table 1 at α = 1, where the printed entries are `−J_1` (eq. 7 holds for every α > 0).
    TableAtOne,
    /// Table 1's printed formula with the run's step α (the misreading the erratum warns of).
    PrintedAt(f64),
    /// `−J_α(v) = α·P_α(v/α)` with `P_α` the printed entry: the operator derived at the run's α.
    CorrectedAt(f64),
}

/// `max_i |c_i − (−J_α(αz_i − c_i))|·λ` with `z = Kc`: the residual of eq. 7 (relative to 1/λ).
pub(super) fn fixed_point_residual(
    k: &DMatrix<f64>,
    y: &DVector<f64>,
    c: &DVector<f64>,
    loss: &str,
    lambda: f64,
    eps: f64,
    op: Operator,
) -> Result<f64, String> {
    let z = k * c;
    let mut worst = 0.0f64;
    for i in 0..y.len() {
        let t = match op {
            Operator::TableAtOne => table1(loss, y[i], z[i] - c[i], 1.0, lambda, eps)?,
            Operator::PrintedAt(a) => table1(loss, y[i], a * z[i] - c[i], a, lambda, eps)?,
            Operator::CorrectedAt(a) => {
                a * table1(loss, y[i], (a * z[i] - c[i]) / a, a, lambda, eps)?
            }
        };
        worst = worst.max((c[i] - t).abs());
    }
    Ok(worst * lambda)
}

/// The primal F and dual D of each sweep of a run's trace.
pub(super) fn primal_dual(report: &serde_json::Value) -> Result<Vec<(f64, f64)>, String> {
    let trace =
        crate::lesson::format::lookup(report, "trace")?.as_array().cloned().unwrap_or_default();
    let pd: Vec<(f64, f64)> = trace
        .iter()
        .filter_map(|r| Some((r.get("primal")?.as_f64()?, r.get("dual")?.as_f64()?)))
        .collect();
    if pd.len() < 2 {
        return Err("the trace has fewer than two sweeps with a primal and a dual".into());
    }
    Ok(pd)
}

/// The largest fall of the dual from one sweep to the next, over max|D| (≤ 0 up to rounding
/// when the dual never falls).
pub(super) fn dual_max_drop(pd: &[(f64, f64)]) -> f64 {
    let scale = pd.iter().fold(f64::MIN_POSITIVE, |m, p| m.max(p.1.abs()));
    pd.windows(2).map(|w| (w[0].1 - w[1].1) / scale).fold(f64::NEG_INFINITY, f64::max)
}

/// Sweeps in which F rose by more than rounding (10⁻¹²·|F|).
pub(super) fn primal_rises(pd: &[(f64, f64)]) -> f64 {
    pd.windows(2).filter(|w| w[1].0 - w[0].0 > 1e-12 * w[0].0.abs()).count() as f64
}

/// The largest rise of F in one sweep (≤ 0 when F never rose).
pub(super) fn primal_max_rise(pd: &[(f64, f64)]) -> f64 {
    pd.windows(2).map(|w| w[1].0 - w[0].0).fold(f64::NEG_INFINITY, f64::max)
}

/// `L(y, s)` for the losses whose proximal map is written here.
fn loss_value(loss: &str, y: f64, s: f64, eps: f64) -> Result<f64, String> {
    Ok(match loss {
        "square" => (y - s) * (y - s) / 2.0,
        "hinge" => (1.0 - y * s).max(0.0),
        "eps_insensitive" => ((y - s).abs() - eps).max(0.0),
        other => {
            return Err(format!("Theorem 5's envelope for the `{other}` loss is not written here"))
        }
    })
}

/// The proximal map at α = 1 of `L(y, ·)/λ`: `argmin_s L(y, s)/λ + (s − x)²/2` (closed forms).
fn prox1(loss: &str, y: f64, x: f64, lambda: f64, eps: f64) -> Result<f64, String> {
    let g = 1.0 / lambda;
    Ok(match loss {
        "square" => (y + lambda * x) / (1.0 + lambda),
        "hinge" => {
            if y * x >= 1.0 {
                x
            } else if y * x + g < 1.0 {
                x + y * g
            } else {
                y
            }
        }
        "eps_insensitive" => {
            let r = x - y;
            if r.abs() <= eps {
                x
            } else if r.abs() <= eps + g {
                y + sign0(r) * eps
            } else {
                x - sign0(r) * g
            }
        }
        other => {
            return Err(format!("Theorem 5's envelope for the `{other}` loss is not written here"))
        }
    })
}

/// Theorem 5's functional at α = 1, `F_1(c) = f_1(K_1c) + cᵀK_1c/2` with `K_1 = K − I` and
/// `f_1(x) = Σ_i min_s L(y_i, s)/λ + (s − x_i)²/2` (the Moreau–Yosida envelope, appendix).
pub(super) fn theorem5_value(
    k1: &DMatrix<f64>,
    y: &DVector<f64>,
    c: &DVector<f64>,
    loss: &str,
    lambda: f64,
    eps: f64,
) -> Result<f64, String> {
    let x = k1 * c;
    let mut env = 0.0;
    for i in 0..y.len() {
        let s = prox1(loss, y[i], x[i], lambda, eps)?;
        env += loss_value(loss, y[i], s, eps)? / lambda + (s - x[i]) * (s - x[i]) / 2.0;
    }
    Ok(env + c.dot(&x) / 2.0)
}

/// `max_i |∇F_1(c)_i|·λ` with `∇F_1(c) = K_1(∇f_1(K_1c) + c)` and `∇f_1(x) = x − prox(x)`.
pub(super) fn theorem5_gradient(
    k1: &DMatrix<f64>,
    y: &DVector<f64>,
    c: &DVector<f64>,
    loss: &str,
    lambda: f64,
    eps: f64,
) -> Result<f64, String> {
    let x = k1 * c;
    let mut g = DVector::zeros(y.len());
    for i in 0..y.len() {
        g[i] = x[i] - prox1(loss, y[i], x[i], lambda, eps)? + c[i];
    }
    Ok((k1 * g).amax() * lambda)
}

/// The smallest `F_1(c + tu) − F_1(c)` over t ∈ {±10⁻², ±10⁻¹, ±1}, u the unit eigenvector of
/// `K_1 = K − I` with the smallest eigenvalue: negative means c is not a minimizer of F_1.
pub(super) fn theorem5_descent(
    k: &DMatrix<f64>,
    y: &DVector<f64>,
    c: &DVector<f64>,
    loss: &str,
    lambda: f64,
    eps: f64,
) -> Result<f64, String> {
    let n = y.len();
    let k1 = k - DMatrix::identity(n, n);
    let eig = SymmetricEigen::new(k1.clone());
    let imin = eig.eigenvalues.imin();
    let u = eig.eigenvectors.column(imin).into_owned();
    let f0 = theorem5_value(&k1, y, c, loss, lambda, eps)?;
    let mut best = f64::INFINITY;
    for t in [1e-2, 1e-1, 1.0, -1e-2, -1e-1, -1.0] {
        let ct = c + &u * t;
        best = best.min(theorem5_value(&k1, y, &ct, loss, lambda, eps)? - f0);
    }
    Ok(best)
}

/// What [`linear_square`] reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum LinearWhat {
    /// min F solved in the primal.
    PrimalObjective,
    /// Eq. (14)'s residual for the run's c.
    Kkt,
    /// Eq. (14)'s residual for c + u, u in K's null space.
    NullShiftKkt,
    /// (F(c + u) − F(c))/|F(c)| for the same u.
    NullShiftObjective,
    /// The dimension of K's null space.
    NullDim,
}

/// Paper C with the linear kernel `K = XXᵀ` (eq. 5) and the square loss, `f(z) = ‖z − y‖²/(2λ)`,
/// computed from X without a Gram matrix (`Kc = X(Xᵀc)`, `cᵀKc = ‖Xᵀc‖²`):
/// - `PrimalObjective`: problem (2) solved in the primal, `w̄ = (XᵀX + λI)⁻¹Xᵀy` (a d × d system,
///   no c), `F̄ = ‖Xw̄ − y‖²/(2λ) + ‖w̄‖²/2`;
/// - `Kkt`: `maxᵢ |cᵢ − (yᵢ − (Kc)ᵢ)/λ|·λ` for the run's c: eq. (14), `0 ∈ ∂f(Kc) + c`, which
///   (7) and Corollary 1's (8) restate (relative to 1/λ);
/// - `NullShiftKkt`, `NullShiftObjective`: `u` the part of `e_i` orthogonal to X's columns for the
///   i where that part is longest (so `Ku = 0`), scaled to `‖u‖ = max(‖c‖, 1)`; eq. (14)'s
///   residual at `c + u`, and `(F(c + u) − F(c))/|F(c)|` (Lemma 1: 0);
/// - `NullDim`: `n − rank X` (singular values above `n·ε·σ_max`).
pub(super) fn linear_square(
    x: &DMatrix<f64>,
    y: &DVector<f64>,
    c: Option<&DVector<f64>>,
    lambda: f64,
    what: LinearWhat,
) -> Result<f64, String> {
    let (n, d) = (x.nrows(), x.ncols());
    if lambda.is_nan() || lambda <= 0.0 {
        return Err(format!("λ = {lambda} is not positive"));
    }
    let objective =
        |w: &DVector<f64>| (x * w - y).norm_squared() / (2.0 * lambda) + w.norm_squared() / 2.0;
    let residual = |c: &DVector<f64>| {
        let z = x * (x.transpose() * c);
        (0..n).map(|i| (c[i] - (y[i] - z[i]) / lambda).abs()).fold(0.0, f64::max) * lambda
    };
    let svd = x.clone().svd(true, false);
    let u_cols = svd.u.as_ref().ok_or("the SVD of X has no U")?;
    let smax = svd.singular_values.iter().copied().fold(0.0, f64::max);
    let tol = n.max(d) as f64 * f64::EPSILON * smax;
    let basis: Vec<usize> =
        (0..svd.singular_values.len()).filter(|&k| svd.singular_values[k] > tol).collect();
    if what == LinearWhat::NullDim {
        return Ok((n - basis.len()) as f64);
    }
    if what == LinearWhat::PrimalObjective {
        let a = x.transpose() * x + DMatrix::identity(d, d) * lambda;
        let w =
            a.cholesky().ok_or("XᵀX + λI is not positive definite")?.solve(&(x.transpose() * y));
        return Ok(objective(&w));
    }
    let c = c.ok_or("needs the run's c")?;
    if c.len() != n {
        return Err("solution.c has the wrong length".into());
    }
    if what == LinearWhat::Kkt {
        return Ok(residual(c));
    }
    // The longest projection of a unit vector e_i off the column space of X.
    let mut best: Option<DVector<f64>> = None;
    for i in 0..n {
        let mut u = DVector::zeros(n);
        u[i] = 1.0;
        for &k in &basis {
            let col = u_cols.column(k);
            let t = col[i];
            u -= col * t;
        }
        if best.as_ref().is_none_or(|b| u.norm() > b.norm()) {
            best = Some(u);
        }
    }
    let u = best.ok_or("no points")?;
    if u.norm() < 1e-8 {
        return Err("K is not singular: its null space is {0}".into());
    }
    let scale = c.norm().max(1.0) / u.norm();
    let u = u * scale;
    let shifted = c + &u;
    match what {
        LinearWhat::NullShiftKkt => Ok(residual(&shifted)),
        _ => {
            let f0 = objective(&(x.transpose() * c));
            let f1 = objective(&(x.transpose() * &shifted));
            Ok((f1 - f0) / f0.abs())
        }
    }
}

/// ‖K‖₂ for the linear kernel K = XXᵀ: the square of X's largest singular value (no Gram matrix).
pub fn linear_gram_norm(x: &DMatrix<f64>) -> Result<f64, String> {
    if x.nrows() == 0 || x.ncols() == 0 {
        return Err("no data".into());
    }
    let s = x.clone().svd(false, false).singular_values;
    Ok(s.iter().copied().fold(0.0, f64::max).powi(2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn closed_form(k: &DMatrix<f64>, y: &DVector<f64>, lambda: f64) -> DVector<f64> {
        let n = y.len();
        (k + DMatrix::identity(n, n) * lambda).cholesky().unwrap().solve(y)
    }

    #[test]
    fn table1_at_one_and_the_corrected_operator_hold_at_the_rls_closed_form() {
        let k = DMatrix::from_row_slice(3, 3, &[2.0, 1.0, 0.5, 1.0, 2.0, 0.3, 0.5, 0.3, 1.5]);
        let y = DVector::from_vec(vec![1.0, -0.5, 2.0]);
        let lambda = 0.5;
        let c = closed_form(&k, &y, lambda);
        let r1 = fixed_point_residual(&k, &y, &c, "square", lambda, 0.0, Operator::TableAtOne);
        assert!(r1.unwrap() < 1e-12);
        let rc =
            fixed_point_residual(&k, &y, &c, "square", lambda, 0.0, Operator::CorrectedAt(0.3));
        assert!(rc.unwrap() < 1e-12);
        // The printed formula read at α = 0.3 is not satisfied by the solution.
        let rp = fixed_point_residual(&k, &y, &c, "square", lambda, 0.0, Operator::PrintedAt(0.3));
        assert!(rp.unwrap() > 1e-2);
        // A perturbed c is not a fixed point.
        let off = &c + DVector::from_vec(vec![0.1, 0.0, 0.0]);
        let r = fixed_point_residual(&k, &y, &off, "square", lambda, 0.0, Operator::TableAtOne);
        assert!(r.unwrap() > 1e-3);
    }

    #[test]
    fn table1_hinge_on_one_point_inside_the_margin() {
        // min (1 − c)_+/λ + c²/2 with K = [1], λ = 2: c = 1/λ = 0.5 (z = 0.5 < 1, inside).
        let k = DMatrix::from_element(1, 1, 1.0);
        let y = DVector::from_element(1, 1.0);
        let at = |c: f64| {
            let c = DVector::from_element(1, c);
            fixed_point_residual(&k, &y, &c, "hinge", 2.0, 0.0, Operator::TableAtOne).unwrap()
        };
        assert!(at(0.5) < 1e-15);
        assert!((at(0.4) - 0.2).abs() < 1e-12, "|0.4 − 0.5|·λ = 0.2: {}", at(0.4));
        assert!(table1("logistic", 1.0, 0.0, 1.0, 1.0, 0.0).is_err());
    }

    #[test]
    fn trace_scans_count_rises_and_drops() {
        let report = json!({ "trace": [
            { "primal": 10.0, "dual": 0.0 }, { "primal": 8.0, "dual": 2.0 },
            { "primal": 9.0, "dual": 3.0 }, { "primal": 7.0, "dual": 4.0 } ] });
        let pd = primal_dual(&report).unwrap();
        assert_eq!(primal_rises(&pd), 1.0);
        assert_eq!(primal_max_rise(&pd), 1.0);
        assert!(dual_max_drop(&pd) < 0.0, "the dual never fell");
        let falls = vec![(10.0, 0.0), (8.0, 4.0), (7.0, 3.0)];
        assert!((dual_max_drop(&falls) - 0.25).abs() < 1e-15, "1 over max|D| = 4");
        assert!(primal_dual(&json!({ "trace": [] })).is_err());
    }

    #[test]
    fn theorem5_square_loss_stationary_and_descends_along_the_null_space() {
        // K = [[1, 1], [1, 1]] (eigenvalues 0 and 2), λ = 1: at the closed form ∇F_1 = 0; F_1 is
        // the quadratic with Hessian K_1²/(1 + λ) + K_1, which along K's null vector is
        // 1/(1 + λ) − 1 = −1/2: F_1(c + tu) − F_1(c) = −t²/4, −1/4 at t = ±1.
        let k = DMatrix::from_row_slice(2, 2, &[1.0, 1.0, 1.0, 1.0]);
        let y = DVector::from_vec(vec![1.0, -1.0]);
        let c = closed_form(&k, &y, 1.0);
        let k1 = &k - DMatrix::identity(2, 2);
        assert!(theorem5_gradient(&k1, &y, &c, "square", 1.0, 0.0).unwrap() < 1e-12);
        let off = &c + DVector::from_vec(vec![0.1, 0.0]);
        assert!(theorem5_gradient(&k1, &y, &off, "square", 1.0, 0.0).unwrap() > 1e-3);
        let d = theorem5_descent(&k, &y, &c, "square", 1.0, 0.0).unwrap();
        assert!((d + 0.25).abs() < 1e-12, "{d}");
    }

    #[test]
    fn theorem5_hinge_envelope_is_the_papers_at_lambda_one() {
        // Section 5: for the hinge at α = 1 (λ = 1) the envelope is 1/2 − yz for yz ≤ 0 and
        // (1 − yz)_+²/2 for yz > 0. With c = 0 the functional is f_1(0)·n = n/2.
        let k1 = DMatrix::from_element(1, 1, 0.0);
        let y = DVector::from_element(1, -1.0);
        for x in [-2.0, -0.5, 0.0, 0.5, 3.0] {
            // The envelope at x through prox1 directly, against the paper's formula.
            let s = prox1("hinge", -1.0, x, 1.0, 0.0).unwrap();
            let env = loss_value("hinge", -1.0, s, 0.0).unwrap() + (s - x) * (s - x) / 2.0;
            let yz = -x;
            let paper = if yz <= 0.0 { 0.5 - yz } else { (1.0 - yz).max(0.0).powi(2) / 2.0 };
            assert!((env - paper).abs() < 1e-12, "x = {x}: {env} vs {paper}");
        }
        let c = DVector::from_element(1, 0.0);
        assert!((theorem5_value(&k1, &y, &c, "hinge", 1.0, 0.0).unwrap() - 0.5).abs() < 1e-15);
    }
    #[test]
    fn linear_gram_norm_is_the_largest_eigenvalue_of_xxt() {
        let x = DMatrix::from_row_slice(3, 2, &[1.0, 0.5, -0.3, 2.0, 0.7, -1.1]);
        let k = &x * x.transpose();
        let top = nalgebra::SymmetricEigen::new(k).eigenvalues.max();
        let r = linear_gram_norm(&x).unwrap();
        assert!((r - top).abs() < 1e-12 * top, "{r} vs {top}");
        assert!(linear_gram_norm(&DMatrix::zeros(0, 2)).is_err());
    }

    #[test]
    fn linear_square_on_a_rank_two_design() {
        // 6 points in the plane: K = XXᵀ has rank 2, a null space of dimension 4.
        let x = DMatrix::from_row_slice(
            6,
            2,
            &[1.0, 0.5, -0.3, 2.0, 0.7, -1.1, 2.2, 0.1, -1.5, -0.4, 0.2, 0.9],
        );
        let y = DVector::from_vec(vec![1.0, -1.0, 1.0, 1.0, -1.0, -1.0]);
        let lambda = 0.3;
        let k = &x * x.transpose();
        let c = closed_form(&k, &y, lambda);
        let f_dual = (&k * &c - &y).norm_squared() / (2.0 * lambda) + (&k * &c).dot(&c) / 2.0;
        let f_primal = linear_square(&x, &y, None, lambda, LinearWhat::PrimalObjective).unwrap();
        assert!((f_dual - f_primal).abs() < 1e-12 * f_dual.abs(), "{f_dual} vs {f_primal}");
        assert_eq!(linear_square(&x, &y, None, lambda, LinearWhat::NullDim).unwrap(), 4.0);
        assert!(linear_square(&x, &y, Some(&c), lambda, LinearWhat::Kkt).unwrap() < 1e-12);
        let moved =
            linear_square(&x, &y, Some(&c), lambda, LinearWhat::NullShiftObjective).unwrap();
        assert!(moved.abs() < 1e-12, "{moved}");
        let off = linear_square(&x, &y, Some(&c), lambda, LinearWhat::NullShiftKkt).unwrap();
        assert!(off > 0.1, "{off}");
        // A full-rank design has no null space to shift along.
        let x2 = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, 1.0]);
        let y2 = DVector::from_vec(vec![1.0, -1.0]);
        let c2 = DVector::from_vec(vec![0.5, -0.5]);
        assert!(linear_square(&x2, &y2, Some(&c2), 1.0, LinearWhat::NullShiftKkt).is_err());
    }
}
