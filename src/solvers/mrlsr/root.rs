//! The safeguarded Newton solve for the root C₀ of F (Theorem 1, eq. 6), as a [`Stepper`] on a
//! borrowed model ([`RootSolve`]) or owning it ([`MrlsrSolve`]: paper B's run, one record per
//! root-solve step, then the fit at C₀). Their own stop is the root found to rounding; the cap
//! ([`ROOT_MAX_ITER`]), the stall rule, the deadline and the trace are the executor's
//! ([`solve_root`], [`crate::exec::Run`]).

use std::ops::Deref;

use serde_json::{json, Value};

use super::model::*;
use crate::fmath;
use nalgebra::DVector;

use crate::error::{KpError, Result};
use crate::exec::{Record, Run, Stepper, Stop, Watch};

/// Safeguarded Newton / bisection on `φ(t) = 0` (t = ln C) inside a sign-changing bracket, as a
/// steppable state. φ > 0 at `lo`, φ < 0 at `hi` for the decreasing case; the other orientation
/// is handled too (used for the second root when m < 1).
pub(super) struct RootState {
    m: f64,
    lambda: f64,
    lo: f64,
    hi: f64,
    /// Sign of φ at `lo` (+1 or −1).
    sign_lo: f64,
    t: f64,
    phi: f64,
    dphi: f64,
    iter: usize,
    /// Whether `|φ|` is at rounding level or the bracket collapsed (the root is found).
    converged: bool,
    /// Whether the latest step was a Newton step (else bisection, or the start).
    newton: bool,
}

impl RootState {
    /// Start inside the bracket `[lo, hi]` (in t = ln C) with φ(lo), φ(hi) of opposite signs.
    fn new(model: &MrlsrModel, m: f64, lambda: f64, lo: f64, hi: f64, start: f64) -> Self {
        let (phi_lo, _) = model.phi(m, lambda, lo);
        let t = if start > lo && start < hi { start } else { 0.5 * (lo + hi) };
        let (phi, dphi) = model.phi(m, lambda, t);
        let mut me = Self {
            m,
            lambda,
            lo,
            hi,
            sign_lo: if phi_lo >= 0.0 { 1.0 } else { -1.0 },
            t,
            phi,
            dphi,
            iter: 0,
            converged: false,
            newton: false,
        };
        me.update_bracket();
        me.check();
        me
    }

    fn update_bracket(&mut self) {
        if self.phi * self.sign_lo > 0.0 {
            self.lo = self.t;
        } else if self.phi != 0.0 {
            self.hi = self.t;
        }
    }

    fn check(&mut self) {
        let scale = self.t.abs().max(1.0);
        if self.phi == 0.0
            || self.phi.abs() <= 4.0 * f64::EPSILON * scale
            || (self.hi - self.lo) <= 4.0 * f64::EPSILON * scale
        {
            self.converged = true;
        }
    }

    /// The current C = eᵗ.
    fn c(&self) -> f64 {
        fmath::exp(self.t)
    }

    /// The record of the current iterate: `F(C)` (eq. 6) as the residual, C as the step.
    fn record(&self, model: &MrlsrModel) -> Record {
        let c = self.c();
        Record {
            iter: self.iter,
            residual: Some(model.f_of_c(self.m, self.lambda, c)),
            step: Some(c),
            ..Record::default()
        }
    }

    /// One Newton step in t, or a bisection when Newton leaves the bracket (nothing once the
    /// root is found).
    fn step(&mut self, model: &MrlsrModel) -> Option<Record> {
        if self.converged {
            return None;
        }
        self.iter += 1;
        let newton_t = if self.dphi != 0.0 { self.t - self.phi / self.dphi } else { f64::NAN };
        let width = self.hi - self.lo;
        let newton = newton_t.is_finite()
            && newton_t > self.lo + 1e-3 * width
            && newton_t < self.hi - 1e-3 * width;
        let prev = self.t;
        self.t = if newton { newton_t } else { 0.5 * (self.lo + self.hi) };
        let (phi, dphi) = model.phi(self.m, self.lambda, self.t);
        self.phi = phi;
        self.dphi = dphi;
        self.update_bracket();
        self.check();
        if !self.converged
            && newton
            && (self.t - prev).abs() <= 2.0 * f64::EPSILON * self.t.abs().max(1.0)
        {
            self.converged = true;
        }
        self.newton = newton;
        Some(self.record(model))
    }
}

/// [`RootState`] on a model held by `M` (borrowed, [`RootSolve`], or shared, an
/// `Arc<MrlsrModel>` for a page that steps it over frames): a [`Stepper`] (one Newton or
/// bisection step in t = ln C per step; its own stop is the root found to rounding,
/// [`Stop::Converged`]).
pub struct RootSearch<M: Deref<Target = MrlsrModel>> {
    model: M,
    state: RootState,
}

/// The root solve of [`MrlsrModel::root_solve`] on a borrowed model.
pub type RootSolve<'a> = RootSearch<&'a MrlsrModel>;

/// Where the direct solve looks for a root of F, in its order: a bracket in t = ln C that it
/// refines from `start` (m > 1: [`MrlsrModel::root_solve`]'s; m ≤ 1: each sign change of the
/// scan of [`MrlsrModel::positive_roots`]), or a grid point where φ is exactly 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RootStart {
    /// A root at t = ln C found by the scan itself (no step).
    Exact(f64),
    /// A sign-changing bracket `[lo, hi]` and the first iterate.
    Bracket {
        /// Left end (t = ln C).
        lo: f64,
        /// Right end.
        hi: f64,
        /// The first iterate.
        start: f64,
    },
}

impl<M: Deref<Target = MrlsrModel>> RootSearch<M> {
    pub(super) fn new(model: M, m: f64, lambda: f64, lo: f64, hi: f64, start: f64) -> Self {
        let state = RootState::new(&model, m, lambda, lo, hi, start);
        Self { model, state }
    }

    /// The search of one [`RootStart::Bracket`] (`None` for an exact root: nothing to step),
    /// started exactly as the direct solve starts it.
    pub fn at(model: M, m: f64, lambda: f64, start: RootStart) -> Option<Self> {
        match start {
            RootStart::Exact(_) => None,
            RootStart::Bracket { lo, hi, start } => {
                Some(Self::new(model, m, lambda, lo, hi, start))
            }
        }
    }

    /// The current C.
    pub fn c(&self) -> f64 {
        self.state.c()
    }

    /// The current bracket `[C_lo, C_hi]` holding the root.
    pub fn bracket(&self) -> (f64, f64) {
        (fmath::exp(self.state.lo), fmath::exp(self.state.hi))
    }

    /// `φ(ln C) = (m/2 − 1) ln g(C) − ln C`, the residual in log scale (relative residual of F).
    pub fn log_residual(&self) -> f64 {
        self.state.phi
    }

    /// Whether the latest step was a Newton step (else bisection, or the start).
    pub fn newton(&self) -> bool {
        self.state.newton
    }

    /// Steps taken.
    pub fn iterations(&self) -> usize {
        self.state.iter
    }
}

/// The root solve in the one executor's protocol: its record holds `F(C)` (eq. 6) as the
/// residual and C as the step.
impl<M: Deref<Target = MrlsrModel>> Stepper for RootSearch<M> {
    fn record(&self) -> Record {
        self.state.record(&self.model)
    }
    fn step(&mut self) -> Option<Record> {
        self.state.step(&self.model)
    }
    fn stop(&self) -> Stop {
        if self.state.converged {
            Stop::Converged
        } else {
            Stop::Running
        }
    }
    fn solution(&self) -> Value {
        json!({ "C": self.c() })
    }
}

/// A root search under the executor's rules, capped at [`ROOT_MAX_ITER`] steps: the one setup
/// of the direct solve ([`solve_root`]) and of a page that steps it frame by frame.
pub fn root_run<M: Deref<Target = MrlsrModel>>(search: RootSearch<M>) -> Run<RootSearch<M>> {
    Run::with_watch(search, Watch::capped(ROOT_MAX_ITER))
}

/// Run a root solve under the executor ([`root_run`]): `(t = ln C, steps, whether the root
/// was found)` where the run ended (found, or the cap, the deadline).
pub(super) fn solve_root(solve: RootSolve<'_>) -> (f64, usize, bool) {
    let mut run = root_run(solve);
    let stop = run.run();
    let state = &run.stepper().state;
    (state.t, state.iter, stop == Stop::Converged)
}

/// Paper B's run as one [`Stepper`]: it owns the model (K's eigendecomposition, Theorem 1) and
/// steps the root solve for C₀ (m > 1, m ≠ 2), one record per Newton or bisection step with the
/// residual F(C) of eq. 6 and C; when the root is found, the fit at C₀ (the same
/// [`MrlsrModel::fit_at_c`] as [`MrlsrModel::fit_theorem1`], bit for bit) is its last record's
/// objective. KRR (m = 2) and m ≤ 1 (the stationary points of [`MrlsrModel::fit`]) have no
/// steps: their fit is the starting record.
pub struct MrlsrSolve {
    model: MrlsrModel,
    m: f64,
    lambda: f64,
    root: Option<RootState>,
    outcome: Option<MrlsrOutcome>,
    stop: Stop,
    started: web_time::Instant,
}

impl MrlsrSolve {
    /// Start paper B's run at (m, λ) on a built model; m and λ are checked here.
    pub fn new(model: MrlsrModel, m: f64, lambda: f64) -> Result<Self> {
        check_m(m)?;
        check_lambda(lambda, "λ")?;
        let started = web_time::Instant::now();
        if m > 1.0 && m != 2.0 {
            let root = model.root_solve(m, lambda).state;
            let mut me = Self {
                model,
                m,
                lambda,
                root: Some(root),
                outcome: None,
                stop: Stop::Running,
                started,
            };
            me.settle()?;
            return Ok(me);
        }
        let outcome = model.fit(m, lambda)?;
        Ok(Self {
            model,
            m,
            lambda,
            root: None,
            outcome: Some(outcome),
            stop: Stop::Converged,
            started,
        })
    }

    /// When the root solve has ended: the fit at C₀ (as [`MrlsrModel::fit_theorem1`]).
    fn settle(&mut self) -> Result<()> {
        let Some(root) = &self.root else { return Ok(()) };
        if root.converged {
            let c = root.c();
            if !(c.is_finite() && c > 0.0) {
                self.stop = Stop::NonFinite;
                return Ok(());
            }
            let fit = finite_fit(self.model.fit_at_c(self.m, self.lambda, c, root.iter))?;
            self.outcome = Some(MrlsrOutcome::Theorem1(fit));
            self.stop = Stop::Converged;
        }
        Ok(())
    }

    /// The model (K, its eigendecomposition).
    pub fn model(&self) -> &MrlsrModel {
        &self.model
    }

    /// The fit once the run has ended (`None` while the root solve runs or if it failed).
    pub fn outcome(&self) -> Option<&MrlsrOutcome> {
        self.outcome.as_ref()
    }

    /// Root-solve steps taken (0 for m = 2 and m ≤ 1).
    pub fn root_iterations(&self) -> usize {
        self.root.as_ref().map_or(0, |r| r.iter)
    }

    fn elapsed_ms(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1e3
    }
}

impl Stepper for MrlsrSolve {
    fn record(&self) -> Record {
        let best = self.outcome.as_ref().and_then(MrlsrOutcome::best_fit);
        match (&self.root, &self.outcome) {
            // The run has a fit: its objective, F(C₀) and C₀ (f = 0 when none is better).
            (_, Some(_)) => Record {
                iter: best.map_or(0, |f| f.iterations),
                primal: Some(
                    best.map(|f| f.objective)
                        .unwrap_or(self.model.y().norm_squared() / self.model.n() as f64),
                ),
                residual: best.map(|f| f.f_residual),
                step: best.map(|f| f.c0),
                elapsed_ms: self.elapsed_ms(),
                ..Record::default()
            },
            (Some(r), None) => Record { elapsed_ms: self.elapsed_ms(), ..r.record(&self.model) },
            (None, None) => Record::default(),
        }
    }

    fn step(&mut self) -> Option<Record> {
        let r = self.root.as_mut()?;
        r.step(&self.model)?;
        if self.settle().is_err() {
            // The fit at C₀ is not finite: the run ends there, without a fit.
            self.stop = Stop::NonFinite;
            self.outcome = None;
        }
        Some(self.record())
    }

    fn stop(&self) -> Stop {
        self.stop
    }

    fn solution(&self) -> Value {
        let n = self.model.n();
        let best = self.outcome.as_ref().and_then(MrlsrOutcome::best_fit);
        let stationary = match &self.outcome {
            Some(MrlsrOutcome::OutsideTheorem(o)) => Some(json!({
                "message": o.message, "minimizer": o.minimizer, "zero_objective": o.zero_objective,
                "points": o.stationary.iter()
                    .map(|s| json!({"C": s.fit.c0, "kind": s.kind, "objective": s.fit.objective}))
                    .collect::<Vec<_>>(),
            })),
            _ => None,
        };
        let alpha = match &self.outcome {
            Some(o) => o.best_alpha(n),
            None => DVector::zeros(n),
        };
        json!({
            "alpha": alpha.as_slice(),
            "C0": best.map(|f| f.c0),
            "lambda2": best.map(|f| f.lambda2),
            "norm_h": best.map(|f| f.norm_h).unwrap_or(0.0),
            "theorem1": matches!(self.outcome, Some(MrlsrOutcome::Theorem1(_))),
            "stationary": stationary,
            // What the page reads out beside the fit, so a shell can check it.
            "kernel": self.model.kernel(),
            "root_iterations": self.root_iterations(),
            "zero_eigenvalues": self.model.singularity().map_or(0, |s| s.zero_eigenvalues),
            "singularity": self.model.singularity().map(|s| s.message.clone()),
        })
    }
}

impl MrlsrModel {
    /// Theorem 1 (m > 1): the unique minimizer, by the safeguarded Newton solve for C₀.
    /// Errors for m ≤ 1 (use [`MrlsrModel::fit`]) and for invalid λ, m.
    pub fn fit_theorem1(&self, m: f64, lambda: f64) -> Result<MrlsrFit> {
        check_m(m)?;
        check_lambda(lambda, "λ")?;
        if m <= 1.0 {
            return Err(KpError::Parameter {
                name: "m",
                reason: format!("Theorem 1 needs m > 1 (got {m}); for m ≤ 1 the problem is not strictly convex, see the stationary points"),
            });
        }
        if m == 2.0 {
            return finite_fit(self.fit_at_c(2.0, lambda, 1.0, 0));
        }
        let (t, iters, found) = solve_root(self.root_solve(m, lambda));
        if !found {
            return Err(KpError::NonFinite(format!(
                "the root-solve for C₀ did not converge in {ROOT_MAX_ITER} iterations"
            )));
        }
        let c = fmath::exp(t);
        if !(c.is_finite() && c > 0.0) {
            return Err(KpError::NonFinite(format!(
                "C₀ = exp({t:.3}) is out of floating-point range; try a less extreme m or λ"
            )));
        }
        finite_fit(self.fit_at_c(m, lambda, c, iters))
    }

    /// The steppable root-solve for C₀ (m > 1, parameters valid), started at
    /// `C = ‖f_KRR(λ)‖^(m−2)` inside the guaranteed bracket `t₀ ± |φ(t₀)|/min(1, m − 1)`.
    pub fn root_solve(&self, m: f64, lambda: f64) -> RootSolve<'_> {
        let (lo, hi, t0) = self.root_bracket(m, lambda);
        RootSolve::new(self, m, lambda, lo, hi, t0)
    }

    /// Where the direct solve looks for the roots of F, in its order ([`RootStart`]): m > 1,
    /// m ≠ 2, [`Self::root_solve`]'s bracket; m = 2 none (C₀ = 1 in closed form); m ≤ 1 the
    /// sign changes of [`Self::positive_roots`]' scan.
    pub fn root_starts(&self, m: f64, lambda: f64) -> Result<Vec<RootStart>> {
        check_m(m)?;
        check_lambda(lambda, "λ")?;
        if m == 2.0 {
            return Ok(Vec::new());
        }
        if m > 1.0 {
            let (lo, hi, start) = self.root_bracket(m, lambda);
            return Ok(vec![RootStart::Bracket { lo, hi, start }]);
        }
        Ok(self.scan_starts(m, lambda))
    }

    /// [`Self::root_solve`]'s bracket `(lo, hi)` and start `t₀` in t = ln C.
    fn root_bracket(&self, m: f64, lambda: f64) -> (f64, f64, f64) {
        let e = 0.5 * m - 1.0;
        let (lg, _) = self.log_g(2.0, lambda, 1.0);
        let t0 = if lg.is_finite() { e * lg } else { 0.0 };
        let (phi0, _) = self.phi(m, lambda, t0);
        let kappa = (m - 1.0).clamp(1e-12, 1.0);
        let reach = phi0.abs() / kappa * (1.0 + 1e-9) + 1e-12;
        let (mut lo, mut hi) = if phi0 > 0.0 { (t0, t0 + reach) } else { (t0 - reach, t0) };
        // C = eᵗ must stay a finite positive double.
        lo = lo.max(-T_LIMIT);
        hi = hi.min(T_LIMIT);
        // φ' ≤ −κ guarantees the signs; expand in case rounding disagrees.
        for _ in 0..60 {
            if self.phi(m, lambda, hi).0 <= 0.0 {
                break;
            }
            hi = (hi + (hi - lo).max(1.0)).min(T_LIMIT);
        }
        for _ in 0..60 {
            if self.phi(m, lambda, lo).0 >= 0.0 {
                break;
            }
            lo = (lo - (hi - lo).max(1.0)).max(-T_LIMIT);
        }
        (lo, hi, t0)
    }

    /// Solve eq. (4) for any m > 0: Theorem 1 when m > 1; otherwise every positive root of F
    /// as a stationary point with its kind and objective, and f = 0 (see the module doc).
    pub fn fit(&self, m: f64, lambda: f64) -> Result<MrlsrOutcome> {
        check_m(m)?;
        check_lambda(lambda, "λ")?;
        if m > 1.0 {
            return self.fit_theorem1(m, lambda).map(MrlsrOutcome::Theorem1);
        }
        let roots = self.positive_roots(m, lambda)?;
        let mut stationary = Vec::with_capacity(roots.len());
        for (c, iters) in roots {
            let fit = finite_fit(self.fit_at_c(m, lambda, c, iters))?;
            let margin = self.hessian_margin(&fit);
            let kind =
                if margin > 0.0 { StationaryKind::LocalMinimum } else { StationaryKind::Saddle };
            stationary.push(StationaryPoint { fit, kind, hessian_margin: margin });
        }
        let zero_objective = self.y_norm2 / self.n() as f64;
        let mut minimizer = None;
        let mut best = zero_objective;
        for (i, s) in stationary.iter().enumerate() {
            if s.fit.objective < best {
                best = s.fit.objective;
                minimizer = Some(i);
            }
        }
        let nl = lambda * self.n() as f64;
        let message = if m == 1.0 {
            if stationary.is_empty() {
                format!(
                    "m = 1 is outside Theorem 1 (convex, not strictly). F has no positive root because Σ4d_i y'_i² = {:.4e} ≤ (λn)² = {:.4e}: the minimizer is f = 0.",
                    self.s4,
                    nl * nl
                )
            } else {
                format!(
                    "m = 1 is outside Theorem 1 (convex, not strictly). Σ4d_i y'_i² = {:.4e} > (λn)² = {:.4e}, so F has one positive root, C₀ = {:.4e}, and it gives the minimizer.",
                    self.s4,
                    nl * nl,
                    stationary[0].fit.c0
                )
            }
        } else {
            let kinds: Vec<String> = stationary
                .iter()
                .map(|s| {
                    format!(
                        "C = {:.4e} ({}, objective {:.6e})",
                        s.fit.c0,
                        if s.kind == StationaryKind::LocalMinimum {
                            "local minimum"
                        } else {
                            "saddle"
                        },
                        s.fit.objective
                    )
                })
                .collect();
            let best_txt = match minimizer {
                Some(i) => format!("the lowest objective is at C = {:.4e}", stationary[i].fit.c0),
                None => "f = 0 has the lowest objective".to_string(),
            };
            format!(
                "m = {m} < 1 is outside Theorem 1: the objective is not convex and f = 0 (objective {zero_objective:.6e}) is always a local minimum. F has {} positive root(s){}{}; {best_txt}.",
                stationary.len(),
                if kinds.is_empty() { "" } else { ": " },
                kinds.join(", ")
            )
        };
        Ok(MrlsrOutcome::OutsideTheorem(OutsideTheorem {
            m,
            lambda,
            stationary,
            zero_objective,
            minimizer,
            message,
        }))
    }
}
