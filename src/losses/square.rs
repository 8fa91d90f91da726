//! The square loss `(t − y)²/2` (paper A eq. 7; paper C "RLS").

use super::def::{BoxQuadratic, LossDef, Parameter};

/// `(t − y)²/2`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Square;

impl LossDef for Square {
    const DEFAULT: Self = Square;
    fn kind(&self) -> &'static str {
        "square"
    }
    fn label(&self) -> &'static str {
        "square"
    }
    fn parameters(&self) -> &'static [Parameter] {
        &[]
    }
    fn parameter_values(&self) -> Vec<f64> {
        Vec::new()
    }
    fn paper_c(&self) -> Option<&'static str> {
        Some("RLS")
    }
    fn is_classification(&self) -> bool {
        false
    }
    fn tube_width(&self) -> f64 {
        0.0
    }
    fn box_quadratic(&self, lambda: f64) -> Option<BoxQuadratic> {
        let inf = f64::INFINITY;
        Some((lambda, (-inf, inf), (-inf, inf)))
    }
    fn value(&self, y: f64, t: f64) -> f64 {
        0.5 * (t - y) * (t - y)
    }
    fn subgradient(&self, y: f64, t: f64) -> f64 {
        t - y
    }
    fn subdifferential(&self, y: f64, t: f64) -> (f64, f64) {
        let g = self.subgradient(y, t);
        (g, g)
    }
    fn conjugate(&self, y: f64, s: f64) -> f64 {
        0.5 * s * s + y * s
    }
    fn conjugate_domain(&self, _y: f64) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
    #[inline(always)]
    fn neg_resolvent(&self, y: f64, v: f64, alpha: f64, lambda: f64) -> f64 {
        let r = alpha * y - v;
        r / (1.0 + alpha * lambda)
    }
    fn dual_term_derivatives(&self, y: f64, a: f64, gamma: f64) -> Option<(f64, f64)> {
        Some((a / gamma - y, 1.0 / gamma))
    }
    fn dual_newton_start(&self, _y: f64, _gamma: f64) -> f64 {
        0.0
    }
    fn resolvent_work(&self) -> f64 {
        4.0
    }
    fn dual_term(&self, y: f64, a: f64, gamma: f64) -> f64 {
        a * a / (2.0 * gamma) - y * a
    }
    fn prox_dual(&self, y: f64, v: f64, step: f64, gamma: f64) -> f64 {
        (v + step * y) / (1.0 + step / gamma)
    }
    fn dual_gap_term(&self, y: f64, a: f64, t: f64, gamma: f64) -> f64 {
        let r = t - y + a / gamma;
        0.5 * gamma * r * r
    }
}
