//! Every paper's experiment as `Spec → Checked → Session`, in one layer above the solvers and
//! below the engine: the spec a page, a link and `kplay` share (strict serde, one message naming
//! the bad field), its checked form, and the session that builds the data and the problem, in
//! time slices where a page needs them, and starts the paper's algorithms.
//!
//! | module | paper | spec | session |
//! | --- | --- | --- | --- |
//! | [`lp`] | A — ℓp regularization in the dual | [`lp::Experiment`] → [`lp::Checked`] | [`lp::ValidExperiment`] |
//! | [`mrlsr`] | B — M-RLSR | [`mrlsr::MrlsrSpec`], [`mrlsr::MrlsrSelectionSpec`], [`mrlsr::MrlsrEquivalenceSpec`] | [`mrlsr::MrlsrSession`] |
//! | [`dinuzzo`] | C — fixed point and coordinate descent | [`dinuzzo::DinuzzoSpec`] | [`dinuzzo::Preparation`] → [`dinuzzo::Built`] |
//! | [`perceptron`] | D — smoothed kernel perceptrons | [`perceptron::PerceptronSpec`] | [`perceptron::SessionPreparation`] → [`perceptron::Session`] |
//!
//! The pages' shells (`src/web/`) reach the solvers only through this layer and
//! [`crate::engine`].

pub mod dinuzzo;
pub mod lp;
pub mod mrlsr;
pub mod perceptron;

/// The page fields of the paper tagged `tag` (`lp`, `mrlsr`, `dinuzzo`, `perceptron`), declared
/// once in its `schema.rs` ([`crate::schema`]): wasm `specSchema(paper)` and `kplay schema`.
pub fn spec_schema(tag: &str) -> crate::error::Result<crate::schema::Schema> {
    match tag {
        "lp" => Ok(lp::schema::schema()),
        "mrlsr" => Ok(mrlsr::schema::schema()),
        "dinuzzo" => Ok(dinuzzo::schema::schema()),
        "perceptron" => Ok(perceptron::schema::schema()),
        other => Err(crate::error::KpError::Parameter {
            name: "paper",
            reason: format!(
                "unknown paper `{}`: lp, mrlsr, dinuzzo or perceptron",
                crate::error::clip(other)
            ),
        }),
    }
}
