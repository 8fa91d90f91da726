//! The ε-insensitive loss `(|t − y| − ε)_+`, ε ≥ 0 (paper A Appendix A.2; paper C "SVR").

use super::def::{fenchel_young_gap, sign0, BoxQuadratic, LossDef, Parameter, EPS};
use crate::fmath;

/// `(|t − y| − ε)_+`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpsInsensitive {
    /// The half-width ε ≥ 0 of the tube where the loss is 0.
    pub eps: f64,
}

impl LossDef for EpsInsensitive {
    const DEFAULT: Self = EpsInsensitive { eps: EPS.default };
    fn kind(&self) -> &'static str {
        "eps_insensitive"
    }
    fn label(&self) -> &'static str {
        "ε-insensitive"
    }
    fn parameters(&self) -> &'static [Parameter] {
        &[EPS]
    }
    fn parameter_values(&self) -> Vec<f64> {
        vec![self.eps]
    }
    fn paper_c(&self) -> Option<&'static str> {
        Some("SVR")
    }
    fn is_classification(&self) -> bool {
        false
    }
    fn tube_width(&self) -> f64 {
        self.eps
    }
    /// A box-constrained quadratic only at ε = 0 (the absolute loss); for ε > 0 the dual has an
    /// `ε|c_i|` term.
    fn box_quadratic(&self, lambda: f64) -> Option<BoxQuadratic> {
        let r = 1.0 / lambda;
        (self.eps == 0.0).then_some((0.0, (-r, r), (-r, r)))
    }
    fn value(&self, y: f64, t: f64) -> f64 {
        fmath::max((t - y).abs() - self.eps, 0.0)
    }
    fn subgradient(&self, y: f64, t: f64) -> f64 {
        let r = t - y;
        if r.abs() > self.eps {
            r.signum()
        } else {
            0.0
        }
    }
    fn subdifferential(&self, y: f64, t: f64) -> (f64, f64) {
        let eps = self.eps;
        let r = t - y;
        if r.abs() < eps {
            (0.0, 0.0)
        } else if r == eps {
            if eps == 0.0 {
                (-1.0, 1.0)
            } else {
                (0.0, 1.0)
            }
        } else if r == -eps {
            (-1.0, 0.0)
        } else {
            let g = r.signum();
            (g, g)
        }
    }
    fn conjugate(&self, y: f64, s: f64) -> f64 {
        if s.abs() <= 1.0 {
            y * s + self.eps * s.abs()
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
        sign0(r) * fmath::min(fmath::max(r.abs() - alpha * self.eps, 0.0), 1.0 / lambda)
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
            self.eps * a.abs() - y * a
        } else {
            f64::INFINITY
        }
    }
    fn prox_dual(&self, y: f64, v: f64, step: f64, gamma: f64) -> f64 {
        let u = v + step * y;
        let thr = step * self.eps;
        let s = if u > thr {
            u - thr
        } else if u < -thr {
            u + thr
        } else {
            0.0
        };
        s.clamp(-gamma, gamma)
    }
    fn dual_gap_term(&self, y: f64, a: f64, t: f64, gamma: f64) -> f64 {
        fenchel_young_gap(self, y, a, t, gamma)
    }
}
