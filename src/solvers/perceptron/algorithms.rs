//! The algorithms of paper D, each a [`Stepper`] of its own: one `step()` is one iteration and
//! returns the one [`Record`] (`min_i (Gα)_i`, and `‖p‖_G` where the algorithm has a dual
//! iterate); its own stop reasons are [`Stop::Separator`] (`Gα > 0`), [`Stop::Certificate`]
//! (`‖p‖_G` under its tolerance) and [`Stop::Failed`] (a non-finite value). The iteration cap,
//! the deadline and the trace are the executor's ([`crate::exec::Run`]). Each keeps `Gα` (and
//! `Gp`) up to date incrementally: a vertex update costs one column of G (O(n)); the smoothed
//! algorithms cost one product `G s` per iteration, with `s = p_μ(α)` reused by the next
//! α-update.

use crate::fmath;
use std::sync::Arc;

use nalgebra::DVector;
use serde_json::{json, Value};

use super::problem::{PerceptronAlgorithm, PerceptronProblem};
use crate::error::{KpError, Result};
use crate::exec::{Record, Stepper, Stop};
use crate::solvers::perceptron::simplex::project_onto_simplex_into;

fn argmin(v: &DVector<f64>) -> usize {
    let mut j = 0;
    let mut best = f64::INFINITY;
    for (i, &x) in v.iter().enumerate() {
        if x < best {
            best = x;
            j = i;
        }
    }
    j
}

/// Paper D's record: `min_i (Gα)_i` of the primal iterate (a separator when > 0) and `‖p‖_G` of
/// the dual one (a certificate when small; Lemma 3: ρ_K ≤ ‖p‖_G). Iterations are O(n) and not
/// timed one by one.
fn record(iter: usize, g_alpha: &DVector<f64>, norm_p_g: Option<f64>) -> Record {
    Record { iter, min_g_alpha: Some(g_alpha.min()), norm_p_g, ..Record::default() }
}

/// The solution vectors `{alpha, p}` (p `null` where the algorithm has none).
fn solution(alpha: &DVector<f64>, p: Option<&DVector<f64>>) -> Value {
    json!({"alpha": alpha.as_slice(), "p": p.map(|p| p.as_slice().to_vec())})
}

/// `v ← a·v + b·G_j` (column j of G).
fn axpy_column(v: &mut DVector<f64>, a: f64, b: f64, problem: &PerceptronProblem, j: usize) {
    let col = problem.gram().column(j);
    for (vi, ci) in v.iter_mut().zip(col.iter()) {
        *vi = a * *vi + b * ci;
    }
}

// ---------------------------------------------------------------------------------------------

/// Classic kernel Perceptron (paper D, Algorithm 1) on the normalized features `y_i φ̃(x_i)`:
/// scan the points cyclically and on each mistake `(Gα)_j ≤ 0` set `α_j ← α_j + 1`.
/// One iteration = one update (mistake); Novikoff: at most `1/ρ_K²` updates (features of norm 1).
pub struct Perceptron {
    problem: Arc<PerceptronProblem>,
    alpha: DVector<f64>,
    g_alpha: DVector<f64>,
    cursor: usize,
    iter: usize,
    stop: Stop,
}

impl Perceptron {
    /// `α₀ = 0`.
    pub fn new(problem: Arc<PerceptronProblem>) -> Self {
        let n = problem.n();
        Self {
            problem,
            alpha: DVector::zeros(n),
            g_alpha: DVector::zeros(n),
            cursor: 0,
            iter: 0,
            stop: Stop::Running,
        }
    }

    /// The current iterate α.
    pub fn alpha(&self) -> &DVector<f64> {
        &self.alpha
    }
}

impl Stepper for Perceptron {
    fn record(&self) -> Record {
        record(self.iter, &self.g_alpha, None)
    }
    fn step(&mut self) -> Option<Record> {
        if self.stop != Stop::Running {
            return None;
        }
        let n = self.problem.n();
        let mistake = (0..n).map(|o| (self.cursor + o) % n).find(|&j| self.g_alpha[j] <= 0.0);
        match mistake {
            None => self.stop = Stop::Separator,
            Some(j) => {
                self.alpha[j] += 1.0;
                axpy_column(&mut self.g_alpha, 1.0, 1.0, &self.problem, j);
                self.cursor = (j + 1) % n;
                self.iter += 1;
                if self.g_alpha.min() > 0.0 {
                    self.stop = Stop::Separator;
                }
            }
        }
        Some(self.record())
    }
    fn stop(&self) -> Stop {
        self.stop
    }
    fn solution(&self) -> Value {
        solution(&self.alpha, None)
    }
}

// ---------------------------------------------------------------------------------------------

/// Normalized Kernel Perceptron (paper D, Algorithm 3): `α₀ = 0`; while not `Gα > 0`:
/// `θ_k = 1/(k+1)`, `α ← (1−θ)α + θ e_j` with `j = argmin_i (Gα)_i` (the vertex `p(α)` of Eq. (10)).
/// A subgradient method on `L(α)` of Eq. (9); at most `1/ρ_K²` iterations.
pub struct Nkp {
    problem: Arc<PerceptronProblem>,
    alpha: DVector<f64>,
    g_alpha: DVector<f64>,
    iter: usize,
    stop: Stop,
}

impl Nkp {
    /// `α₀ = 0`.
    pub fn new(problem: Arc<PerceptronProblem>) -> Self {
        let n = problem.n();
        Self {
            problem,
            alpha: DVector::zeros(n),
            g_alpha: DVector::zeros(n),
            iter: 0,
            stop: Stop::Running,
        }
    }

    /// The current iterate α.
    pub fn alpha(&self) -> &DVector<f64> {
        &self.alpha
    }
}

impl Stepper for Nkp {
    fn record(&self) -> Record {
        record(self.iter, &self.g_alpha, None)
    }
    fn step(&mut self) -> Option<Record> {
        if self.stop != Stop::Running {
            return None;
        }
        let j = argmin(&self.g_alpha);
        let theta = 1.0 / (self.iter as f64 + 1.0);
        self.alpha *= 1.0 - theta;
        self.alpha[j] += theta;
        axpy_column(&mut self.g_alpha, 1.0 - theta, theta, &self.problem, j);
        self.iter += 1;
        if self.g_alpha.min() > 0.0 {
            self.stop = Stop::Separator;
        }
        Some(self.record())
    }
    fn stop(&self) -> Stop {
        self.stop
    }
    fn solution(&self) -> Value {
        solution(&self.alpha, None)
    }
}

// ---------------------------------------------------------------------------------------------

/// Normalized von Neumann (paper D, Algorithm 5) kernelized with G: `w = XYp` becomes
/// `Σ p_i y_i φ̃(x_i)`, so `‖w‖ = ‖p‖_G`, `y_j x_jᵀw = (Gp)_j` and `‖y_j x_j‖ = √G_jj = 1`.
/// With `a = pᵀGp` and `b = (Gp)_j`, the line search
/// `θ = argmin_{t∈[0,1]} ‖(1−t)w + t y_j φ̃_j‖²` is `θ = clamp((a − b)/(a − 2b + 1), 0, 1)`.
/// Stops with a certificate when `‖p‖_G ≤ ε` (within `1/ε²` iterations when infeasible), and —
/// our addition: Algorithm 5 as printed has only the certificate exit; §5 remarks, after
/// Epelman–Freund, that NVN's iterate also solves a feasible primal — with the separator α = p
/// when `Gp > 0`.
pub struct Nvn {
    problem: Arc<PerceptronProblem>,
    epsilon: f64,
    p: DVector<f64>,
    g_p: DVector<f64>,
    iter: usize,
    stop: Stop,
}

impl Nvn {
    /// `p₀ = 1/n`.
    pub fn new(problem: Arc<PerceptronProblem>, epsilon: f64) -> Result<Self> {
        PerceptronAlgorithm::Nvn { epsilon }.validate()?;
        let n = problem.n();
        let p = DVector::from_element(n, 1.0 / n as f64);
        let g_p = problem.gram() * &p;
        let mut s = Self { problem, epsilon, p, g_p, iter: 0, stop: Stop::Running };
        s.check();
        Ok(s)
    }
    fn norm_p(&self) -> f64 {
        self.p.dot(&self.g_p).max(0.0).sqrt()
    }
    fn check(&mut self) {
        if self.norm_p() <= self.epsilon {
            self.stop = Stop::Certificate;
        } else if self.g_p.min() > 0.0 {
            self.stop = Stop::Separator;
        }
    }

    /// The current iterate p (also the separator candidate α = p).
    pub fn p(&self) -> &DVector<f64> {
        &self.p
    }
}

impl Stepper for Nvn {
    fn record(&self) -> Record {
        record(self.iter, &self.g_p, Some(self.norm_p()))
    }
    fn step(&mut self) -> Option<Record> {
        if self.stop != Stop::Running {
            return None;
        }
        let j = argmin(&self.g_p);
        let a = self.p.dot(&self.g_p);
        let b = self.g_p[j];
        let den = a - 2.0 * b + 1.0; // ‖w − y_j φ̃_j‖² ≥ 0
        let theta = if den > 0.0 { ((a - b) / den).clamp(0.0, 1.0) } else { 0.0 };
        self.p *= 1.0 - theta;
        self.p[j] += theta;
        axpy_column(&mut self.g_p, 1.0 - theta, theta, &self.problem, j);
        self.iter += 1;
        self.check();
        Some(self.record())
    }
    fn stop(&self) -> Stop {
        self.stop
    }
    fn solution(&self) -> Value {
        solution(&self.p, Some(&self.p))
    }
}

// ---------------------------------------------------------------------------------------------

/// The entropy-smoothed minimizer of paper D, Eq. (12):
/// `p_μ(α) = argmin_{p∈Δ} ⟨Gα, p⟩ + μ(Σ p_i log p_i + log n) = softmax(−Gα/μ)`, given `Gα`,
/// computed with the smallest `(Gα)_i` subtracted so every exponential is ≤ 1 and one equals 1
/// (no overflow or 0/0 however small μ is). `out` has the length of `g_alpha`.
pub fn entropy_smoothed_minimizer(g_alpha: &[f64], mu: f64, out: &mut [f64]) {
    let zmin = g_alpha.iter().fold(f64::INFINITY, |m, &v| m.min(v));
    let mut sum = 0.0;
    for (si, &ga) in out.iter_mut().zip(g_alpha) {
        *si = fmath::exp(-(ga - zmin) / mu);
        sum += *si;
    }
    for si in out.iter_mut() {
        *si /= sum;
    }
}

// ---------------------------------------------------------------------------------------------

/// The prox-function of the smoothing: entropy (SNKP, Eq. (12)) or `½‖p − q‖²` (SNKPVN, §6).
#[derive(Debug, Clone)]
enum Smoothing {
    /// `p_μ(α) = softmax(−Gα/μ)`, computed with the maximum subtracted.
    Entropy,
    /// `p^q_μ(α) = Proj_Δ(q − Gα/μ)`.
    Euclidean { q: DVector<f64> },
}

/// The accelerated smoothed iteration shared by Algorithms 4 and 6 (Nesterov's excessive gap):
/// `θ_k = 2/(k+3)`, `α_{k+1} = (1−θ)(α_k + θp_k) + θ² s_k` with `s_k = p_{μ_k}(α_k)`,
/// `μ_{k+1} = (1−θ)μ_k`, `p_{k+1} = (1−θ)p_k + θ p_{μ_{k+1}}(α_{k+1})`.
#[derive(Debug, Clone)]
struct SmoothedCore {
    problem: Arc<PerceptronProblem>,
    smoothing: Smoothing,
    alpha: DVector<f64>,
    g_alpha: DVector<f64>,
    p: DVector<f64>,
    g_p: DVector<f64>,
    /// `s_k = p_{μ_k}(α_k)` and `G s_k`.
    s: DVector<f64>,
    g_s: DVector<f64>,
    mu: f64,
    k: usize,
    scratch: Vec<f64>,
    tmp: Vec<f64>,
}

impl SmoothedCore {
    fn new(
        problem: Arc<PerceptronProblem>,
        smoothing: Smoothing,
        alpha0: DVector<f64>,
        g_alpha0: DVector<f64>,
        mu0: f64,
    ) -> Result<Self> {
        let n = problem.n();
        let mut c = Self {
            problem,
            smoothing,
            alpha: alpha0,
            g_alpha: g_alpha0,
            p: DVector::zeros(n),
            g_p: DVector::zeros(n),
            s: DVector::zeros(n),
            g_s: DVector::zeros(n),
            mu: mu0,
            k: 0,
            scratch: Vec::with_capacity(n),
            tmp: vec![0.0; n],
        };
        c.smooth()?;
        c.p.copy_from(&c.s);
        c.g_p.copy_from(&c.g_s);
        Ok(c)
    }

    /// `s ← p_μ(α)` and `G s` (one product with G).
    fn smooth(&mut self) -> Result<()> {
        let mu = self.mu;
        match &self.smoothing {
            Smoothing::Entropy => {
                entropy_smoothed_minimizer(self.g_alpha.as_slice(), mu, self.s.as_mut_slice())
            }
            Smoothing::Euclidean { q } => {
                for ((t, &qi), &ga) in self.tmp.iter_mut().zip(q.iter()).zip(self.g_alpha.iter()) {
                    *t = qi - ga / mu;
                }
                project_onto_simplex_into(&self.tmp, self.s.as_mut_slice(), &mut self.scratch)?;
            }
        }
        if self.s.iter().any(|v| !v.is_finite()) {
            return Err(KpError::NonFinite("the smoothed minimizer p_μ(α)".into()));
        }
        self.g_s.gemv(1.0, self.problem.gram(), &self.s, 0.0);
        Ok(())
    }

    fn step(&mut self) -> Result<()> {
        let theta = 2.0 / (self.k as f64 + 3.0);
        let (a, b, c) = (1.0 - theta, (1.0 - theta) * theta, theta * theta);
        for i in 0..self.alpha.len() {
            self.alpha[i] = a * self.alpha[i] + b * self.p[i] + c * self.s[i];
            self.g_alpha[i] = a * self.g_alpha[i] + b * self.g_p[i] + c * self.g_s[i];
        }
        self.mu *= 1.0 - theta;
        self.smooth()?;
        for i in 0..self.p.len() {
            self.p[i] = a * self.p[i] + theta * self.s[i];
            self.g_p[i] = a * self.g_p[i] + theta * self.g_s[i];
        }
        self.k += 1;
        Ok(())
    }

    fn norm_p(&self) -> f64 {
        self.p.dot(&self.g_p).max(0.0).sqrt()
    }

    fn record(&self) -> Record {
        record(self.k, &self.g_alpha, Some(self.norm_p()))
    }

    fn solution(&self) -> Value {
        solution(&self.alpha, Some(&self.p))
    }
}

/// Smoothed Normalized Kernel Perceptron (paper D, Algorithm 4): `α₀ = 1/n`, `μ₀ = 2`,
/// `p₀ = p_{μ₀}(α₀)` with the entropy smoothing `p_μ(α) = softmax(−Gα/μ)`; stops when `Gα > 0`,
/// within `2√(2 log n)/ρ_K` iterations (Theorem 1; `μ_k = 4/((k+1)(k+2))`).
pub struct Snkp {
    core: SmoothedCore,
    stop: Stop,
}

impl Snkp {
    /// Initial state of Algorithm 4.
    pub fn new(problem: Arc<PerceptronProblem>) -> Result<Self> {
        let n = problem.n();
        let alpha = DVector::from_element(n, 1.0 / n as f64);
        let g_alpha = problem.gram() * &alpha;
        let core = SmoothedCore::new(problem, Smoothing::Entropy, alpha, g_alpha, 2.0)?;
        let stop = if core.g_alpha.min() > 0.0 { Stop::Separator } else { Stop::Running };
        Ok(Self { core, stop })
    }

    /// The current primal iterate α.
    pub fn alpha(&self) -> &DVector<f64> {
        &self.core.alpha
    }

    /// The current dual iterate p.
    pub fn p(&self) -> &DVector<f64> {
        &self.core.p
    }

    /// The current smoothing parameter μ_k.
    pub fn mu(&self) -> f64 {
        self.core.mu
    }
}

impl Stepper for Snkp {
    fn record(&self) -> Record {
        self.core.record()
    }
    fn step(&mut self) -> Option<Record> {
        if self.stop != Stop::Running {
            return None;
        }
        if self.core.step().is_err() {
            self.stop = Stop::Failed;
        } else if self.core.g_alpha.min() > 0.0 {
            self.stop = Stop::Separator;
        }
        Some(self.record())
    }
    fn stop(&self) -> Stop {
        self.stop
    }
    fn solution(&self) -> Value {
        self.core.solution()
    }
}

/// SNKPVN(q, δ) (paper D, Algorithm 6): `α₀ = q`, `μ₀ = 2n`, `p₀ = p^q_{μ₀}(α₀)` with
/// `p^q_μ(α) = Proj_Δ(q − Gα/μ)`; stops with the separator α_k when `Gα_k > 0`, else with the
/// certificate p_k when `‖p_k‖_G < δ`. Separator within `2√(2n)/ρ_K` iterations when
/// `δ ≤ ρ_K` (Lemma 8); certificate within `2√(2n)/δ · min{1, ‖q‖_G/|ρ_K|}` when infeasible
/// (Lemma 9, constant re-derived from Lemma 7).
pub struct Snkpvn {
    core: SmoothedCore,
    delta: f64,
    stop: Stop,
}

impl Snkpvn {
    /// Start from `q ∈ Δ_n` (default `1/n`).
    pub fn new(
        problem: Arc<PerceptronProblem>,
        q: Option<DVector<f64>>,
        delta: f64,
    ) -> Result<Self> {
        let n = problem.n();
        let q = q.unwrap_or_else(|| DVector::from_element(n, 1.0 / n as f64));
        let (min_q, sum_err) = crate::solvers::perceptron::simplex::simplex_residuals(q.as_slice());
        if q.len() != n || !(min_q >= 0.0 && sum_err.abs() <= 1e-9) {
            return Err(KpError::Parameter {
                name: "q",
                reason: format!("must be a probability vector of length {n} (length {}, min {min_q}, Σ−1 = {sum_err})", q.len()),
            });
        }
        let gq = problem.gram() * &q;
        Self::with_gq(problem, q, gq, delta)
    }

    fn with_gq(
        problem: Arc<PerceptronProblem>,
        q: DVector<f64>,
        gq: DVector<f64>,
        delta: f64,
    ) -> Result<Self> {
        if !(delta.is_finite() && delta >= 0.0) {
            return Err(KpError::Parameter {
                name: "delta",
                reason: format!("must be a finite number > 0 (got {delta})"),
            });
        }
        let n = problem.n() as f64;
        let core =
            SmoothedCore::new(problem, Smoothing::Euclidean { q: q.clone() }, q, gq, 2.0 * n)?;
        let mut s = Self { core, delta, stop: Stop::Running };
        s.check();
        Ok(s)
    }

    fn check(&mut self) {
        if self.core.g_alpha.min() > 0.0 {
            self.stop = Stop::Separator;
        } else if self.core.norm_p() < self.delta {
            self.stop = Stop::Certificate;
        }
    }

    fn try_step(&mut self) -> Result<()> {
        if self.stop == Stop::Running {
            self.core.step()?;
            self.check();
        }
        Ok(())
    }

    /// The current primal iterate α.
    pub fn alpha(&self) -> &DVector<f64> {
        &self.core.alpha
    }

    /// The current dual iterate p.
    pub fn p(&self) -> &DVector<f64> {
        &self.core.p
    }

    /// The current smoothing parameter μ_k.
    pub fn mu(&self) -> f64 {
        self.core.mu
    }
}

impl Stepper for Snkpvn {
    fn record(&self) -> Record {
        self.core.record()
    }
    fn step(&mut self) -> Option<Record> {
        if self.stop != Stop::Running {
            return None;
        }
        if self.try_step().is_err() {
            self.stop = Stop::Failed;
        }
        Some(self.record())
    }
    fn stop(&self) -> Stop {
        self.stop
    }
    fn solution(&self) -> Value {
        self.core.solution()
    }
}

/// ISNKPVN(γ, ε) (paper D, Algorithm 7): `q₀ = 1/n`; for t = 0, 1, …: `δ_t = ‖q_t‖_G/γ`,
/// `q_{t+1} = SNKPVN(q_t, δ_t)`; halt with a separator as soon as an inner run finds one, or
/// with the certificate `q_{t+1}` once `δ_t < ε`. One step = one inner SNKPVN iteration;
/// `iter` counts them over all phases (Theorem 4).
pub struct Isnkpvn {
    problem: Arc<PerceptronProblem>,
    gamma: f64,
    epsilon: f64,
    inner: Snkpvn,
    phase: usize,
    /// Inner iterations of the finished phases.
    done: usize,
    /// Iterations per finished phase, with its δ_t.
    phases: Vec<(usize, f64)>,
    stop: Stop,
    /// The halting iterate (separator α or certificate p).
    result: DVector<f64>,
}

impl Isnkpvn {
    /// Initial state of Algorithm 7.
    pub fn new(problem: Arc<PerceptronProblem>, gamma: f64, epsilon: f64) -> Result<Self> {
        PerceptronAlgorithm::Isnkpvn { gamma, epsilon }.validate()?;
        let n = problem.n();
        let q = DVector::from_element(n, 1.0 / n as f64);
        let gq = problem.gram() * &q;
        let delta = q.dot(&gq).max(0.0).sqrt() / gamma;
        if delta == 0.0 {
            let inner = Snkpvn::with_gq(problem.clone(), q.clone(), gq, 0.0)?;
            return Ok(Self {
                problem,
                gamma,
                epsilon,
                inner,
                phase: 0,
                done: 0,
                phases: Vec::new(),
                stop: Stop::Certificate,
                result: q,
            });
        }
        let inner = Snkpvn::with_gq(problem.clone(), q, gq, delta)?;
        let mut s = Self {
            problem,
            gamma,
            epsilon,
            inner,
            phase: 0,
            done: 0,
            phases: Vec::new(),
            stop: Stop::Running,
            result: DVector::zeros(n),
        };
        s.advance()?;
        Ok(s)
    }

    /// Iterations and δ_t of every finished phase (for checking Lemmas 8–9 phase by phase).
    pub fn phases(&self) -> &[(usize, f64)] {
        &self.phases
    }

    /// Handle a finished inner run: halt, or start the next phase (possibly several, if a new
    /// inner run halts at its iteration 0).
    fn advance(&mut self) -> Result<()> {
        while self.inner.stop != Stop::Running {
            let delta = self.inner.delta;
            self.phases.push((self.inner.core.k, delta));
            self.done += self.inner.core.k;
            match self.inner.stop {
                Stop::Separator => {
                    self.result = self.inner.core.alpha.clone();
                    self.stop = Stop::Separator;
                    return Ok(());
                }
                Stop::Certificate => {
                    let q = self.inner.core.p.clone();
                    if delta < self.epsilon {
                        self.result = q;
                        self.stop = Stop::Certificate;
                        return Ok(());
                    }
                    let gq = self.inner.core.g_p.clone();
                    let next = q.dot(&gq).max(0.0).sqrt() / self.gamma;
                    if next == 0.0 {
                        // ‖q‖_G = 0: q is already an exact certificate (SNKPVN(q, 0) could not stop).
                        self.result = q;
                        self.stop = Stop::Certificate;
                        return Ok(());
                    }
                    self.phase += 1;
                    self.inner = Snkpvn::with_gq(self.problem.clone(), q, gq, next)?;
                }
                // Failed (the inner run stops only at these three).
                _ => {
                    self.stop = Stop::Failed;
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// The current iterate α (the separator once found).
    pub fn alpha(&self) -> &DVector<f64> {
        if self.stop == Stop::Separator {
            &self.result
        } else {
            &self.inner.core.alpha
        }
    }

    /// The current iterate p (the certificate once found).
    pub fn p(&self) -> &DVector<f64> {
        if self.stop == Stop::Certificate {
            &self.result
        } else {
            &self.inner.core.p
        }
    }

    /// The current outer iteration t.
    pub fn phase(&self) -> usize {
        self.phase
    }
}

impl Stepper for Isnkpvn {
    fn record(&self) -> Record {
        let inner_k = if self.stop != Stop::Running { 0 } else { self.inner.core.k };
        Record { iter: self.done + inner_k, ..self.inner.record() }
    }
    fn step(&mut self) -> Option<Record> {
        if self.stop != Stop::Running {
            return None;
        }
        if self.inner.try_step().and_then(|_| self.advance()).is_err() {
            self.stop = Stop::Failed;
        }
        Some(self.record())
    }
    fn stop(&self) -> Stop {
        self.stop
    }
    fn solution(&self) -> Value {
        let mut v = solution(self.alpha(), Some(self.p()));
        // Algorithm 7's outer loops: each finished call SNKPVN(q_t, δ_t), its iterations and δ_t
        // (Theorem 4 bounds the total loop by loop; lesson D checks each call against Lemma 9).
        v["phases"] = self
            .phases
            .iter()
            .map(|&(k, delta)| json!({"iterations": k, "delta": delta}))
            .collect();
        v
    }
}
