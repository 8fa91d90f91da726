//! What a run of any paper reports ([`Report`]) and the shared tail of every paper's run.

use serde_json::Value;

use crate::error::Result;
use crate::exec::stepper::{insert_measures, without_nulls};
use crate::exec::{Record, Run, Stepper, Stop};
use crate::spec_json::Paper;

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
    /// What the spec ran beside its algorithm, printed after `solution` (paper B's
    /// `selection` and `equivalence` sections); empty for the other papers.
    pub extra: serde_json::Map<String, Value>,
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
        for (k, v) in &self.extra {
            out.insert(k.clone(), v.clone());
        }
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

/// Time `start` (data, problem, solver: the setup), run the stepper it returns to its end under
/// the executor's iteration cap, if the paper has one ([`crate::exec::Watch::capped`]), and
/// report with the data digest it returns.
pub(crate) fn run_started_capped(
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
    run.run();
    let solution = run.solution();
    Ok(Report::of_run(paper, &run, data_digest, setup_ms, solution))
}

impl Report {
    /// The report of an ended run of any algorithm: its stop, last record and trace, with the
    /// data digest, the setup time and the paper's solution vectors.
    pub(crate) fn of_run<S: Stepper>(
        paper: Paper,
        run: &Run<S>,
        data_digest: String,
        setup_ms: f64,
        solution: Value,
    ) -> Self {
        let last = run.last();
        Report {
            paper,
            status: run.stop(),
            iterations: last.iter,
            last,
            data_digest,
            setup_ms,
            solution,
            trace: run.trace(),
            extra: serde_json::Map::new(),
        }
    }
}
