//! Paper C's experiment (Dinuzzo): its spec, checked form, data and problem (`spec.rs`, whose
//! items are re-exported here), and the page's state machine ([`page::DinuzzoPage`]).

pub mod page;
mod spec;

pub use spec::*;
