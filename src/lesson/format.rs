//! The lesson format as data: the types a lesson file deserializes into (docs/lessons.md), its
//! size limits, and the JSON-path helpers the checker and the claims' computations share. Below
//! every other lesson module, so none of them imports [`crate::lesson`] itself.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::clip;
use crate::papers::{Paper, Spec};

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
    /// An independent computation on this step's data and run ([`Compute`]).
    Compute(Compute),
    /// An independent computation on an earlier step: `[k, name]`.
    StepCompute(usize, Compute),
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

/// Parse a spec value for a page strictly, naming the field.
pub fn parse_spec(field: &str, page: Page, v: &Value) -> Result<Spec, String> {
    if !v.is_object() {
        return Err(format!("{field}: must be a JSON object"));
    }
    Spec::from_json_for(page.paper(), &v.to_string()).map_err(|e| format!("{field}: {e}"))
}

/// The array of numbers at a dotted path ([`lookup`]).
pub fn vector(v: &Value, path: &str) -> Result<Vec<f64>, String> {
    lookup(v, path)?
        .as_array()
        .ok_or_else(|| format!("`{path}` is not an array"))?
        .iter()
        .map(|x| x.as_f64().ok_or_else(|| format!("`{path}` has a non-number")))
        .collect()
}

/// What to compute (docs/lessons.md lists the papers each applies to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Compute {
    /// C, square loss: F(c) = ‖Kc − y‖²/(2λ) + cᵀKc/2 at the closed form c = (K + λI)⁻¹y.
    RlsObjective,
    /// B: ‖f‖_H of kernel ridge, α = (K + nλI)⁻¹y (Theorem 1 at m = 2).
    KrrNorm,
    /// C: the largest violation of 0 ∈ ∂f(Kc) + c by the run's c (square, hinge,
    /// ε-insensitive loss), relative to 1/λ.
    KktViolation,
    /// C: points with yᵢ(Kc)ᵢ < 1 (hinge) or |yᵢ − (Kc)ᵢ| > ε (ε-insensitive), by the run's c.
    StrictlyActive,
    /// C: support vectors (cᵢ ≠ 0) on the margin or the tube's edge (within 10⁻⁵).
    OnEdge,
    /// ‖K‖₂ of the Gaussian Gram matrix built here.
    GramNorm,
    /// λ_min(K)/‖K‖₂.
    GramMinEigRatio,
    /// The smallest distance between two data points.
    MinPairDistance,
    /// A: how many of the true support's indices the k largest |wⱼ| find (k = |supp w*|).
    Recovered,
    /// A: entries of w above τ = 0.1·max|w|.
    AboveTau,
    /// A: the median step the linesearch accepted over the run.
    MedianStep,
    /// A: the smallest step the linesearch accepted over the run's trace (§2.3: for primal GD the
    /// steps may get arbitrarily close to zero; this shows whether they do on a run).
    MinStep,
    /// A: the largest step the linesearch accepted over the run's trace.
    MaxStep,
    /// A: 1/Πₘ(1 − (2/γ)λₘ(1 − δ)) over the trace's accepted steps λₘ (δ of the spec, 0.5 by
    /// default): the decrease of Λ − min Λ that the proof of Theorem 2.2 (eq. 29) guarantees
    /// over the run, each iteration's factor taken at its own step.
    StepFactorDecrease,
    /// C: max|h| of the last sweep over that of the one before (growth per sweep).
    LastGrowth,
    /// B: the positive root of Theorem 1's F (bisection on the eigendecomposition built here).
    FRoot,
    /// B: the largest second difference of F on [0, 2C₀] (200 steps), over max|F| (< 0: strictly concave).
    FMaxSecondDiff,
    /// B: the smallest second difference of F on [0, 2C₀], over max|F| (> 0: strictly convex).
    FMinSecondDiff,
    /// B: the largest first difference of F on [0, 2C₀] (< 0: decreasing).
    FMaxFirstDiff,
    /// B, a `fit` step (1-D data): max over 1001 evenly spaced x in [min x, max x] of
    /// |f_end(x) − f_start(x)|, f_start M-RLSR at the step's spec before `to`, f_end after it,
    /// both solved here by Theorem 1 (eigendecomposition and bisection here, Gaussian Gram and
    /// μ built here).
    FitMaxMove,
    /// B, the same: where that largest move is, as a fraction of the x-range (0: the left end,
    /// 1: the right end).
    FitMaxMoveAt,
    /// B, Fig. 1 as the page's equivalence experiment runs it (4 parts split by the data's seed,
    /// λ chosen on Z₁ by the engine's 10-fold CV): on Z₁, ‖f_M(λ) − f_KRR(λ₂)‖_H / ‖f_M(λ)‖_H
    /// with M-RLSR by Theorem 1 here, λ₂ = (m/2)C₀(Z₁)λ and kernel ridge by Cholesky here,
    /// one Gaussian width (the whole sample's, computed here) for every part.
    EquivalenceGapFirst,
    /// B, the same relative distance on every other part Z₂…Z₄ at Z₁'s (λ, λ₂): the smallest.
    EquivalenceGapOthersMin,
    /// B, the same experiment: each part's own λ₂ = (m/2)C₀(Zₖ)λ at the λ chosen on Z₁ (C₀ the
    /// root of F on Zₖ, Theorem 1 here): the largest over the smallest.
    EquivalenceOwnLambda2Ratio,
    /// A: entries of w that are not exactly 0.
    NonZero,
    /// A, C: the smallest primal − dual over the trace (≥ 0 at every kept iterate: weak duality).
    TraceMinGap,
    /// B: max|f − f_KRR| / max|f| between the run's f = Kα and kernel ridge at the run's λ₂,
    /// K(K + nλ₂I)⁻¹y (Proposition 5.1).
    KrrTwinGap,
    /// A: card(𝕂) of the polynomial tensor kernel of degree s on d features, C(d + s − 1, s).
    PolyFeatureCount,
    // ---- Paper B, uniform stability (Definition 4.2: A(λ, Z) against A(λ, Zⁱ), Zⁱ = Z minus
    // its i-th point, at the same λ). Each removes every point in turn from the step's data
    // (a fixed Gaussian μ: the heuristic one would change the kernel with the sample) and
    // solves M-RLSR on Zⁱ by Theorem 1 here (our eigendecomposition and bisection on F).
    /// B: maxᵢ |λ₂(λ, Zⁱ) − λ₂(λ, Z)| / λ₂(λ, Z), λ₂ = (m/2)C₀λ (Proposition 5.1's Φ).
    LooMaxLambda2Change,
    /// B: λ₂(λ, Zⁱ*) for the point i* whose removal moves λ₂ the most.
    LooWorstLambda2,
    /// B: at that i*, ‖f_M(λ, Zⁱ*) − f_KRR(λ₂(λ, Z), Zⁱ*)‖_H / ‖f_M(λ, Zⁱ*)‖_H: kernel ridge
    /// at the λ₂ of the full sample, refitted on Zⁱ*, against M-RLSR at λ on Zⁱ*.
    LooFixedLambda2Gap,
    /// B: at that i*, the same with kernel ridge at Zⁱ*'s own λ₂(λ, Zⁱ*) (≈ 0: weak equivalence).
    LooOwnLambda2Gap,
    /// B: maxᵢ ‖f_Z − f_Zⁱ‖_H for M-RLSR at (m, λ) (the quantity Theorem 3's proof bounds).
    LooMaxChange,
    /// B: Theorem 3's bound on ‖f_Z − f_Zⁱ‖_H, (2^(m−2) Cκ/(λn))^(1/(m−1)) with
    /// C = 2(C_y + κ(C_y²/λ)^(1/m)) (Lemma D.2), C_y = maxᵢ|yᵢ| on Z, κ = 1 (Gaussian k(x, x) = 1).
    Theorem3Bound,
    // ---- Paper B, §4's Example: A = kernel ridge (2) at λ, B = kernel ridge with the
    // regularizer λ/|Z| instead of λ; weakly equivalent with Φ(λ, Z) = λ|Z|. Closed forms built
    // here (Cholesky), each point removed in turn (fixed Gaussian μ).
    /// B, §4's Example: maxᵢ ‖B(λ_B, Z) − B(λ_B, Zⁱ)‖_H with λ_B = |Z|·λ (the spec's λ, so that
    /// B(λ_B) = A(λ) on Z): α = (K + λ_B I)⁻¹y on Z and (Kⁱ + λ_B I)⁻¹yⁱ on Zⁱ (B's regularizer
    /// λ_B/|Zⁱ| on Zⁱ).
    ExampleLooMaxChange,
    /// B, Lemma 4.3 at m = 2: maxᵢ ‖A(λ, Z) − A(λ, Zⁱ)‖_H for A = kernel ridge (2) at the spec's
    /// fixed λ, α = (K + nλI)⁻¹y on Z and (Kⁱ + (n − 1)λI)⁻¹yⁱ on Zⁱ (Cholesky here), to compare
    /// with M-RLSR's `loo_max_change` (Theorem 1's eigendecomposition).
    KrrLooMaxChange,
    /// B, §4's Example: the least-squares slope of ln maxᵢ ‖A(λ, Z) − A(λ, Zⁱ)‖_H against ln n
    /// over the step's generator at n/8, n/4, n/2, n (same seed), kernel ridge (2) at the spec's
    /// fixed λ, α = (K + nλI)⁻¹y (≈ −1: the change shrinks like 1/n).
    ScanKrrChangeSlope,
    /// B, §4's Example: the same slope for B at the fixed λ_B = N·λ (N the step's n), α = (K + λ_B I)⁻¹y.
    ScanExampleChangeSlope,
    /// B, Assumption 1 (part 2) of Proposition 4.7: the same slope for maxᵢ |λ₂(λ, Zⁱ) − λ₂(λ, Z)|,
    /// λ₂ = (m/2)C₀λ (Proposition 5.1) at the spec's (m, λ), C₀ by Theorem 1 here.
    ScanLambda2MoveSlope,
    // ---- Paper A (Salzo–Suykens–Rosasco), issue 19 section 2: eq. (10), Proposition 3.2,
    // eq. (14). Built here from the data and the run's α (X, y, p, γ of the spec).
    /// A, eq. (10): max_j |wⱼ − J_q(Xᵀα)ⱼ| / max|w|, the run's w against the representer
    /// theorem applied here to the run's α (features path, linear kernel).
    RepresenterGap,
    /// A, Proposition 3.2 with the gap: √([(2ᵖq)(Λ(α) + γ‖y‖²/2)]^((2−p)/p) · gap(α) / C_p),
    /// Λ, F and gap(α) = F(J_q(Xᵀα)) + Λ(α) ≥ Λ(α) − min Λ computed here from the run's α;
    /// C_p = (p − 1)/2 is ours (the paper leaves C_p unspecified; proof in docs/paper-a.md).
    Prop32Bound,
    /// A: ‖w − w̄‖_p between the run's w and w̄ of dual Newton at relative gap 10⁻¹³ (another
    /// algorithm at a tighter tolerance, run here).
    DistToOptimum,
    /// A, eq. (14) / Remark 2.4 (q = 4): max_m |f_α(x_m) − ⟨w, Φ(x_m)⟩| / max_m |⟨w, Φ(x_m)⟩|, with
    /// f_α(x) = Σ_ijk K(x_i, x_j, x_k, x) α_i α_j α_k summed here over the tensor kernel (linear or
    /// polynomial s ≤ 2) and w = J_q(Φ_n*α) from explicit features (x, or the pairs x_t x_u).
    PredictorFeatureGap,
    /// A, eq. (14) and the KKT conditions (eq. 23, square loss): max_m |f_α(x_m) − (y_m − α_m/γ)|
    /// / max|y|, f_α summed here over the tensor kernel as for `predictor_feature_gap`, or over
    /// the exponential tensor kernel exp(sum(x'_1 ⊙ ⋯ ⊙ x'_4)) (Section 2.2, no finite features).
    PredictorKkt,
    // Paper A, §2.3 and §3: src/lesson/compute/paper_a.rs.
    /// A, Algorithm 2.1 as printed (eq. 17–18, q = 4, square loss) replayed here on the Gram
    /// tensor built entry by entry as the n² × n² matrix [K]: the accepted steps until the
    /// relative gap reaches the spec's tolerance.
    Alg21TensorIterations,
    /// A: −Λ(α) of eq. (17) at the end of that replay (the run's `dual` is −Λ too).
    Alg21TensorDual,
    /// A: the median accepted step λ_m of that replay.
    Alg21TensorMedianStep,
    /// A, Theorem 3.1 (eq. 20, 22): F(w) + Λ(α) over |F| at the run's α, w = J_q(Xᵀα), with the
    /// loss and its conjugate written here (hinge, logistic, square; linear kernel, features).
    GeneralLossRelGap,
    /// A: the gap at the trace's last record over the gap at half its iterations (≈ 1/2 for a
    /// gap falling like 1/m; r^(M/2) for a linear rate r).
    TraceGapHalfDrop,
    /// A: the least-squares slope of ln(gap) against the iteration over the trace's records in
    /// 3M/4…M over the same over M/2…3M/4 (M the trace's last iteration): ≈ 1 for a straight
    /// fall on the log plot (a linear rate), ≈ 0.71 for any power law m^(−k).
    TraceGapRateRatio,
    /// A: Algorithm 2.1 replayed as `alg21_tensor_iterations`, on the same data, γ, δ, θ and
    /// tolerance, with the linear tensor kernel in place of the step's: its iterations.
    Alg21LinearIterations,
    /// A: the median accepted step of that linear-kernel replay.
    Alg21LinearMedianStep,
    /// A: the smallest accepted step of that linear-kernel replay.
    Alg21LinearMinStep,
    /// A: the largest accepted step of that linear-kernel replay.
    Alg21LinearMaxStep,
    // Paper D (Ramdas–Peña): src/lesson/compute/paper_d.rs.
    /// D: ρ_K of the linear kernel on 2-D data by brute force over directions, from the data
    /// alone: −ρ_K is the radius of the largest ball about 0 inside the hull of the yᵢxᵢ/‖xᵢ‖
    /// when negative (Theorem 3), ρ_K the hull's distance from 0 when positive (Lemma 3).
    PlaneRho,
    /// D: the least ‖p_k‖_G over the run's trace (Lemma 3: each is ≥ ρ_K).
    TraceMinNormP,
    /// D: the share of Σ pᵢ held by the three largest pᵢ of the run's p.
    PTop3Mass,
    /// D: ‖1/n‖_G for the linear kernel from the data alone, ‖(1/n)Σᵢ yᵢxᵢ/‖xᵢ‖‖₂ (the q of
    /// SNKPVN(1/n, δ) in Lemma 9's bound).
    UniformNormG,
    // ---- Paper C (Dinuzzo), lesson C's main results (issue 19 §2): src/lesson/compute/paper_c.rs.
    /// C: max|cᵢ − (−J₁(zᵢ − cᵢ))|·λ with z = Kc built here and −J₁ Table 1's printed operator at
    /// α = 1 (where the printed entries hold): eq. 7's residual for the run's c.
    Table1Residual,
    /// C: the same with Table 1's formula as printed, read at the fixed point's step α (v = αz − c):
    /// large at a solution when α ≠ 1 (DIGEST erratum).
    Table1PrintedAtStep,
    /// C: the same with the operator derived at the step α, −J_α(v) = α·P_α(v/α).
    Table1CorrectedAtStep,
    /// C: the largest fall of the dual D from one sweep to the next over the trace, over max|D|.
    DualMaxDrop,
    /// C: sweeps of the trace in which the primal F rose (by more than 10⁻¹²·|F|).
    PrimalRises,
    /// C: the largest rise of F in one sweep of the trace.
    PrimalMaxRise,
    /// C: max|∇F₁(c)|·λ of Theorem 5's functional at α = 1, F₁(c) = f₁(K₁c) + cᵀK₁c/2, K₁ = K − I.
    Theorem5Gradient,
    /// C: the smallest F₁(c + tu) − F₁(c), t ∈ {±10⁻², ±10⁻¹, ±1}, u K₁'s lowest eigenvector
    /// (< 0: the run's c is not a minimizer of F₁).
    Theorem5Descent,
    /// C, linear kernel K = XXᵀ, square loss: min F solved in the primal from X, w̄ = (XᵀX + λI)⁻¹Xᵀy
    /// (a d × d system), F̄ = ‖Xw̄ − y‖²/(2λ) + ‖w̄‖²/2.
    LinearPrimalObjective,
    /// C, the same: eq. (14)'s residual maxᵢ|cᵢ − (yᵢ − (Kc)ᵢ)/λ|·λ for the run's c, Kc = X(Xᵀc).
    LinearKkt,
    /// C, the same at c + u, u ∈ null K (the part of some eᵢ off X's columns, ‖u‖ = max(‖c‖, 1)).
    NullShiftKkt,
    /// C, the same u: (F(c + u) − F(c))/|F(c)| (Lemma 1: 0).
    NullShiftObjective,
    /// C: n − rank X, the dimension of K = XXᵀ's null space.
    NullDim,
    /// C, linear kernel: ‖K‖₂ = σ_max(X)² from X's singular values (no Gram matrix).
    LinearGramNorm,
    /// D, linear kernel, 2-D data: §2.2's unnormalized margin ρ = sup over unit u of minᵢ yᵢ⟨u, xᵢ⟩
    /// on the raw points, by the brute force of `plane_rho` (no normalization, no G).
    PlaneRhoRaw,
    /// D: maxᵢ ‖xᵢ‖² of the raw points (Novikoff's numerator, §2.1).
    MaxNormSq,
    /// D, linear kernel: Algorithm 1 run here on the raw points (w ∈ ℝᵈ, w₀ = 0, the first
    /// mistake yᵢ⟨w, xᵢ⟩ ≤ 0 of a cyclic scan that resumes after the last update): its updates.
    RawPerceptronUpdates,
    /// D, ISNKPVN: the most iterations one outer loop's SNKPVN call took (the run's phases).
    PhaseMaxIterations,
    /// D, ISNKPVN: the iterations of the run's phases summed (each call's count, added here).
    PhaseSumIterations,
    /// D, ISNKPVN on inseparable data: Σₜ (2γ(2n)^{1/2}/max(‖qₜ‖_G, |ρ_K|) + 1) over the run's
    /// calls, with ‖qₜ‖_G = γδₜ (Algorithm 7) and |ρ_K| from the points alone (`plane_rho`):
    /// Lemma 9's bound (its √2 restored) summed over the outer loops.
    PhaseBoundSum,
    /// D, the same: maxₜ of a call's iterations over its bound 2γ(2n)^{1/2}/max(‖qₜ‖_G, |ρ_K|) + 1.
    PhaseMaxRatio,
}
