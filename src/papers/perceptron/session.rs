//! Paper D's [`PerceptronSession`]: a checked spec's problem (G), its margin ρ_K with the certified
//! bracket, and the running algorithm under the executor; the reference bounds and the view box
//! the page draws. A child of its own so that the preparation (`prepare.rs`, which builds a
//! session), the race and the page import their sibling, not `mod.rs` (issue 34: no
//! parent ⇄ child import cycle).

use std::sync::Arc;

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// The verified outcomes of paper D's algorithms (a separator, Gα > 0; a certificate,
/// ‖p‖_G ≤ ε).
pub use crate::solvers::perceptron::{CertificateCheck, Outcome, SeparatorCheck};

use super::checked::PerceptronChecked;
use super::spec::DataSpec;
use crate::error::{KpError, Result};
use crate::exec::{Record, Run, Stop};
use crate::kernels::ResolvedKernel;
use crate::solvers::perceptron::bounds;
use crate::solvers::perceptron::margin::{Margin, Separability};
use crate::solvers::perceptron::{start, PerceptronAlgorithm, PerceptronProblem};

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

/// One checked experiment ([`PerceptronChecked`], the only spec it accepts) and its running
/// algorithm.
pub struct PerceptronSession {
    spec: PerceptronChecked,
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
    let algorithm: Box<dyn crate::exec::Stepper> = start(problem.clone(), algorithm)?;
    Ok(Run::new(algorithm).capped(max_iter))
}

/// A solution vector of [`crate::exec::Stepper::solution`] (`None` when absent or `null`; a
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

impl PerceptronSession {
    /// The session on a built problem with its margin.
    pub(super) fn from_parts(
        spec: PerceptronChecked,
        problem: Arc<PerceptronProblem>,
        margin: Margin,
    ) -> Result<Self> {
        let n = problem.n();
        let q0 = nalgebra::DVector::from_element(n, 1.0 / n as f64);
        let q0_norm_g = problem.norm_g(&q0);
        let view = view_box(spec.x(), matches!(spec.data, DataSpec::Points { .. }));
        let digest = points_digest(spec.x(), spec.y());
        let run = start_run(&problem, spec.algorithm, spec.max_iter)?;
        Ok(Self { spec, problem, margin, q0_norm_g, view, digest, run })
    }

    /// The checked spec the session runs.
    pub fn spec(&self) -> &PerceptronChecked {
        &self.spec
    }

    /// Run `spec` on this session's problem: its algorithm restarts from its first iterate with
    /// its cap, and its race parameters replace the session's. `spec` must have this session's
    /// data and kernel ([`PerceptronChecked::same_problem`]), else it is refused and the
    /// session left as it was.
    pub fn restart(&mut self, spec: PerceptronChecked) -> Result<()> {
        if !self.spec.same_problem(&spec) {
            return Err(KpError::Parameter {
                name: "data",
                reason: "a restart keeps the data and the kernel: prepare a new session".into(),
            });
        }
        self.run = start_run(&self.problem, spec.algorithm, spec.max_iter)?;
        self.spec = spec;
        Ok(())
    }

    /// Restart the same algorithm from its first iterate.
    pub fn reset(&mut self) -> Result<()> {
        self.run = start_run(&self.problem, self.spec.algorithm, self.spec.max_iter)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datasets::plane::{Classification2d, Shape2d};
    use crate::papers::perceptron::spec::PerceptronSpec;

    /// A session of `spec`, through its check.
    fn session(spec: PerceptronSpec) -> Result<PerceptronSession> {
        PerceptronSession::new(PerceptronChecked::check(spec)?)
    }

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
        let mut s = session(spec).unwrap();
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
        let mut s = session(spec).unwrap();
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
        let mut s = session(PerceptronSpec::default()).unwrap();
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
        let e = session(PerceptronSpec { data: one_class, ..Default::default() }).err().unwrap();
        assert!(e.to_string().contains("all labels are equal"), "{e}");
        let few = DataSpec::Points { points: vec![[0.5, 0.5, 1.0]] };
        assert!(session(PerceptronSpec { data: few, ..Default::default() }).is_err());
        let nan = DataSpec::Points { points: vec![[f64::NAN, 0.5, 1.0], [1.0, 1.0, -1.0]] };
        assert!(session(PerceptronSpec { data: nan, ..Default::default() }).is_err());
        let origin = DataSpec::Points { points: vec![[0.0, 0.0, 1.0], [1.0, 1.0, -1.0]] };
        assert!(session(PerceptronSpec { data: origin, ..Default::default() }).is_err());
        for a in [
            PerceptronAlgorithm::Nvn { epsilon: 0.0 },
            PerceptronAlgorithm::Isnkpvn { gamma: 1.0, epsilon: 0.1 },
        ] {
            assert!(session(PerceptronSpec { algorithm: a, ..Default::default() }).is_err());
        }
        assert!(PerceptronSpec::from_json("{\"data\":1}").is_err());
    }
}
