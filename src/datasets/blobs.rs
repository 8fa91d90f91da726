//! A seeded 2-D classification generator for paper A's margin losses (hinge, logistic;
//! Appendix B.2): two Gaussian blobs with labels ±1.

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::{KpError, Result};
use crate::rng::Rng;
use crate::schema::Field;

/// The distance between the blobs' centres, ≥ 0: the field paper A's schema declares and
/// [`TwoBlobs::validate`] checks.
pub fn separation_field(path: &str, default: f64) -> Field {
    Field::number(path, "separation", default).min(0.0)
}

/// The blobs' standard deviation, > 0.
pub fn spread_field(path: &str, default: f64) -> Field {
    Field::number(path, "spread", default).above(0.0)
}

/// The label-flip probability, in [0, 1/2].
pub fn flip_field(path: &str, default: f64) -> Field {
    Field::number(path, "flip", default).min(0.0).max(0.5)
}

/// Two Gaussian blobs in the plane, centred at `±(separation/2)·e` with `e = (2, 1)/√5`, each
/// with standard deviation `spread`; class +1 around `+e`, −1 around `−e`. Each label is then
/// flipped with probability `flip`. The separating direction passes through the origin, so a
/// linear model without bias (paper A's setting) fits it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TwoBlobs {
    /// Number of points n ≥ 1 (classes alternate +1, −1, +1, …).
    pub n: usize,
    /// Distance between the two centres, ≥ 0.
    pub separation: f64,
    /// Standard deviation of each blob, > 0.
    pub spread: f64,
    /// Probability of flipping a label, in [0, 1/2].
    pub flip: f64,
    /// Seed of the random stream.
    pub seed: u64,
}

impl TwoBlobs {
    /// Check n ≥ 1 (and n ≤ 10⁶), separation ≥ 0, spread > 0, flip ∈ [0, 1/2].
    pub fn validate(&self) -> Result<()> {
        if !crate::data::n_field("n", 1.0).accepts(self.n as f64) {
            return Err(KpError::NTooSmall(self.n));
        }
        if self.n > 1_000_000 {
            return Err(KpError::DataTooLarge {
                cells: self.n.saturating_mul(2),
                limit: 2_000_000,
            });
        }
        crate::budget::active().data("data.n", self.n, 2)?;
        separation_field("separation", 0.0).check(self.separation)?;
        spread_field("spread", 0.0).check(self.spread)?;
        flip_field("flip", 0.0).check(self.flip)?;
        Ok(())
    }

    /// Draw the data set. Stream order per point: two normals, then one uniform for the flip.
    pub fn generate(&self) -> Result<Dataset> {
        self.validate()?;
        let n = self.n;
        let norm = 5f64.sqrt();
        let e = [2.0 / norm, 1.0 / norm];
        let mut rng = Rng::new(self.seed);
        let mut x = DMatrix::<f64>::zeros(n, 2);
        let mut y = DVector::<f64>::zeros(n);
        for i in 0..n {
            let label = if i % 2 == 0 { 1.0 } else { -1.0 };
            for j in 0..2 {
                x[(i, j)] = label * 0.5 * self.separation * e[j] + self.spread * rng.normal();
            }
            let u = rng.uniform();
            y[i] = if u < self.flip { -label } else { label };
        }
        Ok(Dataset { x, y, w_true: None, feature_names: vec!["x1".into(), "x2".into()] })
    }
}
