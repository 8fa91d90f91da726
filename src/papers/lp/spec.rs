//! Paper A's experiment spec: the serde types of the data, model and solver, their defaults, and
//! [`LpSpec::validate`] into a [`LpProblem`]. A child of its own so that the session
//! (`session.rs`) imports its sibling, not `mod.rs` (issue 34: no parent ⇄ child import cycle).

use super::algorithm::LpAlgorithm;
use serde::{Deserialize, Serialize};

use nalgebra::DMatrix;

use crate::data::{parse_csv, Dataset, SparseRegression};
use crate::datasets::blobs::TwoBlobs;
use crate::error::{KpError, Result};
use crate::losses::Loss;
use crate::solvers::dual_lp::Linesearch;
use crate::tensor::{TensorKernel, TensorKernelConfig};

/// Where the data come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DataSpec {
    /// Paper A's sparse-regression generator.
    SparseRegression(SparseRegression),
    /// CSV text with a header and a `y` column. The CLI also accepts `path` (relative to the
    /// spec file) and reads it into `text`.
    Csv {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<String>,
    },
    /// Two Gaussian blobs in the plane with labels ±1 (for the hinge and logistic losses).
    TwoBlobs(TwoBlobs),
}

/// How the dual polynomial `(1/q)‖Φ*α‖_q^q` and its gradient are computed (paper A, Section 2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PathSpec {
    /// From the explicit (finite) feature map: `X` itself for the linear kernel, the degree-s
    /// monomials for the polynomial tensor kernel. Any p ∈ (1, 2).
    #[default]
    Features,
    /// From the Gram tensor (eq. 16), stored once per symmetry class; q = 4 or 6 only.
    Tensor,
}

fn default_loss() -> Loss {
    Loss::Square
}
fn default_kernel() -> TensorKernel {
    TensorKernel::Linear
}
fn is_square(l: &Loss) -> bool {
    *l == Loss::Square
}
fn is_features(p: &PathSpec) -> bool {
    *p == PathSpec::Features
}
fn is_linear(k: &TensorKernel) -> bool {
    *k == TensorKernel::Linear
}

/// The optimization problem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "problem", rename_all = "snake_case", deny_unknown_fields)]
pub enum ModelSpec {
    /// `F(w) = γ Σ L(y_i, ⟨Φ(x_i), w⟩) + (1/p)‖w‖_p^p` (paper A, eq. 7 for the square loss
    /// written `(γ/2)‖Xw − y‖²`; eq. 20 for a general loss).
    LpRegression {
        p: f64,
        gamma: f64,
        /// The loss (default square).
        #[serde(default = "default_loss", skip_serializing_if = "is_square")]
        loss: Loss,
        /// Features or Gram tensor (default features).
        #[serde(default, skip_serializing_if = "is_features")]
        path: PathSpec,
        /// The tensor kernel (Section 2.2; default linear = the plain features of X).
        #[serde(default = "default_kernel", skip_serializing_if = "is_linear")]
        kernel: TensorKernel,
    },
}

/// The algorithm and its stopping rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolverSpec {
    /// Algorithm name: `dual_gradient` (paper A, Algorithm 2.1), `prox_dual` (Algorithm 3.3),
    /// `dual_newton` (damped Newton on the dual), `primal_gd` (gradient descent with Armijo on F),
    /// `fista` (FISTA with the prox of `(t/p)|·|^p`).
    #[serde(default = "default_algorithm")]
    pub algorithm: String,
    /// Tolerance on the relative duality gap `gap / F(w)`.
    #[serde(default = "default_tol")]
    pub tol: f64,
    /// Iteration cap.
    #[serde(default = "default_max_iter")]
    pub max_iter: usize,
    /// Linesearch sufficient-decrease parameter δ ∈ (0, 1).
    #[serde(default = "default_half")]
    pub delta: f64,
    /// Linesearch shrink factor θ ∈ (0, 1).
    #[serde(default = "default_half")]
    pub theta: f64,
    /// Initial step λ̄; default (and cap) `γ/(2(1 − δ))`, the largest the paper allows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step0: Option<f64>,
}

fn default_algorithm() -> String {
    "dual_gradient".into()
}
fn default_tol() -> f64 {
    1e-10
}
fn default_max_iter() -> usize {
    1000
}
fn default_half() -> f64 {
    0.5
}

impl Default for SolverSpec {
    fn default() -> Self {
        Self {
            algorithm: default_algorithm(),
            tol: default_tol(),
            max_iter: default_max_iter(),
            delta: 0.5,
            theta: 0.5,
            step0: None,
        }
    }
}

/// A whole experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LpSpec {
    pub data: DataSpec,
    pub model: ModelSpec,
    #[serde(default)]
    pub solver: SolverSpec,
}

impl Default for LpSpec {
    /// The page's opening experiment: a small sparse problem with p = 4/3 that converges in
    /// a visible number of iterations.
    fn default() -> Self {
        Self {
            data: DataSpec::SparseRegression(SparseRegression {
                n: 100,
                d: 1000,
                k: 10,
                sigma: 0.05,
                seed: 1,
            }),
            model: ModelSpec::LpRegression {
                p: 4.0 / 3.0,
                gamma: 10.0,
                loss: Loss::Square,
                path: PathSpec::Features,
                kernel: TensorKernel::Linear,
            },
            solver: SolverSpec::default(),
        }
    }
}

pub use super::schema::ALGORITHMS;

/// Memory budget of a Gram tensor or a feature matrix built from a spec: 1 GiB.
pub const TENSOR_BUDGET_BYTES: u64 = 1 << 30;

/// The model and solver parameters after validation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LpChecked {
    pub p: f64,
    pub gamma: f64,
    pub loss: Loss,
    pub path: PathSpec,
    pub kernel: TensorKernel,
    /// The kernel with its order q checked (tensor path, or a polynomial kernel on the features path).
    pub kernel_cfg: Option<TensorKernelConfig>,
    /// Algorithm 2.1's linesearch (δ, θ, λ̄ capped at γ/(2(1−δ))).
    pub linesearch: Linesearch,
}

/// An experiment whose every field has been checked, with its data materialized.
pub struct LpProblem {
    pub spec: LpSpec,
    pub data: Dataset,
    pub p: f64,
    pub gamma: f64,
    pub linesearch: Linesearch,
    pub checked: LpChecked,
    /// The explicit feature matrix on the features path (`X` itself for the linear kernel).
    pub(super) features: Option<DMatrix<f64>>,
}

/// A run of any paper-A algorithm under the one executor (cap, tolerance, stall, deadline,
/// trace): `kplay run`, the page, the presets' jobs, the reference run for F*.
pub type LpRun = crate::exec::Run<LpAlgorithm>;

fn finite_positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

pub(super) fn param(name: &'static str, reason: String) -> KpError {
    KpError::Parameter { name, reason }
}

impl LpSpec {
    /// Parse a JSON spec (file or URL state) into an experiment: untagged, or tagged
    /// `"paper": "lp"` ([`crate::papers::Spec`]); unknown fields and trailing text rejected.
    pub fn from_json(text: &str) -> Result<Self> {
        crate::spec_json::parse_as(crate::spec_json::Paper::Lp, text)
    }

    /// JSON text of the spec.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// Check the model and solver parameters (the data are checked by [`Self::validate`]):
    /// one error per bad parameter, naming it.
    pub fn check(&self) -> Result<LpChecked> {
        let ModelSpec::LpRegression { p, gamma, loss, path, kernel } = self.model;
        // The plain ranges are the page schema's (`schema.rs`), read here, not restated.
        if !super::schema::p().accepts(p) {
            return Err(KpError::POutOfRange(p));
        }
        if !super::schema::gamma().accepts(gamma) {
            return Err(KpError::GammaNotPositive(gamma));
        }
        let s = &self.solver;
        if !super::schema::tol().accepts(s.tol) {
            return Err(KpError::ToleranceInvalid(s.tol));
        }
        // Every other plain range (the data's sizes and knobs, the loss's and the kernel's
        // parameters, the cap, δ, θ) is the table the page's controls carry, read here.
        crate::schema::check_spec(&super::schema::schema().fields, self)?;
        loss.validate()?;
        let kernel_cfg = match (path, kernel) {
            (PathSpec::Tensor, k) => Some(TensorKernelConfig::from_p(k, p)?),
            (PathSpec::Features, k) if k.identity_features() => None,
            (PathSpec::Features, k) if k.features().is_err() => {
                return Err(param(
                    "model.path",
                    format!(
                        "the {} tensor kernel has no finite feature map: choose the tensor path",
                        k.info().kind
                    ),
                ))
            }
            (PathSpec::Features, k) => Some(TensorKernelConfig::from_p(k, p)?),
        };
        if !ALGORITHMS.contains(&s.algorithm.as_str()) {
            return Err(param(
                "solver.algorithm",
                format!(
                    "unknown algorithm `{}` (available: {})",
                    s.algorithm,
                    ALGORITHMS.join(", ")
                ),
            ));
        }
        let caps = loss.capabilities();
        let square = caps.square;
        match s.algorithm.as_str() {
            "dual_gradient" if !square || path == PathSpec::Tensor => {
                return Err(param(
                    "solver.algorithm",
                    format!(
                        "dual_gradient (Algorithm 2.1) is the square-loss method on the features path; for the {} loss \
                         or the tensor path use prox_dual (Algorithm 3.3)",
                        loss.name()
                    ),
                ))
            }
            "dual_newton" if !caps.smooth_dual => {
                let smooth: Vec<&str> = Loss::ALL.iter().filter(|l| l.capabilities().smooth_dual).map(|l| l.name()).collect();
                return Err(param(
                    "solver.algorithm",
                    format!("dual_newton needs a twice differentiable dual: {} (got {}); use prox_dual", smooth.join(" or "), loss.name()),
                ))
            }
            "primal_gd" | "fista" if !square || path == PathSpec::Tensor => {
                return Err(param(
                    "solver.algorithm",
                    format!("{} works on the primal of the square loss on the features path", s.algorithm),
                ))
            }
            _ => {}
        }
        let cap = gamma / (2.0 * (1.0 - s.delta));
        let step0 = match s.step0 {
            None => cap,
            Some(v) if finite_positive(v) && v <= cap => v,
            Some(v) => {
                return Err(param(
                    "solver.step0",
                    format!(
                        "the initial step λ̄ must lie in (0, γ/(2(1−δ))] = (0, {cap}] (got {v})"
                    ),
                ))
            }
        };
        let linesearch = Linesearch { delta: s.delta, theta: s.theta, step0, max_backtracks: 80 };
        Ok(LpChecked { p, gamma, loss, path, kernel, kernel_cfg, linesearch })
    }

    /// Check the model and solver parameters; returns (p, γ, Algorithm 2.1's linesearch).
    pub fn check_parameters(&self) -> Result<(f64, f64, Linesearch)> {
        let c = self.check()?;
        Ok((c.p, c.gamma, c.linesearch))
    }

    /// Build the data set described by the spec.
    pub fn build_data(&self) -> Result<Dataset> {
        match &self.data {
            DataSpec::SparseRegression(g) => g.generate(),
            DataSpec::TwoBlobs(g) => g.generate(),
            DataSpec::Csv { text: Some(t), .. } => parse_csv(t),
            DataSpec::Csv { text: None, path: Some(p) } => Err(KpError::Spec(format!(
                "CSV path `{p}` was not read (only the CLI reads files; the page needs the text)"
            ))),
            DataSpec::Csv { text: None, path: None } => {
                Err(KpError::Spec("CSV data need `text` (or `path` in a CLI spec)".into()))
            }
        }
    }

    /// Validate everything and materialize the data (and, on the features path with a
    /// polynomial kernel, the explicit feature matrix; the Gram tensor is built separately).
    pub fn validate(&self) -> Result<LpProblem> {
        let checked = self.check()?;
        let data = self.build_data()?;
        LpProblem::new(self.clone(), checked, data)
    }
}

/// How many of the true features the top-k entries of |w| recover, k = the number of true
/// non-zeros (paper A, Figure 1: support recovery). Returns (k, recovered).
pub fn top_k_recovery(w: &[f64], w_true: &[f64]) -> (usize, usize) {
    let truth: Vec<usize> = (0..w_true.len()).filter(|&j| w_true[j] != 0.0).collect();
    let k = truth.len();
    let mut order: Vec<usize> = (0..w.len()).collect();
    order
        .sort_by(|&a, &b| w[b].abs().partial_cmp(&w[a].abs()).unwrap_or(std::cmp::Ordering::Equal));
    let top: std::collections::HashSet<usize> = order.into_iter().take(k).collect();
    (k, truth.iter().filter(|j| top.contains(j)).count())
}

/// Number of entries with `|w_j| ≥ threshold` (the spikes plot's threshold line).
pub fn count_above(w: &[f64], threshold: f64) -> usize {
    w.iter().filter(|v| v.abs() >= threshold).count()
}
