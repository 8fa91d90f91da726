//! Paper C (Dinuzzo), section 4.1: coordinate descent (non-linear Gauss–Seidel), Algorithm 1
//! for a Gram matrix and Algorithm 2 for the linear kernel, with the three essentially cyclic
//! index rules (cyclic, Aitken double sweep, randomized cyclic).
//!
//! Update of coordinate i (eq. 13 with `α_i = 1/k_ii`, `S_i = −J^i_{1/k_ii}`):
//! `z_i = k_iᵀc; v_i = z_i/k_ii − c_i; t = S_i(v_i); h_i = t − c_i; c_i = t`.
//!
//! Beyond the paper, three options in the same framework (every update is still the exact
//! coordinate step `c_i ← S_i(v_i)`, exact ascent on the dual of problem (2), for every loss), the
//! ones libsvm uses: the **greedy** index rule ([`IndexRule::Greedy`]: update the coordinate with
//! the largest exact step `|h_j|`, with `z = Kc` kept up to date), **shrinking**
//! ([`CoordinateConfig::shrinking`]: coordinates held at a bound are set aside, and the stop is
//! certified on all of them), and a bounded **kernel-row cache** for a kernel that is not stored
//! ([`super::fixed_point::Representation::KernelRows`], [`CoordinateConfig::cache_mib`]).
//! A fourth, [`IndexRule::GreedyPairs`], leaves the one-coordinate step for exact minimization
//! over two coordinates at once (libsvm's SMO step, for the losses whose dual is a box-constrained
//! quadratic). The paper's three rules without these options run exactly as before.

use nalgebra::{DVector, DVectorView};
use serde::{Deserialize, Serialize};
use web_time::Instant;

use super::fixed_point::{
    check_gap_tol, check_tol, dropped_message, gap_reached, solution_json, sweep_record, val,
    Operator, RegularizationProblem,
};
use super::row_cache::RowCache;
use crate::error::Result;
use crate::exec::{Record, Stepper, Stop};
use crate::fmath;
use crate::losses::{with_loss, Loss};
use crate::rng::Rng;

mod compact;
mod greedy;
use compact::Compact;

/// Refresh `z = Kc` from scratch every this many sweeps, so rounding in the incremental
/// updates `z += h_i k_i` cannot drift.
const REFRESH_EVERY: usize = 64;

/// The order in which coordinates are visited (section 4.1, "essentially cyclic" rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexRule {
    /// `1, …, ℓ` in every macro-iteration.
    Cyclic,
    /// Alternate `1, …, ℓ` with the reverse `ℓ − 1, …, 1` (section 4, rule 2). With shrinking
    /// (ours) over the active indices, the reverse sweep skips its first index only when the
    /// forward sweep updated it last.
    AitkenDoubleSweep,
    /// A fresh random permutation in every macro-iteration (seeded).
    RandomizedCyclic,
    /// Not one of the paper's rules (Gauss–Southwell, as libsvm's maximal-violation choice):
    /// after every update, compute the exact step `h_j = S_j(v_j) − c_j` of every (active)
    /// coordinate from the maintained `z = Kc`, and update the one with the largest `|h_j|` —
    /// the paper's own stopping quantity. The step is the exact coordinate maximizer of the dual, so it
    /// carries second-order information (for the square and hinge losses it is the clipped
    /// Newton step `g_j/k_jj`). One sweep is ℓ updates (ℓ the number of kept coordinates),
    /// the work of a cyclic sweep; the last sweep ends early when every `|h_j|` is below δ.
    /// `h` then holds the steps every coordinate would take now, so `max|h| < δ` certifies
    /// the current iterate, not the last sweep's changes.
    Greedy,
    /// Not one of the paper's rules, nor a one-coordinate step (block coordinate descent in the
    /// paper's framework: exact maximization of the dual of problem (2) over two
    /// coordinates at once, as libsvm's SMO does). The first coordinate i is Greedy's (the
    /// largest exact step `|h_i|`); the second j maximizes the gain of its exact conditional
    /// step after i's, with the curvature `k_jj + q − k_ij²/(k_ii + q)` of the joint 2-D
    /// problem (libsvm's second-order working-set selection, with `k_ij` from the row of i);
    /// then `(c_i, c_j)` move to the exact minimizer of the 2-D subproblem, a box-constrained
    /// 2-D quadratic ([`exact_pair_step`]). Defined for the losses whose dual is such a
    /// quadratic ([`PairBox::of`]: square, absolute, ε-insensitive with ε = 0, Huber, hinge,
    /// squared hinge); other losses are refused (`method.rule`). One sweep is ℓ coordinate
    /// updates, a pair counting two (a sweep may end one update past ℓ); `h`, the scan and the
    /// certified stop are Greedy's.
    GreedyPairs,
}

impl IndexRule {
    /// The greedy rules ([`Self::Greedy`], [`Self::GreedyPairs`]): `z = Kc` kept, a scan after
    /// every step.
    pub fn is_greedy(self) -> bool {
        matches!(self, Self::Greedy | Self::GreedyPairs)
    }
}

/// The dual of problem (2) over c for the losses where it is a box-constrained quadratic:
/// minimize `cᵀKc/2 + Σ_i (q c_i²/2 − y_i c_i)` subject to `lo(y_i) ≤ c_i ≤ hi(y_i)` — the
/// problem whose exact coordinate minimizer is the paper's step `c_i ← S_i(v_i)` (for these
/// losses the resolvent of Table 1 is the clipped Newton step `c_i − g_i/(k_ii + q)` with the
/// gradient `g_i = z_i + q c_i − y_i`). Labels ±1 for the hinge losses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairBox {
    /// The quadratic weight `q` (λ for the square-type losses, 0 for the linear ones).
    pub q: f64,
    /// `(lo, hi)` for `y ≥ 0` and for `y < 0`.
    pub pos: (f64, f64),
    pub neg: (f64, f64),
}

impl PairBox {
    /// The quadratic for a loss at λ, or `None` when its dual is not a box-constrained quadratic
    /// (ε-insensitive with ε > 0: an `ε|c_i|` term; logistic: an entropy).
    pub fn of(loss: Loss, lambda: f64) -> Option<Self> {
        loss.box_quadratic(lambda).map(|(q, pos, neg)| Self { q, pos, neg })
    }
    /// The box of a coordinate with label y.
    #[inline(always)]
    pub fn bounds(&self, y: f64) -> (f64, f64) {
        if y >= 0.0 {
            self.pos
        } else {
            self.neg
        }
    }
}

/// The exact minimizer of the 2-D subproblem of [`PairBox`]'s quadratic over coordinates i, j:
/// minimize `φ(d) = g_i d_i + g_j d_j + (a_i d_i² + 2 k d_i d_j + a_j d_j²)/2` subject to
/// `lo ≤ c + d ≤ hi` (`a = k_·· + q`, `k = k_ij`, `g` the gradients at c), returned as the new
/// values `c + d` (a clipped value is the bound's own bits). The unconstrained solution when it
/// is feasible and the block is not singular (`a_i a_j − k² > 10⁻¹² a_i a_j`); otherwise, as the
/// problem is convex, the minimum lies on an edge of the box: the best of the finite edges'
/// clipped 1-D minimizers (and, as a safeguard, the two single-coordinate steps). `None` when the
/// block is singular and the box unbounded (no closed form: the caller takes the single step).
pub fn exact_pair_step(
    c: [f64; 2],
    g: [f64; 2],
    a: [f64; 2],
    k: f64,
    lo: [f64; 2],
    hi: [f64; 2],
) -> Option<[f64; 2]> {
    let phi = |t: [f64; 2]| {
        let d = [t[0] - c[0], t[1] - c[1]];
        g[0] * d[0]
            + g[1] * d[1]
            + 0.5 * (a[0] * d[0] * d[0] + 2.0 * k * d[0] * d[1] + a[1] * d[1] * d[1])
    };
    let det = a[0] * a[1] - k * k;
    let regular = det > 1e-12 * a[0] * a[1];
    if regular {
        let d0 = (-a[1] * g[0] + k * g[1]) / det;
        let d1 = (-a[0] * g[1] + k * g[0]) / det;
        let t = [c[0] + d0, c[1] + d1];
        if t[0] >= lo[0] && t[0] <= hi[0] && t[1] >= lo[1] && t[1] <= hi[1] {
            return Some(t);
        }
    } else if !(lo[0].is_finite() && hi[0].is_finite() && lo[1].is_finite() && hi[1].is_finite()) {
        return None;
    }
    // Coordinate `f` held at the value `b`, the other (`o`) at its clipped 1-D minimizer.
    let edge = |f: usize, b: f64| {
        let o = 1 - f;
        let df = b - c[f];
        let to = (c[o] - (g[o] + k * df) / a[o]).clamp(lo[o], hi[o]);
        let mut t = [0.0; 2];
        t[f] = b;
        t[o] = to;
        t
    };
    let mut best = c;
    let mut best_phi = 0.0;
    let mut consider = |t: [f64; 2]| {
        let v = phi(t);
        if v < best_phi {
            best_phi = v;
            best = t;
        }
    };
    for f in 0..2 {
        for b in [lo[f], hi[f]] {
            if b.is_finite() {
                consider(edge(f, b));
            }
        }
        // The single step of f (the other held): on an edge when it clips, else a safeguard.
        let mut t = c;
        t[f] = (c[f] - g[f] / a[f]).clamp(lo[f], hi[f]);
        consider(t);
    }
    Some(best)
}

/// Settings of coordinate descent (checked by [`Self::validate`]; a spec's are checked with
/// field names by paper C's spec check).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoordinateConfig {
    /// Index rule.
    pub rule: IndexRule,
    /// Seed of the randomized cyclic rule.
    pub seed: u64,
    /// δ: stop when `max_i |h_i| < δ` (Algorithm 1; the sweep cap is the executor's,
    /// [`crate::exec::Watch::capped`]).
    pub tol: f64,
    /// Also stop when the relative duality gap `(F − D)/|F|` is at most this (scikit-learn's
    /// rule; the gap certifies the objective, where `max|h| < δ` only says the iterates stalled).
    pub gap_tol: Option<f64>,
    /// Shrinking (libsvm's): every so often, set aside the coordinates whose exact step is 0 and
    /// stays 0 for any change of `v_i` up to the current largest step (a bound that holds with
    /// room to spare); sweeps and greedy scans then visit the active ones only. The stop is
    /// certified on all coordinates: when the active ones are below δ, all are brought back
    /// (also once at 10δ) and the run only stops when every coordinate is below δ.
    pub shrinking: bool,
    /// For a kernel that is not stored ([`super::fixed_point::Representation::KernelRows`], or
    /// the greedy rule on the features representation): keep recently used rows of K in a
    /// least-recently-used cache of at most this many MiB (0: compute every row when needed).
    /// In a spec it also selects that representation: the Gram matrix is not formed.
    pub cache_mib: Option<f64>,
}

impl Default for CoordinateConfig {
    fn default() -> Self {
        Self {
            rule: IndexRule::Cyclic,
            seed: 0,
            tol: 1e-8,
            gap_tol: None,
            shrinking: false,
            cache_mib: None,
        }
    }
}

impl CoordinateConfig {
    /// Check δ > 0, a gap tolerance > 0 and a cache size ≥ 0 within the budget.
    pub fn validate(&self) -> Result<()> {
        check_tol(self.tol)?;
        check_gap_tol(self.gap_tol)?;
        check_cache_mib(self.cache_mib)
    }
}

/// A kernel-row cache size, when given, is a finite number of MiB ≥ 0 within the memory budget.
pub(crate) fn check_cache_mib(cache_mib: Option<f64>) -> Result<()> {
    let Some(m) = cache_mib else { return Ok(()) };
    if !(m.is_finite() && m >= 0.0) {
        return Err(crate::error::KpError::Parameter {
            name: "method.cache_mib",
            reason: format!(
                "the kernel-row cache size must be a finite number of MiB ≥ 0 (got {})",
                crate::budget::num(m)
            ),
        });
    }
    crate::budget::active().bytes(
        "method.cache_mib",
        "the kernel-row cache",
        &format!("cache_mib = {}", crate::budget::num(m)),
        m * 1048576.0,
    )
}

/// The work of one greedy sweep in the budget's units (multiply-adds, [`crate::budget::Budget`]):
/// ℓ updates, each scanning up to ℓ coordinates through the resolvent — a few operations for the
/// closed-form resolvents, a safeguarded Newton solve with exponentials (about a thousand, as
/// measured) for the logistic loss. Shrinking only lowers it.
pub fn greedy_sweep_work(loss: Loss, n: usize) -> f64 {
    loss.resolvent_work() * (n as f64) * (n as f64)
}

/// Coordinate descent of paper C as a steppable state; one [`Self::step`] is one macro-iteration
/// (every kept index once; for the greedy rule, ℓ updates).
///
/// With a Gram matrix (Algorithm 1) the predictions `z = Kc` are kept up to date by
/// `z += h_i k_i` after each update, which gives exactly `z_i = k_iᵀc` at the cost of one column
/// of K and skips the work when `h_i = 0`; with the features representation (Algorithm 2)
/// `w = Xᵀc` is kept and `w += x_i h_i` only when `h_i ≠ 0`. Skipped updates are counted.
/// Without a stored Gram matrix the column `k_i` comes from the row cache.
pub struct CoordinateDescent {
    problem: RegularizationProblem,
    cfg: CoordinateConfig,
    c: DVector<f64>,
    /// `z = Kc` (Gram, rows; greedy on features) — for features it is recomputed from w at each record.
    z: DVector<f64>,
    /// `w = Xᵀc` (features only).
    w: DVector<f64>,
    h: DVector<f64>,
    /// The indices visited: all kept ones, or the active ones when shrinking.
    order: Vec<usize>,
    /// Every kept index (`k_ii > 0`), in index order.
    kept: Vec<usize>,
    /// Whether a kept index is in `order` (shrinking).
    in_order: Vec<bool>,
    /// Rows of K computed on demand ([`Operator::Rows`], greedy on features). Invariant: `Some`
    /// exactly for those two operators (set once in `new`, never taken), so the
    /// `expect("computed rows have a cache")` in the branches for them cannot fire, whatever
    /// the user's data.
    rows: Option<RowCache>,
    /// Greedy: `1/k_ii`, and the last scan's result (a position in the scanned arrays).
    inv_diag: Vec<f64>,
    /// [`IndexRule::GreedyPairs`]: the dual's box quadratic; a copy of row i of K (rows computed
    /// on demand, where fetching row j may evict row i from the cache).
    pair: Option<PairBox>,
    row_i: Vec<f64>,
    /// Greedy pairs: row i on the scanned positions (when they are not all n), and each
    /// position's gain as the second coordinate.
    ri: Vec<f64>,
    gain: Vec<f64>,
    best: Option<usize>,
    active_max_h: f64,
    /// Shrinking: the one early un-shrink (at 10δ) done; updates since the last shrink pass.
    unshrunk_near: bool,
    since_shrink: usize,
    /// Shrinking: coordinates set aside so far (cumulative, a coordinate may count again).
    set_aside: u64,
    /// Greedy, when not every coordinate is active: the active ones side by side, with `z` kept
    /// exact on their rows only; the changes `dc` of c since the last synchronization (at
    /// `changed`) are added to the other rows before anything reads them (libsvm's gradient
    /// reconstruction). `None`: every coordinate is active and the full arrays are scanned.
    compact: Option<Compact>,
    dc: Vec<f64>,
    changed: Vec<usize>,
    is_changed: Vec<bool>,
    updates: u64,
    rng: Rng,
    forward: bool,
    /// The index the last sweep updated last: the Aitken reverse sweep skips its first index
    /// only when it is this one (with shrinking, the order changes between sweeps).
    last_visited: Option<usize>,
    skipped: usize,
    sweep: usize,
    elapsed_ms: f64,
    /// The algorithm's own end (converged, non-finite), or running.
    status: Stop,
    /// The executor ended the run (stall, cap, deadline): no further step.
    halted: bool,
    message: Option<String>,
    warnings: Vec<String>,
    /// The record of the current iterate (one record, not a trace: the executor keeps that).
    last: Record,
}

impl CoordinateDescent {
    /// Start from `c = 0`, with `h_i` the residuals of eq. (13) at `c = 0`.
    pub fn new(problem: RegularizationProblem, cfg: CoordinateConfig) -> Result<Self> {
        cfg.validate()?;
        let n = problem.n();
        let order: Vec<usize> = (0..n).filter(|&i| problem.active[i]).collect();
        let w = match &problem.op {
            Operator::Features { xt, .. } => DVector::zeros(xt.nrows()),
            Operator::Gram(_) | Operator::Rows { .. } => DVector::zeros(0),
        };
        let greedy = cfg.rule.is_greedy();
        let pair = if cfg.rule == IndexRule::GreedyPairs {
            match PairBox::of(problem.loss, problem.lambda) {
                Some(b) => Some(b),
                None => return Err(pairs_refused(problem.loss)),
            }
        } else {
            None
        };
        let rows = match &problem.op {
            Operator::Rows { .. } => {
                Some(RowCache::new(n, cfg.cache_mib.unwrap_or(0.0) * 1048576.0))
            }
            Operator::Features { .. } if greedy => {
                Some(RowCache::new(n, cfg.cache_mib.unwrap_or(0.0) * 1048576.0))
            }
            _ => None,
        };
        let mut warnings = Vec::new();
        if !problem.dropped().is_empty() {
            warnings.push(dropped_message(problem.dropped()));
        }
        let c = DVector::zeros(n);
        let z = DVector::zeros(n);
        let mut h = DVector::zeros(n);
        for &i in &order {
            let a = 1.0 / problem.diag[i];
            h[i] =
                problem.loss.neg_resolvent(problem.y[i], a * z[i] - c[i], a, problem.lambda) - c[i];
        }
        let inv_diag =
            if greedy { problem.diag.iter().map(|&d| 1.0 / d).collect() } else { Vec::new() };
        let mut s = Self {
            kept: order.clone(),
            in_order: problem.active.clone(),
            problem,
            cfg,
            c,
            z,
            w,
            h,
            order,
            rows,
            inv_diag,
            pair,
            row_i: Vec::new(),
            ri: Vec::new(),
            gain: Vec::new(),
            best: None,
            active_max_h: f64::INFINITY,
            unshrunk_near: false,
            since_shrink: 0,
            set_aside: 0,
            compact: None,
            dc: if greedy { vec![0.0; n] } else { Vec::new() },
            changed: Vec::new(),
            is_changed: if greedy { vec![false; n] } else { Vec::new() },
            updates: 0,
            rng: Rng::new(cfg.seed),
            forward: true,
            last_visited: None,
            skipped: 0,
            sweep: 0,
            elapsed_ms: 0.0,
            status: Stop::Running,
            halted: false,
            message: None,
            warnings,
            last: Record::default(),
        };
        if greedy {
            s.rebuild_compact();
            s.scan();
        }
        let rec = s.make_record(0.0);
        let h = val(rec.max_h);
        if !h.is_finite() {
            s.status = Stop::NonFinite;
        } else if h < cfg.tol {
            s.status = Stop::Converged;
        }
        s.last = rec;
        Ok(s)
    }

    /// `max_i |h_i|` over every kept index (NaN if one is NaN).
    fn max_h(&self) -> f64 {
        let mut m: f64 = 0.0;
        for &i in &self.kept {
            let a = self.h[i].abs();
            if a.is_nan() {
                return f64::NAN;
            }
            m = fmath::max(a, m);
        }
        m
    }

    fn make_record(&self, time_ms: f64) -> Record {
        let max_h = self.max_h();
        sweep_record(&self.problem, &self.c, &self.z, self.sweep, max_h, time_ms, self.elapsed_ms)
    }

    /// The visiting order of the next macro-iteration.
    fn prepare_order(&mut self) {
        match self.cfg.rule {
            IndexRule::Cyclic => {}
            IndexRule::AitkenDoubleSweep => {}
            IndexRule::Greedy | IndexRule::GreedyPairs => {}
            IndexRule::RandomizedCyclic => {
                // Fisher–Yates with the seeded generator.
                let m = self.order.len();
                for k in (1..m).rev() {
                    let j = self.rng.below(k + 1);
                    self.order.swap(k, j);
                }
            }
        }
    }

    /// One coordinate update (Algorithm 1 or 2, lines 2–6) of index i.
    #[inline]
    fn update(&mut self, i: usize) {
        let p = &self.problem;
        let kii = p.diag[i];
        let zi = match &p.op {
            Operator::Gram(_) | Operator::Rows { .. } => self.z[i],
            Operator::Features { xt, .. } => xt.column(i).dot(&self.w),
        };
        let a = 1.0 / kii;
        let v = zi * a - self.c[i];
        let t = p.loss.neg_resolvent(p.y[i], v, a, p.lambda);
        let h = t - self.c[i];
        self.h[i] = h;
        if h != 0.0 {
            self.c[i] = t;
            match &p.op {
                Operator::Gram(k) => self.z.axpy(h, &k.column(i), 1.0),
                Operator::Features { xt, .. } => self.w.axpy(h, &xt.column(i), 1.0),
                Operator::Rows { .. } => {
                    let row = self
                        .rows
                        .as_mut()
                        .expect("computed rows have a cache")
                        .get(i, |j, out| p.kernel_row_into(j, out));
                    self.z.axpy(h, row, 1.0);
                }
            }
        } else {
            self.skipped += 1;
        }
    }

    /// One macro-iteration: every kept index once, in the rule's order (the active ones when
    /// shrinking; ℓ greedy updates for [`IndexRule::Greedy`]). Returns `None` once the run has
    /// stopped.
    fn sweep(&mut self) -> Option<Record> {
        if self.status != Stop::Running || self.halted {
            return None;
        }
        let t0 = Instant::now();
        let mut certified = true;
        if self.cfg.rule.is_greedy() {
            self.greedy_sweep();
            self.sweep += 1;
            self.sync();
            self.refresh_z();
            let back = self.revisit_set_aside();
            if back
                || matches!(self.problem.op, Operator::Features { .. })
                || self.sweep.is_multiple_of(REFRESH_EVERY)
            {
                self.rebuild_compact();
                self.scan();
            }
        } else {
            self.prepare_order();
            let m = self.order.len();
            let visited = if self.cfg.rule == IndexRule::AitkenDoubleSweep && !self.forward {
                // Reverse sweep ℓ − 1, …, 1 (section 4, rule 2): index ℓ was just updated. With
                // shrinking the order may have changed since the forward sweep (an un-shrink
                // brings coordinates back), and an index the forward sweep did not update is
                // visited, or its h would stay stale and max|h| could never certify the stop.
                let end =
                    if m > 0 && self.last_visited == Some(self.order[m - 1]) { m - 1 } else { m };
                for k in (0..end).rev() {
                    let i = self.order[k];
                    self.update(i);
                }
                self.last_visited = if end > 0 { Some(self.order[0]) } else { self.last_visited };
                end
            } else {
                for k in 0..m {
                    let i = self.order[k];
                    self.update(i);
                }
                self.last_visited = self.order.last().copied().or(self.last_visited);
                m
            };
            self.updates += visited as u64;
            self.forward = !self.forward;
            self.sweep += 1;
            self.refresh_z();
            if self.cfg.shrinking {
                certified = self.shrink_after_sweep();
            }
        }
        let dt = t0.elapsed().as_secs_f64() * 1e3;
        self.elapsed_ms += dt;
        let rec = self.make_record(dt);
        self.last = rec;
        let h = val(rec.max_h);
        if !(h.is_finite() && val(rec.primal).is_finite()) {
            self.status = Stop::NonFinite;
            self.message = Some(format!("a value overflowed at sweep {}", rec.iter));
        } else if (certified && h < self.cfg.tol) || gap_reached(&rec, self.cfg.gap_tol) {
            self.status = Stop::Converged;
        }
        Some(rec)
    }

    /// The coefficients c.
    pub fn c(&self) -> &DVector<f64> {
        &self.c
    }
    /// The predictions on the training inputs, `z = Kc`.
    pub fn z(&self) -> &DVector<f64> {
        &self.z
    }
    /// `w = Xᵀc` for the features representation (Algorithm 2), else `None`.
    pub fn w(&self) -> Option<&DVector<f64>> {
        match self.problem.op {
            Operator::Features { .. } => Some(&self.w),
            Operator::Gram(_) | Operator::Rows { .. } => None,
        }
    }
    /// The latest change `h_i` of each coefficient (greedy rule: the step each coordinate
    /// would take now).
    pub fn h(&self) -> &DVector<f64> {
        &self.h
    }
    /// Updates skipped so far because `h = 0`.
    pub fn skipped(&self) -> usize {
        self.skipped
    }
    /// Coordinate updates done so far (visits, for the cyclic rules; chosen steps, for greedy).
    pub fn updates(&self) -> u64 {
        self.updates
    }
    /// How many coordinates are active (all kept ones unless shrinking set some aside).
    pub fn active_len(&self) -> usize {
        self.order.len()
    }
    /// How many times shrinking set a coordinate aside so far.
    pub fn set_aside(&self) -> u64 {
        self.set_aside
    }
    /// The kernel-row cache's (capacity in rows, hits, misses), when rows are computed.
    pub fn cache_stats(&self) -> Option<(usize, u64, u64)> {
        self.rows.as_ref().map(|r| {
            let (h, m) = r.hits_misses();
            (r.capacity(), h, m)
        })
    }
    /// The problem being solved.
    pub fn problem(&self) -> &RegularizationProblem {
        &self.problem
    }
    /// The settings.
    pub fn config(&self) -> &CoordinateConfig {
        &self.cfg
    }
    /// A sentence for the user when a value overflowed.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }
    /// Flags raised at the start (dropped rows).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// Coordinate descent in the one executor's protocol: one macro-iteration per step; its own
/// stops are convergence (`max|h| < δ` certified on every coordinate, or the gap tolerance) and
/// overflow; the sweep cap, the stall rule, the deadline and the trace are the executor's.
impl Stepper for CoordinateDescent {
    fn record(&self) -> Record {
        self.last
    }
    fn step(&mut self) -> Option<Record> {
        self.sweep()
    }
    fn stop(&self) -> Stop {
        self.status
    }
    fn halt(&mut self, stop: Stop) {
        self.halted = true;
        if stop == Stop::Stalled {
            self.message = Some(super::fixed_point::stalled_message(self.sweep, self.cfg.tol));
        }
    }
    fn solution(&self) -> serde_json::Value {
        solution_json(self.c(), None, self.message(), self.warnings())
    }
}

impl std::fmt::Debug for CoordinateDescent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoordinateDescent")
            .field("cfg", &self.cfg)
            .field("n", &self.problem.n())
            .field("sweep", &self.sweep)
            .field("status", &self.status)
            .field("skipped", &self.skipped)
            .finish_non_exhaustive()
    }
}

/// Which of paper C's solvers to run, with its settings: the fixed point of section 3 (eq. 10)
/// or coordinate descent of section 4.1 (Algorithm 1/2). A spec's method is checked into this
/// (paper C's spec check); the sweep cap goes to the executor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    FixedPoint(super::fixed_point::FixedPointConfig),
    Coordinate(CoordinateConfig),
}

/// What paper C's page, plots and `kplay` read from either solver between its steps (the
/// steps, stops and trace go through [`Stepper`] and the executor, [`crate::exec`]), so the
/// fixed point and the coordinate rules race as lanes of one [`crate::exec::Race`].
pub trait SweepSolver: Stepper + Send {
    /// The coefficients c.
    fn c(&self) -> &DVector<f64>;
    /// The problem being solved.
    fn problem(&self) -> &RegularizationProblem;
    /// The fixed point's step α and `‖K‖₂` (`None` for coordinate descent).
    fn alpha_norm(&self) -> Option<(f64, f64)>;
    /// Updates skipped so far because `h = 0` (Algorithm 2's saving; 0 for the fixed point).
    fn skipped_updates(&self) -> usize;
    /// A sentence for the user when the run diverged, overflowed or stalled.
    fn note(&self) -> Option<&str>;
    /// Flags raised at the start (α ≥ 2/‖K‖₂, dropped rows).
    fn flags(&self) -> &[String];
    /// Indices with `c_i ≠ 0` (the support vectors of the picture).
    fn support(&self) -> Vec<usize> {
        super::fixed_point::support_of(self.c())
    }
}

impl SweepSolver for super::fixed_point::FixedPoint {
    fn c(&self) -> &DVector<f64> {
        self.c()
    }
    fn problem(&self) -> &RegularizationProblem {
        self.problem()
    }
    fn alpha_norm(&self) -> Option<(f64, f64)> {
        Some((self.alpha(), self.norm_k()))
    }
    fn skipped_updates(&self) -> usize {
        0
    }
    fn note(&self) -> Option<&str> {
        self.message()
    }
    fn flags(&self) -> &[String] {
        self.warnings()
    }
}

impl SweepSolver for CoordinateDescent {
    fn c(&self) -> &DVector<f64> {
        self.c()
    }
    fn problem(&self) -> &RegularizationProblem {
        self.problem()
    }
    fn alpha_norm(&self) -> Option<(f64, f64)> {
        None
    }
    fn skipped_updates(&self) -> usize {
        self.skipped()
    }
    fn note(&self) -> Option<&str> {
        self.message()
    }
    fn flags(&self) -> &[String] {
        self.warnings()
    }
}

/// Validate a method's settings and start its solver from `c = 0`.
pub fn start(problem: RegularizationProblem, method: Method) -> Result<Box<dyn SweepSolver>> {
    Ok(match method {
        Method::FixedPoint(cfg) => Box::new(super::fixed_point::FixedPoint::new(problem, cfg)?),
        Method::Coordinate(cfg) => Box::new(CoordinateDescent::new(problem, cfg)?),
    })
}

/// The error for [`IndexRule::GreedyPairs`] on a loss whose dual is not a box-constrained
/// quadratic ([`PairBox::of`]).
pub(crate) fn pairs_refused(loss: Loss) -> crate::error::KpError {
    crate::error::KpError::Parameter {
        name: "method.rule",
        reason: format!(
            "greedy_pairs solves two coordinates at once in closed form, which needs a dual that is a box-constrained quadratic: the square, absolute, Huber, hinge and squared hinge losses (and ε-insensitive with ε = 0), not the {} loss; use \"greedy\" (one coordinate, any loss)",
            loss.name()
        ),
    }
}
