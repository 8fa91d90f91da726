//! One engine for the four papers: one experiment [`Spec`] (tagged by `paper`, parsed strictly,
//! validated once), one steppable interface ([`Stepper`]) whose records ([`Record`]) carry each
//! paper's own measures in one shape, one stop reason ([`Stop`]), and one driver ([`Run`]) that
//! owns the trace and the time budget. `kplay`, the tests and (through `src/web/`) the pages all
//! go through it, so a spec copied from a page reproduces the page's run on the command line.
//!
//! | `paper` | spec type | steppable algorithm | measures in the record |
//! | --- | --- | --- | --- |
//! | `lp` (or no tag: the original spec) | [`crate::experiment::lp::Experiment`] | Algorithm 2.1, 3.3, dual Newton, primal GD, FISTA | primal, dual, gap, relative gap |
//! | `mrlsr` | [`crate::experiment::mrlsr::MrlsrSpec`] | the safeguarded Newton solve for C₀ (Theorem 1, eq. 6) | root residual F(C) |
//! | `dinuzzo` | [`crate::experiment::dinuzzo::DinuzzoSpec`] | fixed point (eq. 10), coordinate descent (Algorithms 1–2) | primal, dual, gap, relative gap, residual, max\|h\| |
//! | `perceptron` | [`crate::experiment::perceptron::PerceptronSpec`] | the seven perceptron-family algorithms | min(Gα), ‖p‖_G |

pub mod dinuzzo;
pub mod dinuzzo_page;
pub mod lp;
pub mod lp_page;
pub mod mrlsr;
pub mod perceptron;
pub mod plots;
pub mod race;
pub mod shown;

pub use plots::svg_plots;

use serde_json::Value;

use crate::spec_json::{json_value, take_tag, typed, untagged};
pub use crate::spec_json::{parse_as, Paper};

use crate::error::{KpError, Result};
use crate::experiment::lp::Experiment;
use crate::experiment::perceptron::PerceptronSpec;
pub use crate::stepper::{Record, Run, Stepper, Stop, Trace};

/// One experiment of any paper.
#[derive(Debug, Clone, PartialEq)]
pub enum Spec {
    /// Paper A.
    Lp(Experiment),
    /// Paper B.
    Mrlsr(crate::experiment::mrlsr::MrlsrSpec),
    /// Paper C.
    Dinuzzo(crate::experiment::dinuzzo::DinuzzoSpec),
    /// Paper D.
    Perceptron(PerceptronSpec),
}

impl Spec {
    /// Parse a spec of any paper: `{"paper": "lp" | "mrlsr" | "dinuzzo" | "perceptron", …}`,
    /// the paper's fields strictly (unknown fields rejected, one message naming the field). A
    /// spec without `paper` is an original paper-A spec, so old files and links keep working.
    pub fn from_json(text: &str) -> Result<Spec> {
        let mut value = json_value(text)?;
        let paper = take_tag(&mut value)?.unwrap_or(Paper::Lp);
        Spec::from_value(paper, value)
    }

    /// Parse a spec that a given paper's page accepts: its own tagged spec, or the untagged
    /// form of its own fields; another paper's tag is an error naming `paper`.
    pub fn from_json_for(paper: Paper, text: &str) -> Result<Spec> {
        Spec::from_value(paper, untagged(paper, text)?)
    }

    fn from_value(paper: Paper, value: Value) -> Result<Spec> {
        Ok(match paper {
            Paper::Lp => Spec::Lp(typed(value)?),
            Paper::Mrlsr => Spec::Mrlsr(typed(value)?),
            Paper::Dinuzzo => Spec::Dinuzzo(typed(value)?),
            Paper::Perceptron => Spec::Perceptron(typed(value)?),
        })
    }

    /// The default experiment of a paper (the page's default).
    pub fn default_for(paper: Paper) -> Spec {
        match paper {
            Paper::Lp => Spec::Lp(Experiment::default()),
            Paper::Mrlsr => Spec::Mrlsr(crate::experiment::mrlsr::MrlsrSpec::default()),
            Paper::Dinuzzo => Spec::Dinuzzo(crate::experiment::dinuzzo::DinuzzoSpec::default()),
            Paper::Perceptron => Spec::Perceptron(PerceptronSpec::default()),
        }
    }

    /// Which paper.
    pub fn paper(&self) -> Paper {
        match self {
            Spec::Lp(_) => Paper::Lp,
            Spec::Mrlsr(_) => Paper::Mrlsr,
            Spec::Dinuzzo(_) => Paper::Dinuzzo,
            Spec::Perceptron(_) => Paper::Perceptron,
        }
    }

    /// The spec as a JSON value with its `paper` tag first.
    pub fn to_value(&self) -> Value {
        let paper = self.paper();
        match self {
            Spec::Lp(s) => crate::spec_json::tagged_value(paper, s),
            Spec::Mrlsr(s) => crate::spec_json::tagged_value(paper, s),
            Spec::Dinuzzo(s) => crate::spec_json::tagged_value(paper, s),
            Spec::Perceptron(s) => crate::spec_json::tagged_value(paper, s),
        }
    }

    /// The tagged spec as JSON text (what the pages put in their links).
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }

    /// Replace each CSV `path` by the file's text, read through `read` (the CLI reads files
    /// relative to the spec; the core itself does no I/O).
    pub fn resolve_csv(&mut self, read: &mut dyn FnMut(&str) -> Result<String>) -> Result<()> {
        match self {
            Spec::Lp(e) => {
                if let crate::experiment::lp::DataSpec::Csv { text: t @ None, path: Some(p) } =
                    &mut e.data
                {
                    *t = Some(read(p)?);
                }
            }
            Spec::Mrlsr(s) => {
                if let crate::experiment::mrlsr::DataSpec::Csv(c) = &mut s.data {
                    c.resolve(read)?;
                }
            }
            Spec::Dinuzzo(s) => {
                if let crate::experiment::dinuzzo::DataSpec::Csv(c) = &mut s.data {
                    c.resolve(read)?;
                }
            }
            Spec::Perceptron(s) => {
                if let crate::experiment::perceptron::DataSpec::Csv(c) = &mut s.data {
                    c.resolve(read)?;
                }
            }
        }
        Ok(())
    }
}

/// What `kplay run` prints for any paper: status, iterations, the last record's measures, the
/// data digest, the paper's solution vectors and the (bounded) trace.
#[derive(Debug, Clone)]
pub struct Report {
    pub paper: Paper,
    pub status: Stop,
    pub iterations: usize,
    /// The final record.
    pub last: Record,
    /// The data's 64-bit digest ([`crate::data::Dataset::digest`]): equal natively and in wasm.
    pub data_digest: String,
    /// Data, Gram matrix / tensor, eigendecomposition: the work before the first iteration.
    pub setup_ms: f64,
    pub solution: Value,
    pub trace: Vec<Record>,
}

impl Report {
    /// One JSON object: `paper`, `status`, `iterations`, the final measures (`primal`, `dual`,
    /// `gap`, `rel_gap`, `residual`, `max_h`, `min_g_alpha`, `norm_p_g`: those the paper has),
    /// `time_ms` (solver time), `setup_ms`, `data_digest`, `solution` and `trace`.
    pub fn to_json(&self) -> Value {
        let mut out = serde_json::Map::new();
        out.insert("paper".into(), Value::String(self.paper.tag().into()));
        out.insert("status".into(), Value::String(self.status.word().into()));
        out.insert("iterations".into(), self.iterations.into());
        insert_measures(&mut out, &self.last);
        out.insert("time_ms".into(), self.last.elapsed_ms.into());
        out.insert("setup_ms".into(), self.setup_ms.into());
        out.insert("data_digest".into(), Value::String(self.data_digest.clone()));
        out.insert("solution".into(), self.solution.clone());
        out.insert(
            "trace".into(),
            Value::Array(
                self.trace
                    .iter()
                    .map(|r| without_nulls(serde_json::to_value(r).unwrap_or(Value::Null)))
                    .collect(),
            ),
        );
        Value::Object(out)
    }
}

/// Add a record's measures the paper has (`primal`, `dual`, `gap`, `rel_gap`, `residual`,
/// `max_h`, `min_g_alpha`, `norm_p_g`) to a JSON object.
fn insert_measures(out: &mut serde_json::Map<String, Value>, r: &Record) {
    if let Value::Object(m) = without_nulls(serde_json::to_value(r).unwrap_or(Value::Null)) {
        for (k, v) in m {
            if !matches!(k.as_str(), "iter" | "time_ms" | "elapsed_ms" | "step" | "backtracks") {
                out.insert(k, v);
            }
        }
    }
}

/// An object without its `null` fields (a record's measures the paper does not have).
fn without_nulls(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.into_iter().filter(|(_, x)| !x.is_null()).collect()),
        other => other,
    }
}

/// Time `start` (data, problem, solver: the setup), run the stepper it returns to its end, and
/// report with the data digest it returns (the shared tail of every paper's `run`).
fn run_started(
    paper: Paper,
    start: impl FnOnce() -> Result<(Box<dyn Stepper>, String)>,
) -> Result<Report> {
    run_started_capped(paper, None, start)
}

/// [`run_started`] with the executor's iteration cap, if the spec has one
/// ([`crate::stepper::Watch::capped`]).
fn run_started_capped(
    paper: Paper,
    cap: Option<usize>,
    start: impl FnOnce() -> Result<(Box<dyn Stepper>, String)>,
) -> Result<Report> {
    let t0 = web_time::Instant::now();
    let (stepper, data_digest) = start()?;
    let setup_ms = t0.elapsed().as_secs_f64() * 1e3;
    let mut run = Run::new(stepper);
    if let Some(cap) = cap {
        run = run.capped(cap);
    }
    let status = run.run();
    let last = run.last();
    Ok(Report {
        paper,
        status,
        iterations: last.iter,
        last,
        data_digest,
        setup_ms,
        solution: run.solution(),
        trace: run.trace(),
    })
}

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
        Spec::Mrlsr(s) => crate::experiment::mrlsr::build_data(&s.data, usize::MAX),
        Spec::Dinuzzo(s) => crate::experiment::dinuzzo::dataset_within(
            &s.data,
            crate::experiment::dinuzzo::n_limit(s),
        ),
        Spec::Perceptron(s) => perceptron::dataset(&s.data),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
