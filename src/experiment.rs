//! The experiment description: one serde type for a whole experiment (data, model, solver).
//! It is the CLI's input file, the page's state (also in the URL hash) and the tests' fixtures.
//! [`Experiment::validate`] checks every field once and returns a [`ValidExperiment`] from
//! which runs are built; nothing downstream re-checks user input.

use serde::{Deserialize, Serialize};

use crate::data::{parse_csv, Dataset, SparseRegression};
use crate::error::{KpError, Result};
use crate::solvers::dual_lp::{DualLp, Linesearch};
use crate::solvers::Driver;

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
}

/// The optimization problem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "problem", rename_all = "snake_case", deny_unknown_fields)]
pub enum ModelSpec {
    /// `F(w) = (γ/2)‖Xw − y‖² + (1/p)‖w‖_p^p` (paper A, eq. 7).
    LpRegression { p: f64, gamma: f64 },
}

/// The algorithm and its stopping rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolverSpec {
    /// Algorithm name: `dual_gradient` (paper A, Algorithm 2.1).
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
pub struct Experiment {
    pub data: DataSpec,
    pub model: ModelSpec,
    #[serde(default)]
    pub solver: SolverSpec,
}

impl Default for Experiment {
    /// The page's opening experiment: a small sparse problem with p = 4/3 that converges in
    /// a visible number of iterations.
    fn default() -> Self {
        Self {
            data: DataSpec::SparseRegression(SparseRegression { n: 100, d: 1000, k: 10, sigma: 0.05, seed: 1 }),
            model: ModelSpec::LpRegression { p: 4.0 / 3.0, gamma: 10.0 },
            solver: SolverSpec::default(),
        }
    }
}

/// An experiment whose every field has been checked, with its data materialized.
pub struct ValidExperiment {
    pub spec: Experiment,
    pub data: Dataset,
    pub p: f64,
    pub gamma: f64,
    pub linesearch: Linesearch,
}

fn finite_positive(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

impl Experiment {
    /// Parse a JSON spec (file or URL state) into an experiment.
    pub fn from_json(text: &str) -> Result<Self> {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            if path == "." {
                KpError::Spec(inner.to_string())
            } else {
                KpError::Spec(format!("{path}: {inner}"))
            }
        })
    }

    /// JSON text of the spec.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// Check the model and solver parameters (the data are checked by [`Self::validate`]).
    pub fn check_parameters(&self) -> Result<(f64, f64, Linesearch)> {
        let ModelSpec::LpRegression { p, gamma } = self.model;
        if !(p.is_finite() && p > 1.0 && p < 2.0) {
            return Err(KpError::POutOfRange(p));
        }
        if !finite_positive(gamma) {
            return Err(KpError::GammaNotPositive(gamma));
        }
        let s = &self.solver;
        if s.algorithm != "dual_gradient" {
            return Err(KpError::Parameter {
                name: "solver.algorithm",
                reason: format!("unknown algorithm `{}` (available: dual_gradient)", s.algorithm),
            });
        }
        if !finite_positive(s.tol) {
            return Err(KpError::ToleranceInvalid(s.tol));
        }
        if s.max_iter < 1 {
            return Err(KpError::MaxIterInvalid(s.max_iter));
        }
        for (name, value) in [("delta", s.delta), ("theta", s.theta)] {
            if !(value.is_finite() && value > 0.0 && value < 1.0) {
                return Err(KpError::LinesearchParam { name, value });
            }
        }
        let cap = gamma / (2.0 * (1.0 - s.delta));
        let step0 = match s.step0 {
            None => cap,
            Some(v) if finite_positive(v) && v <= cap => v,
            Some(v) => {
                return Err(KpError::Parameter {
                    name: "solver.step0",
                    reason: format!("the initial step λ̄ must lie in (0, γ/(2(1−δ))] = (0, {cap}] (got {v})"),
                })
            }
        };
        Ok((p, gamma, Linesearch { delta: s.delta, theta: s.theta, step0, max_backtracks: 80 }))
    }

    /// Build the data set described by the spec.
    pub fn build_data(&self) -> Result<Dataset> {
        match &self.data {
            DataSpec::SparseRegression(g) => g.generate(),
            DataSpec::Csv { text: Some(t), .. } => parse_csv(t),
            DataSpec::Csv { text: None, path: Some(p) } => Err(KpError::Spec(format!(
                "CSV path `{p}` was not read (only the CLI reads files; the page needs the text)"
            ))),
            DataSpec::Csv { text: None, path: None } => {
                Err(KpError::Spec("CSV data need `text` (or `path` in a CLI spec)".into()))
            }
        }
    }

    /// Validate everything and materialize the data.
    pub fn validate(&self) -> Result<ValidExperiment> {
        let (p, gamma, linesearch) = self.check_parameters()?;
        let data = self.build_data()?;
        Ok(ValidExperiment { spec: self.clone(), data, p, gamma, linesearch })
    }
}

impl ValidExperiment {
    /// A fresh run of the configured solver from α = 0.
    pub fn start(&self) -> Driver<DualLp> {
        let solver = DualLp::new(self.data.x.clone(), self.data.y.clone(), self.gamma, self.p, self.linesearch);
        Driver::new(solver, self.spec.solver.tol, self.spec.solver.max_iter)
    }
}
