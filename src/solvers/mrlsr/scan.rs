//! F(C) of eq. 6 over C: the range that holds every positive root, the roots themselves (m ≤ 1:
//! the stationary points, Section 4), and F sampled for the page's plot.

use super::model::*;
use crate::fmath;
use serde::Serialize;

use super::root::*;
use crate::error::{KpError, Result};

impl MrlsrModel {
    /// A range `[C_lo, C_hi]` (log scale) that holds every positive root of F and the turn of
    /// the curve, for plotting.
    pub fn auto_c_range(&self, m: f64, lambda: f64) -> Result<(f64, f64)> {
        check_m(m)?;
        check_lambda(lambda, "λ")?;
        let (a, b) = self.scan_range(m, lambda);
        Ok((fmath::exp(a), fmath::exp(b)))
    }

    /// Range in t = ln C: the spectrum's transitions padded by 8, extended until φ is positive at
    /// the left end and (m < 1) at the right end, and to hold the root when m > 1.
    fn scan_range(&self, m: f64, lambda: f64) -> (f64, f64) {
        let lmn = lambda * m * self.n() as f64;
        let mut a = fmath::ln(2.0 * self.d_min_active / lmn) - 8.0;
        let mut b = fmath::ln(2.0 * self.d_max / lmn) + 8.0;
        for _ in 0..100 {
            let p = self.phi(m, lambda, a).0;
            if p > 0.0 || a < -700.0 {
                break;
            }
            a -= 2.0 * p.abs() + 1.0;
        }
        let slope = if m < 1.0 { 1.0 - m } else { 1.0 };
        for _ in 0..100 {
            let p = self.phi(m, lambda, b).0;
            if (m > 1.0 && p < 0.0) || (m < 1.0 && p > 0.0) || b > 700.0 {
                break;
            }
            if m == 1.0 {
                // φ decreases towards ln(λn/√S4); a root lies further right only if that is < 0.
                if p < 0.0 || (lambda * self.n() as f64) >= self.s4.sqrt() {
                    break;
                }
            }
            b += 2.0 * p.abs() / slope + 1.0;
        }
        let a = if a.is_finite() { a.clamp(-T_LIMIT, T_LIMIT - 1.0) } else { -T_LIMIT };
        let b = if b.is_finite() { b.clamp(a + 1.0, T_LIMIT) } else { T_LIMIT };
        (a, b)
    }

    /// Every positive root of F found by scanning φ on a fine log grid over [`Self::auto_c_range`]
    /// and refining each sign change by the safeguarded Newton solve; returns (C, iterations) by
    /// increasing C. For m > 1 there is exactly one; for m = 1 zero or one; for m < 1 zero or two
    /// (two roots closer than the grid step, ≈ 0.05 in ln C, would be missed).
    pub fn positive_roots(&self, m: f64, lambda: f64) -> Result<Vec<(f64, usize)>> {
        check_m(m)?;
        check_lambda(lambda, "λ")?;
        let mut roots = Vec::new();
        for start in self.scan_starts(m, lambda) {
            match RootSolve::at(self, m, lambda, start) {
                None => {
                    if let RootStart::Exact(t) = start {
                        roots.push((fmath::exp(t), 0));
                    }
                }
                Some(solve) => {
                    let (tr, it, _) = solve_root(solve);
                    roots.push((fmath::exp(tr), it));
                }
            }
        }
        if roots.iter().any(|(c, _)| !(c.is_finite() && *c > 0.0)) {
            return Err(KpError::NonFinite("a root of F is out of floating-point range".into()));
        }
        Ok(roots)
    }

    /// The scan of [`Self::positive_roots`]: φ on a fine log grid over [`Self::auto_c_range`],
    /// each sign change a bracket of one grid step (started at its middle), a grid point where
    /// φ is exactly 0 a root; by increasing C.
    pub(super) fn scan_starts(&self, m: f64, lambda: f64) -> Vec<RootStart> {
        let (a, b) = self.scan_range(m, lambda);
        let count = (((b - a) / 0.05).ceil() as usize).clamp(200, 20_000);
        let step = (b - a) / count as f64;
        let mut starts = Vec::new();
        let mut t_prev = a;
        let mut p_prev = self.phi(m, lambda, a).0;
        for k in 1..=count {
            let t = a + step * k as f64;
            let p = self.phi(m, lambda, t).0;
            if p == 0.0 {
                starts.push(RootStart::Exact(t));
            } else if p_prev != 0.0 && (p > 0.0) != (p_prev > 0.0) {
                starts.push(RootStart::Bracket { lo: t_prev, hi: t, start: 0.5 * (t_prev + t) });
            }
            t_prev = t;
            p_prev = p;
        }
        starts
    }

    /// Samples of F for plotting: `count` values of C log-spaced on `[c_lo, c_hi]`, with F(C)
    /// (eq. 6) and the log-scale residual φ(ln C); plus the positive roots in that range.
    pub fn sample_f(
        &self,
        m: f64,
        lambda: f64,
        c_lo: f64,
        c_hi: f64,
        count: usize,
    ) -> Result<FSamples> {
        check_m(m)?;
        check_lambda(lambda, "λ")?;
        if !(c_lo.is_finite() && c_hi.is_finite() && c_lo > 0.0 && c_lo < c_hi) {
            return Err(KpError::Parameter {
                name: "C range",
                reason: format!("need 0 < C_lo < C_hi finite (got {c_lo}, {c_hi})"),
            });
        }
        if !(2..=100_000).contains(&count) {
            return Err(KpError::Parameter {
                name: "samples",
                reason: format!("must lie in 2..=100000 (got {count})"),
            });
        }
        let (a, b) = (fmath::ln(c_lo), fmath::ln(c_hi));
        let mut c = Vec::with_capacity(count);
        let mut f = Vec::with_capacity(count);
        let mut phi = Vec::with_capacity(count);
        for k in 0..count {
            let t = a + (b - a) * k as f64 / (count - 1) as f64;
            let ck = fmath::exp(t);
            c.push(ck);
            f.push(self.f_of_c(m, lambda, ck));
            phi.push(self.phi(m, lambda, t).0);
        }
        let roots = self
            .positive_roots(m, lambda)?
            .into_iter()
            .map(|(r, _)| r)
            .filter(|r| *r >= c_lo && *r <= c_hi)
            .collect();
        Ok(FSamples { c, f, phi, roots })
    }
}
/// F sampled on a log grid of C (for plotting F and its roots).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FSamples {
    /// The sampled C values (log-spaced).
    pub c: Vec<f64>,
    /// F(C), eq. (6).
    pub f: Vec<f64>,
    /// φ(ln C) = ln((Σ…)^(m/2−1)) − ln C: same sign as F, readable over many decades.
    pub phi: Vec<f64>,
    /// Positive roots of F inside the range.
    pub roots: Vec<f64>,
}
