//! The decision function f = Σ c_i k(x_i, ·) of problem (2) on a grid (the page's map), built in
//! column blocks like the Gram matrix.

use nalgebra::{DMatrix, DVector};

use super::problem::RegularizationProblem;
use crate::error::{KpError, Result};
use crate::kernels::CrossJob;

/// The decision function `f(x) = Σ_i c_i k(x_i, x)` (paper C, eq. 3 with the representer
/// theorem) on a fixed set of points, for the heatmap redrawn after every sweep: the cross
/// kernel matrix is formed once when it is small, else each evaluation uses only the columns
/// with `c_i ≠ 0` (the support vectors), which is where the hinge loss saves work.
#[derive(Debug, Clone)]
pub struct DecisionMap {
    points: DMatrix<f64>,
    cross: Option<DMatrix<f64>>,
}

impl RegularizationProblem {
    /// A [`DecisionMap`] at the rows of `points`; the `m × n` cross kernel is cached when
    /// `m·n ≤ cache_limit`. Needs a problem built by [`Self::new`].
    pub fn decision_map(&self, points: DMatrix<f64>, cache_limit: usize) -> Result<DecisionMap> {
        let Some((x, rk)) = &self.inputs else {
            return Err(KpError::Parameter {
                name: "inputs",
                reason:
                    "this problem was built from a Gram matrix, so it cannot predict at new points"
                        .into(),
            });
        };
        if points.ncols() != x.ncols() {
            return Err(KpError::Parameter {
                name: "points",
                reason: format!(
                    "points have {} coordinates, the inputs {}",
                    points.ncols(),
                    x.ncols()
                ),
            });
        }
        let cross = if points.nrows().saturating_mul(x.nrows()) <= cache_limit {
            Some(rk.cross(&points, x)?)
        } else {
            None
        };
        Ok(DecisionMap { points, cross })
    }

    /// The cross kernel of a [`DecisionMap`] at `points` as a [`CrossJob`] (to spread over
    /// frames); [`DecisionMap::from_job`] turns the finished job into the map.
    pub fn decision_map_job(&self, points: DMatrix<f64>) -> Result<CrossJob> {
        let Some((x, rk)) = &self.inputs else {
            return Err(KpError::Parameter {
                name: "inputs",
                reason:
                    "this problem was built from a Gram matrix, so it cannot predict at new points"
                        .into(),
            });
        };
        CrossJob::new(rk.clone(), points, x.clone())
    }
}

impl DecisionMap {
    /// The map of a finished [`RegularizationProblem::decision_map_job`] (the cross kernel cached).
    pub fn from_job(job: CrossJob) -> Result<Self> {
        let (points, cross) = job.into_parts()?;
        Ok(Self { points, cross: Some(cross) })
    }

    /// The cached cross kernel's entries (column-major, points × inputs), if cached.
    pub fn cross_values(&self) -> Option<&[f64]> {
        self.cross.as_ref().map(|k| k.as_slice())
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points.nrows()
    }
    /// True when there are no points.
    pub fn is_empty(&self) -> bool {
        self.points.nrows() == 0
    }
    /// Whether the cross kernel matrix is cached.
    pub fn is_cached(&self) -> bool {
        self.cross.is_some()
    }
    /// `f(x)` at every point for the coefficients `c` of `problem` (the problem the map was
    /// built from).
    pub fn evaluate(
        &self,
        problem: &RegularizationProblem,
        c: &DVector<f64>,
    ) -> Result<DVector<f64>> {
        if c.len() != problem.n() {
            return Err(KpError::Parameter {
                name: "coefficients",
                reason: format!("expected {} coefficients, got {}", problem.n(), c.len()),
            });
        }
        if let Some(k) = &self.cross {
            if k.ncols() == c.len() {
                return Ok(k * c);
            }
        }
        let Some((x, rk)) = &problem.inputs else {
            return Err(KpError::Parameter {
                name: "inputs",
                reason:
                    "this problem was built from a Gram matrix, so it cannot predict at new points"
                        .into(),
            });
        };
        let support: Vec<usize> = (0..c.len()).filter(|&i| c[i] != 0.0).collect();
        if support.is_empty() {
            return Ok(DVector::zeros(self.points.nrows()));
        }
        let xs = x.select_rows(support.iter());
        let cs = DVector::from_iterator(support.len(), support.iter().map(|&i| c[i]));
        Ok(rk.cross(&self.points, &xs)? * cs)
    }
}
