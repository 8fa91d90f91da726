//! The Huber loss with threshold ρ > 0: `r²/2` for `|r| ≤ ρ`, `ρ|r| − ρ²/2` beyond, `r = t − y`.

use super::def::{fenchel_young_gap, sign0, BoxQuadratic, LossDef, Parameter, RHO};
use crate::fmath;

/// Huber with threshold ρ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Huber {
    /// The threshold ρ > 0 between the quadratic and the linear piece.
    pub rho: f64,
}

impl LossDef for Huber {
    const DEFAULT: Self = Huber { rho: RHO.default };
    fn kind(&self) -> &'static str {
        "huber"
    }
    fn label(&self) -> &'static str {
        "Huber"
    }
    fn parameters(&self) -> &'static [Parameter] {
        &[RHO]
    }
    fn parameter_values(&self) -> Vec<f64> {
        vec![self.rho]
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
    fn box_quadratic(&self, lambda: f64) -> Option<BoxQuadratic> {
        let b = self.rho / lambda;
        Some((lambda, (-b, b), (-b, b)))
    }
    fn value(&self, y: f64, t: f64) -> f64 {
        let rho = self.rho;
        let r = (t - y).abs();
        if r <= rho {
            0.5 * r * r
        } else {
            rho * r - 0.5 * rho * rho
        }
    }
    fn subgradient(&self, y: f64, t: f64) -> f64 {
        (t - y).clamp(-self.rho, self.rho)
    }
    fn subdifferential(&self, y: f64, t: f64) -> (f64, f64) {
        let g = self.subgradient(y, t);
        (g, g)
    }
    fn conjugate(&self, y: f64, s: f64) -> f64 {
        if s.abs() <= self.rho {
            y * s + 0.5 * s * s
        } else {
            f64::INFINITY
        }
    }
    fn conjugate_domain(&self, _y: f64) -> (f64, f64) {
        (-self.rho, self.rho)
    }
    #[inline(always)]
    fn neg_resolvent(&self, y: f64, v: f64, alpha: f64, lambda: f64) -> f64 {
        let r = alpha * y - v;
        sign0(r) * fmath::min(r.abs() / (1.0 + alpha * lambda), self.rho / lambda)
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
        if a.abs() <= self.rho * gamma {
            a * a / (2.0 * gamma) - y * a
        } else {
            f64::INFINITY
        }
    }
    fn prox_dual(&self, y: f64, v: f64, step: f64, gamma: f64) -> f64 {
        let c = self.rho * gamma;
        ((v + step * y) / (1.0 + step / gamma)).clamp(-c, c)
    }
    fn dual_gap_term(&self, y: f64, a: f64, t: f64, gamma: f64) -> f64 {
        fenchel_young_gap(self, y, a, t, gamma)
    }
}
