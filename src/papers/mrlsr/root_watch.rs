//! Paper B's root search drawn on F(C) (issue 32 §9): the direct solve's own search for the
//! roots of F (eq. 6), stepped one Newton or bisection step per frame on the page's Player,
//! through the executor's [`Run`] set up as the direct solve sets it up
//! ([`crate::solvers::mrlsr::root_run`]), so its end is the direct solve's C₀ bit for bit.

use std::sync::Arc;

use serde::Serialize;

use crate::error::Result;
use crate::exec::{Run, Stop};
use crate::solvers::mrlsr::{root_run, MrlsrModel, RootSearch, RootStart};

type Search = RootSearch<Arc<MrlsrModel>>;

/// The direct solve's search for the roots of F at (m, λ), one step at a time: each bracket of
/// [`MrlsrModel::root_starts`] in turn (m > 1: one; m ≤ 1: each sign change of the scan), each
/// searched by the executor's [`Run`] of the direct solve.
pub struct RootWatch {
    model: Arc<MrlsrModel>,
    m: f64,
    lambda: f64,
    starts: Vec<RootStart>,
    /// The next entry of `starts` to open.
    next: usize,
    run: Option<Run<Search>>,
    /// The current search's iterates (C, φ(ln C)), its start included.
    path: Vec<(f64, f64)>,
    /// The roots found so far (C), in order.
    found: Vec<f64>,
    /// Steps taken over all searches.
    steps: usize,
}

/// What the F plot draws of a [`RootWatch`] and the page reads out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RootView {
    /// The current search's iterates (C, φ(ln C) = ln(G/C)), its start first.
    pub path: Vec<(f64, f64)>,
    /// Its current bracket `[C_lo, C_hi]`, while a search is open.
    pub bracket: Option<(f64, f64)>,
    /// Whether the latest step was a Newton step (else bisection, or a start).
    pub newton: bool,
    /// Steps taken over all searches.
    pub steps: usize,
    /// Which search (1-based) of how many.
    pub search: (usize, usize),
    /// The roots found so far (C).
    pub found: Vec<f64>,
    /// Whether every search has ended.
    pub ended: bool,
}

impl RootWatch {
    /// The search at (m, λ) on `model`, nothing stepped yet.
    pub fn new(model: Arc<MrlsrModel>, m: f64, lambda: f64) -> Result<Self> {
        let starts = model.root_starts(m, lambda)?;
        let mut me = Self {
            model,
            m,
            lambda,
            starts,
            next: 0,
            run: None,
            path: Vec::new(),
            found: Vec::new(),
            steps: 0,
        };
        me.open();
        Ok(me)
    }

    /// Open the next bracket (an exact root of the scan is found at once).
    fn open(&mut self) {
        self.run = None;
        self.path.clear();
        while self.next < self.starts.len() {
            let start = self.starts[self.next];
            self.next += 1;
            match Search::at(self.model.clone(), self.m, self.lambda, start) {
                Some(search) => {
                    let run = root_run(search);
                    self.path.push(point(run.stepper()));
                    self.take_if_ended(&run);
                    self.run = Some(run);
                    return;
                }
                None => {
                    if let RootStart::Exact(t) = start {
                        self.found.push(crate::fmath::exp(t));
                    }
                }
            }
        }
    }

    fn take_if_ended(&mut self, run: &Run<Search>) {
        if run.stop() != Stop::Running {
            self.found.push(run.stepper().c());
        }
    }

    /// One step: a Newton or bisection step of the open search, or (its search ended) the
    /// next bracket opened. Returns whether anything remains.
    pub fn step(&mut self) -> bool {
        match self.run.take() {
            Some(mut run) if run.stop() == Stop::Running => {
                if run.step().is_some() {
                    self.steps += 1;
                    self.path.push(point(run.stepper()));
                }
                self.take_if_ended(&run);
                self.run = Some(run);
            }
            _ => self.open(),
        }
        !self.ended()
    }

    /// Whether every search has ended.
    pub fn ended(&self) -> bool {
        self.next >= self.starts.len()
            && self.run.as_ref().is_none_or(|r| r.stop() != Stop::Running)
    }

    /// The roots found so far (C), by increasing C.
    pub fn found(&self) -> &[f64] {
        &self.found
    }

    /// What the plot draws.
    pub fn view(&self) -> RootView {
        let open = self.run.as_ref().filter(|r| r.stop() == Stop::Running);
        RootView {
            path: self.path.clone(),
            bracket: open.map(|r| r.stepper().bracket()),
            newton: self.run.as_ref().is_some_and(|r| r.stepper().newton()),
            steps: self.steps,
            search: (self.next.min(self.starts.len()), self.starts.len()),
            found: self.found.clone(),
            ended: self.ended(),
        }
    }
}

/// The iterate of `s` as (C, φ(ln C)).
fn point(s: &Search) -> (f64, f64) {
    (s.c(), s.log_residual())
}
