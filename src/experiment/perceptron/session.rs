//! Paper D's spec (2-D data, kernel, algorithm, cap, margin and race options) and its
//! [`Session`]: the problem, its margin ρ_K and the running algorithm. A child of its own so that
//! the preparation (`prepare.rs`, which builds a session) and the timing workloads import their
//! sibling, not `mod.rs` (issue 34: no parent ⇄ child import cycle).

use std::sync::Arc;

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// The verified outcomes of paper D's algorithms (a separator, Gα > 0; a certificate,
/// ‖p‖_G ≤ ε).
pub use crate::solvers::perceptron::{CertificateCheck, Outcome, SeparatorCheck};

use crate::datasets::plane::{from_points, Classification2d};
use crate::error::{KpError, Result};
use crate::kernels::{Kernel, ResolvedKernel};
use crate::solvers::perceptron::bounds;
use crate::solvers::perceptron::margin::{Margin, MarginOptions, Separability};
use crate::solvers::perceptron::{start, PerceptronAlgorithm, PerceptronProblem};
use crate::stepper::{Record, Run, Stop};

/// Where the 2-D points come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DataSpec {
    /// A seeded generated set (blobs with a margin / overlap knob, moons, circles, XOR).
    Generated { set: Classification2d },
    /// Points placed by the user: `[x₁, x₂, label ±1]`.
    Points { points: Vec<[f64; 3]> },
    /// A CSV file with two feature columns and a `y` column of ±1 labels.
    Csv(crate::data::CsvSource),
}

/// The page's experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerceptronSpec {
    pub data: DataSpec,
    pub kernel: Kernel,
    pub algorithm: PerceptronAlgorithm,
    /// Iteration cap (1 ..= 10⁷).
    #[serde(default = "default_max_iter")]
    pub max_iter: usize,
    /// Accuracy and effort of the margin search for ρ_K (absent: the page's, see
    /// [`page_margin_options`]); `kplay run` reports the certified interval it reaches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<MarginSpec>,
    /// The race's ε, δ, γ (page D's Race button and `kplay race`; see [`RaceSpec`]).
    #[serde(default, skip_serializing_if = "RaceSpec::is_empty")]
    pub race: RaceSpec,
}

/// The race's ε, δ, γ default to these where neither `race` nor the spec's algorithm gives
/// them (the page's form defaults; ours, not the paper's).
pub const RACE_DEFAULTS: (f64, f64, f64) = (0.01, 0.01, 2.0);

/// The parameters of paper D's race of the six algorithms: ε (NVN, ISNKPVN), δ (SNKPVN), γ
/// (ISNKPVN). Each absent one is the spec's algorithm's own where it has that parameter (the page
/// has one field for both), else [`RACE_DEFAULTS`]; so a page's race link reproduces its race.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RaceSpec {
    /// Certificate accuracy ε > 0 of NVN and ISNKPVN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<f64>,
    /// Certificate accuracy δ > 0 of SNKPVN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<f64>,
    /// ISNKPVN's shrink factor γ > 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gamma: Option<f64>,
}

impl RaceSpec {
    /// Whether no parameter is given (then the field is left out of the spec's JSON).
    pub fn is_empty(&self) -> bool {
        self.epsilon.is_none() && self.delta.is_none() && self.gamma.is_none()
    }
}

/// The spec's margin-search settings: each absent field takes the page's value
/// ([`page_margin_options`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct MarginSpec {
    /// Stop when the certified bracket's relative width is below this (0 < rel_tol < 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rel_tol: Option<f64>,
    /// Call the data ε-inseparable when `min ‖p‖_G ≤ zero_tol` (Lemma 3: then ρ_K ≤ zero_tol).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zero_tol: Option<f64>,
    /// Frank–Wolfe iterations at most (each O(n)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iter: Option<usize>,
    /// Direction-search iterations per start (inseparable case, rank ≥ 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_iter: Option<usize>,
}

impl MarginSpec {
    /// The options these settings give, checked (a message naming the field).
    pub fn options(&self) -> Result<MarginOptions> {
        let page = page_margin_options();
        let o = MarginOptions {
            rel_tol: self.rel_tol.unwrap_or(page.rel_tol),
            zero_tol: self.zero_tol.unwrap_or(page.zero_tol),
            max_iter: self.max_iter.unwrap_or(page.max_iter),
            search_iter: self.search_iter.unwrap_or(page.search_iter),
        };
        let bad = |name: &'static str, reason: String| Err(KpError::Parameter { name, reason });
        if !(o.rel_tol > 0.0 && o.rel_tol < 1.0) {
            return bad(
                "margin.rel_tol",
                format!("between 0 and 1, exclusive (got {})", o.rel_tol),
            );
        }
        if !(o.zero_tol.is_finite() && o.zero_tol >= 0.0) {
            return bad("margin.zero_tol", format!("a number ≥ 0 (got {})", o.zero_tol));
        }
        if o.max_iter == 0 {
            return bad("margin.max_iter", "at least 1".into());
        }
        if o.search_iter == 0 {
            return bad("margin.search_iter", "at least 1".into());
        }
        Ok(o)
    }
}

fn default_max_iter() -> usize {
    100_000
}

impl Default for PerceptronSpec {
    fn default() -> Self {
        Self {
            data: DataSpec::Generated {
                set: Classification2d {
                    shape: crate::datasets::plane::Shape2d::Blobs { margin: 0.3, spread: 0.5 },
                    n: 60,
                    label_noise: 0.0,
                    seed: 1,
                },
            },
            kernel: Kernel::linear(),
            algorithm: PerceptronAlgorithm::Perceptron,
            max_iter: default_max_iter(),
            margin: None,
            race: RaceSpec::default(),
        }
    }
}

impl PerceptronSpec {
    /// Parse JSON (untagged, or tagged `"paper": "perceptron"`) with the failing field named.
    pub fn from_json(s: &str) -> Result<Self> {
        crate::spec_json::parse_as(crate::spec_json::Paper::Perceptron, s)
    }

    /// The spec as tagged JSON text (`"paper": "perceptron"` first), as the page's links hold it.
    pub fn to_tagged_json(&self) -> String {
        crate::spec_json::tagged_value(crate::spec_json::Paper::Perceptron, self).to_string()
    }

    /// The race's `(ε, δ, γ)` ([`RaceSpec`]: the race's own, else the algorithm's, else
    /// [`RACE_DEFAULTS`]), checked: ε, δ finite and > 0, γ finite and > 1, a bad value refused
    /// with its field named (`race.epsilon`, …).
    pub fn race_parameters(&self) -> Result<(f64, f64, f64)> {
        let (mut epsilon, mut delta, mut gamma) = RACE_DEFAULTS;
        match self.algorithm {
            PerceptronAlgorithm::Nvn { epsilon: e } => epsilon = e,
            PerceptronAlgorithm::Snkpvn { delta: d } => delta = d,
            PerceptronAlgorithm::Isnkpvn { gamma: g, epsilon: e } => {
                gamma = g;
                epsilon = e;
            }
            _ => {}
        }
        let r = self.race;
        let bad = |name: &'static str, what: &str, v: f64| {
            Err(KpError::Parameter { name, reason: format!("{what} (got {v})") })
        };
        for (name, v) in [("race.epsilon", r.epsilon), ("race.delta", r.delta)] {
            if let Some(v) = v.filter(|v| !(v.is_finite() && *v > 0.0)) {
                return bad(name, "must be a finite number > 0", v);
            }
        }
        if let Some(g) = r.gamma.filter(|g| !(g.is_finite() && *g > 1.0)) {
            return bad("race.gamma", "must be a finite number > 1", g);
        }
        Ok((r.epsilon.unwrap_or(epsilon), r.delta.unwrap_or(delta), r.gamma.unwrap_or(gamma)))
    }

    /// JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Margin computation effort for the page (a bracket, not 1e-6 accuracy, is what it shows).
pub fn page_margin_options() -> MarginOptions {
    MarginOptions { rel_tol: 1e-3, zero_tol: 1e-6, max_iter: 20_000, search_iter: 500 }
}

/// A theoretical iteration bound drawn as a reference line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoundLine {
    /// Formula, e.g. "1/ρ²".
    pub label: String,
    /// Iterations.
    pub iterations: f64,
    /// Whether it applies to the selected algorithm.
    pub current: bool,
}

/// The reference bounds for data of margin bracket `m` (separable: `1/ρ²`, `2√(2 log n)/ρ`,
/// `2√(2n)/ρ` with the certified lower end ρ ≥ `m.lower` so the lines are safe; inseparable:
/// the certificate bounds `1/ε²` (NVN) and Lemma 9's for SNKPVN).
pub fn reference_bounds(
    algorithm: &PerceptronAlgorithm,
    n: usize,
    m: &Margin,
    q0_norm_g: f64,
) -> Vec<BoundLine> {
    let mut out = Vec::new();
    if m.separability == Separability::Separable && m.lower > 0.0 {
        let r = m.lower;
        let cur = |a: bool| a;
        out.push(BoundLine {
            label: "1/ρ² (Perceptron, NKP)".into(),
            iterations: bounds::perceptron_bound(r),
            current: cur(matches!(
                algorithm,
                PerceptronAlgorithm::Perceptron | PerceptronAlgorithm::Nkp
            )),
        });
        out.push(BoundLine {
            label: "2√(2 log n)/ρ (SNKP)".into(),
            iterations: bounds::snkp_bound(n, r),
            current: matches!(algorithm, PerceptronAlgorithm::Snkp),
        });
        out.push(BoundLine {
            label: "2√(2n)/ρ (SNKPVN)".into(),
            iterations: bounds::snkpvn_bound(n, r),
            current: matches!(algorithm, PerceptronAlgorithm::Snkpvn { .. }),
        });
        if let (PerceptronAlgorithm::Isnkpvn { .. }, Some(b)) =
            (algorithm, bounds::separator_bound(algorithm, n, r, q0_norm_g))
        {
            out.push(BoundLine {
                label: "ISNKPVN phases × (2√(2n)/ρ + 1)".into(),
                iterations: b,
                current: true,
            });
        }
    } else {
        let rho_abs =
            if m.separability == Separability::Inseparable { (-m.upper).max(0.0) } else { 0.0 };
        if let Some(b) = bounds::certificate_bound(algorithm, n, q0_norm_g, rho_abs) {
            let label = match algorithm {
                PerceptronAlgorithm::Nvn { .. } => "1/ε² (NVN certificate)",
                _ => "2√(2n)/δ·min{1, ‖q‖_G/|ρ|} (SNKPVN certificate)",
            };
            out.push(BoundLine { label: label.into(), iterations: b, current: true });
        }
    }
    out.retain(|b| b.iterations.is_finite() && b.iterations > 0.0);
    out
}

/// The page's view box `[x_min, x_max, y_min, y_max]` around the points and the origin
/// (padded, at least `[−1.5, 1.5]²` for hand-made sets so clicks have room).
pub fn view_box(x: &DMatrix<f64>, hand_made: bool) -> [f64; 4] {
    let (mut x0, mut x1, mut y0, mut y1) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for r in x.row_iter() {
        x0 = x0.min(r[0]);
        x1 = x1.max(r[0]);
        y0 = y0.min(r[1]);
        y1 = y1.max(r[1]);
    }
    let pad = 0.12 * (x1 - x0).max(y1 - y0).max(1e-6);
    let (mut a, mut b, mut c, mut d) = (x0 - pad, x1 + pad, y0 - pad, y1 + pad);
    if hand_made {
        a = a.min(-1.5);
        b = b.max(1.5);
        c = c.min(-1.5);
        d = d.max(1.5);
    }
    [a, b, c, d]
}

/// One validated experiment and its running algorithm.
pub struct Session {
    pub spec: PerceptronSpec,
    pub problem: Arc<PerceptronProblem>,
    pub margin: Margin,
    /// `‖1/n‖_G` (ISNKPVN's q₀).
    pub q0_norm_g: f64,
    pub view: [f64; 4],
    /// The data's 64-bit digest ([`crate::data::Dataset::digest`] of the points and labels).
    pub digest: String,
    /// The algorithm under the executor: its cap (`max_iter`), trace and time slices.
    run: Run,
}

/// `algorithm` on `problem` under the executor, capped at `max_iter` iterations.
pub(super) fn start_run(
    problem: &Arc<PerceptronProblem>,
    algorithm: PerceptronAlgorithm,
    max_iter: usize,
) -> Result<Run> {
    let algorithm: Box<dyn crate::stepper::Stepper> = start(problem.clone(), algorithm)?;
    Ok(Run::new(algorithm).capped(max_iter))
}

/// The 2-D points and labels of a data spec.
pub fn build_points(data: &DataSpec) -> Result<(DMatrix<f64>, Vec<f64>)> {
    let ds = match data {
        DataSpec::Generated { set } => set.generate()?,
        DataSpec::Points { points } => {
            if points.len() < 2 {
                return Err(KpError::Parameter {
                    name: "points",
                    reason: format!(
                        "at least 2 points are needed (got {}): click on the plot to add some",
                        points.len()
                    ),
                });
            }
            let pts: Vec<(f64, f64, f64)> = points.iter().map(|p| (p[0], p[1], p[2])).collect();
            from_points(&pts)?
        }
        DataSpec::Csv(c) => {
            let d = c.parse()?;
            if d.d() != 2 {
                return Err(KpError::Parameter {
                    name: "data.text",
                    reason: format!("paper D's data are 2-D: the file needs 2 feature columns besides `y` (it has {})", d.d()),
                });
            }
            if let Some(i) = d.y.iter().position(|&l| l != 1.0 && l != -1.0) {
                return Err(KpError::Parameter {
                    name: "data.text",
                    reason: format!(
                        "the labels `y` must be +1 or −1 (data row {} has {})",
                        i + 1,
                        d.y[i]
                    ),
                });
            }
            let pts: Vec<(f64, f64, f64)> =
                d.x.row_iter().zip(d.y.iter()).map(|(r, &l)| (r[0], r[1], l)).collect();
            from_points(&pts)?
        }
    };
    Ok((ds.x, ds.y.iter().copied().collect()))
}

/// A solution vector of [`crate::stepper::Stepper::solution`] (`None` when absent or `null`; a
/// non-finite entry, written `null`, reads NaN).
fn vector(v: &serde_json::Value) -> Option<Vec<f64>> {
    v.as_array().map(|a| a.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect())
}

/// The 64-bit digest of 2-D points and their labels ([`crate::data::Dataset::digest`]).
pub(super) fn points_digest(x: &DMatrix<f64>, y: &[f64]) -> String {
    crate::data::Dataset {
        x: x.clone(),
        y: nalgebra::DVector::from_column_slice(y),
        w_true: None,
        feature_names: Vec::new(),
    }
    .digest()
}

/// The iteration cap is a safety net, not a cost estimate (issue 20): any cap ≥ 1 is accepted;
/// memory stays flat (the trace is bounded), the page steps within its frame budget, and
/// `kplay --time-limit` ends a long run cleanly.
pub(super) fn check_max_iter(max_iter: usize) -> Result<()> {
    if max_iter == 0 {
        return Err(KpError::Parameter { name: "max_iter", reason: "at least 1 (got 0)".into() });
    }
    Ok(())
}

impl Session {
    /// The session on a built problem with its margin.
    pub(super) fn from_parts(
        spec: PerceptronSpec,
        x: &DMatrix<f64>,
        y: &[f64],
        problem: Arc<PerceptronProblem>,
        margin: Margin,
    ) -> Result<Self> {
        let n = problem.n();
        let q0 = nalgebra::DVector::from_element(n, 1.0 / n as f64);
        let q0_norm_g = problem.norm_g(&q0);
        let view = view_box(x, matches!(spec.data, DataSpec::Points { .. }));
        let digest = points_digest(x, y);
        let run = start_run(&problem, spec.algorithm, spec.max_iter)?;
        Ok(Self { spec, problem, margin, q0_norm_g, view, digest, run })
    }

    /// Restart the algorithm on the same data (with possibly another algorithm / cap).
    pub fn restart(&mut self, algorithm: PerceptronAlgorithm, max_iter: usize) -> Result<()> {
        check_max_iter(max_iter)?;
        self.run = start_run(&self.problem, algorithm, max_iter)?;
        self.spec.algorithm = algorithm;
        self.spec.max_iter = max_iter;
        Ok(())
    }

    /// Whether the run has ended (a separator, a certificate, the cap, a failure).
    pub fn finished(&self) -> bool {
        self.run.stop() != Stop::Running
    }

    /// One iteration (no-op once finished); returns whether one was done.
    pub fn step(&mut self) -> bool {
        self.run.step().is_some()
    }

    /// Iterate until finished or `budget_ms` elapsed (at least one iteration); returns how many.
    pub fn run_for(&mut self, budget_ms: f64) -> usize {
        self.run.run_for(budget_ms)
    }

    /// Every iteration to the end (or the process-wide deadline); why it ended.
    pub fn run_to_end(&mut self) -> Stop {
        self.run.run()
    }

    /// The current record (`min_i (Gα)_i`, `‖p‖_G`).
    pub fn record(&self) -> Record {
        self.run.last()
    }

    /// Why the run ended, or [`Stop::Running`] (the executor's cap included).
    pub fn stop(&self) -> Stop {
        self.run.stop()
    }

    /// The solution vectors `{alpha, p}` of the current iterate.
    pub fn solution(&self) -> serde_json::Value {
        self.run.solution()
    }

    /// The paper's iteration bound for `a` on this data: the separator bound with the certified
    /// lower end of ρ_K when `separable`, else the certificate bound (with |ρ_K| when the data
    /// are certified inseparable).
    pub fn bound(&self, a: &PerceptronAlgorithm, separable: bool) -> Option<f64> {
        let (n, m) = (self.problem.n(), &self.margin);
        if separable {
            bounds::separator_bound(a, n, m.lower, self.q0_norm_g)
        } else {
            let rho_abs =
                if m.separability == Separability::Inseparable { (-m.upper).max(0.0) } else { 0.0 };
            bounds::certificate_bound(a, n, self.q0_norm_g, rho_abs)
        }
    }

    /// The executor's bounded trace (iteration 0 first).
    pub fn trace(&self) -> Vec<Record> {
        self.run.trace()
    }

    /// Current α.
    pub fn alpha(&self) -> Vec<f64> {
        vector(&self.solution()["alpha"]).unwrap_or_default()
    }

    /// Current p (certificate weights), where the algorithm has one.
    pub fn p(&self) -> Option<Vec<f64>> {
        vector(&self.solution()["p"])
    }

    /// The verified outcome once finished.
    pub fn outcome(&self) -> Result<Option<Outcome>> {
        if !self.finished() {
            return Ok(None);
        }
        let (stop, iter) = (self.stop(), self.record().iter);
        Outcome::of(stop, iter, &self.solution(), &self.spec.algorithm, &self.problem).map(Some)
    }

    /// Reference iteration bounds for this data and algorithm.
    pub fn bounds(&self) -> Vec<BoundLine> {
        reference_bounds(&self.spec.algorithm, self.problem.n(), &self.margin, self.q0_norm_g)
    }

    /// The decision function `f = Σ α_i y_i K(x_i,·)/√K_ii` of the current α on an `nx × ny`
    /// grid over `view` (row-major, y increasing). Linear kernel: `f(x) = wᵀx` with
    /// `w = Σ α_i y_i x_i/‖x_i‖`, O(n + grid).
    pub fn decision_grid(&self, view: [f64; 4], nx: usize, ny: usize) -> Result<Vec<f64>> {
        let [a, b, c, d] = view;
        let g = crate::datasets::plane::grid(a, b, c, d, nx, ny)?;
        let alpha = self.alpha();
        if matches!(self.problem.kernel(), ResolvedKernel::Linear(_)) {
            if let Some(w) = self.problem.linear_combination(&alpha) {
                return Ok((&g * w).iter().copied().collect());
            }
        }
        Ok(self.problem.decision_function(&alpha, &g)?.iter().copied().collect())
    }

    /// For the linear kernel, `Σ p_i y_i x_i/‖x_i‖` (norm `‖p‖_G`).
    pub fn combination(&self) -> Option<[f64; 2]> {
        let p = self.p()?;
        let w = self.problem.linear_combination(&p)?;
        (w.len() == 2).then(|| [w[0], w[1]])
    }

    /// For the linear kernel on 2-D data, the vertices (counter-clockwise) of the convex hull of
    /// the `y_i x_i/‖x_i‖` — the set `Σ p_i y_i x_i/‖x_i‖` ranges over as p ranges over the
    /// simplex (Theorem 3's conv(Yφ̃_X)).
    pub fn feature_hull(&self) -> Option<Vec<(f64, f64)>> {
        let n = self.problem.n();
        let v: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                let mut e = vec![0.0; n];
                e[i] = 1.0;
                self.problem.linear_combination(&e).filter(|w| w.len() == 2).map(|w| (w[0], w[1]))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(crate::solvers::perceptron::margin::convex_hull(&v))
    }
}

/// One racer's result (the race itself is [`crate::engine::perceptron::PerceptronRace`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaceEntry {
    pub name: String,
    pub iterations: usize,
    /// "separator", "certificate", "cap", "running" or "failed".
    pub outcome: String,
    /// Whether the independent check passed.
    pub verified: bool,
    /// The paper's bound for this algorithm on this data (if any).
    pub bound: Option<f64>,
    /// Milliseconds of stepping.
    pub ms: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datasets::plane::Shape2d;

    fn blobs(margin: f64, n: usize) -> DataSpec {
        DataSpec::Generated {
            set: Classification2d {
                shape: Shape2d::Blobs { margin, spread: 0.5 },
                n,
                label_noise: 0.0,
                seed: 3,
            },
        }
    }

    #[test]
    fn default_spec_round_trips_and_finds_a_verified_separator_within_the_bound() {
        let spec = PerceptronSpec::default();
        let back = PerceptronSpec::from_json(&spec.to_json()).unwrap();
        assert_eq!(back, spec);
        let mut s = Session::new(spec).unwrap();
        assert_eq!(s.margin.separability, Separability::Separable);
        while s.step() {}
        let out = s.outcome().unwrap().unwrap();
        assert!(matches!(out, Outcome::Separator { .. }) && out.verified());
        // Novikoff's bound 1/ρ² with the certified lower end of ρ.
        let b = s.bounds().into_iter().find(|b| b.current).unwrap();
        assert!((s.record().iter as f64) <= b.iterations, "{} > {}", s.record().iter, b.iterations);
        assert_eq!(s.stop(), Stop::Separator);
    }

    #[test]
    fn nvn_on_overlapping_blobs_gives_a_verified_certificate_whose_combination_is_short() {
        let spec = PerceptronSpec {
            data: blobs(-1.5, 80),
            algorithm: PerceptronAlgorithm::Nvn { epsilon: 0.01 },
            ..Default::default()
        };
        let mut s = Session::new(spec).unwrap();
        assert_ne!(s.margin.separability, Separability::Separable);
        while s.step() {}
        match s.outcome().unwrap().unwrap() {
            Outcome::Certificate { check, norm_g, .. } => {
                assert!(check.verified);
                // The drawn arrow has Euclidean norm ‖p‖_G (independent recomputation).
                let w = s.combination().unwrap();
                assert!(((w[0] * w[0] + w[1] * w[1]).sqrt() - norm_g).abs() < 1e-9);
            }
            o => panic!("expected a certificate, got {o:?}"),
        }
    }

    #[test]
    fn linear_shortcut_of_the_decision_grid_matches_the_kernel_sum() {
        let mut s = Session::new(PerceptronSpec::default()).unwrap();
        for _ in 0..5 {
            s.step();
        }
        let fast = s.decision_grid(s.view, 7, 5).unwrap();
        let [a, b, c, d] = s.view;
        let g = crate::datasets::plane::grid(a, b, c, d, 7, 5).unwrap();
        let slow = s.problem.decision_function(&s.alpha(), &g).unwrap();
        for (u, v) in fast.iter().zip(slow.iter()) {
            assert!((u - v).abs() <= 1e-12 * (1.0 + v.abs()));
        }
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let one_class =
            DataSpec::Points { points: vec![[0.5, 0.5, 1.0], [1.0, -0.2, 1.0], [0.3, 0.9, 1.0]] };
        let e =
            Session::new(PerceptronSpec { data: one_class, ..Default::default() }).err().unwrap();
        assert!(e.to_string().contains("all labels are equal"), "{e}");
        let few = DataSpec::Points { points: vec![[0.5, 0.5, 1.0]] };
        assert!(Session::new(PerceptronSpec { data: few, ..Default::default() }).is_err());
        let nan = DataSpec::Points { points: vec![[f64::NAN, 0.5, 1.0], [1.0, 1.0, -1.0]] };
        assert!(Session::new(PerceptronSpec { data: nan, ..Default::default() }).is_err());
        let origin = DataSpec::Points { points: vec![[0.0, 0.0, 1.0], [1.0, 1.0, -1.0]] };
        assert!(Session::new(PerceptronSpec { data: origin, ..Default::default() }).is_err());
        for a in [
            PerceptronAlgorithm::Nvn { epsilon: 0.0 },
            PerceptronAlgorithm::Isnkpvn { gamma: 1.0, epsilon: 0.1 },
        ] {
            assert!(Session::new(PerceptronSpec { algorithm: a, ..Default::default() }).is_err());
        }
        assert!(PerceptronSpec::from_json("{\"data\":1}").is_err());
    }
}
