//! The hinge loss `(1 − yt)_+`, labels ±1 (paper A; paper C "L1-SVM").

use super::def::{fenchel_young_gap, margin_domain, BoxQuadratic, LossDef, Parameter};
use crate::fmath;

/// `(1 − yt)_+`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hinge;

impl LossDef for Hinge {
    const DEFAULT: Self = Hinge;
    fn kind(&self) -> &'static str {
        "hinge"
    }
    fn label(&self) -> &'static str {
        "hinge"
    }
    fn parameters(&self) -> &'static [Parameter] {
        &[]
    }
    fn parameter_values(&self) -> Vec<f64> {
        Vec::new()
    }
    fn paper_c(&self) -> Option<&'static str> {
        Some("L1-SVM")
    }
    fn is_classification(&self) -> bool {
        true
    }
    fn tube_width(&self) -> f64 {
        0.0
    }
    fn box_quadratic(&self, lambda: f64) -> Option<BoxQuadratic> {
        let r = 1.0 / lambda;
        Some((0.0, (0.0, r), (-r, 0.0)))
    }
    fn value(&self, y: f64, t: f64) -> f64 {
        fmath::max(1.0 - y * t, 0.0)
    }
    fn subgradient(&self, y: f64, t: f64) -> f64 {
        if y * t < 1.0 {
            -y
        } else {
            0.0
        }
    }
    fn subdifferential(&self, y: f64, t: f64) -> (f64, f64) {
        if y * t == 1.0 {
            let (a, b): (f64, f64) = (0.0, -y);
            (a.min(b), a.max(b))
        } else {
            let g = self.subgradient(y, t);
            (g, g)
        }
    }
    fn conjugate(&self, y: f64, s: f64) -> f64 {
        let sig = y * s;
        if (-1.0..=0.0).contains(&sig) {
            sig
        } else {
            f64::INFINITY
        }
    }
    fn conjugate_domain(&self, y: f64) -> (f64, f64) {
        margin_domain(y, 1.0)
    }
    #[inline(always)]
    fn neg_resolvent(&self, y: f64, v: f64, alpha: f64, lambda: f64) -> f64 {
        y * fmath::min(fmath::max(alpha - y * v, 0.0), 1.0 / lambda)
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
        if (0.0..=gamma).contains(&b) {
            -b
        } else {
            f64::INFINITY
        }
    }
    fn prox_dual(&self, y: f64, v: f64, step: f64, gamma: f64) -> f64 {
        y * (y * v + step).clamp(0.0, gamma)
    }
    fn dual_gap_term(&self, y: f64, a: f64, t: f64, gamma: f64) -> f64 {
        fenchel_young_gap(self, y, a, t, gamma)
    }
}
