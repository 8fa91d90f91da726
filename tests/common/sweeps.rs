//! Paper C's solvers driven for the tests the way every caller drives them: through the
//! executor's rules ([`Watch`]: the sweep cap, the stall rule), keeping every record (a test's
//! own trace, unbounded: the runs here are short), with the solver kept for its readouts.
#![allow(dead_code)]

use kernel_playground::exec::{Record, Stepper, Stop, Watch};

/// A solver run to its end under the executor's rules, with its records.
pub struct Ran<S> {
    pub s: S,
    pub stop: Stop,
    pub trace: Vec<Record>,
}

impl<S: Stepper> Ran<S> {
    /// Step `s` to its end with the sweep cap `cap`.
    pub fn new(mut s: S, cap: usize) -> Self {
        let (stop, trace) = drive(&mut s, cap);
        Self { s, stop, trace }
    }
    /// Why the run ended.
    pub fn status(&self) -> Stop {
        self.stop
    }
    /// Every record, sweep 0 first.
    pub fn trace(&self) -> &[Record] {
        &self.trace
    }
    /// The latest record.
    pub fn current(&self) -> Record {
        *self.trace.last().expect("a record")
    }
}

impl<S> std::ops::Deref for Ran<S> {
    type Target = S;
    fn deref(&self) -> &S {
        &self.s
    }
}

/// Step `s` to its end under the executor's rules with the cap `cap`: why it ended and every
/// record (the starting point's first).
pub fn drive<S: Stepper + ?Sized>(s: &mut S, cap: usize) -> (Stop, Vec<Record>) {
    let mut w = Watch::capped(cap);
    let mut t = vec![s.record()];
    while let Some(r) = w.step(s) {
        t.push(r);
    }
    (w.stop(s), t)
}

/// Paper C's measures of a record as numbers (every sweep record carries them).
pub trait Measures {
    fn objective(&self) -> f64;
    fn dual(&self) -> f64;
    fn gap(&self) -> f64;
    fn residual(&self) -> f64;
    fn max_h(&self) -> f64;
}

impl Measures for Record {
    fn objective(&self) -> f64 {
        self.primal.expect("F(c)")
    }
    fn dual(&self) -> f64 {
        self.dual.expect("D(c)")
    }
    fn gap(&self) -> f64 {
        self.gap.expect("gap")
    }
    fn residual(&self) -> f64 {
        self.residual.expect("residual")
    }
    fn max_h(&self) -> f64 {
        self.max_h.expect("max|h|")
    }
}
