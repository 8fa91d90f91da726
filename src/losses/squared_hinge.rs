//! The squared hinge loss `(1 − yt)_+²/2`, labels ±1 (paper C "L2-SVM").

use super::def::{fenchel_young_gap, margin_domain, BoxQuadratic, LossDef, Parameter};
use crate::fmath;

/// `(1 − yt)_+²/2`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SquaredHinge;

impl LossDef for SquaredHinge {
    const DEFAULT: Self = SquaredHinge;
    fn kind(&self) -> &'static str {
        "squared_hinge"
    }
    fn label(&self) -> &'static str {
        "squared hinge"
    }
    fn parameters(&self) -> &'static [Parameter] {
        &[]
    }
    fn parameter_values(&self) -> Vec<f64> {
        Vec::new()
    }
    fn paper_c(&self) -> Option<&'static str> {
        Some("L2-SVM")
    }
    fn is_classification(&self) -> bool {
        true
    }
    fn tube_width(&self) -> f64 {
        0.0
    }
    fn box_quadratic(&self, lambda: f64) -> Option<BoxQuadratic> {
        let inf = f64::INFINITY;
        Some((lambda, (0.0, inf), (-inf, 0.0)))
    }
    fn value(&self, y: f64, t: f64) -> f64 {
        let m = fmath::max(1.0 - y * t, 0.0);
        0.5 * m * m
    }
    fn subgradient(&self, y: f64, t: f64) -> f64 {
        -y * fmath::max(1.0 - y * t, 0.0)
    }
    fn subdifferential(&self, y: f64, t: f64) -> (f64, f64) {
        let g = self.subgradient(y, t);
        (g, g)
    }
    fn conjugate(&self, y: f64, s: f64) -> f64 {
        let sig = y * s;
        if sig <= 0.0 {
            sig + 0.5 * sig * sig
        } else {
            f64::INFINITY
        }
    }
    fn conjugate_domain(&self, y: f64) -> (f64, f64) {
        margin_domain(y, f64::INFINITY)
    }
    #[inline(always)]
    fn neg_resolvent(&self, y: f64, v: f64, alpha: f64, lambda: f64) -> f64 {
        y * fmath::max(alpha - y * v, 0.0) / (1.0 + alpha * lambda)
    }
    fn dual_term_derivatives(&self, _y: f64, _a: f64, _gamma: f64) -> Option<(f64, f64)> {
        None
    }
    fn dual_newton_start(&self, _y: f64, _gamma: f64) -> f64 {
        0.0
    }
    fn resolvent_work(&self) -> f64 {
        4.0
    }
    fn dual_term(&self, y: f64, a: f64, gamma: f64) -> f64 {
        let b = y * a;
        if b >= 0.0 {
            -b + b * b / (2.0 * gamma)
        } else {
            f64::INFINITY
        }
    }
    fn prox_dual(&self, y: f64, v: f64, step: f64, gamma: f64) -> f64 {
        y * fmath::max((y * v + step) / (1.0 + step / gamma), 0.0)
    }
    fn dual_gap_term(&self, y: f64, a: f64, t: f64, gamma: f64) -> f64 {
        fenchel_young_gap(self, y, a, t, gamma)
    }
}
