//! The estimator of Remark 2.4 (eq. 17) on new points and grids, and the explicit finite
//! feature map of the linear and polynomial tensor kernels (Section 2.2, Table 2) for the
//! features path of Remark 2.5.

use crate::fmath;
use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use super::classes::*;
use super::config::*;
use super::cost::*;
use crate::error::{KpError, Result};
use crate::lp::FeaturePolynomial;

/// The estimator of Remark 2.4 / eq. (17),
/// `f(x) = Σ_{i1..i(q−1)} K(x_{i1}, …, x_{i(q−1)}, x) α_{i1}⋯α_{i(q−1)}`.
///
/// By the symmetry over the q − 1 training indices it is a sum over sorted tuples
/// `i1 ≤ i2 ≤ … ≤ i(q−1)` with weight `mult·α_{i1}⋯α_{i(q−1)}`, and `K = g(⟨x, x_{i1} ⊙ v⟩)`
/// with `v = x_{i2} ⊙ ⋯ ⊙ x_{i(q−1)}` (g the identity, `t^s` or `exp`). For a batch of points
/// and a fixed suffix `(i2, …)`, all `i1 ≤ i2` come from one matrix product
/// `X_{0..=i2} diag(v) Pᵀ`; the cost is about `d·C(n+q−2, q−1)` multiplications per point and
/// the memory O((n + d)·batch). For the linear kernel it collapses to `⟨x, (Xᵀα)^(q−1)⟩`.
pub struct TensorPredictor {
    cfg: TensorKernelConfig,
    d: usize,
    form: PredictorForm,
}

enum PredictorForm {
    /// Linear kernel: `f(x) = ⟨x, w⟩`, `w = (Xᵀα)^(q−1)` componentwise.
    Linear(DVector<f64>),
    /// Training inputs (n × d), transposed (d × n), and α.
    Tuples { x: DMatrix<f64>, xt: DMatrix<f64>, alpha: DVector<f64> },
}

/// Values of a predictor on a 1-D grid.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grid1d {
    pub xs: Vec<f64>,
    pub values: Vec<f64>,
}

/// Values of a predictor on a 2-D grid: `values[j·xs.len() + i] = f(xs[i], ys[j])`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grid2d {
    pub xs: Vec<f64>,
    pub ys: Vec<f64>,
    pub values: Vec<f64>,
}

/// Largest number of grid points the grid helpers accept.
pub const MAX_GRID_POINTS: usize = 1_000_000;

/// Points per batch of the predictor.
const PREDICT_BATCH: usize = 256;

impl TensorPredictor {
    /// Prepare the predictor for dual coefficients `alpha` on training inputs `x` (n × d).
    pub fn new(x: &DMatrix<f64>, alpha: &DVector<f64>, cfg: TensorKernelConfig) -> Result<Self> {
        let (n, d) = x.shape();
        if n == 0 {
            return Err(KpError::NTooSmall(0));
        }
        if d == 0 {
            return Err(KpError::DTooSmall(0));
        }
        if alpha.len() != n {
            return Err(KpError::Parameter {
                name: "alpha",
                reason: format!("α has length {} but there are n = {n} samples", alpha.len()),
            });
        }
        check_finite_inputs(x)?;
        if let Some(i) = alpha.iter().position(|v| !v.is_finite()) {
            return Err(KpError::NonFinite(format!("α[{}] = {}", i + 1, alpha[i])));
        }
        if cfg.kernel.identity_features() {
            let u = x.tr_mul(alpha);
            let w = u.map(|t| t.powi(cfg.q as i32 - 1));
            return Ok(Self { cfg, d, form: PredictorForm::Linear(w) });
        }
        Ok(Self {
            cfg,
            d,
            form: PredictorForm::Tuples { x: x.clone(), xt: x.transpose(), alpha: alpha.clone() },
        })
    }

    /// Multiplications per predicted point, about `d·C(n+q−2, q−1)` (d for the linear kernel).
    pub fn multiplications_per_point(&self) -> f64 {
        match &self.form {
            PredictorForm::Linear(_) => self.d as f64,
            PredictorForm::Tuples { x, .. } => {
                self.d as f64
                    * symmetry_classes(x.nrows(), self.cfg.q - 1)
                        .map_or(f64::INFINITY, |t| t as f64)
            }
        }
    }

    /// `f` at a batch of points (rows of `pts`, b × d), added into `out`.
    fn batch(
        &self,
        x: &DMatrix<f64>,
        xt: &DMatrix<f64>,
        alpha: &DVector<f64>,
        pts: &DMatrix<f64>,
        out: &mut [f64],
    ) {
        let (n, d) = x.shape();
        let b = pts.nrows();
        let q = self.cfg.q;
        let ptst = pts.transpose(); // d × b
        let mut scaled = DMatrix::<f64>::zeros(d, b);
        let mut prod = DMatrix::<f64>::zeros(n, b);
        let mut v = DVector::<f64>::zeros(d);
        let mut coef = vec![0.0; n];
        let fact = factorial(q - 1);
        let mut s = vec![0usize; q - 2];
        loop {
            let s0 = s[0];
            let m = s0 + 1;
            let a_s: f64 = s.iter().map(|&i| alpha[i]).product();
            if a_s != 0.0 {
                let mut m0 = fact;
                for run in runs(&s) {
                    m0 /= factorial(run);
                }
                let c3 = s.iter().take_while(|&&i| i == s0).count() as f64;
                v.copy_from(&xt.column(s0));
                for &j in &s[1..] {
                    v.component_mul_assign(&xt.column(j));
                }
                for (mut col, pcol) in scaled.column_iter_mut().zip(ptst.column_iter()) {
                    col.copy_from(&pcol);
                    col.component_mul_assign(&v);
                }
                let mut pv = prod.view_mut((0, 0), (m, b));
                pv.gemm(1.0, &x.rows(0, m), &scaled, 0.0);
                for (i1, c) in coef[..m].iter_mut().enumerate() {
                    let w = if i1 < s0 { m0 } else { m0 / (c3 + 1.0) };
                    *c = w * alpha[i1] * a_s;
                }
                for (o, col) in out.iter_mut().zip(pv.column_iter()) {
                    *o +=
                        col.iter().zip(&coef[..m]).map(|(&t, c)| c * self.cfg.link(t)).sum::<f64>();
                }
            }
            if !next_sorted(&mut s, n) {
                break;
            }
        }
    }

    /// Input dimension d.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// `f(x)` at one point (length d).
    pub fn predict(&self, point: &[f64]) -> Result<f64> {
        let m = DMatrix::from_row_slice(1, point.len(), point);
        Ok(self.predict_rows(&m)?[0])
    }

    /// `f` at each row of `points` (m × d).
    pub fn predict_rows(&self, points: &DMatrix<f64>) -> Result<DVector<f64>> {
        if points.ncols() != self.d {
            return Err(KpError::Parameter {
                name: "points",
                reason: format!(
                    "the points have {} coordinates but the training inputs have d = {}",
                    points.ncols(),
                    self.d
                ),
            });
        }
        check_finite_inputs(points)?;
        let rows = points.nrows();
        let out = match &self.form {
            PredictorForm::Linear(w) => points * w,
            PredictorForm::Tuples { x, xt, alpha } => {
                let mut out = DVector::zeros(rows);
                let mut start = 0;
                while start < rows {
                    let b = PREDICT_BATCH.min(rows - start);
                    let pts = points.rows(start, b).into_owned();
                    self.batch(x, xt, alpha, &pts, &mut out.as_mut_slice()[start..start + b]);
                    start += b;
                }
                out
            }
        };
        if let Some(r) = out.iter().position(|v| !v.is_finite()) {
            let p: Vec<String> = points.row(r).iter().map(|v| format!("{v}")).collect();
            return Err(KpError::NonFinite(format!(
                "the predictor f(x) overflowed at x = ({}); the kernel values there are too large",
                p.join(", ")
            )));
        }
        Ok(out)
    }

    /// `f` on `m` equally spaced points of `[lo, hi]` (1-D inputs only).
    pub fn grid_1d(&self, lo: f64, hi: f64, m: usize) -> Result<Grid1d> {
        if self.d != 1 {
            return Err(KpError::Parameter {
                name: "grid",
                reason: format!("a 1-D grid needs 1-D inputs (d = {})", self.d),
            });
        }
        let xs = linspace(lo, hi, m, "grid.x")?;
        let pts = DMatrix::from_column_slice(m, 1, &xs);
        let values = self.predict_rows(&pts)?.as_slice().to_vec();
        Ok(Grid1d { xs, values })
    }

    /// `f` on an `mx × my` grid over `[x_range] × [y_range]` (2-D inputs only).
    pub fn grid_2d(
        &self,
        x_range: (f64, f64),
        y_range: (f64, f64),
        mx: usize,
        my: usize,
    ) -> Result<Grid2d> {
        if self.d != 2 {
            return Err(KpError::Parameter {
                name: "grid",
                reason: format!("a 2-D grid needs 2-D inputs (d = {})", self.d),
            });
        }
        let xs = linspace(x_range.0, x_range.1, mx, "grid.x")?;
        let ys = linspace(y_range.0, y_range.1, my, "grid.y")?;
        if mx.saturating_mul(my) > MAX_GRID_POINTS {
            return Err(KpError::Parameter {
                name: "grid",
                reason: format!("{mx} × {my} points is above the limit of {MAX_GRID_POINTS}"),
            });
        }
        let mut pts = DMatrix::<f64>::zeros(mx * my, 2);
        for (j, &y) in ys.iter().enumerate() {
            for (i, &x) in xs.iter().enumerate() {
                pts[(j * mx + i, 0)] = x;
                pts[(j * mx + i, 1)] = y;
            }
        }
        let values = self.predict_rows(&pts)?.as_slice().to_vec();
        Ok(Grid2d { xs, ys, values })
    }
}

fn linspace(lo: f64, hi: f64, m: usize, name: &'static str) -> Result<Vec<f64>> {
    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
        return Err(KpError::Parameter {
            name,
            reason: format!("the range must be finite with lo < hi (got [{lo}, {hi}])"),
        });
    }
    if !(2..=MAX_GRID_POINTS).contains(&m) {
        return Err(KpError::Parameter {
            name,
            reason: format!(
                "the number of grid points must be between 2 and {MAX_GRID_POINTS} (got {m})"
            ),
        });
    }
    let h = (hi - lo) / (m - 1) as f64;
    Ok((0..m).map(|i| if i + 1 == m { hi } else { lo + h * i as f64 }).collect())
}

// ---------------------------------------------------------------------------------------------
// The features path (finite kernels).

/// Number of features N of a finite tensor kernel on d inputs: d (linear), `C(d + s − 1, s)`
/// (polynomial of degree s, Section 2.2); an error for the exponential kernel.
pub fn feature_count(d: usize, cfg: &TensorKernelConfig) -> Result<u64> {
    let degree = cfg.kernel.features().map_err(no_features)?;
    if cfg.kernel.identity_features() {
        return Ok(d as u64);
    }
    binomial((d + degree).saturating_sub(1) as u64, degree as u64).ok_or_else(|| {
        KpError::Parameter {
            name: "kernel.degree",
            reason: format!("C(d+s−1, s) overflows for d = {d}, s = {degree}"),
        }
    })
}

/// A kernel's reason for having no finite feature map, as the error it is.
fn no_features(reason: &'static str) -> KpError {
    KpError::Parameter { name: "kernel", reason: reason.into() }
}

/// The multi-indices of the polynomial features, as sorted tuples of input coordinates
/// (0-based; `[j, j]` is `x_j²`, `[j, k]` is `x_j x_k`), in the column order of
/// [`tensor_features`].
pub fn feature_monomials(
    d: usize,
    cfg: &TensorKernelConfig,
    max_features: u64,
) -> Result<Vec<Vec<usize>>> {
    let nf = feature_count(d, cfg)?;
    if nf > max_features {
        return Err(KpError::Parameter {
            name: "features",
            reason: format!("{nf} features, above the limit of {max_features}"),
        });
    }
    let s = cfg.kernel.features().map_err(no_features)?;
    let mut out = Vec::with_capacity(nf as usize);
    let mut t = vec![0usize; s];
    loop {
        out.push(t.clone());
        if !next_sorted(&mut t, d) {
            break;
        }
    }
    Ok(out)
}

/// The explicit feature map of a finite tensor kernel at the rows of `x` (n × d), an n × N
/// matrix `Φ` with `Σ_k φ_k(x'_1)⋯φ_k(x'_q) = K(x'_1, …, x'_q)`. For degree s the feature of
/// the monomial `x^k` (|k| = s) is `(s!/(k_1!⋯k_d!))^(1/q) x^k` (Section 2.2; Table 2 for s = 2,
/// q = 4: `x_j²` and `2^(1/4) x_j x_k`). Refused when `8·n·N` exceeds `max_bytes`.
pub fn tensor_features(
    x: &DMatrix<f64>,
    cfg: &TensorKernelConfig,
    max_bytes: u64,
) -> Result<DMatrix<f64>> {
    let (n, d) = x.shape();
    if n == 0 {
        return Err(KpError::NTooSmall(0));
    }
    if d == 0 {
        return Err(KpError::DTooSmall(0));
    }
    let nf = feature_count(d, cfg)?;
    let bytes = nf.saturating_mul(n as u64).saturating_mul(8);
    check_budget(
        "the feature matrix",
        bytes,
        max_bytes,
        &format!("n = {n} rows × N = {nf} features"),
    )?;
    check_finite_inputs(x)?;
    if cfg.kernel.identity_features() {
        return Ok(x.clone());
    }
    let s = cfg.kernel.features().map_err(no_features)?;
    let inv_q = 1.0 / cfg.q as f64;
    let mut phi = DMatrix::<f64>::zeros(n, nf as usize);
    let mut t = vec![0usize; s];
    let mut col = 0;
    loop {
        let coef = fmath::pow(multiplicity(&t), inv_q);
        let mut c = phi.column_mut(col);
        c.copy_from(&x.column(t[0]));
        for &j in &t[1..] {
            c.component_mul_assign(&x.column(j));
        }
        c *= coef;
        col += 1;
        if !next_sorted(&mut t, d) {
            break;
        }
    }
    Ok(phi)
}

/// The features path as a [`DualPolynomial`]: `P(α) = (1/q)‖Φᵀα‖_q^q` with the explicit
/// feature map (Remark 2.5).
pub fn feature_polynomial(
    x: &DMatrix<f64>,
    cfg: &TensorKernelConfig,
    max_bytes: u64,
) -> Result<FeaturePolynomial> {
    Ok(FeaturePolynomial { x: tensor_features(x, cfg, max_bytes)?, q: cfg.q as f64 })
}
