//! What every loss file shares, apart from the list in `mod.rs`: the [`LossDef`] trait each loss
//! implements, its parameter descriptors, and the helpers several losses use (the sign, a margin
//! loss's conjugate domain, the Fenchel–Young gap). Here so a loss file imports its sibling, not
//! its parent (issue 34: no parent ⇄ child import cycle).

use crate::fmath;

/// Paper C's box-constrained dual of a loss: `(q, box for y ≥ 0, box for y < 0)`
/// ([`Loss::box_quadratic`](super::Loss::box_quadratic)).
pub type BoxQuadratic = (f64, (f64, f64), (f64, f64));

pub use crate::param::Parameter;

pub(crate) const EPS: Parameter = Parameter {
    name: "eps",
    field: "eps",
    path: "loss.eps",
    symbol: "ε",
    doc: "the half-width of the tube where the loss is 0",
    min: 0.0,
    min_exclusive: false,
    integer: false,
    default: 0.1,
};
pub(crate) const RHO: Parameter = Parameter {
    name: "rho",
    field: "rho",
    path: "loss.rho",
    symbol: "ρ",
    doc: "Huber: r²/2 for |r| ≤ ρ, ρ|r| − ρ²/2 beyond",
    min: 0.0,
    min_exclusive: true,
    integer: false,
    default: 1.0,
};
pub(crate) const SMOOTHING: Parameter = Parameter {
    name: "smoothing",
    field: "smoothing",
    path: "loss.smoothing",
    symbol: "μ",
    doc: "the width of the quadratic piece below the margin 1",
    min: 0.0,
    min_exclusive: true,
    integer: false,
    default: 0.5,
};

/// `log(1 + e^x)` without overflow.
pub fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + fmath::ln_1p(fmath::exp(-x))
    } else {
        fmath::ln_1p(fmath::exp(x))
    }
}

/// The sign of `v`, 0 at 0.
pub(super) fn sign0(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// A margin loss's conjugate domain in `s`: `[−b, 0]` for `y ≥ 0`, `[0, b]` for `y < 0`.
pub(super) fn margin_domain(y: f64, b: f64) -> (f64, f64) {
    if y >= 0.0 {
        (-b, 0.0)
    } else {
        (0.0, b)
    }
}

/// The Fenchel–Young gap of one coordinate from the loss's value and dual term,
/// `(γ L(y, t) + g(a) + a t)_+` ([`LossDef::dual_gap_term`] of every loss but the square).
pub(super) fn fenchel_young_gap(l: &impl LossDef, y: f64, a: f64, t: f64, gamma: f64) -> f64 {
    (gamma * l.value(y, t) + l.dual_term(y, a, gamma) + a * t).max(0.0)
}

/// One loss, in its own file: every method is required (no default), so a new loss decides
/// each. Convention: `L(y, t)`, `y` the target or a ±1 label, `t` the prediction.
pub trait LossDef: Sized {
    /// The loss with its default parameters (an entry of [`Loss::ALL`](super::Loss::ALL)).
    const DEFAULT: Self;
    /// The spec's `kind`.
    fn kind(&self) -> &'static str;
    /// The name a page shows.
    fn label(&self) -> &'static str;
    /// Its parameters (name, symbol, range, default).
    fn parameters(&self) -> &'static [Parameter];
    /// Their values, in the order of [`Self::parameters`].
    fn parameter_values(&self) -> Vec<f64>;
    /// Its name in paper C's Table 1, if it has one.
    fn paper_c(&self) -> Option<&'static str>;
    /// A margin loss: the targets must be ±1 labels.
    fn is_classification(&self) -> bool;
    /// The half-width of the band around the target where the loss is 0 (a plot's tube).
    fn tube_width(&self) -> f64;
    /// Paper C's dual of problem (2) over c as a box-constrained quadratic, read off
    /// `L*(y, −λc)/λ`, when it is one ([`Loss::box_quadratic`](super::Loss::box_quadratic)).
    fn box_quadratic(&self, lambda: f64) -> Option<BoxQuadratic>;
    /// `L(y, t)`.
    fn value(&self, y: f64, t: f64) -> f64;
    /// A subgradient of `t ↦ L(y, t)` (at a kink, the one of least magnitude).
    fn subgradient(&self, y: f64, t: f64) -> f64;
    /// The subdifferential `∂_t L(y, t)` as an interval `[lo, hi]`.
    fn subdifferential(&self, y: f64, t: f64) -> (f64, f64);
    /// The Fenchel conjugate `L*(y, s)`; `+∞` outside its domain.
    fn conjugate(&self, y: f64, s: f64) -> f64;
    /// The domain `[lo, hi]` of `s ↦ L*(y, s)`.
    fn conjugate_domain(&self, y: f64) -> (f64, f64);
    /// Paper C's `−J_α(v)` for one component ([`Loss::neg_resolvent`](super::Loss::neg_resolvent)).
    fn neg_resolvent(&self, y: f64, v: f64, alpha: f64, lambda: f64) -> f64;
    /// `(g'(a), g''(a))` of paper A's dual term when it is twice differentiable on its domain.
    fn dual_term_derivatives(&self, y: f64, a: f64, gamma: f64) -> Option<(f64, f64)>;
    /// Paper A's dual Newton method's starting coordinate, inside the dual term's domain.
    fn dual_newton_start(&self, y: f64, gamma: f64) -> f64;
    /// The work of one [`Self::neg_resolvent`] in the budget's units (multiply-adds).
    fn resolvent_work(&self) -> f64;
    /// Paper A's dual term `g(a) = γ L*(y, −a/γ)` (eq. 24, Appendix B.2); `+∞` outside.
    fn dual_term(&self, y: f64, a: f64, gamma: f64) -> f64;
    /// The prox of the dual term (Algorithm 3.3, eq. 28, coordinatewise).
    fn prox_dual(&self, y: f64, v: f64, step: f64, gamma: f64) -> f64;
    /// The Fenchel–Young gap of one coordinate, `γ L(y, t) + g(a) + a t ≥ 0`.
    fn dual_gap_term(&self, y: f64, a: f64, t: f64, gamma: f64) -> f64;
}
