//! The smoothed hinge with smoothing μ > 0 (ours, not in papers A or C: Shalev-Shwartz &
//! Zhang's smoothed hinge), in the margin `m = yt`: 0 for `m ≥ 1`, `(1 − m)²/(2μ)` for
//! `1 − μ < m < 1`, `1 − m − μ/2` for `m ≤ 1 − μ`; labels ±1. Its conjugate `σ + μσ²/2` on
//! `σ = ys ∈ [−1, 0]` makes both papers' dual steps closed forms.

use super::def::{fenchel_young_gap, margin_domain, BoxQuadratic, LossDef, Parameter, SMOOTHING};
use crate::fmath;

/// The smoothed hinge with smoothing μ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SmoothedHinge {
    /// The width μ > 0 of the quadratic piece below the margin 1.
    pub smoothing: f64,
}

impl LossDef for SmoothedHinge {
    const DEFAULT: Self = SmoothedHinge { smoothing: SMOOTHING.default };
    fn kind(&self) -> &'static str {
        "smoothed_hinge"
    }
    fn label(&self) -> &'static str {
        "smoothed hinge"
    }
    fn parameters(&self) -> &'static [Parameter] {
        &[SMOOTHING]
    }
    fn parameter_values(&self) -> Vec<f64> {
        vec![self.smoothing]
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
    fn box_quadratic(&self, lambda: f64) -> Option<BoxQuadratic> {
        let r = 1.0 / lambda;
        Some((self.smoothing * lambda, (0.0, r), (-r, 0.0)))
    }
    fn value(&self, y: f64, t: f64) -> f64 {
        let mu = self.smoothing;
        let u = 1.0 - y * t;
        if u <= 0.0 {
            0.0
        } else if u < mu {
            u * u / (2.0 * mu)
        } else {
            u - 0.5 * mu
        }
    }
    fn subgradient(&self, y: f64, t: f64) -> f64 {
        -y * fmath::min(fmath::max(1.0 - y * t, 0.0) / self.smoothing, 1.0)
    }
    fn subdifferential(&self, y: f64, t: f64) -> (f64, f64) {
        let g = self.subgradient(y, t);
        (g, g)
    }
    fn conjugate(&self, y: f64, s: f64) -> f64 {
        // sup_m σm − L(m): σ + μσ²/2 on σ = ys ∈ [−1, 0]
        let sig = y * s;
        if (-1.0..=0.0).contains(&sig) {
            sig + 0.5 * self.smoothing * sig * sig
        } else {
            f64::INFINITY
        }
    }
    fn conjugate_domain(&self, y: f64) -> (f64, f64) {
        margin_domain(y, 1.0)
    }
    #[inline(always)]
    fn neg_resolvent(&self, y: f64, v: f64, alpha: f64, lambda: f64) -> f64 {
        y * fmath::min(
            fmath::max(alpha - y * v, 0.0) / (1.0 + alpha * self.smoothing * lambda),
            1.0 / lambda,
        )
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
            -b + self.smoothing * b * b / (2.0 * gamma)
        } else {
            f64::INFINITY
        }
    }
    fn prox_dual(&self, y: f64, v: f64, step: f64, gamma: f64) -> f64 {
        y * ((y * v + step) / (1.0 + step * self.smoothing / gamma)).clamp(0.0, gamma)
    }
    fn dual_gap_term(&self, y: f64, a: f64, t: f64, gamma: f64) -> f64 {
        fenchel_young_gap(self, y, a, t, gamma)
    }
}
