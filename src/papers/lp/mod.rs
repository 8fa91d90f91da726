//! The experiment description: one serde type for a whole experiment (data, model, solver).
//! It is the CLI's input file, the page's state (also in the URL hash) and the tests' fixtures.
//! [`LpSpec::validate`] checks every field once and returns a [`LpProblem`] from
//! which runs are built; nothing downstream re-checks user input.

mod algorithm;
pub mod job;
pub mod page;
pub mod plot;
pub mod run;
pub mod schema;
mod session;
mod spec;

pub use crate::tensor::{GramTensor, GramTensorBuild};
pub use algorithm::LpAlgorithm;
pub use session::{reference_value, watch_to, LpSession, Predictor};
pub use spec::{
    count_above, top_k_recovery, DataSpec, LpChecked, LpProblem, LpRun, LpSpec, ModelSpec,
    PathSpec, SolverSpec, ALGORITHMS, TENSOR_BUDGET_BYTES,
};
