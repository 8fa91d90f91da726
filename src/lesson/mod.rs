//! Lessons as data (docs/lessons.md): a lesson is a JSON file — title, page, steps — whose
//! steps carry the page's spec, the text (a small Markdown-and-math subset, never HTML) and the
//! step's claims in machine-readable form. [`Lesson::parse`] is the one strict parser (unknown
//! fields, sizes, references between claims, text syntax), used by `kplay lesson check` and by
//! the pages through the wasm export `checkLesson`; [`check::check`] runs every step natively
//! and evaluates every claim.

pub mod check;
pub mod compute;
pub mod editor;
pub mod elements;
pub mod measures;
mod patch;
pub mod tex;

pub use patch::merge_patch;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::{Paper, Spec};
use crate::error::{clip, clip_quoted, shorten_expected};

/// The largest lesson file, in bytes (a link carries at most this much too).
pub const MAX_BYTES: usize = 256 * 1024;
/// At most this many steps in a lesson.
pub const MAX_STEPS: usize = 40;
/// At most this many claims in a step.
pub const MAX_CLAIMS: usize = 40;
/// At most this many characters in one text field (`look`, `predict`, `explain`).
pub const MAX_TEXT: usize = 8000;
/// At most this many characters in a title, an id, a path or a reference.
pub const MAX_SHORT: usize = 300;
/// How deep a quantity's expression may nest.
pub const MAX_DEPTH: usize = 8;

/// A lesson: a title, the page it plays on and its steps.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    /// The format's version: 1.
    pub format: u32,
    /// Shown above every step.
    pub title: String,
    /// The paper page the lesson plays on.
    pub page: Page,
    /// The steps, in order (1 to [`MAX_STEPS`]).
    pub steps: Vec<Step>,
}

/// The four paper pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Page {
    /// Paper A (Salzo–Suykens–Rosasco).
    #[serde(rename = "lp.html")]
    Lp,
    /// Paper B (Audiffren–Kadri).
    #[serde(rename = "mrlsr.html")]
    Mrlsr,
    /// Paper C (Dinuzzo).
    #[serde(rename = "dinuzzo.html")]
    Dinuzzo,
    /// Paper D (Ramdas–Peña).
    #[serde(rename = "perceptron.html")]
    Perceptron,
}

impl Page {
    /// The page's file name (`dinuzzo.html`), as a lesson names it.
    pub fn file(self) -> &'static str {
        match self {
            Page::Lp => "lp.html",
            Page::Mrlsr => "mrlsr.html",
            Page::Dinuzzo => "dinuzzo.html",
            Page::Perceptron => "perceptron.html",
        }
    }

    /// The paper whose spec the page runs.
    pub fn paper(self) -> Paper {
        match self {
            Page::Lp => Paper::Lp,
            Page::Mrlsr => Paper::Mrlsr,
            Page::Dinuzzo => Paper::Dinuzzo,
            Page::Perceptron => Paper::Perceptron,
        }
    }
}

/// A page action a step runs instead of Play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Paper B: refit at the step's `to` (m, λ).
    Fit,
    /// Paper B: the weak-equivalence experiment on four parts of the data.
    Equivalence,
    /// Paper A: build the Gram tensor in a worker, then run.
    Build,
}

/// Play speed: iterations per second, or `"max"`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Speed {
    /// Iterations (sweeps) per second, 0.1 to 10⁶.
    Rate(f64),
    /// As fast as the page can.
    Max(String),
}

/// Paper B: the (m, λ) a step's fit moves to from its spec's.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FitTo {
    /// The new m.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub m: Option<f64>,
    /// The new λ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lambda: Option<f64>,
}

/// One step: the page set to `spec`, what to look at, the question, the explanation, the
/// paper's reference and the claims the run must show.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// The step's heading.
    pub title: String,
    /// The page's spec (the page's own fields; parsed by [`Spec::from_json_for`]); `None` when
    /// the step gives a [`Step::patch`] instead (after [`Lesson::parse`], always `Some`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<Value>,
    /// What changes from the previous step's spec, as a JSON merge patch (RFC 7386: an object's
    /// fields replace or, when `null`, remove the previous ones; any other value replaces):
    /// exactly one of `spec` and `patch`, and the first step gives `spec`. [`Lesson::parse`]
    /// resolves it into `spec`, so the page and `kplay lesson check` run the same spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<Value>,
    /// Paper B: the fit's (m, λ) (with `action: "fit"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<FitTo>,
    /// A page action instead of Play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Action>,
    /// The page's `data-` attribute and value that say the action has finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<[String; 2]>,
    /// Element ids of the controls, readouts and plots the step names.
    pub uses: Vec<String>,
    /// Extra figures to show (element ids inside them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figures: Option<Vec<String>>,
    /// Element ids the page hides until the step's run has ended (a caption, readout or label
    /// that would give the answer away before it; www/lesson.js).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hide_until_run: Option<Vec<String>>,
    /// Play speed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<Speed>,
    /// What to look at (text format: docs/lessons.md).
    pub look: String,
    /// The question for the class, before the run.
    pub predict: String,
    /// The explanation, after the run.
    pub explain: String,
    /// The paper's theorem, equation or figure the step shows (or "ours").
    pub reference: String,
    /// The step's claims, checked by `kplay lesson check`.
    pub claims: Vec<Claim>,
}

/// One checked statement: `lhs rel rhs` (or `lhs between range`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Unique within the step; the text quotes the claim's bound as `{=id}`.
    pub id: String,
    /// The claim in words (printed by `kplay lesson check`).
    pub says: String,
    /// The measured quantity.
    pub lhs: Quantity,
    /// The relation.
    pub rel: Relation,
    /// The other side (every relation but `between`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rhs: Option<Quantity>,
    /// `between`: the closed interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<[Quantity; 2]>,
    /// `within`: the relative tolerance |lhs − rhs| ≤ tol·|rhs|.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tol: Option<f64>,
    /// The paper's theorem or equation the claim rests on (or "ours").
    pub reference: String,
    /// This claim is the answer to the step's prediction.
    #[serde(default)]
    pub answers: bool,
}

/// How the two sides compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Relation {
    /// lhs < rhs.
    #[serde(rename = "<")]
    Lt,
    /// lhs ≤ rhs.
    #[serde(rename = "<=")]
    Le,
    /// lhs > rhs.
    #[serde(rename = ">")]
    Gt,
    /// lhs ≥ rhs.
    #[serde(rename = ">=")]
    Ge,
    /// Equal (numbers exactly, or the same text).
    #[serde(rename = "==")]
    Eq,
    /// Not equal.
    #[serde(rename = "!=")]
    Ne,
    /// |lhs − rhs| ≤ tol·|rhs|.
    #[serde(rename = "within")]
    Within,
    /// range[0] ≤ lhs ≤ range[1].
    #[serde(rename = "between")]
    Between,
}

impl Relation {
    /// The symbol printed.
    pub fn symbol(self) -> &'static str {
        match self {
            Relation::Lt => "<",
            Relation::Le => "≤",
            Relation::Gt => ">",
            Relation::Ge => "≥",
            Relation::Eq => "=",
            Relation::Ne => "≠",
            Relation::Within => "≈",
            Relation::Between => "∈",
        }
    }
}

/// A literal: a number or a word (a status).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Literal {
    /// A number.
    Num(f64),
    /// A word.
    Text(String),
}

/// A re-run of the step's spec with some fields set (dotted paths; `null` removes the field).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rerun {
    /// Dotted path → new value.
    pub set: BTreeMap<String, Value>,
    /// The report path read from the re-run.
    pub of: String,
}

/// A quantity: a literal, a run's measure, the spec's value, a re-run, an independent
/// computation, or arithmetic on quantities.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Quantity {
    /// A literal number or word.
    Value(Literal),
    /// This step's `kplay run` report at a dotted path (`iterations`, `solution.C0`,
    /// `solution.support.len`).
    Run(String),
    /// An earlier step's report: `[k, path]`, k counted from 1.
    Step(usize, String),
    /// This step's spec (after `to`) at a dotted path.
    Spec(String),
    /// This step's spec re-run with fields changed.
    Rerun(Rerun),
    /// An independent computation on this step's data and run ([`compute::Compute`]).
    Compute(compute::Compute),
    /// An independent computation on an earlier step: `[k, name]`.
    StepCompute(usize, compute::Compute),
    /// a + b.
    Add(Box<[Quantity; 2]>),
    /// a − b.
    Sub(Box<[Quantity; 2]>),
    /// a · b.
    Mul(Box<[Quantity; 2]>),
    /// a / b.
    Div(Box<[Quantity; 2]>),
    /// a^b.
    Pow(Box<[Quantity; 2]>),
    /// Natural logarithm.
    Ln(Box<Quantity>),
    /// Square root.
    Sqrt(Box<Quantity>),
    /// Absolute value.
    Abs(Box<Quantity>),
}

/// The paper of the page and each step's spec, parsed (the spec after `to`).
#[derive(Debug)]
pub struct Parsed {
    /// The lesson as written.
    pub lesson: Lesson,
    /// Each step's effective spec.
    pub specs: Vec<Spec>,
    /// Each step's effective spec as JSON (for re-runs and `spec` quantities).
    pub spec_values: Vec<Value>,
}

fn short(field: &str, s: &str, max: usize) -> Result<(), String> {
    if s.trim().is_empty() {
        return Err(format!("{field}: must not be empty"));
    }
    if s.chars().count() > max {
        return Err(format!("{field}: at most {max} characters (got {})", s.chars().count()));
    }
    Ok(())
}

fn path_ok(field: &str, p: &str) -> Result<(), String> {
    short(field, p, MAX_SHORT)?;
    let good = p
        .split('.')
        .all(|seg| !seg.is_empty() && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    if good {
        Ok(())
    } else {
        Err(format!("{field}: `{}` is not a dotted path of letters, digits and _", clip(p)))
    }
}

fn id_ok(field: &str, id: &str) -> Result<(), String> {
    let good = !id.is_empty()
        && id.len() <= 32
        && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if good {
        Ok(())
    } else {
        Err(format!("{field}: `{}` must be 1–32 of a–z, 0–9, _ and -", clip(id)))
    }
}

fn finite(field: &str, x: f64) -> Result<(), String> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(format!("{field}: must be a finite number"))
    }
}

/// Check a quantity's references and depth; `step` is the 1-based step it belongs to.
/// A measure path of a run of `page` (docs/lessons.md: the measures a claim may read).
fn measure_ok(field: &str, page: Page, p: &str) -> Result<(), String> {
    path_ok(field, p)?;
    measures::check(page, p).map_err(|e| format!("{field}: {e}"))
}

fn quantity_ok(
    field: &str,
    page: Page,
    q: &Quantity,
    step: usize,
    depth: usize,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("{field}: nested deeper than {MAX_DEPTH}"));
    }
    let sub = |name: &str, q: &Quantity| {
        quantity_ok(&format!("{field}.{name}"), page, q, step, depth + 1)
    };
    match q {
        Quantity::Value(Literal::Num(x)) => finite(&format!("{field}.value"), *x),
        Quantity::Value(Literal::Text(t)) => short(&format!("{field}.value"), t, MAX_SHORT),
        Quantity::Run(p) => measure_ok(&format!("{field}.run"), page, p),
        Quantity::Spec(p) => path_ok(field, p),
        Quantity::Step(k, p) => {
            if *k == 0 || *k >= step {
                return Err(format!(
                    "{field}.step: {k} is not an earlier step (steps count from 1; this is step {step})"
                ));
            }
            measure_ok(&format!("{field}.step"), page, p)
        }
        Quantity::Rerun(r) => {
            if r.set.is_empty() || r.set.len() > 16 {
                return Err(format!("{field}.rerun.set: 1 to 16 fields"));
            }
            for k in r.set.keys() {
                path_ok(&format!("{field}.rerun.set"), k)?;
            }
            measure_ok(&format!("{field}.rerun.of"), page, &r.of)
        }
        Quantity::Compute(_) => Ok(()),
        Quantity::StepCompute(k, _) => {
            if *k == 0 || *k >= step {
                return Err(format!(
                    "{field}.step_compute: {k} is not an earlier step (this is step {step})"
                ));
            }
            Ok(())
        }
        Quantity::Add(b)
        | Quantity::Sub(b)
        | Quantity::Mul(b)
        | Quantity::Div(b)
        | Quantity::Pow(b) => {
            sub("0", &b[0])?;
            sub("1", &b[1])
        }
        Quantity::Ln(a) | Quantity::Sqrt(a) | Quantity::Abs(a) => sub("0", a),
    }
}

/// The ids `{=id}` a text quotes, after checking its syntax (docs/lessons.md): balanced `$…$`
/// and `$$…$$`, `**`/`*`/`` ` `` pairs closed in each paragraph, only the allowed TeX commands.
pub fn text_placeholders(field: &str, text: &str) -> Result<Vec<String>, String> {
    short(field, text, MAX_TEXT)?;
    if text.chars().any(|c| c.is_control() && c != '\n') {
        return Err(format!("{field}: control characters other than a newline"));
    }
    let mut ids = Vec::new();
    for (pi, para) in text.split("\n\n").enumerate() {
        let pf = format!("{field} (paragraph {})", pi + 1);
        let dollars = para.matches('$').count();
        if !dollars.is_multiple_of(2) {
            return Err(format!("{pf}: an unclosed $ (math is $…$ or $$…$$)"));
        }
        // Split into math and prose by $.
        for (k, piece) in para.split('$').enumerate() {
            if k % 2 == 1 {
                math_ok(&pf, piece)?;
            } else {
                // Escaped characters (a backslash and the next character) are literal.
                let plain: String = {
                    let mut out = String::new();
                    let mut it = piece.chars();
                    while let Some(c) = it.next() {
                        if c == '\\' {
                            it.next();
                        } else {
                            out.push(c);
                        }
                    }
                    out
                };
                let piece = plain.as_str();
                let ticks = piece.matches('`').count();
                if !ticks.is_multiple_of(2) {
                    return Err(format!("{pf}: an unclosed ` (code)"));
                }
                let stars = piece.matches("**").count();
                if !stars.is_multiple_of(2) {
                    return Err(format!("{pf}: an unclosed ** (bold)"));
                }
            }
            let mut rest = piece;
            while let Some(open) = rest.find("{=") {
                let after = &rest[open + 2..];
                let Some(close) = after.find('}') else {
                    return Err(format!("{pf}: a placeholder {{=id}} without its }}"));
                };
                let inner = &after[..close];
                if k % 2 == 1 {
                    return Err(format!("{pf}: a placeholder {{={}}} inside math", clip(inner)));
                }
                id_ok(&format!("{pf}: placeholder"), inner)?;
                ids.push(inner.to_string());
                rest = &after[close + 1..];
            }
        }
    }
    Ok(ids)
}

fn math_ok(field: &str, m: &str) -> Result<(), String> {
    let mut depth = 0i32;
    let chars: Vec<char> = m.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth < 0 {
                    return Err(format!("{field}: a `}}` without `{{` in math `{}`", clip(m)));
                }
            }
            '\\' => {
                let start = i + 1;
                let mut j = start;
                while j < chars.len() && chars[j].is_ascii_alphabetic() {
                    j += 1;
                }
                let name: String = chars[start..j].iter().collect();
                if name.is_empty() {
                    // \{ \} \, \| and friends: one escaped character.
                    i += 2;
                    continue;
                }
                if !tex::known(&name) {
                    let shown: String = name.chars().take(40).collect();
                    let near = tex::TEX
                        .iter()
                        .map(|(n, _)| (elements::distance(&name, n), *n))
                        .filter(|(d, _)| *d <= 2)
                        .min();
                    let hint = match near {
                        Some((_, n)) => format!("; did you mean \\{n}?"),
                        None => " (docs/lessons.md lists the commands)".to_string(),
                    };
                    return Err(format!("{field}: unknown math command \\{shown}{hint}"));
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if depth != 0 {
        return Err(format!("{field}: unbalanced braces in math `{}`", clip(m)));
    }
    Ok(())
}

/// Look up a dotted path in a JSON value: object keys, array indices, and `len` (an array's length).
pub fn lookup(v: &Value, path: &str) -> Result<Value, String> {
    let mut cur = v;
    let segs: Vec<&str> = path.split('.').collect();
    for (i, seg) in segs.iter().enumerate() {
        cur = match cur {
            Value::Object(m) => match m.get(*seg) {
                Some(x) => x,
                None => return Err(format!("`{}`: no field `{}`", clip(path), clip(seg))),
            },
            Value::Array(a) if *seg == "len" && i + 1 == segs.len() => {
                return Ok(Value::from(a.len()))
            }
            Value::Array(a) => match seg.parse::<usize>().ok().and_then(|k| a.get(k)) {
                Some(x) => x,
                None => return Err(format!("`{}`: no element `{}`", clip(path), clip(seg))),
            },
            _ => {
                return Err(format!("`{}`: `{}` is inside a number or word", clip(path), clip(seg)))
            }
        };
    }
    Ok(cur.clone())
}

/// Set `value` at a dotted path of a JSON object (creating objects on the way); `null` removes.
pub fn set_path(root: &mut Value, path: &str, value: Value) -> Result<(), String> {
    let segs: Vec<&str> = path.split('.').collect();
    let mut cur = root;
    for seg in &segs[..segs.len() - 1] {
        let Value::Object(m) = cur else {
            return Err(format!("`{}`: `{}` is inside a non-object", clip(path), clip(seg)));
        };
        cur = m.entry(seg.to_string()).or_insert_with(|| Value::Object(Default::default()));
    }
    let Value::Object(m) = cur else {
        return Err(format!("`{}`: not inside an object", clip(path)));
    };
    let last = segs[segs.len() - 1].to_string();
    if value.is_null() {
        m.remove(&last);
    } else {
        m.insert(last, value);
    }
    Ok(())
}

/// A step's spec with its `to` applied.
fn effective_spec(step: &Step) -> Value {
    let mut v = step.spec.clone().unwrap_or(Value::Null);
    if let (Some(to), Value::Object(m)) = (&step.to, &mut v) {
        if let Some(x) = to.m {
            m.insert("m".into(), x.into());
        }
        if let Some(x) = to.lambda {
            m.insert("lambda".into(), x.into());
        }
    }
    v
}

/// Parse a spec value for a page strictly, naming the field.
pub fn parse_spec(field: &str, page: Page, v: &Value) -> Result<Spec, String> {
    if !v.is_object() {
        return Err(format!("{field}: must be a JSON object"));
    }
    Spec::from_json_for(page.paper(), &v.to_string()).map_err(|e| format!("{field}: {e}"))
}

impl Lesson {
    /// Parse and validate a lesson file: strict fields, sizes, every step's spec (the page's
    /// parser), claims' references, the text syntax and its `{=id}` placeholders. The message
    /// names the field, e.g. `steps[3].claims[1].rel: …`.
    pub fn parse(text: &str) -> Result<Parsed, String> {
        if text.len() > MAX_BYTES {
            return Err(format!(
                "the lesson is {} bytes; a lesson is at most {MAX_BYTES} bytes (256 KiB, a fixed limit of the lesson format, the same in the page and in kplay)",
                text.len()
            ));
        }
        // One leading byte-order mark is skipped (the page's UTF-8 decoding drops it too), and a
        // number too large for f64 is named with its field (crate::spec_json::parse_json).
        let value: Value = crate::spec_json::parse_json(text)?;
        let lesson: Lesson = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            let inner = shorten_expected(&clip_quoted(&e.into_inner().to_string()));
            if path == "." {
                inner
            } else {
                format!("{}: {inner}", clip(&path))
            }
        })?;
        lesson.validate()
    }

    fn validate(mut self) -> Result<Parsed, String> {
        if self.format != 1 {
            return Err(format!("format: this is format 1 (got {})", self.format));
        }
        short("title", &self.title, MAX_SHORT)?;
        if self.steps.is_empty() || self.steps.len() > MAX_STEPS {
            return Err(format!("steps: 1 to {MAX_STEPS} steps (got {})", self.steps.len()));
        }
        patch::resolve(&mut self.steps)?;
        let mut specs = Vec::new();
        let mut spec_values = Vec::new();
        for (i, s) in self.steps.iter().enumerate() {
            let f = format!("steps[{i}]");
            short(&format!("{f}.title"), &s.title, MAX_SHORT)?;
            short(&format!("{f}.reference"), &s.reference, MAX_SHORT)?;
            if s.uses.len() > 24 {
                return Err(format!("{f}.uses: at most 24 element ids"));
            }
            if s.figures.as_ref().is_some_and(|v| v.len() > 24) {
                return Err(format!("{f}.figures: at most 24 element ids"));
            }
            let named = s.uses.iter().map(|u| ("uses", u)).enumerate();
            let figures = s.figures.iter().flatten().map(|u| ("figures", u)).enumerate();
            for (j, (list, u)) in named.chain(figures) {
                if !elements::known(self.page, u) {
                    let m = elements::unknown_message(self.page, u);
                    return Err(format!("{f}.{list}[{j}]: {m}"));
                }
            }
            let hide = s.hide_until_run.iter().flatten();
            if hide.clone().count() > 24 {
                return Err(format!("{f}.hide_until_run: at most 24 element ids"));
            }
            for (j, u) in hide.enumerate() {
                if !elements::known(self.page, u) {
                    let m = elements::unknown_message(self.page, u);
                    return Err(format!("{f}.hide_until_run[{j}]: {m}"));
                }
            }
            match &s.speed {
                Some(Speed::Rate(r)) if !(r.is_finite() && (0.1..=1e6).contains(r)) => {
                    return Err(format!("{f}.speed: 0.1 to 10⁶ iterations per second, or \"max\""))
                }
                Some(Speed::Max(w)) if w != "max" => {
                    return Err(format!("{f}.speed: a number or \"max\" (got \"{}\")", clip(w)))
                }
                _ => {}
            }
            match (self.page, s.action) {
                (Page::Mrlsr, Some(Action::Fit)) if s.to.is_none() => {
                    return Err(format!("{f}.to: action \"fit\" needs to: {{m, lambda}}"))
                }
                (Page::Mrlsr, Some(Action::Fit | Action::Equivalence))
                | (Page::Lp, Some(Action::Build))
                | (_, None) => {}
                (_, Some(a)) => {
                    return Err(format!("{f}.action: {a:?} is not an action of {:?}", self.page))
                }
            }
            if s.to.is_some() && s.action != Some(Action::Fit) {
                return Err(format!("{f}.to: only with action \"fit\""));
            }
            if let Some(to) = &s.to {
                for (name, x) in [("m", to.m), ("lambda", to.lambda)] {
                    if let Some(x) = x {
                        finite(&format!("{f}.to.{name}"), x)?;
                    }
                }
            }
            if let Some([k, v]) = &s.until {
                let ok = |t: &str| {
                    !t.is_empty() && t.len() <= 40 && t.chars().all(|c| c.is_ascii_alphanumeric())
                };
                if !ok(k) || !ok(v) {
                    return Err(format!("{f}.until: [data attribute, value], letters and digits"));
                }
            }
            let eff = effective_spec(s);
            specs.push(parse_spec(&format!("{f}.spec"), self.page, &eff)?);
            spec_values.push(eff);
            if s.claims.is_empty() || s.claims.len() > MAX_CLAIMS {
                return Err(format!("{f}.claims: 1 to {MAX_CLAIMS} claims"));
            }
            if !s.claims.iter().any(|c| c.answers) {
                return Err(format!(
                    "{f}.claims: no claim has \"answers\": true (every prediction declares its answer)"
                ));
            }
            let mut ids = BTreeSet::new();
            let mut quotable = BTreeSet::new();
            for (j, c) in s.claims.iter().enumerate() {
                let cf = format!("{f}.claims[{j}]");
                id_ok(&format!("{cf}.id"), &c.id)?;
                if !ids.insert(c.id.clone()) {
                    return Err(format!("{cf}.id: `{}` is used twice in the step", c.id));
                }
                short(&format!("{cf}.says"), &c.says, MAX_SHORT)?;
                short(&format!("{cf}.reference"), &c.reference, MAX_SHORT)?;
                quantity_ok(&format!("{cf}.lhs"), self.page, &c.lhs, i + 1, 0)?;
                match (c.rel, &c.rhs, &c.range) {
                    (Relation::Between, None, Some(r)) => {
                        quantity_ok(&format!("{cf}.range[0]"), self.page, &r[0], i + 1, 0)?;
                        quantity_ok(&format!("{cf}.range[1]"), self.page, &r[1], i + 1, 0)?;
                    }
                    (Relation::Between, _, _) => {
                        return Err(format!(
                            "{cf}.range: \"between\" takes range: [low, high] and no rhs"
                        ))
                    }
                    (_, Some(r), None) => {
                        quantity_ok(&format!("{cf}.rhs"), self.page, r, i + 1, 0)?;
                        if matches!(r, Quantity::Value(Literal::Num(_))) {
                            quotable.insert(c.id.clone());
                        }
                    }
                    (_, _, _) => {
                        return Err(format!("{cf}.rhs: the relation needs rhs (and no range)"))
                    }
                }
                match (c.rel, c.tol) {
                    (Relation::Within, Some(t)) if (0.0..1.0).contains(&t) => {}
                    (Relation::Within, _) => {
                        return Err(format!(
                            "{cf}.tol: \"within\" needs a relative tolerance in [0, 1)"
                        ))
                    }
                    (_, Some(_)) => return Err(format!("{cf}.tol: only with \"within\"")),
                    _ => {}
                }
            }
            for (name, text) in
                [("look", &s.look), ("predict", &s.predict), ("explain", &s.explain)]
            {
                for id in text_placeholders(&format!("{f}.{name}"), text)? {
                    if !quotable.contains(&id) {
                        return Err(format!(
                            "{f}.{name}: {{={id}}} names no claim of this step with a number as rhs"
                        ));
                    }
                }
            }
        }
        let parsed = Parsed { lesson: self, specs, spec_values };
        compute::check_costs(&parsed)?;
        Ok(parsed)
    }
}

/// The wasm export the pages call on a lesson from a file or a link: `""` when valid, else the
/// message naming the field (the same parser as `kplay lesson check`).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = checkLesson)]
pub fn check_lesson(json: &str) -> String {
    match Lesson::parse(json) {
        Ok(_) => String::new(),
        Err(e) => e,
    }
}

/// The wasm export the pages open a lesson with: `{"lesson": …}`, the lesson as the parser
/// resolved it (every step's `patch` merged into a whole `spec`, so the page runs exactly what
/// `kplay lesson check` runs), or `{"error": "…"}` naming the field.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = resolveLesson)]
pub fn resolve_lesson(json: &str) -> String {
    match Lesson::parse(json) {
        Ok(p) => serde_json::json!({ "lesson": p.lesson }).to_string(),
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}
