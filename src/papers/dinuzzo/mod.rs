//! Paper C's experiment (Dinuzzo): its spec, checked form, data and problem (`spec.rs`, whose
//! items are re-exported here), its page fields (`schema.rs`) and the page's state machine
//! ([`page::DinuzzoPage`]).

pub mod page;
pub mod plot;
pub mod run;
pub mod schema;
mod spec;

pub use spec::*;
