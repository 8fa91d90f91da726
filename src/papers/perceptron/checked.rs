//! Paper D's checked spec, [`PerceptronChecked`]: built only by [`PerceptronChecked::check`],
//! which holds every range check of the spec (the iteration cap, the algorithm's ε, δ, γ, the
//! race's, the margin search's settings, the data — generated, hand-placed or a CSV file — and
//! the kernel's parameters), each refusal naming its field by its path in the spec
//! (`algorithm.epsilon`, `race.gamma`, `margin.rel_tol`, `data.points`, `kernel`, …). A session,
//! its preparation and the race accept nothing else, so the page, `kplay run`/`race`/`plot` and
//! the lessons refuse the same specs with the same words.

use std::ops::Deref;

use nalgebra::DMatrix;

use super::spec::{page_margin_options, DataSpec, PerceptronSpec, RACE_DEFAULTS};
use crate::datasets::plane::from_points;
use crate::error::{KpError, Result};
use crate::kernels::ResolvedKernel;
use crate::solvers::perceptron::margin::MarginOptions;
use crate::solvers::perceptron::{PerceptronAlgorithm, PerceptronProblem};

/// Paper D's spec after its checks: the spec as written (read through `Deref`), its data built
/// and checked (2-D points with finite coordinates, labels ±1 of both classes), its kernel
/// resolved on them, the race's `(ε, δ, γ)` and the margin search's options with their
/// defaults filled in.
#[derive(Debug, Clone)]
pub struct PerceptronChecked {
    spec: PerceptronSpec,
    x: DMatrix<f64>,
    y: Vec<f64>,
    kernel: ResolvedKernel,
    race: (f64, f64, f64),
    margin: MarginOptions,
}

impl Deref for PerceptronChecked {
    type Target = PerceptronSpec;
    fn deref(&self) -> &PerceptronSpec {
        &self.spec
    }
}

fn bad(name: &'static str, reason: String) -> KpError {
    KpError::Parameter { name, reason }
}

impl PerceptronChecked {
    /// Every check of paper D's spec, in this order (the first failing one is reported, its
    /// field named): `max_iter` ≥ 1 (a safety net, not a cost estimate, issue 20: memory stays
    /// flat, the page steps within its frame budget, `kplay --time-limit` ends a long run);
    /// the algorithm's `algorithm.epsilon`, `algorithm.delta` > 0 and `algorithm.gamma` > 1;
    /// the race's `race.epsilon`, `race.delta` > 0 and `race.gamma` > 1; the margin search's
    /// `margin.rel_tol` in (0, 1), `margin.zero_tol` ≥ 0, `margin.max_iter` and
    /// `margin.search_iter` ≥ 1; the data (`data.set.…`, `data.points`, `data.text`: at least
    /// two 2-D points with finite coordinates and labels ±1 of both classes); the kernel's
    /// parameters on those points (`kernel`). What needs G itself (a point whose feature
    /// vector is zero, the memory budget of G) is refused when G is built.
    pub fn check(spec: PerceptronSpec) -> Result<Self> {
        // The page schema's ranges first (`schema.rs`: the generated set's knobs, the kernel's
        // parameters, the cap, ε, δ, γ), each refusal naming its path.
        crate::schema::check_spec(&super::schema::schema().fields, &spec)?;
        check_algorithm(&spec.algorithm)?;
        let race = race_parameters(&spec)?;
        let margin = margin_options(&spec)?;
        let (x, y) = build_points(&spec.data)?;
        let field = data_field(&spec.data);
        PerceptronProblem::check_data(&x, &y).map_err(|e| at(field, e))?;
        let kernel = spec.kernel.resolve(&x)?;
        Ok(Self { spec, x, y, kernel, race, margin })
    }

    /// The spec as written.
    pub fn spec(&self) -> &PerceptronSpec {
        &self.spec
    }

    /// The 2-D points (n × 2), checked.
    pub fn x(&self) -> &DMatrix<f64> {
        &self.x
    }

    /// The labels ±1, both classes present.
    pub fn y(&self) -> &[f64] {
        &self.y
    }

    /// The kernel resolved on the points (a heuristic bandwidth computed from them).
    pub fn kernel(&self) -> &ResolvedKernel {
        &self.kernel
    }

    /// The race's `(ε, δ, γ)`: the spec's `race` where given, else the spec's algorithm's own
    /// where it has that parameter (the page has one field for both), else [`RACE_DEFAULTS`];
    /// so a page's race link reproduces its race.
    pub fn race_parameters(&self) -> (f64, f64, f64) {
        self.race
    }

    /// The margin search's options: the spec's `margin` where given, else the page's
    /// ([`page_margin_options`]).
    pub fn margin_options(&self) -> MarginOptions {
        self.margin
    }

    /// Whether `other` has the same data, kernel and margin search (then a session's G and ρ_K
    /// serve it: only the algorithm restarts).
    pub fn same_problem(&self, other: &PerceptronChecked) -> bool {
        self.spec.data == other.spec.data
            && self.spec.kernel == other.spec.kernel
            && self.margin == other.margin
    }
}

/// `v` against the schema's field at `path` (its one declaration of the range): a refusal
/// names the path. Also catches what the serialized check cannot see (a NaN serializes as null).
fn check_field(path: &str, v: f64) -> Result<()> {
    match super::schema::schema().field(path) {
        Some(f) => f.check(v),
        None => Err(KpError::Spec(format!("paper D's schema has no field {path}"))),
    }
}

/// The algorithm's parameters against the schema's fields: ε > 0, δ > 0, γ > 1 (all finite),
/// named by their path.
fn check_algorithm(a: &PerceptronAlgorithm) -> Result<()> {
    match *a {
        PerceptronAlgorithm::Nvn { epsilon } => check_field("algorithm.epsilon", epsilon),
        PerceptronAlgorithm::Snkpvn { delta } => check_field("algorithm.delta", delta),
        PerceptronAlgorithm::Isnkpvn { gamma, epsilon } => {
            check_field("algorithm.epsilon", epsilon)?;
            check_field("algorithm.gamma", gamma)
        }
        PerceptronAlgorithm::Perceptron | PerceptronAlgorithm::Nkp | PerceptronAlgorithm::Snkp => {
            Ok(())
        }
    }
}

/// The race's `(ε, δ, γ)` ([`PerceptronChecked::race_parameters`]), checked: ε, δ finite and
/// > 0, γ finite and > 1, a bad value refused with its field named (`race.epsilon`, …).
fn race_parameters(spec: &PerceptronSpec) -> Result<(f64, f64, f64)> {
    let (mut epsilon, mut delta, mut gamma) = RACE_DEFAULTS;
    match spec.algorithm {
        PerceptronAlgorithm::Nvn { epsilon: e } => epsilon = e,
        PerceptronAlgorithm::Snkpvn { delta: d } => delta = d,
        PerceptronAlgorithm::Isnkpvn { gamma: g, epsilon: e } => {
            gamma = g;
            epsilon = e;
        }
        PerceptronAlgorithm::Perceptron | PerceptronAlgorithm::Nkp | PerceptronAlgorithm::Snkp => {}
    }
    let r = spec.race;
    for (path, v) in [("race.epsilon", r.epsilon), ("race.delta", r.delta), ("race.gamma", r.gamma)]
    {
        if let Some(v) = v {
            check_field(path, v)?;
        }
    }
    Ok((r.epsilon.unwrap_or(epsilon), r.delta.unwrap_or(delta), r.gamma.unwrap_or(gamma)))
}

/// The margin search's options (the spec's `margin`, each absent field the page's), checked.
fn margin_options(spec: &PerceptronSpec) -> Result<MarginOptions> {
    let m = spec.margin.unwrap_or_default();
    let page = page_margin_options();
    let o = MarginOptions {
        rel_tol: m.rel_tol.unwrap_or(page.rel_tol),
        zero_tol: m.zero_tol.unwrap_or(page.zero_tol),
        max_iter: m.max_iter.unwrap_or(page.max_iter),
        search_iter: m.search_iter.unwrap_or(page.search_iter),
    };
    if !(o.rel_tol > 0.0 && o.rel_tol < 1.0) {
        return Err(bad(
            "margin.rel_tol",
            format!("between 0 and 1, exclusive (got {})", o.rel_tol),
        ));
    }
    if !(o.zero_tol.is_finite() && o.zero_tol >= 0.0) {
        return Err(bad("margin.zero_tol", format!("a number ≥ 0 (got {})", o.zero_tol)));
    }
    if o.max_iter == 0 {
        return Err(bad("margin.max_iter", "at least 1".into()));
    }
    if o.search_iter == 0 {
        return Err(bad("margin.search_iter", "at least 1".into()));
    }
    Ok(o)
}

/// The spec's path of the data's field a refusal names.
fn data_field(data: &DataSpec) -> &'static str {
    match data {
        DataSpec::Generated { .. } => "data.set",
        DataSpec::Points { .. } => "data.points",
        DataSpec::Csv(_) => "data.text",
    }
}

/// The path in a paper-D spec of a generated set's field (the generator names it alone).
fn set_field(name: &'static str) -> &'static str {
    match name {
        "n" => "data.set.n",
        "seed" => "data.set.seed",
        "label_noise" => "data.set.label_noise",
        "margin" => "data.set.shape.margin",
        "spread" => "data.set.shape.spread",
        "noise" => "data.set.shape.noise",
        "factor" => "data.set.shape.factor",
        _ => "data.set",
    }
}

/// A refusal of the data renamed to the spec's `field` (the generators and the problem's data
/// check name `points`, `inputs` or `labels`; a non-finite coordinate becomes a refusal of the
/// field too). Other errors pass unchanged.
fn at(field: &'static str, e: KpError) -> KpError {
    match e {
        KpError::Parameter { name: "points" | "inputs" | "labels", reason } => bad(field, reason),
        KpError::NonFinite(reason) => bad(field, reason),
        e => e,
    }
}

/// The 2-D points and labels of a data spec, each refusal naming its field (`data.set.n`,
/// `data.points`, `data.text`, …). The labels are checked for ±1 and both classes by
/// [`PerceptronChecked::check`].
pub fn build_points(data: &DataSpec) -> Result<(DMatrix<f64>, Vec<f64>)> {
    let ds = match data {
        DataSpec::Generated { set } => set.generate().map_err(|e| match e {
            KpError::Parameter { name, reason } => bad(set_field(name), reason),
            e => e,
        })?,
        DataSpec::Points { points } => {
            if points.len() < 2 {
                return Err(bad(
                    "data.points",
                    format!(
                        "at least 2 points are needed (got {}): click on the plot to add some",
                        points.len()
                    ),
                ));
            }
            let pts: Vec<(f64, f64, f64)> = points.iter().map(|p| (p[0], p[1], p[2])).collect();
            from_points(&pts).map_err(|e| at("data.points", e))?
        }
        DataSpec::Csv(c) => {
            let d = c.parse()?;
            if d.d() != 2 {
                return Err(bad(
                    "data.text",
                    format!("paper D's data are 2-D: the file needs 2 feature columns besides `y` (it has {})", d.d()),
                ));
            }
            if let Some(i) = d.y.iter().position(|&l| l != 1.0 && l != -1.0) {
                return Err(bad(
                    "data.text",
                    format!("the labels `y` must be +1 or −1 (data row {} has {})", i + 1, d.y[i]),
                ));
            }
            let pts: Vec<(f64, f64, f64)> =
                d.x.row_iter().zip(d.y.iter()).map(|(r, &l)| (r[0], r[1], l)).collect();
            from_points(&pts).map_err(|e| at("data.text", e))?
        }
    };
    Ok((ds.x, ds.y.iter().copied().collect()))
}
