//! Every paper as `Spec → Checked → Session`, one folder per paper: the spec a page, a link and
//! `kplay` share (strict serde, one message naming the bad field), its checked form, the session
//! that builds the data and the problem (in time slices where a page needs them) and starts the
//! paper's algorithms under the executor ([`crate::exec`]), its page's state machine, its run to
//! the end and race (`run.rs`) and `kplay plot`'s curves (`plot.rs`). Above the folders: the
//! tagged [`Spec`] of any paper (`paper` names it), its [`Report`], and the dispatchers
//! [`run`], [`race`], [`data`], [`svg_plots`] and [`spec_schema`] that `kplay`, the lessons, the
//! tests and (through `src/web/`) the pages call, so a spec copied from a page reproduces the
//! page's run on the command line.
//!
//! | module | paper | spec | checked | session | page |
//! | --- | --- | --- | --- | --- | --- |
//! | [`lp`] | A — ℓp regularization in the dual | [`lp::LpSpec`] | [`lp::LpChecked`] | [`lp::LpSession`] | [`lp::page::LpPage`] |
//! | [`mrlsr`] | B — M-RLSR | [`mrlsr::MrlsrSpec`] (with its selection and equivalence sections) | [`mrlsr::MrlsrChecked`] | [`mrlsr::MrlsrSession`] | (the wasm shell) |
//! | [`dinuzzo`] | C — fixed point and coordinate descent | [`dinuzzo::DinuzzoSpec`] | [`dinuzzo::DinuzzoChecked`] | [`dinuzzo::DinuzzoPreparation`] → [`dinuzzo::DinuzzoSession`] | [`dinuzzo::page::DinuzzoPage`] |
//! | [`perceptron`] | D — smoothed kernel perceptrons | [`perceptron::PerceptronSpec`] | [`perceptron::PerceptronChecked`] | [`perceptron::PerceptronPreparation`] → [`perceptron::PerceptronSession`] | [`perceptron::PerceptronPage`] |

pub mod dinuzzo;
pub mod lp;
pub mod mrlsr;
pub mod perceptron;
mod report;
mod spec;

pub use report::Report;
pub use spec::Spec;

pub use crate::spec_json::{parse_as, Paper};

use serde_json::Value;

use crate::error::{KpError, Result};

/// Validate a spec, build its data and problem, run its algorithm to the end, and report.
pub fn run(spec: &Spec) -> Result<Report> {
    match spec {
        Spec::Lp(e) => lp::run::run(e),
        Spec::Mrlsr(s) => mrlsr::run::run(s),
        Spec::Dinuzzo(s) => dinuzzo::run::run(s),
        Spec::Perceptron(s) => perceptron::run::run(s),
    }
}

/// Run every algorithm of the spec's paper on its data and report each one's iterations,
/// status and final measure (one JSON object): A against F* (dual Newton to machine
/// precision); C the fixed point, the three coordinate rules and greedy + shrinking; D the six perceptron-family
/// algorithms with their verified outcomes and the paper's bounds. B has one algorithm
/// (Theorem 1's root solve), so its race is an error that says so.
pub fn race(spec: &Spec) -> Result<Value> {
    match spec {
        Spec::Lp(e) => lp::run::race(e),
        Spec::Mrlsr(_) => Err(KpError::Parameter {
            name: "paper",
            reason: "paper B has one algorithm (Theorem 1: an eigendecomposition and the root solve for C₀): use `kplay run`".into(),
        }),
        Spec::Dinuzzo(s) => dinuzzo::run::race(s),
        Spec::Perceptron(s) => perceptron::run::race(s),
    }
}

/// The spec's data as a [`crate::data::Dataset`] (for `kplay gen` and `kplay digest`).
pub fn data(spec: &Spec) -> Result<crate::data::Dataset> {
    match spec {
        Spec::Lp(e) => e.build_data(),
        Spec::Mrlsr(s) => mrlsr::build_data(&s.data, usize::MAX),
        Spec::Dinuzzo(s) => dinuzzo::dataset_within(&s.data, dinuzzo::n_limit(s)),
        Spec::Perceptron(s) => perceptron::run::dataset(&s.data),
    }
}

/// Solve the spec and draw its plots: `(name, SVG text)` pairs. A: `convergence` (gap and
/// objectives) and `spikes` (w against w*); B: `F` (F(C) of eq. 6 with its root C₀), and where
/// the spec allows them the n-scans `nscan-stability` and `nscan-lambda2` (§4, Assumption 1);
/// C: `convergence` (gap, residual, max|h|, objective; the five gaps for a race);
/// D: `trace` (min(Gα) and ‖p‖_G with the paper's iteration bounds).
pub fn svg_plots(spec: &Spec) -> Result<Vec<(&'static str, String)>> {
    match spec {
        Spec::Lp(e) => lp::plot::svg_plots(e),
        Spec::Mrlsr(s) => mrlsr::plot::svg_plots(s),
        Spec::Dinuzzo(s) => dinuzzo::plot::svg_plots(s),
        Spec::Perceptron(s) => perceptron::plot::svg_plots(s),
    }
}

/// The page fields of the paper tagged `tag` (`lp`, `mrlsr`, `dinuzzo`, `perceptron`), declared
/// once in its `schema.rs` ([`crate::schema`]): wasm `specSchema(paper)` and `kplay schema`.
pub fn spec_schema(tag: &str) -> Result<crate::schema::Schema> {
    match tag {
        "lp" => Ok(lp::schema::schema()),
        "mrlsr" => Ok(mrlsr::schema::schema()),
        "dinuzzo" => Ok(dinuzzo::schema::schema()),
        "perceptron" => Ok(perceptron::schema::schema()),
        other => Err(KpError::Parameter {
            name: "paper",
            reason: format!(
                "unknown paper `{}`: lp, mrlsr, dinuzzo or perceptron",
                crate::error::clip(other)
            ),
        }),
    }
}
