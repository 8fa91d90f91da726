//! `kplay lesson check`: run every step of a lesson natively ([`crate::papers::run`], the run
//! `kplay run` prints) and evaluate every claim against it.

use std::fmt;

use serde_json::Value;

use super::compute;
use super::format::{lookup, parse_spec, set_path, Claim, Literal, Parsed, Quantity, Relation};
use crate::papers;

/// A claim's side, evaluated.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// A number.
    Num(f64),
    /// A word (a status).
    Text(String),
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Num(x) => write!(f, "{}", fmt_num(*x)),
            Val::Text(t) => write!(f, "{t}"),
        }
    }
}

/// A number as `kplay lesson check` prints it: integers in full, others with 6 significant digits.
pub fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e6) {
        format!("{x:.5e}")
    } else {
        let s = format!("{x:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A claim's outcome.
#[derive(Debug, Clone)]
pub struct ClaimResult {
    /// 1-based step.
    pub step: usize,
    /// The claim's id.
    pub id: String,
    /// The claim in words.
    pub says: String,
    /// The measured side.
    pub lhs: Result<Val, String>,
    /// The relation and the other side, printed.
    pub rhs: String,
    /// Whether it holds.
    pub pass: bool,
    /// The time limit (`kplay --time-limit`) came first: the claim was not evaluated, or its
    /// inputs were cut ([`NOT_RUN`]).
    pub not_run: bool,
}

pub use super::compute::NOT_RUN;

fn as_val(v: &Value, path: &str) -> Result<Val, String> {
    match v {
        Value::Number(n) => {
            n.as_f64().map(Val::Num).ok_or_else(|| format!("`{path}`: not a number"))
        }
        Value::String(s) => Ok(Val::Text(s.clone())),
        Value::Bool(b) => Ok(Val::Text(b.to_string())),
        _ => Err(format!("`{path}` is not a number or a word")),
    }
}

/// The runs of a lesson's steps, made on demand and kept.
struct Runs<'a> {
    parsed: &'a Parsed,
    reports: Vec<Option<Result<Value, String>>>,
}

impl Runs<'_> {
    fn report(&mut self, k: usize) -> Result<&Value, String> {
        if self.reports[k].is_none() {
            let r =
                papers::run(&self.parsed.specs[k]).map(|r| r.to_json()).map_err(|e| e.to_string());
            self.reports[k] = Some(r);
        }
        match self.reports[k].as_ref() {
            Some(Ok(v)) => Ok(v),
            Some(Err(e)) => Err(format!("step {}'s run: {e}", k + 1)),
            None => Err("no run".into()),
        }
    }

    fn num(&mut self, k: usize, q: &Quantity) -> Result<f64, String> {
        match self.eval(k, q)? {
            Val::Num(x) => Ok(x),
            Val::Text(t) => Err(format!("`{t}` is a word where a number is needed")),
        }
    }

    /// Step `k`'s spec before its `to` (a page B `fit` step), the fit's start.
    fn start(&self, k: usize) -> Option<&Value> {
        let step = self.parsed.lesson.steps.get(k)?;
        step.to.as_ref().and(step.spec.as_ref())
    }

    /// Evaluate a quantity for step `k` (0-based).
    fn eval(&mut self, k: usize, q: &Quantity) -> Result<Val, String> {
        let page = self.parsed.lesson.page;
        Ok(match q {
            Quantity::Value(Literal::Num(x)) => Val::Num(*x),
            Quantity::Value(Literal::Text(t)) => Val::Text(t.clone()),
            Quantity::Run(p) => {
                let r = self.report(k)?;
                as_val(&lookup(r, p)?, p)?
            }
            Quantity::Step(j, p) => {
                let r = self.report(j - 1)?;
                as_val(&lookup(r, p)?, p)?
            }
            Quantity::Spec(p) => as_val(&lookup(&self.parsed.spec_values[k], p)?, p)?,
            Quantity::Rerun(rr) => {
                let mut v = self.parsed.spec_values[k].clone();
                for (path, x) in &rr.set {
                    set_path(&mut v, path, x.clone())?;
                }
                let spec = parse_spec("rerun", page, &v)?;
                let r = papers::run(&spec).map_err(|e| format!("rerun: {e}"))?.to_json();
                as_val(&lookup(&r, &rr.of)?, &rr.of)?
            }
            Quantity::Compute(c) => {
                let report = self.report(k)?.clone();
                let x = compute::eval_from(
                    *c,
                    self.start(k),
                    &self.parsed.specs[k],
                    &self.parsed.spec_values[k],
                    &report,
                )
                .map_err(|e| format!("{c:?}: {e}"))?;
                Val::Num(x)
            }
            Quantity::StepCompute(j, c) => {
                let report = self.report(j - 1)?.clone();
                let x = compute::eval_from(
                    *c,
                    self.start(j - 1),
                    &self.parsed.specs[j - 1],
                    &self.parsed.spec_values[j - 1],
                    &report,
                )
                .map_err(|e| format!("{c:?} of step {j}: {e}"))?;
                Val::Num(x)
            }
            Quantity::Add(b) => Val::Num(self.num(k, &b[0])? + self.num(k, &b[1])?),
            Quantity::Sub(b) => Val::Num(self.num(k, &b[0])? - self.num(k, &b[1])?),
            Quantity::Mul(b) => Val::Num(self.num(k, &b[0])? * self.num(k, &b[1])?),
            Quantity::Div(b) => Val::Num(self.num(k, &b[0])? / self.num(k, &b[1])?),
            Quantity::Pow(b) => Val::Num(self.num(k, &b[0])?.powf(self.num(k, &b[1])?)),
            Quantity::Ln(a) => Val::Num(self.num(k, a)?.ln()),
            Quantity::Sqrt(a) => Val::Num(self.num(k, a)?.sqrt()),
            Quantity::Abs(a) => Val::Num(self.num(k, a)?.abs()),
        })
    }

    fn claim(&mut self, k: usize, c: &Claim) -> ClaimResult {
        let cut = |step: usize| ClaimResult {
            step,
            id: c.id.clone(),
            says: c.says.clone(),
            lhs: Err(NOT_RUN.into()),
            rhs: String::new(),
            pass: false,
            not_run: true,
        };
        if crate::clock::deadline_passed() {
            return cut(k + 1);
        }
        let lhs = self.eval(k, &c.lhs);
        let (rhs, pass) = match self.judge(k, c, &lhs) {
            Ok(x) => x,
            Err(e) => (format!("error: {e}"), false),
        };
        // A claim finished after the deadline may rest on a run or a computation it cut.
        if crate::clock::deadline_passed() {
            return cut(k + 1);
        }
        ClaimResult {
            step: k + 1,
            id: c.id.clone(),
            says: c.says.clone(),
            lhs,
            rhs,
            pass,
            not_run: false,
        }
    }

    fn judge(
        &mut self,
        k: usize,
        c: &Claim,
        lhs: &Result<Val, String>,
    ) -> Result<(String, bool), String> {
        let lhs = lhs.as_ref().map_err(|e| e.clone())?;
        if c.rel == Relation::Between {
            let r = c.range.as_ref().ok_or("no range")?;
            let (lo, hi) = (self.num(k, &r[0])?, self.num(k, &r[1])?);
            let Val::Num(x) = lhs else { return Err("a word is not between numbers".into()) };
            return Ok((format!("∈ [{}, {}]", fmt_num(lo), fmt_num(hi)), (lo..=hi).contains(x)));
        }
        let rhs = self.eval(k, c.rhs.as_ref().ok_or("no rhs")?)?;
        let shown = format!("{} {rhs}", c.rel.symbol());
        let pass = match (lhs, &rhs) {
            (Val::Num(a), Val::Num(b)) => match c.rel {
                Relation::Lt => a < b,
                Relation::Le => a <= b,
                Relation::Gt => a > b,
                Relation::Ge => a >= b,
                Relation::Eq => a == b,
                Relation::Ne => a != b,
                Relation::Within => (a - b).abs() <= c.tol.unwrap_or(0.0) * b.abs(),
                Relation::Between => false,
            },
            (Val::Text(a), Val::Text(b)) => match c.rel {
                Relation::Eq => a == b,
                Relation::Ne => a != b,
                _ => return Err("words compare with == and != only".into()),
            },
            _ => return Err(format!("cannot compare {lhs} with {rhs}")),
        };
        let shown = match c.rel {
            Relation::Within => format!("{shown} (rel. tol {})", fmt_num(c.tol.unwrap_or(0.0))),
            _ => shown,
        };
        Ok((shown, pass))
    }
}

/// Evaluate one claim of step `k` (0-based) of a parsed lesson, running the steps it reads (the
/// same evaluation as [`check`]; the page's lesson editor evaluates a claim as it is written).
pub fn check_claim(parsed: &Parsed, k: usize, claim: &Claim) -> ClaimResult {
    let mut runs = Runs { parsed, reports: vec![None; parsed.specs.len()] };
    runs.claim(k, claim)
}

/// Run every step and evaluate every claim, in order.
pub fn check(parsed: &Parsed) -> Vec<ClaimResult> {
    let mut runs = Runs { parsed, reports: vec![None; parsed.specs.len()] };
    let mut out = Vec::new();
    for (k, step) in parsed.lesson.steps.iter().enumerate() {
        for c in &step.claims {
            out.push(runs.claim(k, c));
        }
    }
    out
}

/// The report's lines: one per claim, `PASS`/`FAIL`, step, id, measured value, relation.
pub fn render(parsed: &Parsed, results: &[ClaimResult]) -> String {
    let mut s = format!("lesson: {}\n", parsed.lesson.title);
    let mut last = 0;
    for r in results {
        if r.step != last {
            s.push_str(&format!("step {} · {}\n", r.step, parsed.lesson.steps[r.step - 1].title));
            last = r.step;
        }
        let lhs = match &r.lhs {
            Ok(v) => v.to_string(),
            Err(e) => format!("error: {e}"),
        };
        if r.not_run {
            s.push_str(&format!(
                "  NOT RUN step {} claim {}: {} — {NOT_RUN}\n",
                r.step, r.id, r.says
            ));
            continue;
        }
        s.push_str(&format!(
            "  {} step {} claim {}: {} — measured {} {}\n",
            if r.pass { "PASS" } else { "FAIL" },
            r.step,
            r.id,
            r.says,
            lhs,
            r.rhs
        ));
    }
    let not_run = results.iter().filter(|r| r.not_run).count();
    let failed = results.iter().filter(|r| !r.pass && !r.not_run).count();
    if not_run > 0 {
        s.push_str(&format!(
            "{} claims, {} failed, {} not run (the time limit came first)\n",
            results.len(),
            failed,
            not_run
        ));
    } else {
        s.push_str(&format!("{} claims, {} failed\n", results.len(), failed));
    }
    s
}
