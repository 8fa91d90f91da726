//! The logistic loss `log(1 + e^(−yt))`, labels ±1, with its safeguarded Newton solves (the
//! resolvent of paper C and the dual prox of paper A have no closed form).

use super::def::{fenchel_young_gap, margin_domain, softplus, BoxQuadratic, LossDef, Parameter};
use crate::fmath;

/// `log(1 + e^(−yt))`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Logistic;

impl LossDef for Logistic {
    const DEFAULT: Self = Logistic;
    fn kind(&self) -> &'static str {
        "logistic"
    }
    fn label(&self) -> &'static str {
        "logistic"
    }
    fn parameters(&self) -> &'static [Parameter] {
        &[]
    }
    fn parameter_values(&self) -> Vec<f64> {
        Vec::new()
    }
    fn paper_c(&self) -> Option<&'static str> {
        None
    }
    fn is_classification(&self) -> bool {
        true
    }
    fn tube_width(&self) -> f64 {
        0.0
    }
    /// Not a box-constrained quadratic: the dual has an entropy.
    fn box_quadratic(&self, _lambda: f64) -> Option<BoxQuadratic> {
        None
    }
    fn value(&self, y: f64, t: f64) -> f64 {
        softplus(-y * t)
    }
    fn subgradient(&self, y: f64, t: f64) -> f64 {
        // d/dt log(1 + e^(−yt)) = −y σ(−yt)
        let z = -y * t;
        let s = if z >= 0.0 {
            1.0 / (1.0 + fmath::exp(-z))
        } else {
            fmath::exp(z) / (1.0 + fmath::exp(z))
        };
        -y * s
    }
    fn subdifferential(&self, y: f64, t: f64) -> (f64, f64) {
        let g = self.subgradient(y, t);
        (g, g)
    }
    fn conjugate(&self, y: f64, s: f64) -> f64 {
        // ψ*(σ) = (1 + σ) log(1 + σ) + (−σ) log(−σ) on [−1, 0]
        let sig = y * s;
        if (-1.0..=0.0).contains(&sig) {
            xlogx(1.0 + sig) + xlogx(-sig)
        } else {
            f64::INFINITY
        }
    }
    fn conjugate_domain(&self, y: f64) -> (f64, f64) {
        margin_domain(y, 1.0)
    }
    #[inline(always)]
    fn neg_resolvent(&self, y: f64, v: f64, alpha: f64, lambda: f64) -> f64 {
        let gamma = 1.0 / (alpha * lambda);
        let m = y * v / alpha;
        let s = logistic_prox_margin(m, gamma);
        y * sigmoid(-s) / lambda
    }
    /// With `b = ya`: `(y(ln b − ln(γ − b)), γ/(b(γ − b)))`.
    fn dual_term_derivatives(&self, y: f64, a: f64, gamma: f64) -> Option<(f64, f64)> {
        let b = y * a;
        let c = gamma - b;
        Some((y * (fmath::ln(b) - fmath::ln(c)), gamma / (b * c)))
    }
    /// `yγ/2`, the middle of `[0, γ]` in `b = ya`.
    fn dual_newton_start(&self, y: f64, gamma: f64) -> f64 {
        0.5 * gamma * y
    }
    /// About a thousand (measured): a safeguarded Newton solve with exponentials.
    fn resolvent_work(&self) -> f64 {
        1000.0
    }
    fn dual_term(&self, y: f64, a: f64, gamma: f64) -> f64 {
        let b = y * a;
        if (0.0..=gamma).contains(&b) {
            let t = b / gamma;
            gamma * (xlogx(t) + xlogx(1.0 - t))
        } else {
            f64::INFINITY
        }
    }
    fn prox_dual(&self, y: f64, v: f64, step: f64, gamma: f64) -> f64 {
        y * logistic_prox_b(y * v, step, gamma)
    }
    fn dual_gap_term(&self, y: f64, a: f64, t: f64, gamma: f64) -> f64 {
        fenchel_young_gap(self, y, a, t, gamma)
    }
}

/// `x log x` with the limit 0 at 0.
fn xlogx(x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x * fmath::ln(x)
    }
}

/// `σ(x) = 1/(1 + e^(−x))` without overflow.
fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + fmath::exp(-x))
    } else {
        let e = fmath::exp(x);
        e / (1.0 + e)
    }
}

/// The margin `s = y·t` of `prox_{γ·log(1+e^(−y·))}` at a point of margin `m`: the root of
/// `g(s) = s − m − γσ(−s)`, increasing with `g' = 1 + γσ(s)σ(−s) ∈ [1, 1 + γ/4]` and bracketed
/// by `[m, m + γ]` ([`increasing_root`]).
fn logistic_prox_margin(m: f64, gamma: f64) -> f64 {
    if !m.is_finite() {
        // An overflowed margin (±∞, NaN) has no bracket (and `clamp` panics on a NaN bound):
        // pass it on, so the solver reports a non-finite iterate.
        return m;
    }
    // Start from the smooth approximation in the middle of the bracket.
    let start = m + gamma * sigmoid(-m) / (1.0 + 0.25 * gamma);
    increasing_root(
        |s| {
            let sg = sigmoid(-s);
            (s - m - gamma * sg, 1.0 + gamma * sg * (1.0 - sg))
        },
        m,
        m + gamma,
        start,
    )
}

/// The root of an increasing function on a bracket `[lo, hi]` (`f(lo) ≤ 0 ≤ f(hi)`), given
/// `s ↦ (f(s), f'(s))`: Newton from `start`, safeguarded as in Numerical Recipes' `rtsafe`
/// (§9.4): a bisection of the bracket whenever the Newton point leaves it or the Newton step
/// is more than half the step before last. A sigmoid's flat tails otherwise send plain
/// bracketed Newton back and forth between them while the bracket barely shrinks: paper C's
/// logistic coordinate update stopped after its 100 steps at a margin of −6.2 where the root
/// is −0.75 (λ = 0.07), and the dual objective fell by 10 %. Bisection alone would need about
/// 60 steps, so 200 always suffice.
fn increasing_root(f: impl Fn(f64) -> (f64, f64), mut lo: f64, mut hi: f64, start: f64) -> f64 {
    let mut s = start.clamp(lo, hi);
    let mut dx_old = hi - lo;
    let mut dx = dx_old;
    for _ in 0..200 {
        let (g, dg) = f(s);
        if g == 0.0 {
            return s;
        }
        if g > 0.0 {
            hi = s;
        } else {
            lo = s;
        }
        let newton = s - g / dg;
        let next = if !(newton > lo && newton < hi) || (2.0 * g).abs() > (dx_old * dg).abs() {
            dx_old = dx;
            dx = 0.5 * (hi - lo);
            lo + dx
        } else {
            dx_old = dx;
            dx = g / dg;
            newton
        };
        if (next - s).abs() <= 4.0 * f64::EPSILON * (1.0 + s.abs())
            || hi - lo <= 4.0 * f64::EPSILON * (1.0 + s.abs())
        {
            return next;
        }
        s = next;
    }
    s
}

/// The logistic prox in `b = y a ∈ [0, γ]`: the root of `step·z + γσ(z) = c` (`c = y v`),
/// `b = γσ(z)`. The left side is increasing in z with derivative `step + γσ(z)σ(−z)`, and
/// `γσ ∈ (0, γ)` brackets the root in `[(c − γ)/step, c/step]` ([`increasing_root`]).
fn logistic_prox_b(c: f64, step: f64, gamma: f64) -> f64 {
    // Beyond |z| = 800, σ(z) rounds to 0 or 1.
    const ZMAX: f64 = 800.0;
    let lo = ((c - gamma) / step).max(-ZMAX);
    let hi = (c / step).min(ZMAX);
    if lo >= hi {
        // The bracket lies entirely beyond ±ZMAX, where σ is 0 or 1.
        return if hi <= -ZMAX { 0.0 } else { gamma };
    }
    // Start from the smaller-magnitude guess when it lies in the bracket.
    let guess = (c - 0.5 * gamma) / (step + 0.25 * gamma);
    let start = if guess > lo && guess < hi { guess } else { 0.5 * (lo + hi) };
    let z = increasing_root(
        |z| (step * z + gamma * sigmoid(z) - c, step + gamma * sigmoid(z) * sigmoid(-z)),
        lo,
        hi,
        start,
    );
    (gamma * sigmoid(z)).clamp(0.0, gamma)
}
