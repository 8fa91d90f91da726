//! A paper-D experiment as the page runs it (pure core, no browser): a JSON spec (2-D data,
//! kernel, algorithm, iteration cap) validated into a [`Session`] holding the problem, its
//! margin ρ_K with the certified bracket (`crate::solvers::perceptron::margin`), and the running algorithm under the
//! executor ([`Run`](crate::stepper::Run): the cap, the trace, the time slices; paper D's race of all six algorithms
//! is [`crate::engine::perceptron::PerceptronRace`]).

mod prepare;
pub mod schema;
mod session;
pub mod testbeds;
mod timing;
pub use prepare::SessionPreparation;
pub use session::{
    build_points, page_margin_options, reference_bounds, view_box, BoundLine, CertificateCheck,
    DataSpec, MarginSpec, Outcome, PerceptronSpec, RaceEntry, RaceSpec, SeparatorCheck, Session,
    RACE_DEFAULTS,
};
pub use timing::{run_timing_workload, timing_workloads, WorkloadRow};
