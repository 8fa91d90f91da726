//! Paper D's experiment as the page and `kplay` run it (pure core, no browser), `Spec → Checked
//! → Session`: a JSON [`PerceptronSpec`] (2-D data, kernel, algorithm, iteration cap, margin and
//! race options) checked into a [`PerceptronChecked`] (every range check, each naming its field),
//! the only thing a [`PerceptronSession`] accepts: the problem, its margin ρ_K with the certified bracket
//! (`crate::solvers::perceptron::margin`), and the running algorithm under the executor
//! ([`Run`](crate::exec::Run): the cap, the trace, the time slices), built at once or in
//! slices ([`PerceptronPreparation`]). [`PerceptronRace`] races the six algorithms on a session's
//! problem; [`PerceptronPage`] is the page's state machine (the reuse rule, the sliced
//! preparations, the heatmap's cache, the race), which the wasm shell only translates.

mod checked;
mod page;
pub mod plot;
mod prepare;
mod race;
pub mod run;
pub mod schema;
mod session;
mod spec;
pub mod testbeds;
mod timing;
pub use checked::{build_points, PerceptronChecked};
pub use page::{
    hand_points, to_data, HeatGrid, Heatmap, MarginSummary, OutcomeSummary, PageSummary,
    PerceptronPage, PreparingSummary, RaceSummary, RunSummary, SYNC_GRAM, SYNC_HEAT,
};
pub use prepare::PerceptronPreparation;
pub use race::{PerceptronRace, RaceEntry};
pub use session::{
    reference_bounds, view_box, BoundLine, CertificateCheck, Outcome, PerceptronSession,
    SeparatorCheck,
};
pub use spec::{
    page_margin_options, DataSpec, MarginSpec, PerceptronSpec, RaceSpec, RACE_DEFAULTS,
};
pub use timing::{run_timing_workload, timing_workloads, WorkloadRow};
