//! Paper D — Ramdas & Peña, "Margins, kernels and non-linear smoothed perceptrons".
//!
//! Everything works with the normalized signed Gram matrix (paper §3, below Eq. (9))
//! `G_ij = y_i y_j K(x_i,x_j)/√(K_ii K_jj)` (PSD, `G_ii = 1`) and the semi-norm `‖α‖_G = √(αᵀGα)`.
//! A perfect classifier exists iff some α has `Gα > 0` (Lemma 1); then
//! `f(x) = Σ_i α_i y_i K(x_i, x)/√K_ii` separates. By Gordan's theorem in an RKHS (Theorem 2)
//! exactly one of `∃α: Gα > 0` and `∃p ∈ Δ_n: ‖p‖_G = 0` holds; a p with `‖p‖_G ≤ ε` is an
//! ε-certificate of (near-)infeasibility.
//!
//! The algorithms (module [`algorithms`]) each implement [`Stepper`] directly: one `step()` is
//! one iteration and returns the one [`crate::exec::Record`], and the algorithm's own stop
//! reasons are [`Stop::Separator`], [`Stop::Certificate`] and [`Stop::Failed`]; the cap, the
//! deadline and the trace are the executor's ([`crate::exec::Run`], a race's lanes). A run's
//! end is read as an [`Outcome`] verified here from its stop and its solution vectors,
//! independently of the algorithm ([`PerceptronProblem::verify_separator`],
//! [`PerceptronProblem::verify_certificate`]).
//! [`bounds`] holds the paper's iteration bounds in terms of the margin ρ_K
//! (computed separately by [`crate::solvers::perceptron::margin`]).

pub mod algorithms;
pub mod bounds;
pub mod margin;
pub mod simplex;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::error::{KpError, Result};
use crate::exec::{Stepper, Stop};

pub use algorithms::{Isnkpvn, Nkp, Nvn, Perceptron, Snkp, Snkpvn};
mod problem;
pub use problem::{CertificateCheck, PerceptronAlgorithm, PerceptronProblem, SeparatorCheck};

/// Start `algorithm` on `problem` (parameters validated).
pub fn start(
    problem: Arc<PerceptronProblem>,
    algorithm: PerceptronAlgorithm,
) -> Result<Box<dyn Stepper + Send>> {
    algorithm.validate()?;
    Ok(match algorithm {
        PerceptronAlgorithm::Perceptron => Box::new(Perceptron::new(problem)),
        PerceptronAlgorithm::Nkp => Box::new(Nkp::new(problem)),
        PerceptronAlgorithm::Snkp => Box::new(Snkp::new(problem)?),
        PerceptronAlgorithm::Nvn { epsilon } => Box::new(Nvn::new(problem, epsilon)?),
        PerceptronAlgorithm::Snkpvn { delta } => Box::new(Snkpvn::new(problem, None, delta)?),
        PerceptronAlgorithm::Isnkpvn { gamma, epsilon } => {
            Box::new(Isnkpvn::new(problem, gamma, epsilon)?)
        }
    })
}

/// How a run ended, with the independent check of its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// A separator α with `Gα > 0` (Lemma 1).
    Separator {
        /// The separator's weights: `f = Σ α_i y_i K(x_i, ·)/√K(x_i,x_i)`.
        alpha: Vec<f64>,
        /// Its independent check.
        check: SeparatorCheck,
    },
    /// A certificate p ∈ Δ_n with `‖p‖_G ≤ ε` (Theorem 2, Eq. (14)).
    Certificate {
        /// The certificate's weights p ∈ Δ_n.
        p: Vec<f64>,
        /// `‖p‖_G`, recomputed.
        norm_g: f64,
        /// Its independent check.
        check: CertificateCheck,
    },
    /// The iteration cap came first.
    IterationCap {
        /// Iterations done.
        iterations: usize,
    },
}

impl Outcome {
    /// The outcome of a run of `algorithm` that ended with `stop` at iteration `iterations`, its
    /// solution vectors `solution` (`{alpha, p}`, [`Stepper::solution`]) verified against
    /// `problem`: a separator or a certificate is checked independently of the algorithm; any
    /// other end (the cap, the time limit) is [`Outcome::IterationCap`]; a failure is an error.
    pub fn of(
        stop: Stop,
        iterations: usize,
        solution: &serde_json::Value,
        algorithm: &PerceptronAlgorithm,
        problem: &PerceptronProblem,
    ) -> Result<Outcome> {
        let vector = |name: &str| -> Vec<f64> {
            solution[name]
                .as_array()
                .map(|v| v.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect())
                .unwrap_or_default()
        };
        match stop {
            Stop::Separator => {
                let alpha = vector("alpha");
                let check = problem.verify_separator(&alpha)?;
                Ok(Outcome::Separator { alpha, check })
            }
            Stop::Certificate => {
                let p = vector("p");
                let eps = algorithm.certificate_tolerance().unwrap_or(0.0);
                let check = problem.verify_certificate(&p, eps)?;
                Ok(Outcome::Certificate { norm_g: check.norm_g, p, check })
            }
            Stop::Failed | Stop::NonFinite => Err(KpError::NonFinite(format!(
                "{} produced a non-finite iterate",
                algorithm.name()
            ))),
            _ => Ok(Outcome::IterationCap { iterations }),
        }
    }

    /// Whether the independent check passed (false for the iteration cap).
    pub fn verified(&self) -> bool {
        match self {
            Outcome::Separator { check, .. } => check.verified,
            Outcome::Certificate { check, .. } => check.verified,
            Outcome::IterationCap { .. } => false,
        }
    }
}
