//! A test-only loss (issue 34: "a new loss lands as one file and one list line"): the weighted
//! square loss `L(y, t) = w·(t − y)²/2`, w > 0. It is this file and the `#[cfg(test)]` line of
//! `catalogue!` in losses/mod.rs; losses/catalogue_tests.rs reads it through the spec parser,
//! the exported catalogue and paper A's and paper C's schemas, and runs paper A's dual solvers
//! and paper C's solvers with it, each checked against a closed form written out there.
//!
//! Every formula here is the square loss's with the weight carried through:
//! `L*(y, s) = ys + s²/(2w)` on all of ℝ; paper C's `−J_α(v) = w(αy − v)/(w + αλ)` (from
//! `−λc = w((v + c)/α − y)`); paper A's dual term `g(a) = γL*(y, −a/γ) = a²/(2wγ) − ya`.

use super::def::{BoxQuadratic, LossDef, Parameter};

/// `w·(t − y)²/2`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TestWeightedSquare {
    /// The weight w > 0.
    pub w: f64,
}

const W: Parameter = Parameter {
    name: "w",
    field: "test-w",
    path: "loss.w",
    symbol: "w",
    doc: "the weight of the square",
    min: 0.0,
    min_exclusive: true,
    integer: false,
    default: 2.0,
};

impl LossDef for TestWeightedSquare {
    const DEFAULT: Self = TestWeightedSquare { w: W.default };
    fn kind(&self) -> &'static str {
        "test_weighted_square"
    }
    fn label(&self) -> &'static str {
        "weighted square (test)"
    }
    fn parameters(&self) -> &'static [Parameter] {
        &[W]
    }
    fn parameter_values(&self) -> Vec<f64> {
        vec![self.w]
    }
    fn paper_c(&self) -> Option<&'static str> {
        None
    }
    fn is_classification(&self) -> bool {
        false
    }
    fn tube_width(&self) -> f64 {
        0.0
    }
    /// `L*(y, −λc)/λ = λc²/(2w) − yc`: `q = λ/w`, no box.
    fn box_quadratic(&self, lambda: f64) -> Option<BoxQuadratic> {
        let inf = f64::INFINITY;
        Some((lambda / self.w, (-inf, inf), (-inf, inf)))
    }
    fn value(&self, y: f64, t: f64) -> f64 {
        0.5 * self.w * (t - y) * (t - y)
    }
    fn subgradient(&self, y: f64, t: f64) -> f64 {
        self.w * (t - y)
    }
    fn subdifferential(&self, y: f64, t: f64) -> (f64, f64) {
        let g = self.subgradient(y, t);
        (g, g)
    }
    fn conjugate(&self, y: f64, s: f64) -> f64 {
        y * s + s * s / (2.0 * self.w)
    }
    fn conjugate_domain(&self, _y: f64) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
    fn neg_resolvent(&self, y: f64, v: f64, alpha: f64, lambda: f64) -> f64 {
        self.w * (alpha * y - v) / (self.w + alpha * lambda)
    }
    fn dual_term_derivatives(&self, y: f64, a: f64, gamma: f64) -> Option<(f64, f64)> {
        let wg = self.w * gamma;
        Some((a / wg - y, 1.0 / wg))
    }
    fn dual_newton_start(&self, _y: f64, _gamma: f64) -> f64 {
        0.0
    }
    fn resolvent_work(&self) -> f64 {
        5.0
    }
    fn dual_term(&self, y: f64, a: f64, gamma: f64) -> f64 {
        a * a / (2.0 * self.w * gamma) - y * a
    }
    /// `argmin_a step·g(a) + (a − v)²/2 = (v + step·y)/(1 + step/(wγ))`.
    fn prox_dual(&self, y: f64, v: f64, step: f64, gamma: f64) -> f64 {
        (v + step * y) / (1.0 + step / (self.w * gamma))
    }
    /// `γL(y, t) + g(a) + at = (wγ/2)(t − y + a/(wγ))²`.
    fn dual_gap_term(&self, y: f64, a: f64, t: f64, gamma: f64) -> f64 {
        let wg = self.w * gamma;
        let r = t - y + a / wg;
        0.5 * wg * r * r
    }
}
