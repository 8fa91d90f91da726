//! The absolute loss `|t − y|` (paper C "RLA").

use super::def::{fenchel_young_gap, sign0, BoxQuadratic, LossDef, Parameter};
use crate::fmath;

/// `|t − y|`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Absolute;

impl LossDef for Absolute {
    const DEFAULT: Self = Absolute;
    fn kind(&self) -> &'static str {
        "absolute"
    }
    fn label(&self) -> &'static str {
        "absolute"
    }
    fn parameters(&self) -> &'static [Parameter] {
        &[]
    }
    fn parameter_values(&self) -> Vec<f64> {
        Vec::new()
    }
    fn paper_c(&self) -> Option<&'static str> {
        Some("RLA")
    }
    fn is_classification(&self) -> bool {
        false
    }
    fn tube_width(&self) -> f64 {
        0.0
    }
    fn box_quadratic(&self, lambda: f64) -> Option<BoxQuadratic> {
        let r = 1.0 / lambda;
        Some((0.0, (-r, r), (-r, r)))
    }
    fn value(&self, y: f64, t: f64) -> f64 {
        (t - y).abs()
    }
    fn subgradient(&self, y: f64, t: f64) -> f64 {
        sign0(t - y)
    }
    fn subdifferential(&self, y: f64, t: f64) -> (f64, f64) {
        if t == y {
            (-1.0, 1.0)
        } else {
            let g = self.subgradient(y, t);
            (g, g)
        }
    }
    fn conjugate(&self, y: f64, s: f64) -> f64 {
        if s.abs() <= 1.0 {
            y * s
        } else {
            f64::INFINITY
        }
    }
    fn conjugate_domain(&self, _y: f64) -> (f64, f64) {
        (-1.0, 1.0)
    }
    #[inline(always)]
    fn neg_resolvent(&self, y: f64, v: f64, alpha: f64, lambda: f64) -> f64 {
        let r = alpha * y - v;
        sign0(r) * fmath::min(r.abs(), 1.0 / lambda)
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
        if a.abs() <= gamma {
            -y * a
        } else {
            f64::INFINITY
        }
    }
    fn prox_dual(&self, y: f64, v: f64, step: f64, gamma: f64) -> f64 {
        (v + step * y).clamp(-gamma, gamma)
    }
    fn dual_gap_term(&self, y: f64, a: f64, t: f64, gamma: f64) -> f64 {
        fenchel_young_gap(self, y, a, t, gamma)
    }
}
