//! One engine for the four papers: one experiment [`Spec`] (tagged by `paper`, parsed strictly,
//! validated once), one steppable interface ([`Stepper`]) whose records ([`Record`]) carry each
//! paper's own measures in one shape, one stop reason ([`Stop`]), and one driver ([`Run`]) that
//! owns the trace and the time budget. `kplay`, the tests and (through `src/web/`) the pages all
//! go through it, so a spec copied from a page reproduces the page's run on the command line.
//!
//! | `paper` | spec type | steppable algorithm | measures in the record |
//! | --- | --- | --- | --- |
//! | `lp` (or no tag: the original spec) | [`crate::papers::lp::Experiment`] | Algorithm 2.1, 3.3, dual Newton, primal GD, FISTA | primal, dual, gap, relative gap |
//! | `mrlsr` | [`crate::papers::mrlsr::MrlsrSpec`] | the safeguarded Newton solve for C₀ (Theorem 1, eq. 6) | root residual F(C) |
//! | `dinuzzo` | [`crate::papers::dinuzzo::DinuzzoSpec`] | fixed point (eq. 10), coordinate descent (Algorithms 1–2) | primal, dual, gap, relative gap, residual, max\|h\| |
//! | `perceptron` | [`crate::papers::perceptron::PerceptronSpec`] | the seven perceptron-family algorithms | min(Gα), ‖p‖_G |

pub mod dinuzzo;
pub mod lp;
pub mod mrlsr;
pub mod perceptron;
pub mod plots;

mod report;
mod spec;

pub use plots::svg_plots;
pub use report::Report;
pub use spec::Spec;

use serde_json::Value;

pub use crate::spec_json::{parse_as, Paper};

use crate::error::{KpError, Result};
pub use crate::exec::{Record, Run, Stepper, Stop, Trace};

/// Validate a spec, build its data and problem, run its algorithm to the end, and report.
pub fn run(spec: &Spec) -> Result<Report> {
    match spec {
        Spec::Lp(e) => lp::run(e),
        Spec::Mrlsr(s) => mrlsr::run(s),
        Spec::Dinuzzo(s) => dinuzzo::run(s),
        Spec::Perceptron(s) => perceptron::run(s),
    }
}

/// Run every algorithm of the spec's paper on its data and report each one's iterations,
/// status and final measure (one JSON object): A against F* (dual Newton to machine
/// precision); C the fixed point, the three coordinate rules and greedy + shrinking; D the six perceptron-family
/// algorithms with their verified outcomes and the paper's bounds. B has one algorithm
/// (Theorem 1's root solve), so its race is an error that says so.
pub fn race(spec: &Spec) -> Result<Value> {
    match spec {
        Spec::Lp(e) => lp::race(e),
        Spec::Mrlsr(_) => Err(KpError::Parameter {
            name: "paper",
            reason: "paper B has one algorithm (Theorem 1: an eigendecomposition and the root solve for C₀): use `kplay run`".into(),
        }),
        Spec::Dinuzzo(s) => dinuzzo::race(s),
        Spec::Perceptron(s) => perceptron::race(s),
    }
}

/// The spec's data as a [`crate::data::Dataset`] (for `kplay gen` and `kplay digest`).
pub fn data(spec: &Spec) -> Result<crate::data::Dataset> {
    match spec {
        Spec::Lp(e) => e.build_data(),
        Spec::Mrlsr(s) => crate::papers::mrlsr::build_data(&s.data, usize::MAX),
        Spec::Dinuzzo(s) => {
            crate::papers::dinuzzo::dataset_within(&s.data, crate::papers::dinuzzo::n_limit(s))
        }
        Spec::Perceptron(s) => perceptron::dataset(&s.data),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::papers::lp::Experiment;

    fn rec(iter: usize) -> Record {
        Record { iter, ..Record::default() }
    }

    #[test]
    fn trace_is_bounded_and_keeps_first_and_latest() {
        let mut t = Trace::new(rec(0));
        for i in 1..=100_000 {
            t.push(rec(i));
        }
        let r = t.records();
        assert!(r.len() <= crate::budget::active().trace, "{}", r.len());
        assert_eq!(r[0].iter, 0);
        assert_eq!(r.last().map(|x| x.iter), Some(100_000));
        assert!(r.windows(2).all(|w| w[0].iter < w[1].iter));
        // Short runs keep every record.
        let mut s = Trace::new(rec(0));
        for i in 1..=100 {
            s.push(rec(i));
        }
        assert_eq!(s.records().len(), 101);
    }

    #[test]
    fn tags_parse_and_reject() {
        let untagged = Experiment::default().to_json();
        assert_eq!(Spec::from_json(&untagged).map(|s| s.paper()).ok(), Some(Paper::Lp));
        let e = Spec::from_json(r#"{"paper":"nope"}"#).unwrap_err().to_string();
        assert!(e.contains("paper") && e.contains("nope"), "{e}");
        let e = Spec::from_json(r#"{"paper":"lp"} trailing {{{"#).unwrap_err().to_string();
        assert!(e.contains("closing brace"), "{e}");
        let e = Spec::from_json_for(Paper::Dinuzzo, r#"{"paper":"perceptron"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("paper"), "{e}");
        for p in Paper::ALL {
            let s = Spec::default_for(p);
            let back = Spec::from_json(&s.to_json()).expect("round trip");
            assert_eq!(back, s);
        }
    }
}
