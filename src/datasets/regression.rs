//! Data generators for paper B (Audiffren, Kadri, M-RLSR): the synthetic regression set of
//! Section 5.3 / Appendix E and a 1-D regression set whose fitted curve can be drawn.
//!
//! Both are seeded with [`crate::rng::Rng`] and use the pure-Rust `libm` functions, so the same
//! seed gives bit-identical data natively and in wasm.

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::data::{sigma_field, Dataset, MAX_CELLS};
use crate::error::{KpError, Result};
use crate::rng::Rng;

/// Paper B's number of samples, ≥ 2: the field its schema declares and the generators check.
pub fn n_field(path: &str, default: f64) -> crate::schema::Field {
    crate::schema::Field::integer(path, "n", default).min(2.0)
}

fn check_n_sigma(n: usize, d: usize, sigma: f64) -> Result<()> {
    if !n_field("n", 2.0).accepts(n as f64) {
        return Err(KpError::Parameter {
            name: "n",
            reason: format!("a regression set needs at least 2 samples (got {n})"),
        });
    }
    let cells = n.saturating_mul(d);
    if cells > MAX_CELLS {
        return Err(KpError::DataTooLarge { cells, limit: MAX_CELLS });
    }
    crate::budget::active().data("n", n, d)?;
    if !sigma_field("sigma", 0.0).accepts(sigma) {
        return Err(KpError::SigmaInvalid(sigma));
    }
    Ok(())
}

/// Paper B's synthetic set (Section 5.3, after Tsang et al. [19]; "Friedman #1"):
/// `x ~ U[0,1]^10`, `y = 10 sin(πx₁x₂) + 20(x₃ − 0.5)² + 10x₄ + 5x₅ + σ·N(0,1)`.
/// The paper uses n = 2000 and σ = 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Friedman1 {
    /// Number of samples, n ≥ 2.
    pub n: usize,
    /// Noise standard deviation σ ≥ 0 (the paper: 1).
    pub sigma: f64,
    /// Seed of the [`Rng`] stream.
    pub seed: u64,
}

impl Friedman1 {
    /// Number of input features (x₆..x₁₀ are irrelevant, as in the paper).
    pub const D: usize = 10;

    /// The paper's setting: n = 2000, σ = 1.
    pub fn paper(seed: u64) -> Self {
        Self { n: 2000, sigma: 1.0, seed }
    }

    /// The noise-free regression function of Section 5.3.
    pub fn target(x: &[f64]) -> f64 {
        let g = |j: usize| x.get(j).copied().unwrap_or(0.0);
        10.0 * libm::sin(std::f64::consts::PI * g(0) * g(1))
            + 20.0 * (g(2) - 0.5) * (g(2) - 0.5)
            + 10.0 * g(3)
            + 5.0 * g(4)
    }

    /// Check n ≥ 2 (and within [`MAX_CELLS`]) and σ ≥ 0 finite.
    pub fn validate(&self) -> Result<()> {
        check_n_sigma(self.n, Self::D, self.sigma)
    }

    /// Draw the data: `x` row by row from the seeded stream, then the n noise values.
    pub fn generate(&self) -> Result<Dataset> {
        self.validate()?;
        let (n, d) = (self.n, Self::D);
        let mut rng = Rng::new(self.seed);
        let mut x = DMatrix::<f64>::zeros(n, d);
        for i in 0..n {
            for j in 0..d {
                x[(i, j)] = rng.uniform();
            }
        }
        let mut y = DVector::<f64>::zeros(n);
        let mut row = [0.0; 10];
        for i in 0..n {
            for (j, r) in row.iter_mut().enumerate() {
                *r = x[(i, j)];
            }
            y[i] = Self::target(&row) + self.sigma * rng.normal();
        }
        Ok(Dataset {
            x,
            y,
            w_true: None,
            feature_names: (1..=d).map(|j| format!("x{j}")).collect(),
        })
    }
}

/// A 1-D regression set for drawing fitted curves: `x ~ U[0,1]`, `y = sin(2πx) + σ·N(0,1)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sine1d {
    /// Number of samples, n ≥ 2.
    pub n: usize,
    /// Noise standard deviation σ ≥ 0.
    pub sigma: f64,
    /// Seed of the [`Rng`] stream.
    pub seed: u64,
}

impl Sine1d {
    /// The noise-free curve `sin(2πx)`.
    pub fn target(x: f64) -> f64 {
        libm::sin(2.0 * std::f64::consts::PI * x)
    }

    /// Check n ≥ 2 and σ ≥ 0 finite.
    pub fn validate(&self) -> Result<()> {
        check_n_sigma(self.n, 1, self.sigma)
    }

    /// Draw the data: the n inputs from the seeded stream, then the n noise values.
    pub fn generate(&self) -> Result<Dataset> {
        self.validate()?;
        let n = self.n;
        let mut rng = Rng::new(self.seed);
        let x = DMatrix::<f64>::from_fn(n, 1, |_, _| rng.uniform());
        let y =
            DVector::<f64>::from_fn(n, |i, _| Self::target(x[(i, 0)]) + self.sigma * rng.normal());
        Ok(Dataset { x, y, w_true: None, feature_names: vec!["x".to_string()] })
    }
}

/// `count` evenly spaced points on `[lo, hi]` as an `count × 1` input matrix, for drawing the
/// fitted curve of a 1-D model (count ≥ 2, lo < hi finite).
pub fn curve_grid(lo: f64, hi: f64, count: usize) -> Result<DMatrix<f64>> {
    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
        return Err(KpError::Parameter {
            name: "curve range",
            reason: format!("need finite lo < hi (got {lo}, {hi})"),
        });
    }
    if !(2..=100_000).contains(&count) {
        return Err(KpError::Parameter {
            name: "curve points",
            reason: format!("must lie in 2..=100000 (got {count})"),
        });
    }
    let step = (hi - lo) / (count - 1) as f64;
    Ok(DMatrix::from_fn(count, 1, |i, _| lo + step * i as f64))
}
