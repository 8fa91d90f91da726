//! Paper A's session: a validated experiment's data, problem and runs (from [`super::LpChecked`]),
//! the reference optimum and the predictor (eq. 14, Remark 2.4).

use serde_json::{json, Value};

use super::algorithm::LpAlgorithm;
use super::spec::*;
use crate::tensor::{GramTensor, GramTensorBuild};

use nalgebra::{DMatrix, DVector};

use crate::data::Dataset;
use crate::error::{KpError, Result};
use crate::exec::{Measure, Tol, Watch};
use crate::lp::FeaturePolynomial;
use crate::solvers::dual_lp::DualLp;
use crate::solvers::dual_newton::{DualNewton, NewtonConfig};
use crate::solvers::primal::{Armijo, Fista, GapMeasure, PrimalConfig, PrimalGd};
use crate::solvers::prox_dual::{features_w, ProxDual, ProxDualConfig};
use crate::tensor::{
    estimate_cost, feature_polynomial, TensorCost, TensorKernelConfig, TensorPredictor,
};

impl LpProblem {
    /// Assemble from checked parameters and data: labels checked for the loss, the feature
    /// matrix built on the features path.
    pub fn new(spec: LpSpec, checked: LpChecked, data: Dataset) -> Result<Self> {
        checked.loss.check_targets(data.y.as_slice())?;
        let features = match (checked.path, checked.kernel_cfg) {
            (PathSpec::Features, None) => Some(data.x.clone()),
            (PathSpec::Features, Some(cfg)) => Some(
                feature_polynomial(
                    &data.x,
                    &cfg,
                    TENSOR_BUDGET_BYTES.min(crate::budget::active().bytes),
                )?
                .x,
            ),
            (PathSpec::Tensor, Some(cfg)) => {
                let cost = estimate_cost(data.n(), data.d(), &cfg)?;
                check_budget(&cost)?;
                None
            }
            (PathSpec::Tensor, None) => None,
        };
        check_solver_budget(
            &spec,
            &checked,
            data.n(),
            features.as_ref().map_or(data.d(), |f| f.ncols()),
        )?;
        Ok(Self {
            p: checked.p,
            gamma: checked.gamma,
            linesearch: checked.linesearch,
            spec,
            data,
            checked,
            features,
        })
    }

    /// Replace the model/solver parameters on the same data (the page's sliders). The feature
    /// matrix is rebuilt only if the path or kernel changed.
    pub fn retune(&mut self, spec: LpSpec) -> Result<()> {
        let checked = spec.check()?;
        checked.loss.check_targets(self.data.y.as_slice())?;
        if checked.path != self.checked.path || checked.kernel_cfg != self.checked.kernel_cfg {
            let data = std::mem::replace(
                &mut self.data,
                Dataset {
                    x: DMatrix::zeros(0, 0),
                    y: DVector::zeros(0),
                    w_true: None,
                    feature_names: vec![],
                },
            );
            match Self::new(spec.clone(), checked, data.clone()) {
                Ok(v) => {
                    *self = v;
                    return Ok(());
                }
                Err(e) => {
                    self.data = data;
                    return Err(e);
                }
            }
        }
        self.spec = spec;
        self.p = checked.p;
        self.gamma = checked.gamma;
        self.linesearch = checked.linesearch;
        self.checked = checked;
        Ok(())
    }

    /// The dual exponent q = p/(p − 1).
    pub fn q(&self) -> f64 {
        self.p / (self.p - 1.0)
    }

    /// The Gram tensor's cost (tensor path), known before the build.
    pub fn tensor_cost(&self) -> Result<Option<TensorCost>> {
        match (self.checked.path, self.checked.kernel_cfg) {
            (PathSpec::Tensor, Some(cfg)) => {
                Ok(Some(estimate_cost(self.data.n(), self.data.d(), &cfg)?))
            }
            _ => Ok(None),
        }
    }

    /// A resumable Gram-tensor build (tensor path), refused over the budget.
    pub fn tensor_build(&self) -> Result<GramTensorBuild> {
        self.tensor_build_within(TENSOR_BUDGET_BYTES)
    }

    /// A resumable Gram-tensor build (tensor path) refused over `max_bytes` (values plus the
    /// build's scratch), or over [`TENSOR_BUDGET_BYTES`] if that is lower.
    pub fn tensor_build_within(&self, max_bytes: u64) -> Result<GramTensorBuild> {
        let cfg = self.tensor_cfg()?;
        GramTensorBuild::new(
            &self.data.x,
            cfg,
            max_bytes.min(TENSOR_BUDGET_BYTES).min(crate::budget::active().bytes),
        )
    }

    fn tensor_cfg(&self) -> Result<TensorKernelConfig> {
        match (self.checked.path, self.checked.kernel_cfg) {
            (PathSpec::Tensor, Some(cfg)) => Ok(cfg),
            _ => Err(param(
                "model.path",
                "the features path builds and uses no Gram tensor: choose the tensor path".into(),
            )),
        }
    }

    /// What a Gram tensor built for this experiment depends on: the data (their digest), the
    /// kernel and q. Two experiments with the same key share one tensor (a γ, loss or
    /// algorithm change keeps it); None on the features path.
    pub fn tensor_key(&self) -> Option<String> {
        let cfg = self.tensor_cfg().ok()?;
        let kernel = cfg.kernel().key();
        Some(format!("{}/{kernel}/q={}", self.data.digest(), cfg.q()))
    }

    /// The Gram tensor of this experiment from values built elsewhere (a Web Worker): refused
    /// unless `key` is this experiment's [`tensor_key`](Self::tensor_key) and the values pass
    /// [`GramTensor::from_values`] (count `C(n+q−1, q)`, all finite).
    pub fn tensor_from_values(&self, key: &str, values: Vec<f64>) -> Result<GramTensor> {
        let cfg = self.tensor_cfg()?;
        let mine = self.tensor_key().unwrap_or_default();
        if key != mine {
            return Err(param(
                "tensor",
                format!(
                    "this Gram tensor was built for other data or another kernel ({key}), not for the current experiment \
                     ({mine}): build it again"
                ),
            ));
        }
        GramTensor::from_values(cfg, self.data.n(), self.data.d(), values)
    }

    /// Build the Gram tensor in one go (CLI, tests).
    pub fn build_tensor(&self) -> Result<GramTensor> {
        let mut b = self.tensor_build()?;
        while !b.is_done() {
            b.advance(1 << 20)?;
        }
        b.finish()
    }

    fn feature_poly(&self) -> Result<FeaturePolynomial> {
        let x = self.features.clone().ok_or_else(|| {
            param("model.path", "the tensor path needs its Gram tensor built first".into())
        })?;
        Ok(FeaturePolynomial { x, q: self.q() })
    }

    fn prox_config(&self) -> ProxDualConfig {
        let s = &self.spec.solver;
        let mut cfg = ProxDualConfig::new(self.checked.loss, self.gamma);
        cfg.linesearch.delta = s.delta;
        cfg.linesearch.theta = s.theta;
        if let Some(v) = s.step0 {
            cfg.linesearch.step0 = v;
        }
        cfg
    }

    /// A fresh solver of the named algorithm (features path; for the tensor path see
    /// [`Self::start_with_tensor`]).
    pub fn solver(&self, algorithm: &str) -> Result<LpAlgorithm> {
        let y = self.data.y.clone();
        let c = &self.checked;
        let primal_cfg =
            PrimalConfig { gamma: self.gamma, p: self.p, measure: GapMeasure::Duality };
        Ok(match algorithm {
            "dual_gradient" => {
                let x = self.feature_poly()?.x;
                LpAlgorithm::DualGradient(DualLp::new(x, y, self.gamma, self.p, self.linesearch))
            }
            "prox_dual" => {
                LpAlgorithm::ProxDual(ProxDual::new(self.feature_poly()?, y, self.prox_config())?)
            }
            "dual_newton" => LpAlgorithm::DualNewton(DualNewton::new(
                self.feature_poly()?,
                y,
                NewtonConfig::with_loss(c.loss, self.gamma),
            )?),
            "primal_gd" => LpAlgorithm::PrimalGd(PrimalGd::new(
                self.feature_poly()?.x,
                y,
                primal_cfg,
                Armijo::default(),
            )?),
            "fista" => LpAlgorithm::Fista(Fista::new(self.feature_poly()?.x, y, primal_cfg, None)?),
            other => {
                return Err(param(
                    "solver.algorithm",
                    format!("unknown algorithm `{}`", crate::error::clip(other)),
                ))
            }
        })
    }

    /// A dual solver on the Gram tensor (tensor path): prox_dual or dual_newton.
    pub fn tensor_solver(&self, algorithm: &str, tensor: GramTensor) -> Result<LpAlgorithm> {
        let y = self.data.y.clone();
        Ok(match algorithm {
            "prox_dual" => {
                LpAlgorithm::ProxDualTensor(ProxDual::new(tensor, y, self.prox_config())?)
            }
            "dual_newton" => LpAlgorithm::DualNewtonTensor(DualNewton::new(
                tensor,
                y,
                NewtonConfig::with_loss(self.checked.loss, self.gamma),
            )?),
            other => {
                return Err(param(
                    "solver.algorithm",
                    format!(
                        "`{other}` does not run on the Gram tensor: use prox_dual or dual_newton"
                    ),
                ))
            }
        })
    }

    /// The executor's rules for the spec's run: converged once the relative duality gap is
    /// ≤ `solver.tol` (paper A's stopping test), at most `solver.max_iter` iterations.
    pub fn watch(&self) -> Watch {
        watch_to(self.spec.solver.tol, self.spec.solver.max_iter)
    }

    /// A fresh run of the configured solver (features path).
    pub fn start(&self) -> Result<LpRun> {
        let s = self.solver(&self.spec.solver.algorithm)?;
        Ok(LpRun::with_watch(s, self.watch()))
    }

    /// A fresh run of the configured solver on a built Gram tensor (tensor path).
    pub fn start_with_tensor(&self, tensor: GramTensor) -> Result<LpRun> {
        let s = self.tensor_solver(&self.spec.solver.algorithm, tensor)?;
        Ok(LpRun::with_watch(s, self.watch()))
    }

    /// A run of the configured solver on whichever path the spec names (builds the tensor).
    pub fn start_any(&self) -> Result<LpRun> {
        match self.checked.path {
            PathSpec::Features => self.start(),
            PathSpec::Tensor => self.start_with_tensor(self.build_tensor()?),
        }
    }

    /// The primal weights of a run in the original features: the solver's own w, or on the
    /// tensor path with the linear kernel `w = J_q(Xᵀα)` (Theorem 2.1).
    pub fn weights(&self, run: &LpRun) -> Option<DVector<f64>> {
        if let Some(w) = run.stepper().w() {
            return Some(w);
        }
        if self.checked.kernel.identity_features() {
            return run.stepper().alpha().map(|a| features_w(&self.data.x, &a, self.q()));
        }
        None
    }

    /// The predictor of Remark 2.4 for a dual iterate α (tensor kernels with q = 4, 6); for
    /// the linear kernel at other p, `f(x) = ⟨w, x⟩` with `w = J_q(Xᵀα)`.
    pub fn predictor(&self, run: &LpRun) -> Result<Predictor> {
        if let (Some(cfg), Some(alpha)) = (self.checked.kernel_cfg, run.stepper().alpha()) {
            return Ok(Predictor::Tensor(TensorPredictor::new(&self.data.x, &alpha, cfg)?));
        }
        match (self.checked.kernel.identity_features(), self.weights(run)) {
            (true, Some(w)) => Ok(Predictor::Linear(w)),
            (true, None) | (false, _) => Err(param(
                "model.kernel",
                "no predictor for this kernel without a dual iterate".into(),
            )),
        }
    }

    /// The reference optimum F* for relative errors: the dual Newton method run to machine
    /// precision (square, logistic), else Algorithm 3.3 with a tight tolerance. Returns the
    /// final primal value (the smallest F seen) and the Newton iterations used. The page and
    /// `kplay race` reach it through [`crate::papers::lp::run::RaceJob`], which steps the same run.
    pub fn reference_optimum(&self, tensor: Option<GramTensor>) -> Result<(f64, usize)> {
        let mut run = self.reference_run(tensor.as_ref())?;
        run.run();
        Ok((reference_value(&run)?, run.last().iter))
    }

    /// The run whose smallest primal value is F* ([`Self::reference_optimum`]), at its start.
    pub fn reference_run(&self, tensor: Option<&GramTensor>) -> Result<LpRun> {
        let alg = self.reference_algorithm()?;
        let solver = match tensor {
            Some(t) => self.tensor_solver(alg, t.clone())?,
            None => self.solver(alg)?,
        };
        let cap = if alg == "dual_newton" { 200 } else { 100_000 };
        Ok(LpRun::with_watch(solver, watch_to(1e-15, cap)))
    }

    /// The algorithm computing the reference F* of a race (dual Newton for the square and
    /// logistic losses, else Algorithm 3.3), after checking its memory and work against the
    /// budget in force (a race on a large n needs an n × n Hessian, whatever the algorithm raced).
    pub fn reference_algorithm(&self) -> Result<&'static str> {
        let alg =
            if self.checked.loss.capabilities().smooth_dual { "dual_newton" } else { "prox_dual" };
        let n = self.data.n();
        let b = crate::budget::active();
        let (nf, df) =
            (n as f64, self.features.as_ref().map_or(self.data.d(), |f| f.ncols()) as f64);
        if alg == "dual_newton" {
            b.square(
                "data.n",
                "the reference F* is computed by dual Newton, which needs an n × n Hessian",
                n,
            )?;
            b.work(
                "data.n",
                "the reference F* (dual Newton: one Hessian and its factorization per iteration)",
                nf * nf * df + nf * nf * nf / 3.0,
            )?;
        } else {
            b.work("data.n", "the reference F* (Algorithm 3.3)", 4.0 * nf * df)?;
        }
        Ok(alg)
    }

    /// The lanes of a race of every algorithm that applies ([`crate::exec::Race`],
    /// against F* by [`crate::papers::lp::run::race`]): on the features path dual_gradient (or
    /// prox_dual for a non-square loss), prox_dual, dual_newton (smooth dual), primal_gd and
    /// fista (square loss); on the tensor path (with its built Gram tensor) prox_dual and, for
    /// the square and logistic losses, dual_newton, each on its own copy of the tensor. Each
    /// lane's rules ([`Self::lane_watch`]) have tolerance 0: the race ends it at F*.
    pub fn race_lanes(&self, tensor: Option<&GramTensor>) -> Result<Vec<(String, LpAlgorithm)>> {
        let c = &self.checked;
        let smooth = c.loss.capabilities().smooth_dual;
        if let (PathSpec::Tensor, Some(t)) = (c.path, tensor) {
            let names = if smooth { vec!["prox_dual", "dual_newton"] } else { vec!["prox_dual"] };
            return names
                .into_iter()
                .map(|name| Ok((name.to_string(), self.tensor_solver(name, t.clone())?)))
                .collect();
        }
        let square = c.loss.capabilities().square;
        let mut names = vec![if square { "dual_gradient" } else { "prox_dual" }];
        if square {
            names.push("prox_dual");
        }
        if smooth {
            names.push("dual_newton");
        }
        if square {
            names.push("primal_gd");
            names.push("fista");
        }
        names.into_iter().map(|name| Ok((name.to_string(), self.solver(name)?))).collect()
    }

    /// A race lane's rules: converged once the relative gap is ≤ 0 (a gap at or below rounding
    /// zero; the race itself ends a lane at F*), at most `solver.max_iter` iterations.
    pub fn lane_watch(&self) -> Watch {
        watch_to(0.0, self.spec.solver.max_iter)
    }
}

/// The executor's rules for a paper-A run: converged once the relative duality gap is ≤ `tol`,
/// at most `cap` iterations (the spec's run, the reference run, a race lane, the tests).
pub fn watch_to(tol: f64, cap: usize) -> Watch {
    Watch::capped(cap).with_tol(Tol { measure: Measure::RelGap, tol, strict: false })
}

/// The memory and the work of the spec's algorithm on n samples with `dim` features (the
/// explicit features, or d on the tensor path), against the budget in force
/// ([`crate::budget::active`]): dual Newton's n × n Hessian (and n²·dim per step to form it),
/// the primal methods' min(n, d)² Gram matrix for the step size `γ‖X‖²` and their d proxes
/// per step. The number of iterations is not limited (`max_iter` is a cap, not a cost).
fn check_solver_budget(spec: &LpSpec, c: &LpChecked, n: usize, dim: usize) -> Result<()> {
    let b = crate::budget::active();
    let (nf, df) = (n as f64, dim as f64);
    let alg = spec.solver.algorithm.as_str();
    let tensor = match (c.path, c.kernel_cfg) {
        (PathSpec::Tensor, Some(cfg)) => Some(estimate_cost(n, dim, &cfg)?.entries as f64),
        _ => None,
    };
    // One evaluation of the dual polynomial's value and gradient.
    let eval = tensor.unwrap_or(2.0 * nf * df);
    match alg {
        "dual_newton" => {
            b.square("data.n", "dual Newton needs an n × n Hessian", n)?;
            let hessian = tensor.map_or(nf * nf * df, |t| t * 3.0);
            b.work(
                "data.n",
                "dual Newton (forming and factoring its n × n Hessian)",
                hessian + nf * nf * nf / 3.0 + eval,
            )?;
        }
        "primal_gd" | "fista" => {
            let m = n.min(dim);
            b.square(
                "data.d",
                &format!("{alg}'s step size γ‖X‖² needs a min(n, d) × min(n, d) Gram matrix"),
                m,
            )?;
            // The step size needs the Gram matrix (m²·max(n, d)) and its eigenvalues (≈ 4m³), once.
            let (mf, big) = (m as f64, nf.max(df));
            b.work(
                "data.n",
                &format!("{alg}'s step size γ‖X‖² (a min(n, d)² Gram matrix and its eigenvalues)"),
                mf * mf * big + 4.0 * mf * mf * mf,
            )?;
            b.work("data.d", alg, 2.0 * nf * df + 40.0 * df)?;
        }
        _ => b.work("data.n", alg, 2.0 * eval)?,
    }
    Ok(())
}

fn check_budget(cost: &TensorCost) -> Result<()> {
    if cost.bytes > TENSOR_BUDGET_BYTES {
        return Err(param(
            "model.path",
            format!(
                "the Gram tensor would need {:.1} MiB ({} values), over the budget of {:.0} MiB. {}",
                cost.bytes as f64 / 1048576.0,
                cost.entries,
                TENSOR_BUDGET_BYTES as f64 / 1048576.0,
                "Lower n or use the features path"
            ),
        ));
    }
    // The budget in force may be lower than the tensor's own limit (the fuzz budget).
    crate::budget::active().bytes(
        "model.path",
        "the Gram tensor",
        &format!(
            "n = {}, q = {} → {} values",
            crate::budget::group(cost.n as f64),
            cost.q,
            crate::budget::group(cost.entries as f64)
        ),
        cost.bytes as f64,
    )
}

/// A predictor `f(x)` (Remark 2.4).
pub enum Predictor {
    /// `f(x) = ⟨w, x⟩`.
    Linear(DVector<f64>),
    /// `f(x) = Σ K(x_{i1}, …, x_{i(q−1)}, x) α_{i1}⋯α_{i(q−1)}`.
    Tensor(TensorPredictor),
}

impl Predictor {
    /// `f` at one point.
    pub fn predict(&self, point: &[f64]) -> Result<f64> {
        match self {
            Predictor::Linear(w) => {
                if point.len() != w.len() {
                    return Err(param(
                        "x",
                        format!(
                            "a point of dimension {} for weights of dimension {}",
                            point.len(),
                            w.len()
                        ),
                    ));
                }
                Ok(point.iter().zip(w.iter()).map(|(a, b)| a * b).sum())
            }
            Predictor::Tensor(t) => t.predict(point),
        }
    }

    /// `f` on an `mx × my` grid, row-major in y then x (values[iy·mx + ix]).
    pub fn grid_2d(
        &self,
        xr: (f64, f64),
        yr: (f64, f64),
        mx: usize,
        my: usize,
    ) -> Result<Vec<f64>> {
        if !(1..=4096).contains(&mx) || !(1..=4096).contains(&my) {
            return Err(param(
                "grid",
                format!("between 1 and 4096 cells per side (got {mx} × {my})"),
            ));
        }
        let mut out = Vec::with_capacity(mx * my);
        for iy in 0..my {
            let yv = yr.0 + (yr.1 - yr.0) * iy as f64 / (my.max(2) - 1) as f64;
            for ix in 0..mx {
                let xv = xr.0 + (xr.1 - xr.0) * ix as f64 / (mx.max(2) - 1) as f64;
                out.push(self.predict(&[xv, yv])?);
            }
        }
        Ok(out)
    }
}

/// F* from a finished reference run: the smallest finite primal value of its trace.
pub fn reference_value(run: &LpRun) -> Result<f64> {
    let best = run
        .kept()
        .iter()
        .filter_map(|r| r.primal)
        .filter(|v| v.is_finite())
        .fold(f64::INFINITY, f64::min);
    if !best.is_finite() {
        return Err(KpError::NonFinite(
            "the reference optimum F* (dual Newton run) is not finite".into(),
        ));
    }
    Ok(best)
}

/// A validated paper-A experiment and its run: the session `kplay run`, `kplay plot` and the
/// tests step (through the executor, [`LpRun`]).
pub struct LpSession {
    pub valid: LpProblem,
    pub run: LpRun,
}

impl LpSession {
    /// Validate, build the data (and the Gram tensor on the tensor path) and start the solver.
    pub fn start(spec: &LpSpec) -> Result<Self> {
        let valid = spec.validate()?;
        let run = valid.start_any()?;
        Ok(Self { valid, run })
    }

    /// The solution `kplay run` prints: the weights w in the original features (also on the
    /// tensor path with the linear kernel, `w = J_q(Xᵀα)`) and the dual iterate α.
    pub fn solution(&self) -> Value {
        let w = self.valid.weights(&self.run).map(|w| w.as_slice().to_vec());
        let alpha = self.run.stepper().alpha().map(|a| a.as_slice().to_vec());
        json!({ "w": w, "alpha": alpha })
    }
}
