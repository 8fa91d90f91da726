//! Paper A's primal baselines (Section 4, Table 1) on the square loss, features path:
//! `F(w) = (γ/2)‖Xw − y‖² + (1/p)‖w‖_p^p`, `1 < p < 2`.
//!
//! * [`PrimalGd`]: gradient descent with Armijo backtracking, `∇F = γXᵀ(Xw − y) + J_p(w)`.
//!   `J_p` is not Lipschitz at 0 (slope `|w|^(p−2)` → ∞), which is why it stalls. Each iteration
//!   starts from the previous accepted step divided by θ (so the step can grow back), and accepts
//!   the first `s` with `F(w) − F(w − s∇F) ≥ c s‖∇F‖²`.
//! * [`Fista`]: FISTA (Beck–Teboulle) on `f = (γ/2)‖Xw − y‖²` plus `g = (1/p)‖·‖_p^p`, constant
//!   step `1/L` with `L = γ‖X‖₂²` (largest eigenvalue of `XXᵀ`, computed once by nalgebra's
//!   symmetric eigensolver, or supplied), prox of `(t/p)|·|^p` by [`prox_lp_pow`].
//!
//! Their "gap" ([`GapMeasure`]): by default a true duality gap `F(w) + Λ(α(w)) ≥ 0` with the
//! dual certificate `α(w) = γ(y − Xw)` (the KKT map; `α(w̄) = ᾱ` at the optimum), relative to
//! `F(w)`; or the relative error `(F(w) − F*)/F*` against a reference optimum `F*` given at
//! construction (as in the paper's Table 1, where `F*` comes from the dual method).

use crate::fmath;
use nalgebra::{DMatrix, DVector};
use web_time::Instant;

use super::Progress;
use crate::error::{KpError, Result};
use crate::exec::{Record, Stepper, Stop};
use crate::lp::{abs_pow, conjugate_exponent, j_scalar, norm_pow};

/// What the primal solvers report as their gap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GapMeasure {
    /// `F(w) + Λ(γ(y − Xw))`, a certified duality gap (relative gap: divided by `F(w)`).
    Duality,
    /// `F(w) − F*` for a reference optimum `F* > 0` (relative gap: divided by `F*`).
    Reference(f64),
}

/// The real root of the depressed cubic `u³ + a u − b = 0`, `a > 0`, `b ≥ 0`, by the hyperbolic
/// form `u = 2√(a/3) sinh(asinh((3b/(2a))√(3/a))/3)` (no cancellation), polished by one Newton step.
fn depressed_cubic_root(a: f64, b: f64) -> f64 {
    if b <= 0.0 {
        return 0.0;
    }
    let arg = (3.0 * b / (2.0 * a)) * (3.0 / a).sqrt();
    let mut u = if arg.is_finite() && a > 0.0 {
        2.0 * (a / 3.0).sqrt() * (arg.asinh() / 3.0).sinh()
    } else {
        fmath::cbrt(b)
    };
    for _ in 0..2 {
        let f = u * u * u + a * u - b;
        let d = 3.0 * u * u + a;
        if d > 0.0 && f.is_finite() {
            let un = u - f / d;
            if un.is_finite() && un >= 0.0 {
                u = un;
            }
        }
    }
    u
}

/// `prox_{(t/p)|·|^p}(v)` for p = 4/3 in closed form (paper A, Section 4, ref. [1]):
/// with `u = |x|^(1/3)`, `u³ + t u − |v| = 0`, solved by [`depressed_cubic_root`]; `x = sign(v)u³`.
pub fn prox_pow_43(v: f64, t: f64) -> f64 {
    let u = depressed_cubic_root(t, v.abs());
    (u * u * u).copysign(v)
}

/// `prox_{(t/p)|·|^p}(v)` for p = 5/4 in closed form: with `u = |x|^(1/4)`, `u⁴ + t u − V = 0`
/// (`V = |v|`), solved by Ferrari's method: `m` the positive root of the resolvent
/// `m³ + V m − t²/8 = 0`, then `u² + √(2m) u − V/(m + √(m² + V)) = 0`, whose positive root is
/// taken in the cancellation-free form `2c/(√(2m) + √(2m + 4c))`, `c = V/(m + √(m² + V))`.
pub fn prox_pow_54(v: f64, t: f64) -> f64 {
    let vv = v.abs();
    if vv == 0.0 {
        return 0.0;
    }
    if t <= 0.0 {
        return v;
    }
    let m = depressed_cubic_root(vv, t * t / 8.0);
    let c = vv / (m + (m * m + vv).sqrt());
    let b = (2.0 * m).sqrt();
    let mut u = 2.0 * c / (b + (b * b + 4.0 * c).sqrt());
    // One Newton polish on u⁴ + t u − V.
    let f = u * u * u * u + t * u - vv;
    let d = 4.0 * u * u * u + t;
    if d > 0.0 {
        let un = u - f / d;
        if un.is_finite() && un >= 0.0 {
            u = un;
        }
    }
    let u2 = u * u;
    (u2 * u2).copysign(v)
}

/// `prox_{(t/p)|·|^p}(v)` for any p in (1, 2) by a safeguarded Newton solve: with
/// `z = |x|^(p−1)`, `g(z) = t z + z^(q−1) − |v| = 0` is convex and increasing on z ≥ 0, so Newton
/// from `z₀ = min(|v|/t, |v|^(1/(q−1)))` (where g ≥ 0) decreases monotonically to the root;
/// any step leaving `[0, z]` stops the iteration. `x = sign(v) z^(q−1)`.
pub fn prox_pow_newton(v: f64, t: f64, p: f64) -> f64 {
    let vv = v.abs();
    if vv == 0.0 {
        return 0.0;
    }
    if t <= 0.0 {
        return v;
    }
    let r = conjugate_exponent(p) - 1.0; // q − 1 = 1/(p − 1)
    let mut z = (vv / t).min(fmath::pow(vv, 1.0 / r));
    for _ in 0..200 {
        let zr1 = fmath::pow(z, r - 1.0);
        let g = t * z + zr1 * z - vv;
        if g <= 0.0 {
            break;
        }
        let d = t + r * zr1;
        let zn = z - g / d;
        if !(zn >= 0.0 && zn < z) {
            break;
        }
        let done = z - zn <= 2.0 * f64::EPSILON * z;
        z = zn;
        if done {
            break;
        }
    }
    fmath::pow(z, r).copysign(v)
}

/// `prox_{(t/p)|·|^p}(v) = argmin_x (t/p)|x|^p + (x − v)²/2`: closed form for p = 4/3 and 5/4,
/// safeguarded Newton otherwise.
pub fn prox_lp_pow(v: f64, t: f64, p: f64) -> f64 {
    if (p - 4.0 / 3.0).abs() < 1e-12 {
        prox_pow_43(v, t)
    } else if (p - 1.25).abs() < 1e-12 {
        prox_pow_54(v, t)
    } else {
        prox_pow_newton(v, t, p)
    }
}

/// `L = γ‖X‖₂²`, the Lipschitz constant of `∇f`, `f = (γ/2)‖Xw − y‖²`: the largest eigenvalue of
/// `XXᵀ` (or `XᵀX`, the smaller of the two) by nalgebra's symmetric eigensolver.
pub fn lipschitz_square(x: &DMatrix<f64>, gamma: f64) -> f64 {
    let g = if x.nrows() <= x.ncols() { x * x.transpose() } else { x.tr_mul(x) };
    let ev = g.symmetric_eigenvalues();
    gamma * ev.iter().cloned().fold(0.0, f64::max)
}

/// Parameters shared by the primal solvers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrimalConfig {
    /// γ > 0.
    pub gamma: f64,
    /// 1 < p < 2.
    pub p: f64,
    /// What the records call the gap.
    pub measure: GapMeasure,
}

/// The square-loss primal problem and its evaluation at a point.
struct Problem {
    x: DMatrix<f64>,
    y: DVector<f64>,
    gamma: f64,
    p: f64,
    q: f64,
    measure: GapMeasure,
}

/// Objective, residual and gap at one point.
struct PointEval {
    /// `F(w)`.
    f: f64,
    /// `−Λ(α(w))` (or `F*` under the reference measure).
    dual: f64,
    gap: f64,
    rel_gap: f64,
}

impl Problem {
    fn new(x: DMatrix<f64>, y: DVector<f64>, cfg: &PrimalConfig) -> Result<Self> {
        let (n, d) = x.shape();
        if n == 0 {
            return Err(KpError::NTooSmall(0));
        }
        if d == 0 {
            return Err(KpError::DTooSmall(0));
        }
        if !(cfg.p.is_finite() && cfg.p > 1.0 && cfg.p < 2.0) {
            return Err(KpError::POutOfRange(cfg.p));
        }
        if !(cfg.gamma.is_finite() && cfg.gamma > 0.0) {
            return Err(KpError::GammaNotPositive(cfg.gamma));
        }
        if y.len() != n {
            return Err(KpError::Parameter {
                name: "y",
                reason: format!("there are {} targets for {n} samples", y.len()),
            });
        }
        if !x.iter().chain(y.iter()).all(|v| v.is_finite()) {
            return Err(KpError::NonFinite("the data contain a non-finite value".into()));
        }
        if let GapMeasure::Reference(fs) = cfg.measure {
            if !(fs.is_finite() && fs > 0.0) {
                return Err(KpError::Parameter {
                    name: "reference optimum",
                    reason: format!("F* must be a positive finite number (got {fs})"),
                });
            }
        }
        Ok(Self {
            x,
            y,
            gamma: cfg.gamma,
            p: cfg.p,
            q: conjugate_exponent(cfg.p),
            measure: cfg.measure,
        })
    }

    fn reg(&self, w: &DVector<f64>) -> f64 {
        norm_pow(w.as_slice(), self.p) / self.p
    }

    /// Evaluate at w given the residual `r = Xw − y` and (for the duality measure) `Xᵀr`.
    fn eval(&self, w: &DVector<f64>, r: &DVector<f64>, xtr: Option<&DVector<f64>>) -> PointEval {
        let f = 0.5 * self.gamma * r.norm_squared() + self.reg(w);
        match (self.measure, xtr) {
            (GapMeasure::Reference(fs), _) => {
                let gap = f - fs;
                PointEval { f, dual: fs, gap, rel_gap: gap / fs }
            }
            (GapMeasure::Duality, Some(xtr)) => {
                // α = −γ r: Λ(α) = (1/q)‖γXᵀr‖_q^q + (γ/2)‖r‖² + γ⟨y, r⟩.
                let g = self.gamma;
                let lam = abs_pow(g, self.q) * norm_pow(xtr.as_slice(), self.q) / self.q
                    + 0.5 * g * r.norm_squared()
                    + g * self.y.dot(r);
                let gap = f + lam;
                PointEval { f, dual: -lam, gap, rel_gap: super::relative_gap(gap, f) }
            }
            (GapMeasure::Duality, None) => {
                PointEval { f, dual: f64::NAN, gap: f64::NAN, rel_gap: f64::NAN }
            }
        }
    }

    fn needs_xtr(&self) -> bool {
        matches!(self.measure, GapMeasure::Duality)
    }
}

fn record(progress: &Progress, e: &PointEval, time_ms: f64) -> Record {
    progress.record(e.f, e.dual, e.gap, e.rel_gap, time_ms)
}

/// Armijo parameters of [`PrimalGd`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Armijo {
    /// Sufficient-decrease constant c ∈ (0, 1).
    pub c: f64,
    /// Shrink factor θ ∈ (0, 1).
    pub theta: f64,
    /// First trial step.
    pub step0: f64,
    /// Cap on reductions per iteration.
    pub max_backtracks: usize,
}

impl Default for Armijo {
    /// c = 1e-4, θ = 0.5, first step 1, 80 reductions.
    fn default() -> Self {
        Self { c: 1e-4, theta: 0.5, step0: 1.0, max_backtracks: 80 }
    }
}

/// Primal gradient descent with Armijo backtracking (paper A, Table 1 "primal GD + linesearch").
pub struct PrimalGd {
    pb: Problem,
    armijo: Armijo,
    w: DVector<f64>,
    r: DVector<f64>,
    grad: DVector<f64>,
    eval: PointEval,
    next_step: f64,
    progress: Progress,
}

impl PrimalGd {
    /// Start at w = 0 after checking p, γ, the data and the Armijo parameters.
    pub fn new(
        x: DMatrix<f64>,
        y: DVector<f64>,
        cfg: PrimalConfig,
        armijo: Armijo,
    ) -> Result<Self> {
        let pb = Problem::new(x, y, &cfg)?;
        for (name, value) in [("c", armijo.c), ("theta", armijo.theta)] {
            if !(value.is_finite() && value > 0.0 && value < 1.0) {
                return Err(KpError::LinesearchParam { name, value });
            }
        }
        if !(armijo.step0.is_finite() && armijo.step0 > 0.0) {
            return Err(KpError::Parameter {
                name: "solver.step0",
                reason: format!("must be positive (got {})", armijo.step0),
            });
        }
        let d = pb.x.ncols();
        let w = DVector::zeros(d);
        let r = -pb.y.clone();
        // Overwritten by `refresh()` below, before the state is used.
        let unevaluated = PointEval { f: 0.0, dual: 0.0, gap: 0.0, rel_gap: 0.0 };
        let mut me = Self {
            pb,
            armijo,
            w,
            r,
            grad: DVector::zeros(d),
            eval: unevaluated,
            next_step: armijo.step0,
            progress: Progress::default(),
        };
        me.refresh();
        Ok(me)
    }

    fn refresh(&mut self) {
        self.r = &self.pb.x * &self.w - &self.pb.y;
        let xtr = self.pb.x.tr_mul(&self.r);
        self.eval = self.pb.eval(&self.w, &self.r, Some(&xtr));
        let (g, p) = (self.pb.gamma, self.pb.p);
        for j in 0..self.w.len() {
            self.grad[j] = g * xtr[j] + j_scalar(self.w[j], p);
        }
    }

    /// The iterate w.
    pub fn w(&self) -> &DVector<f64> {
        &self.w
    }
    /// `F(w)`.
    pub fn primal_objective(&self) -> f64 {
        self.eval.f
    }
}

impl PrimalGd {
    /// The record of the current iterate (its duration 0).
    fn current(&self) -> Record {
        record(&self.progress, &self.eval, 0.0)
    }

    /// One Armijo gradient step on F. Its own stops: a zero gradient or no decrease above
    /// rounding ([`Stop::Stalled`]), a non-finite value ([`Stop::NonFinite`]).
    fn iterate(&mut self) -> Option<Record> {
        let t0 = Instant::now();
        let g2 = self.grad.norm_squared();
        if g2 == 0.0 {
            return self.progress.end(Stop::Stalled);
        }
        let xg = &self.pb.x * &self.grad;
        let (gam, p) = (self.pb.gamma, self.pb.p);
        let rxg = self.r.dot(&xg);
        let xg2 = xg.norm_squared();
        let f0 = self.eval.f;
        let mut s = self.next_step;
        let mut backtracks = 0;
        loop {
            // F(w) − F(w − s g), summed termwise.
            let mut dreg = 0.0;
            for (&wj, &gj) in self.w.iter().zip(self.grad.iter()) {
                dreg += abs_pow(wj, p) - abs_pow(wj - s * gj, p);
            }
            let dec = 0.5 * gam * (2.0 * s * rxg - s * s * xg2) + dreg / p;
            let slack = 8.0 * f64::EPSILON * f0.abs();
            if dec.is_finite() && dec + slack >= self.armijo.c * s * g2 {
                break;
            }
            if backtracks >= self.armijo.max_backtracks {
                return self.progress.end(if dec.is_finite() {
                    Stop::Stalled
                } else {
                    Stop::NonFinite
                });
            }
            s *= self.armijo.theta;
            backtracks += 1;
        }
        self.w.axpy(-s, &self.grad, 1.0);
        self.refresh();
        if !self.eval.f.is_finite() {
            return self.progress.end(Stop::NonFinite);
        }
        self.next_step = s / self.armijo.theta;
        let dt = self.progress.accept(t0, s, backtracks);
        let rec = record(&self.progress, &self.eval, dt);
        self.progress.keep(rec)
    }
}

/// Primal gradient descent in the one executor's protocol: one accepted step per
/// [`Stepper::step`]; its own stops only (stalled, non-finite); the tolerance, the cap, the
/// stall rule and the trace are the executor's.
impl Stepper for PrimalGd {
    fn record(&self) -> Record {
        self.progress.last_or(|| self.current())
    }
    fn step(&mut self) -> Option<Record> {
        if !self.progress.running() {
            return None;
        }
        self.iterate()
    }
    fn stop(&self) -> Stop {
        self.progress.status()
    }
    fn solution(&self) -> serde_json::Value {
        super::solution_json(Some(&self.w), None)
    }
}

/// FISTA on the primal with the prox of `(t/p)|·|^p` (paper A, Table 1 "primal FISTA";
/// Beck–Teboulle with constant step 1/L).
pub struct Fista {
    pb: Problem,
    lipschitz: f64,
    /// `w_k`.
    w: DVector<f64>,
    /// `Xw_k − y`.
    r: DVector<f64>,
    /// Extrapolated point `z_k` and its residual `Xz_k − y`.
    z: DVector<f64>,
    rz: DVector<f64>,
    t: f64,
    eval: PointEval,
    progress: Progress,
}

impl Fista {
    /// Start at w = 0. `lipschitz`: `L = γ‖X‖₂²` if already known (e.g. shared between runs on the
    /// same data); computed by [`lipschitz_square`] otherwise.
    pub fn new(
        x: DMatrix<f64>,
        y: DVector<f64>,
        cfg: PrimalConfig,
        lipschitz: Option<f64>,
    ) -> Result<Self> {
        let pb = Problem::new(x, y, &cfg)?;
        let l = match lipschitz {
            Some(l) if l.is_finite() && l > 0.0 => l,
            Some(l) => {
                return Err(KpError::Parameter {
                    name: "lipschitz",
                    reason: format!("L must be positive and finite (got {l})"),
                })
            }
            None => lipschitz_square(&pb.x, pb.gamma),
        };
        if !(l.is_finite() && l > 0.0) {
            return Err(KpError::Parameter {
                name: "X",
                reason: "the design matrix is zero: nothing to fit".into(),
            });
        }
        let d = pb.x.ncols();
        let r = -pb.y.clone();
        let xtr = if pb.needs_xtr() { Some(pb.x.tr_mul(&r)) } else { None };
        let w = DVector::zeros(d);
        let eval = pb.eval(&w, &r, xtr.as_ref());
        Ok(Self {
            lipschitz: l,
            z: w.clone(),
            rz: r.clone(),
            w,
            r,
            t: 1.0,
            eval,
            pb,
            progress: Progress::default(),
        })
    }

    /// The iterate `w_k`.
    pub fn w(&self) -> &DVector<f64> {
        &self.w
    }
    /// `F(w_k)`.
    pub fn primal_objective(&self) -> f64 {
        self.eval.f
    }
    /// The Lipschitz constant used (step = 1/L).
    pub fn lipschitz(&self) -> f64 {
        self.lipschitz
    }
}

impl Fista {
    /// The record of the current iterate (its duration 0).
    fn current(&self) -> Record {
        record(&self.progress, &self.eval, 0.0)
    }

    /// One FISTA step (prox of `(t/p)|·|^p` at step 1/L, then the extrapolation). Its own stop:
    /// a non-finite value ([`Stop::NonFinite`]).
    fn iterate(&mut self) -> Option<Record> {
        let t0 = Instant::now();
        let (gam, p) = (self.pb.gamma, self.pb.p);
        let step = 1.0 / self.lipschitz;
        let gz = self.pb.x.tr_mul(&self.rz) * gam;
        let mut wn = DVector::zeros(self.w.len());
        for j in 0..wn.len() {
            wn[j] = prox_lp_pow(self.z[j] - step * gz[j], step, p);
        }
        let rn = &self.pb.x * &wn - &self.pb.y;
        let tn = 0.5 * (1.0 + (1.0 + 4.0 * self.t * self.t).sqrt());
        let beta = (self.t - 1.0) / tn;
        self.z = &wn + (&wn - &self.w) * beta;
        self.rz = &rn + (&rn - &self.r) * beta;
        self.w = wn;
        self.r = rn;
        self.t = tn;
        let xtr = if self.pb.needs_xtr() { Some(self.pb.x.tr_mul(&self.r)) } else { None };
        self.eval = self.pb.eval(&self.w, &self.r, xtr.as_ref());
        if !self.eval.f.is_finite() {
            return self.progress.end(Stop::NonFinite);
        }
        let dt = self.progress.accept(t0, step, 0);
        let rec = record(&self.progress, &self.eval, dt);
        self.progress.keep(rec)
    }
}

/// FISTA in the one executor's protocol: one step per [`Stepper::step`]; its own stop only
/// (non-finite); the tolerance, the cap, the stall rule (FISTA is not monotone: the executor
/// judges its best, [`crate::exec::Stall`]) and the trace are the executor's.
impl Stepper for Fista {
    fn record(&self) -> Record {
        self.progress.last_or(|| self.current())
    }
    fn step(&mut self) -> Option<Record> {
        if !self.progress.running() {
            return None;
        }
        self.iterate()
    }
    fn stop(&self) -> Stop {
        self.progress.status()
    }
    fn solution(&self) -> serde_json::Value {
        super::solution_json(Some(&self.w), None)
    }
}
