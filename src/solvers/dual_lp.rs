//! ℓp-regularized least squares solved in the dual (paper A, Algorithm 2.1).
//!
//! Primal `F(w) = (γ/2)‖Xw − y‖² + (1/p)‖w‖_p^p`, `1 < p < 2`; dual
//! `Λ(α) = (1/q)‖Xᵀα‖_q^q + (1/(2γ))‖α‖² − ⟨y, α⟩` with gradient
//! `∇Λ(α) = X J_q(Xᵀα) − y + α/γ`, primal iterate `w(α) = J_q(Xᵀα)`.
//! Gradient descent on Λ with the paper's backtracking: from `λ̄` each iteration, shrink by θ
//! while `Λ(α) − Λ(α − λ∇Λ) < λ(1 − δ)‖∇Λ‖²`.
//!
//! Two facts keep the numbers exact to rounding:
//! * the linesearch test is evaluated as `λ(δ − λ/(2γ))‖g‖² ≥ B(λ)`, an exact rewriting with
//!   the Bregman remainder `B` of the polynomial term computed termwise without cancellation
//!   along `Xᵀα − λXᵀg` (one product `Xᵀg` serves every trial step; each trial costs O(d)); at an
//!   integer q two cheap bounds on `B` decide most trial steps with the same decision
//!   (`bounds.rs`), so the iterates are the same bits;
//! * for the square loss the duality gap equals `(γ/2)‖∇Λ(α)‖²` (expand `F(w(α)) + Λ(α)` with
//!   `⟨y, α⟩ = ‖Xᵀα‖_q^q − ⟨Xw − y, α⟩`), a sum of squares with no cancellation; the tests check
//!   it against `F + Λ` computed term by term.

use crate::fmath;
use nalgebra::{DMatrix, DVector};
use web_time::Instant;

use super::Progress;
use crate::exec::{Record, Stepper, Stop};
use crate::lp::{abs_pow, abs_powi, conjugate_exponent, j_map_into};

/// Linesearch parameters of Algorithm 2.1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Linesearch {
    /// Sufficient-decrease parameter δ ∈ (0, 1).
    pub delta: f64,
    /// Shrink factor θ ∈ (0, 1).
    pub theta: f64,
    /// Initial step λ̄ ∈ (0, γ/(2(1 − δ))].
    pub step0: f64,
    /// Cap on reductions per iteration; reaching it means the decrease is below rounding.
    pub max_backtracks: usize,
}

/// The state of Algorithm 2.1 on one data set.
///
/// One iteration reads X once (issue 12): X is kept transposed (`xt`, d × n, so the sample
/// `x_i` is the contiguous column i), and one pass over the rows computes, for each `x_i` while
/// it is in cache, `∇Λ(α)_i = ⟨x_i, w⟩ − y_i + α_i/γ` and adds `∇Λ(α)_i·x_i` to `Xᵀ∇Λ` and
/// `α_i·x_i` to `Xᵀα`. The linesearch then costs O(d) per trial step (`Xᵀ(α − λg) = Xᵀα − λXᵀg`)
/// and the next `u = Xᵀα_{k+1}` is `Xᵀα_k − λXᵀg` from the two fresh products (recomputed from
/// X every iteration, so rounding cannot drift).
pub struct DualLp {
    /// Xᵀ (d × n): column i is the sample `x_i`.
    xt: DMatrix<f64>,
    y: DVector<f64>,
    gamma: f64,
    p: f64,
    q: f64,
    ls: Linesearch,
    /// Dual iterate α (length n).
    alpha: DVector<f64>,
    /// `u = Xᵀα` (length d).
    u: DVector<f64>,
    /// `|u_j|^q` (length d), shared by `‖u‖_q^q` and every trial step of the linesearch.
    upow: Vec<f64>,
    /// `w = J_q(u)` (length d).
    w: DVector<f64>,
    /// `∇Λ(α)` (length n).
    grad: DVector<f64>,
    /// `‖u‖_q^q` (= `‖w‖_p^p`).
    s: f64,
    lambda: f64,
    primal: f64,
    progress: Progress,
    /// `Xᵀ∇Λ(α)`, from the same pass as `∇Λ(α)`.
    xtg: DVector<f64>,
    /// `Xᵀα`, from the same pass.
    xta: DVector<f64>,
    /// Scratch: the residual `Xw − y`.
    r: DVector<f64>,
    /// Scratch: the linesearch's heavy coordinates of `u` and `Xᵀg` ([`bounds::gather_heavy`]).
    heavy: (Vec<f64>, Vec<f64>),
}

mod bounds;
#[cfg(test)]
mod bounds_tests;
mod row_pass;
use bounds::{TrialBounds, Verdict};
use row_pass::RowPass;

impl DualLp {
    /// Start Algorithm 2.1 at α = 0. Parameters must already be validated
    /// (see [`crate::papers::lp`]).
    pub fn new(x: DMatrix<f64>, y: DVector<f64>, gamma: f64, p: f64, ls: Linesearch) -> Self {
        let (n, d) = x.shape();
        let q = conjugate_exponent(p);
        let xt = x.transpose();
        drop(x);
        let mut me = Self {
            xt,
            y,
            gamma,
            p,
            q,
            ls,
            alpha: DVector::zeros(n),
            u: DVector::zeros(d),
            upow: vec![0.0; d],
            w: DVector::zeros(d),
            grad: DVector::zeros(n),
            s: 0.0,
            lambda: 0.0,
            primal: 0.0,
            progress: Progress::default(),
            xtg: DVector::zeros(d),
            xta: DVector::zeros(d),
            r: DVector::zeros(n),
            heavy: (Vec::new(), Vec::new()),
        };
        me.refresh();
        me
    }

    /// Recompute `w`, `|u|^q`, then in one pass over X: `∇Λ`, `Xᵀ∇Λ`, `Xᵀα`; then `Λ` and `F`.
    fn refresh(&mut self) {
        let q = self.q;
        if let Some(qi) = integer_exponent(q) {
            // Integer q ≠ 4: `|u|^(q−1)` by multiplications (issue 21, [`abs_powi`]: within about
            // qε of `pow`'s value, where `pow` costs as much as the rest of the iteration at
            // d = 10⁴), and `|u|^q = |u|^(q−1)·|u|`.
            pulp::Arch::new().dispatch(PowInt {
                u: self.u.as_slice(),
                k: qi - 1,
                w: self.w.as_mut_slice(),
                upow: &mut self.upow,
            });
        } else {
            j_map_into(self.u.as_slice(), q, self.w.as_mut_slice());
            for (o, &t) in self.upow.iter_mut().zip(self.u.iter()) {
                *o = abs_pow(t, q);
            }
        }
        self.s = sum4(&self.upow);
        self.xtg.fill(0.0);
        self.xta.fill(0.0);
        // The row pass, compiled for the best vector unit this CPU has (pulp: AVX2 natively when
        // present, SSE2 otherwise, simd128 in wasm) — the same IEEE operations in the same order
        // on every path (no fused multiply-add, no reassociation), so the same bits (issue 21).
        pulp::Arch::new().dispatch(RowPass {
            data: self.xt.as_slice(),
            d: self.xt.nrows(),
            w: self.w.as_slice(),
            y: self.y.as_slice(),
            alpha: self.alpha.as_slice(),
            gamma: self.gamma,
            r: self.r.as_mut_slice(),
            grad: self.grad.as_mut_slice(),
            xtg: self.xtg.as_mut_slice(),
            xta: self.xta.as_mut_slice(),
        });
        self.primal = 0.5 * self.gamma * self.r.norm_squared() + self.s / self.p;
        self.lambda = self.s / self.q + self.alpha.norm_squared() / (2.0 * self.gamma)
            - self.y.dot(&self.alpha);
    }

    /// Dual iterate α.
    pub fn alpha(&self) -> &DVector<f64> {
        &self.alpha
    }
    /// Primal iterate `w(α) = J_q(Xᵀα)`.
    pub fn w(&self) -> &DVector<f64> {
        &self.w
    }
    /// `∇Λ(α)`.
    pub fn grad(&self) -> &DVector<f64> {
        &self.grad
    }
    /// `Λ(α)` as a sum of its three terms.
    pub fn dual_objective(&self) -> f64 {
        self.lambda
    }
    /// `F(w(α))`.
    pub fn primal_objective(&self) -> f64 {
        self.primal
    }
    /// The gap `(γ/2)‖∇Λ(α)‖²` (equal to `F(w(α)) + Λ(α)` for the square loss).
    pub fn gap(&self) -> f64 {
        0.5 * self.gamma * self.grad.norm_squared()
    }
    /// The exponents (p, q).
    pub fn exponents(&self) -> (f64, f64) {
        (self.p, self.q)
    }

    /// Whether the Bregman remainder of `P(α) = (1/q)‖Xᵀα‖_q^q` along `−λg`,
    /// `B = P(α − λg) − P(α) + λ⟨∇P(α), g⟩ = Σ_j (1/q)(|u_j − λz_j|^q − |u_j|^q) + λ J_q(u_j) z_j`
    /// (`u = Xᵀα`, `z = Xᵀg`, each term computed without cancellation, see [`bregman_term`]) is at
    /// most `bound`; returns B when it is. Every term is ≥ 0, so a partial sum above `bound`
    /// decides the test without the rest of the terms (the rejected trial steps of the
    /// linesearch, most of them, stop early); an accepted step sums every term in the same order.
    fn bregman_within(&self, step: f64, bound: f64) -> Option<f64> {
        bregman_sum_within(self.u.as_slice(), self.xtg.as_slice(), &self.upow, self.q, step, bound)
    }
}

/// [`DualLp::bregman_within`] on slices: `u = Xᵀα`, `z = Xᵀg`, `upow = |u|^q`.
fn bregman_sum_within(
    u: &[f64],
    z: &[f64],
    upow: &[f64],
    q: f64,
    step: f64,
    bound: f64,
) -> Option<f64> {
    const BLOCK: usize = 256;
    let mut acc = [0.0f64; 2];
    let quartic = q == 4.0;
    let integer = integer_exponent(q);
    for start in (0..u.len()).step_by(BLOCK) {
        let end = (start + BLOCK).min(u.len());
        if quartic {
            for k in start..end {
                acc[k & 1] += bregman_term_q4(u[k], step * z[k]);
            }
        } else if let Some(qi) = integer {
            // Four coordinates at a time (the lanes vectorize; every lane runs the same IEEE
            // operations as `bregman_term_int`, so the terms have its bits), then the rest.
            let mut k = start;
            while k + LANES <= end {
                // Cannot fail: the slice is exactly LANES long (the loop runs while k + LANES ≤ end ≤ len).
                let uk: &[f64; LANES] = u[k..k + LANES].try_into().expect("four");
                let zk: &[f64; LANES] = z[k..k + LANES].try_into().expect("four");
                let h = zk.map(|zj| step * zj);
                let terms = bregman_int_lanes(uk, &h, qi);
                for (l, term) in terms.into_iter().enumerate() {
                    acc[(k + l) & 1] += term;
                }
                k += LANES;
            }
            for k in k..end {
                acc[k & 1] += bregman_term_int(u[k], step * z[k], qi);
            }
        } else {
            for k in start..end {
                acc[k & 1] += bregman_term_pow(u[k], step * z[k], q, upow[k]);
            }
        }
        let partial = acc[0] + acc[1];
        if !partial.is_finite() {
            return Some(partial);
        }
        if partial > bound {
            return None;
        }
    }
    Some(acc[0] + acc[1])
}

/// `w = J_q(u)` and `|u|^q` at an integer q as a `pulp` operation: `m = |u|^(q−1)` by
/// [`abs_powi`]'s binary powering run on four coordinates at once (the same multiplications in
/// the same order on each lane, so its bits; the per-coordinate loop branches on the exponent's
/// bits and does not vectorize), `w = sign(u)·m`, `|u|^q = m·|u|`.
struct PowInt<'a> {
    u: &'a [f64],
    k: u32,
    w: &'a mut [f64],
    upow: &'a mut [f64],
}

impl pulp::WithSimd for PowInt<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        let n4 = self.u.len() / LANES * LANES;
        let (u4, w4, o4) = (
            self.u[..n4].as_chunks::<LANES>().0,
            self.w[..n4].as_chunks_mut::<LANES>().0,
            self.upow[..n4].as_chunks_mut::<LANES>().0,
        );
        for ((t, w), o) in u4.iter().zip(w4).zip(o4) {
            let m = abs_powi_lanes(t, self.k);
            for l in 0..LANES {
                w[l] = if t[l] < 0.0 { -m[l] } else { m[l] };
                o[l] = m[l] * t[l].abs();
            }
        }
        for ((w, o), &t) in self.w[n4..].iter_mut().zip(&mut self.upow[n4..]).zip(&self.u[n4..]) {
            let m = abs_powi(t, self.k);
            *w = if t < 0.0 { -m } else { m };
            *o = m * t.abs();
        }
    }
}

/// [`abs_powi`] on `N` values: the loop over the exponent's bits outside, the lanes inside.
#[inline(always)]
fn abs_powi_lanes<const N: usize>(t: &[f64; N], k: u32) -> [f64; N] {
    let (mut a, mut k, mut r) = (t.map(f64::abs), k, [1.0f64; N]);
    loop {
        if k & 1 == 1 {
            for l in 0..N {
                r[l] *= a[l];
            }
        }
        k >>= 1;
        if k == 0 {
            return r;
        }
        for x in a.iter_mut() {
            *x *= *x;
        }
    }
}

/// `‖·‖_1` of non-negative values with four accumulators (the order of [`crate::lp::norm_pow`], so `‖u‖_q^q` keeps its bits).
fn sum4(v: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let chunks = v.chunks_exact(4);
    let rest = chunks.remainder();
    for c in chunks {
        acc[0] += c[0];
        acc[1] += c[1];
        acc[2] += c[2];
        acc[3] += c[3];
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for &t in rest {
        s += t;
    }
    s
}

/// `(1/q)(|u − h|^q − |u|^q) + J_q(u)·h ≥ 0`, accurate to rounding even when `h ≪ u`:
/// with `u − h = u(1 + t)`, `t = −h/u`, it equals `(|u|^q/q)·φ(t)`, `φ(t) = (1+t)^q − 1 − qt`,
/// and φ is summed as its binomial series for small `|t|` (no cancellation of the first order).
pub fn bregman_term(u: f64, h: f64, q: f64) -> f64 {
    bregman_term_pow(u, h, q, abs_pow(u, q))
}

/// [`bregman_term`] for q = 4 (p = 4/3, the paper's main case) as a polynomial:
/// `(1/4)((u − h)⁴ − u⁴) + u³h = h²(2u² + (2u − h)²)/4` — a sum of non-negative terms, so
/// accurate to a few ulps with no cancellation, and no `log1p`/`expm1` (vectorizes).
#[inline]
pub fn bregman_term_q4(u: f64, h: f64) -> f64 {
    let v = 2.0 * u - h;
    h * h * (2.0 * u * u + v * v) * 0.25
}

/// The integer exponents the linesearch evaluates as polynomials ([`bregman_term_int`]): q = 3, 5,
/// 6, 7, … up to 32 (p = 3/2, 5/4, 6/5, 7/6, …, 1.1 → q = 11, 1.05 → q = 21); q = 4 has its own
/// form ([`bregman_term_q4`]), and other q the general one.
pub fn integer_exponent(q: f64) -> Option<u32> {
    if q.fract() == 0.0 && (3.0..=32.0).contains(&q) && q != 4.0 {
        Some(q as u32)
    } else {
        None
    }
}

/// Lanes of [`bregman_int_lanes`].
const LANES: usize = 4;

/// [`bregman_term`] for an integer `q ≥ 3` without transcendentals and without cancellation
/// (issue 21). With `v = u − h`, `a = |u|`, `b = |v|`, the remainder of `f(x) = |x|^q/q`:
/// * u and v of the same sign: `(v^q − u^q)/(v − u) = Σ_{j<q} v^j u^(q−1−j)` gives
///   `h²/q · Σ_{i=0}^{q−2} (i + 1) a^i b^(q−2−i)`, a sum of non-negative terms (q = 4:
///   `h²(3a² + 2ab + b²)/4`, the quartic form);
/// * opposite signs (or a zero): `a^q(q − 1)/q + a^(q−1) b + b^q/q`, non-negative terms too.
///
/// Both are evaluated by one Horner-like recurrence of q − 2 steps (`t ← a·t + b^k`,
/// `s ← a·s + t`, `a^k`, `b^k`); every operation adds or multiplies non-negative numbers, so the
/// result is within about `4q·ε` relative of the exact remainder (tests/paper_a.rs checks it against
/// exact integer arithmetic). No fused multiply-add and a fixed order: the same bits natively and
/// in wasm.
#[inline]
pub fn bregman_term_int(u: f64, h: f64, q: u32) -> f64 {
    bregman_int_lanes(&[u], &[h], q)[0]
}

/// [`bregman_term_int`] on `N` coordinates at once, lane by lane the same operations.
#[inline(always)]
fn bregman_int_lanes<const N: usize>(u: &[f64; N], h: &[f64; N], q: u32) -> [f64; N] {
    let v: [f64; N] = std::array::from_fn(|l| u[l] - h[l]);
    let a = u.map(f64::abs);
    let b = v.map(f64::abs);
    let (mut t, mut s, mut ap, mut bp) = ([1.0f64; N], [1.0f64; N], a, b);
    for _ in 2..q {
        for l in 0..N {
            t[l] = a[l] * t[l] + bp[l];
            bp[l] *= b[l];
            ap[l] *= a[l];
            s[l] = a[l] * s[l] + t[l];
        }
    }
    // Now ap = a^(q−1), bp = b^(q−1), s = Σ_{i=0}^{q−2} (i + 1) a^i b^(q−2−i).
    let qf = q as f64;
    let same: [bool; N] =
        std::array::from_fn(|l| (u[l] > 0.0 && v[l] > 0.0) || (u[l] < 0.0 && v[l] < 0.0));
    let mut out: [f64; N] = std::array::from_fn(|l| h[l] * h[l] * s[l] / qf);
    // The sign-flip form only where a lane needs it (rare: its two divisions would otherwise
    // cost as much as the recurrence).
    if same.contains(&false) {
        for l in 0..N {
            if !same[l] {
                out[l] = ap[l] * a[l] * (qf - 1.0) / qf + ap[l] * b[l] + bp[l] * b[l] / qf;
            }
        }
    }
    out
}

/// [`bregman_term`] with `|u|^q` given (computed once per iterate, not once per trial step).
#[inline]
fn bregman_term_pow(u: f64, h: f64, q: f64, upow: f64) -> f64 {
    if u == 0.0 {
        return abs_pow(h, q) / q;
    }
    let t = -h / u;
    if t < -1.0 {
        // The sign flips: both terms are of comparable size, no cancellation.
        return (abs_pow(u - h, q) - upow) / q + crate::lp::j_scalar(u, q) * h;
    }
    let phi = if t.abs() < 1e-3 {
        // Σ_{k≥2} C(q, k) t^k; the ratio of consecutive terms is (q − k)t/(k + 1), |·| < 0.03.
        let mut term = 0.5 * q * (q - 1.0) * t * t;
        let mut sum = term;
        let mut k = 2.0;
        while term.abs() > 1e-18 * sum.abs() && k < 40.0 {
            term *= (q - k) * t / (k + 1.0);
            sum += term;
            k += 1.0;
        }
        sum
    } else {
        fmath::exp_m1(q * fmath::ln_1p(t)) - q * t
    };
    upow / q * fmath::max(phi, 0.0)
}

impl DualLp {
    /// The record of the current iterate (its duration 0).
    fn current(&self) -> Record {
        let gap = self.gap();
        self.progress.record(
            self.primal,
            -self.lambda,
            gap,
            super::relative_gap(gap, self.primal),
            0.0,
        )
    }

    /// One iteration of Algorithm 2.1: the linesearch from λ̄, then the step. Its own stops:
    /// a zero gradient or a linesearch that finds no decrease above rounding
    /// ([`Stop::Stalled`]), a non-finite value ([`Stop::NonFinite`]).
    fn iterate(&mut self) -> Option<Record> {
        let t0 = Instant::now();
        let g2 = self.grad.norm_squared();
        if g2 == 0.0 {
            return self.progress.end(Stop::Stalled);
        }
        // The paper's test Λ(α) − Λ(α − λg) ≥ λ(1 − δ)‖g‖², rewritten exactly with
        // Λ(α) − Λ(α − λg) = λ‖g‖² − (λ²/(2γ))‖g‖² − B(λ) as λ(δ − λ/(2γ))‖g‖² ≥ B(λ): every
        // term is computed without cancellation, so the test stays meaningful down to rounding.
        // `Xᵀg` is already known from the pass that computed g.
        let mut step = self.ls.step0;
        let mut backtracks = 0;
        let integer = integer_exponent(self.q);
        if integer.is_some() {
            let (hu, hz) = &mut self.heavy;
            bounds::gather_heavy(&self.upow, self.u.as_slice(), self.xtg.as_slice(), 256, hu, hz);
        }
        loop {
            let bound = step * (self.ls.delta - step / (2.0 * self.gamma)) * g2;
            // At an integer q the two cheap bounds of `bounds.rs` decide most trial steps with the
            // decision the full sum would give; the last allowed trial always takes the full sum
            // (there a non-finite sum means NonFinite, not Stalled).
            let verdict = match integer {
                Some(q) if backtracks < self.ls.max_backtracks => {
                    pulp::Arch::new().dispatch(TrialBounds {
                        u: self.u.as_slice(),
                        z: self.xtg.as_slice(),
                        step,
                        bound,
                        q,
                        heavy: (&self.heavy.0, &self.heavy.1),
                    })
                }
                _ => Verdict::Undecided,
            };
            let b = match verdict {
                Verdict::Accept => Some(bound),
                Verdict::Reject => None,
                Verdict::Undecided => self.bregman_within(step, bound),
            };
            let finite = b.is_some_and(f64::is_finite);
            if b.is_some() && !finite && backtracks >= self.ls.max_backtracks {
                return self.progress.end(Stop::NonFinite);
            }
            if finite {
                break;
            }
            if backtracks >= self.ls.max_backtracks {
                return self.progress.end(Stop::Stalled);
            }
            step *= self.ls.theta;
            backtracks += 1;
        }
        self.alpha.axpy(-step, &self.grad, 1.0);
        // u = Xᵀα_{k+1} = Xᵀα_k − λXᵀg with both products fresh from this iteration's pass.
        for ((u, &a), &z) in self.u.iter_mut().zip(self.xta.iter()).zip(self.xtg.iter()) {
            *u = a - step * z;
        }
        self.refresh();
        if !(self.primal.is_finite() && self.lambda.is_finite()) {
            return self.progress.end(Stop::NonFinite);
        }
        let dt = self.progress.accept(t0, step, backtracks);
        let mut rec = self.current();
        rec.time_ms = dt;
        self.progress.keep(rec)
    }
}

/// Algorithm 2.1 in the one executor's protocol: one accepted step per [`Stepper::step`]; its
/// own stops only (stalled linesearch, non-finite value); the tolerance on the relative gap,
/// the cap, the stall rule and the trace are the executor's.
impl Stepper for DualLp {
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
        super::solution_json(Some(&self.w), Some(&self.alpha))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pulp::WithSimd;

    /// The four-lane powering of `refresh` gives [`abs_powi`]'s bits, coordinate by coordinate,
    /// on every path, with `w = sign(u)|u|^(q−1)` and `|u|^q = |u|^(q−1)·|u|`.
    #[test]
    fn lanes_powering_matches_abs_powi_bit_for_bit() {
        let u: Vec<f64> =
            (0..23).map(|i| (i as f64 - 11.0) * 0.37 + if i == 5 { -0.0 } else { 0.0 }).collect();
        for k in [1, 2, 3, 4, 10, 20, 31] {
            for path in 0..2 {
                let (mut w, mut upow) = (vec![0.0; u.len()], vec![0.0; u.len()]);
                let op = PowInt { u: &u, k, w: &mut w, upow: &mut upow };
                if path == 0 {
                    pulp::Arch::new().dispatch(op);
                } else {
                    op.with_simd(pulp::Scalar::new());
                }
                for (j, &t) in u.iter().enumerate() {
                    let m = abs_powi(t, k);
                    let want_w = if t < 0.0 { -m } else { m };
                    assert_eq!(w[j].to_bits(), want_w.to_bits(), "w, k = {k}, j = {j}");
                    assert_eq!(upow[j].to_bits(), (m * t.abs()).to_bits(), "|u|^q, k = {k}");
                }
            }
        }
    }
}
