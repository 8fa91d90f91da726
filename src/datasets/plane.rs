//! Seeded toy data for the decision-boundary pictures of papers C and D: 2-D classification
//! shapes (blobs with a margin knob, moons, circles, XOR) with ±1 labels and label noise, user
//! clicked points, and 1-D regression data (for the RLS / RLA / SVR curves of paper C, Table 1).
//!
//! Trigonometric functions come from `libm`, so a seed gives bit-identical data natively and
//! in wasm.

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::{KpError, Result};
use crate::rng::Rng;
use crate::schema::Field;

/// Largest number of generated points.
pub const MAX_POINTS: usize = 200_000;

/// A 2-D classification shape.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Shape2d {
    /// Two clouds on either side of a line through the origin (normal direction drawn from the
    /// seed). Before label noise every point lies at distance ≥ `margin/2` from that line, so
    /// the data are linearly separable with margin `margin/2` when `margin ≥ 0`; a negative
    /// margin makes the clouds overlap. `spread` (> 0) is the clouds' scale.
    Blobs { margin: f64, spread: f64 },
    /// Two interleaved half circles (radius 1) with Gaussian jitter `noise ≥ 0`.
    Moons { noise: f64 },
    /// A circle of radius `factor ∈ (0, 1)` (label +1) inside one of radius 1 (label −1), with
    /// Gaussian jitter `noise ≥ 0`.
    Circles { noise: f64, factor: f64 },
    /// Uniform points in `[−1, 1]²` labelled `sign(x₁x₂)`, with Gaussian jitter `noise ≥ 0`
    /// added after labelling.
    Xor { noise: f64 },
}

/// A 2-D classification data set to generate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Classification2d {
    pub shape: Shape2d,
    /// Number of points (half of each class, the odd one to +1).
    pub n: usize,
    /// Probability of flipping each label, in [0, 1].
    pub label_noise: f64,
    pub seed: u64,
}

/// The margin of [`Shape2d::Blobs`], within ±10⁴, at `path` with a paper's `default`.
pub fn margin_field(path: &str, default: f64) -> Field {
    Field::number(path, "margin", default).min(-1e4).max(1e4)
}

/// The spread of [`Shape2d::Blobs`], in (0, 10⁴].
pub fn spread_field(path: &str, default: f64) -> Field {
    Field::number(path, "spread", default).above(0.0).max(1e4)
}

/// The jitter of moons, circles and XOR, in [0, 10⁴].
pub fn noise_field(path: &str, default: f64) -> Field {
    Field::number(path, "noise", default).min(0.0).max(1e4)
}

/// The inner radius of [`Shape2d::Circles`], in (0, 1).
pub fn factor_field(path: &str, default: f64) -> Field {
    Field::number(path, "the inner radius", default).above(0.0).below(1.0)
}

/// The number of generated points, ≥ 2 (the largest, [`MAX_POINTS`], is a budget, not a field's).
pub fn n_field(path: &str, default: f64) -> Field {
    Field::integer(path, "n", default).min(2.0)
}

/// The label-flip probability, in [0, 1].
pub fn label_noise_field(path: &str, default: f64) -> Field {
    Field::number(path, "label noise", default).min(0.0).max(1.0)
}

/// The noise σ of [`Regression1d`], in [0, 10⁴].
pub fn regression_noise_field(path: &str, default: f64) -> Field {
    Field::number(path, "noise σ", default).min(0.0).max(1e4)
}

/// The outlier fraction of [`Regression1d`], in [0, 1].
pub fn outliers_field(path: &str, default: f64) -> Field {
    Field::number(path, "outliers", default).min(0.0).max(1.0)
}

/// How a paper's form shows the shape knobs: each one's default, and the step and page control
/// of the margin and the noise (the ranges and labels are the fields' own).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShapeForm {
    /// The blobs' margin.
    pub margin: f64,
    /// The margin control's step.
    pub margin_step: f64,
    /// The margin's page control, if any.
    pub margin_control: Option<&'static str>,
    /// The blobs' spread.
    pub spread: f64,
    /// The jitter of moons, circles and XOR.
    pub noise: f64,
    /// The noise control's step.
    pub noise_step: f64,
    /// The noise's page control, if any.
    pub noise_control: Option<&'static str>,
    /// The circles' inner radius.
    pub factor: f64,
}

/// The shape knobs' fields at `{prefix}.margin`, `.spread`, `.noise`, `.factor` (prefix
/// `data.shape`), each applying when `when` holds and for its shapes (`{prefix}.kind`): the
/// declaration papers C and D share, and the one [`Classification2d::validate`] checks against.
pub fn shape_fields(prefix: &str, when: (&str, &[&str]), form: &ShapeForm) -> Vec<Field> {
    let kind = format!("{prefix}.kind");
    let at = |f: Field, shapes: &[&str]| f.when(when.0, when.1).when(&kind, shapes);
    let with_control = |f: Field, c: Option<&str>| match c {
        Some(c) => f.control(c),
        None => f,
    };
    let margin = margin_field(&format!("{prefix}.margin"), form.margin).step(form.margin_step);
    let noise = noise_field(&format!("{prefix}.noise"), form.noise).step(form.noise_step);
    vec![
        at(with_control(margin, form.margin_control), &["blobs"]),
        at(spread_field(&format!("{prefix}.spread"), form.spread), &["blobs"]),
        at(with_control(noise, form.noise_control), &["moons", "circles", "xor"]),
        at(factor_field(&format!("{prefix}.factor"), form.factor), &["circles"]),
    ]
}

fn check_n(n: usize) -> Result<()> {
    n_field("n", 2.0).check(n as f64)?;
    if n > MAX_POINTS {
        return Err(KpError::Parameter {
            name: "n",
            reason: format!("at most {MAX_POINTS} points (got {n})"),
        });
    }
    Ok(())
}

impl Classification2d {
    /// Check n, the label-noise probability and the shape's knobs against their fields (a
    /// refusal names the knob: `margin`, `noise`).
    pub fn validate(&self) -> Result<()> {
        check_n(self.n)?;
        label_noise_field("label_noise", 0.0).check(self.label_noise)?;
        match self.shape {
            Shape2d::Blobs { margin, spread } => {
                margin_field("margin", 0.0).check(margin)?;
                spread_field("spread", 0.0).check(spread)?;
            }
            Shape2d::Moons { noise } | Shape2d::Xor { noise } => {
                noise_field("noise", 0.0).check(noise)?
            }
            Shape2d::Circles { noise, factor } => {
                noise_field("noise", 0.0).check(noise)?;
                factor_field("factor", 0.0).check(factor)?;
            }
        }
        Ok(())
    }

    /// Draw the data: `x` is n × 2, `y` holds ±1 labels (after label noise).
    pub fn generate(&self) -> Result<Dataset> {
        self.validate()?;
        let n = self.n;
        let mut rng = Rng::new(self.seed);
        let mut x = DMatrix::<f64>::zeros(n, 2);
        let mut y = DVector::<f64>::zeros(n);
        let pi = std::f64::consts::PI;
        // Blobs: unit normal u of the separating line, drawn first.
        let theta = 2.0 * pi * rng.uniform();
        let (u0, u1) = (libm::cos(theta), libm::sin(theta));
        for i in 0..n {
            let label = if i % 2 == 0 { 1.0 } else { -1.0 };
            let (a, b, lab) = match self.shape {
                Shape2d::Blobs { margin, spread } => {
                    // Distance from the line: margin/2 plus a folded normal around `spread`.
                    let along = label * (0.5 * margin + spread * (1.0 + rng.normal()).abs());
                    let across = 1.5 * spread * rng.normal();
                    (along * u0 - across * u1, along * u1 + across * u0, label)
                }
                Shape2d::Moons { noise } => {
                    let t = pi * rng.uniform();
                    let (c, s) = (libm::cos(t), libm::sin(t));
                    let (a, b) = if label > 0.0 { (c, s) } else { (1.0 - c, 0.5 - s) };
                    (a - 0.5 + noise * rng.normal(), b - 0.25 + noise * rng.normal(), label)
                }
                Shape2d::Circles { noise, factor } => {
                    let t = 2.0 * pi * rng.uniform();
                    let r = if label > 0.0 { factor } else { 1.0 };
                    (
                        r * libm::cos(t) + noise * rng.normal(),
                        r * libm::sin(t) + noise * rng.normal(),
                        label,
                    )
                }
                Shape2d::Xor { noise } => {
                    let a = 2.0 * rng.uniform() - 1.0;
                    let b = 2.0 * rng.uniform() - 1.0;
                    let lab = if a * b >= 0.0 { 1.0 } else { -1.0 };
                    (a + noise * rng.normal(), b + noise * rng.normal(), lab)
                }
            };
            x[(i, 0)] = a;
            x[(i, 1)] = b;
            y[i] = lab;
        }
        flip_labels(&mut y, self.label_noise, &mut rng);
        Ok(Dataset { x, y, w_true: None, feature_names: vec!["x1".into(), "x2".into()] })
    }
}

fn flip_labels(y: &mut DVector<f64>, p: f64, rng: &mut Rng) {
    if p > 0.0 {
        for v in y.iter_mut() {
            if rng.uniform() < p {
                *v = -*v;
            }
        }
    }
}

/// A data set from points the user placed: each `(x₁, x₂, label)` with label ±1
/// (click for +1, shift-click for −1).
pub fn from_points(points: &[(f64, f64, f64)]) -> Result<Dataset> {
    if points.is_empty() {
        return Err(KpError::Parameter { name: "points", reason: "add at least one point".into() });
    }
    if points.len() > MAX_POINTS {
        return Err(KpError::Parameter {
            name: "points",
            reason: format!("at most {MAX_POINTS} points (got {})", points.len()),
        });
    }
    let b = crate::budget::active();
    b.count("points", "hand-placed points", points.len() as f64, b.points as f64)?;
    for (i, p) in points.iter().enumerate() {
        crate::budget::coordinate("points", i, p.0)?;
        crate::budget::coordinate("points", i, p.1)?;
    }
    let n = points.len();
    let mut x = DMatrix::<f64>::zeros(n, 2);
    let mut y = DVector::<f64>::zeros(n);
    for (i, &(a, b, l)) in points.iter().enumerate() {
        if !(a.is_finite() && b.is_finite()) {
            return Err(KpError::Parameter {
                name: "points",
                reason: format!("point {i} has a non-finite coordinate"),
            });
        }
        if l != 1.0 && l != -1.0 {
            return Err(KpError::Parameter {
                name: "points",
                reason: format!("point {i} has label {l}; labels are +1 or −1"),
            });
        }
        x[(i, 0)] = a;
        x[(i, 1)] = b;
        y[i] = l;
    }
    Ok(Dataset { x, y, w_true: None, feature_names: vec!["x1".into(), "x2".into()] })
}

/// 1-D regression data: `x` uniform on `[−3, 3]` (sorted), `y = sin(x) + x/4 + σε` with
/// standard normal ε, and a fraction of outliers shifted by ±3 (to show RLA and SVR against RLS).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Regression1d {
    pub n: usize,
    /// Noise standard deviation σ ≥ 0.
    pub noise: f64,
    /// Fraction of outliers, in [0, 1].
    pub outliers: f64,
    pub seed: u64,
}

impl Regression1d {
    /// The noiseless curve `sin(x) + x/4`.
    pub fn truth(x: f64) -> f64 {
        libm::sin(x) + 0.25 * x
    }

    /// Check n, σ ≥ 0 and the outlier fraction in [0, 1].
    pub fn validate(&self) -> Result<()> {
        check_n(self.n)?;
        regression_noise_field("noise", 0.0).check(self.noise)?;
        outliers_field("outliers", 0.0).check(self.outliers)?;
        Ok(())
    }

    /// Draw the data: `x` is n × 1, sorted increasingly.
    pub fn generate(&self) -> Result<Dataset> {
        self.validate()?;
        let n = self.n;
        let mut rng = Rng::new(self.seed);
        let mut xs: Vec<f64> = (0..n).map(|_| 6.0 * rng.uniform() - 3.0).collect();
        xs.sort_by(f64::total_cmp);
        let mut y = DVector::<f64>::zeros(n);
        for i in 0..n {
            y[i] = Self::truth(xs[i]) + self.noise * rng.normal();
            if rng.uniform() < self.outliers {
                y[i] += if rng.uniform() < 0.5 { 3.0 } else { -3.0 };
            }
        }
        Ok(Dataset {
            x: DMatrix::from_column_slice(n, 1, &xs),
            y,
            w_true: None,
            feature_names: vec!["x".into()],
        })
    }
}

/// A regular `nx × ny` grid over `[x_min, x_max] × [y_min, y_max]` as rows of an
/// `(nx·ny) × 2` matrix (row-major in y then x), for the decision-function heatmap.
pub fn grid(
    x_min: f64,
    x_max: f64,
    y_min: f64,
    y_max: f64,
    nx: usize,
    ny: usize,
) -> Result<DMatrix<f64>> {
    crate::budget::view_box("grid", &[x_min, x_max, y_min, y_max])?;
    if !(2..=1000).contains(&nx) || !(2..=1000).contains(&ny) {
        return Err(KpError::Parameter {
            name: "grid",
            reason: format!("between 2 and 1000 cells per side (got {nx} × {ny})"),
        });
    }
    let mut g = DMatrix::<f64>::zeros(nx * ny, 2);
    for j in 0..ny {
        for i in 0..nx {
            let r = j * nx + i;
            g[(r, 0)] = x_min + (x_max - x_min) * i as f64 / (nx - 1) as f64;
            g[(r, 1)] = y_min + (y_max - y_min) * j as f64 / (ny - 1) as f64;
        }
    }
    Ok(g)
}
