//! Uniform stability against n (§4 and Assumption 1; lesson B10 and B11): the largest change
//! when one point is removed, on samples of n/8, n/4, n/2 and n points from the spec's generator
//! (its seed), every point removed in turn, and the least-squares slope of its logarithm against
//! ln n. Computed on the engine's own model (K's eigendecomposition, Theorem 1 and kernel ridge
//! through it), one removal per unit of a [`Task`] so that a page slices it over frames; the
//! lesson's claims check the same scans with closed forms built apart (src/lesson/compute.rs).

use serde::{Deserialize, Serialize};

use nalgebra::DVector;

use super::sections::{build_data, DataSpec, MrlsrChecked, MrlsrSpec, PAGE_MAX_N};
use crate::data::Dataset;
use crate::error::{KpError, Result};
use crate::exec::{Progress, Task};
use crate::kernels::{Bandwidth, Kernel};
use crate::solvers::mrlsr::MrlsrModel;

/// The largest n a scan runs at (n removals of an (n − 1)-point eigendecomposition each: about
/// 10·n⁴ operations).
pub const SCAN_MAX_N: usize = 200;

/// Which scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScanKind {
    /// §4's Example: `maxᵢ ‖f_Z − f_Zⁱ‖_H` of A = kernel ridge at λ and of B = kernel ridge with
    /// the regularizer λ_B/|Z|, λ_B = nλ fixed at the spec's n.
    Stability,
    /// Assumption 1, part 2: `maxᵢ |λ₂(λ, Zⁱ) − λ₂(λ, Z)|`, λ₂ = (m/2)C₀λ (Proposition 5.1).
    Lambda2Move,
}

/// One scanned quantity: its value at each n and its fitted power law `v ≈ e^b · n^slope`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScanSeries {
    /// What it is, short (the plot's legend; the plots' notation, `_{…}` subscripts).
    pub label: String,
    /// The value at each n of [`NScan::ns`].
    pub values: Vec<f64>,
    /// The least-squares slope of ln v against ln n.
    pub slope: f64,
    /// Its intercept b.
    pub intercept: f64,
}

/// A finished scan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NScan {
    /// Which scan.
    pub kind: ScanKind,
    /// The sample sizes, increasing.
    pub ns: Vec<usize>,
    /// The scanned quantities (two for [`ScanKind::Stability`], one for λ₂'s move).
    pub series: Vec<ScanSeries>,
}

/// One sample size under way: its data, model, the full sample's fits and the maxima so far.
struct Level {
    data: Dataset,
    model: MrlsrModel,
    /// Stability: A's and B's α on the full sample; λ₂ move: [λ₂].
    base: Vec<DVector<f64>>,
    best: Vec<f64>,
    next: usize,
}

/// The scan as resumable work: one removal (one (n − 1)-point eigendecomposition) per unit.
pub struct NScanRun {
    kind: ScanKind,
    spec: MrlsrSpec,
    ns: Vec<usize>,
    level: Option<Level>,
    values: Vec<Vec<f64>>,
    done: usize,
    total: usize,
}

/// The least-squares slope and intercept of ln v against ln n.
pub fn log_log_fit(ns: &[usize], values: &[f64]) -> Result<(f64, f64)> {
    if ns.len() < 2 || values.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return Err(KpError::NonFinite("a scanned value is not positive: no log–log slope".into()));
    }
    let k = ns.len() as f64;
    let xs: Vec<f64> = ns.iter().map(|&n| (n as f64).ln()).collect();
    let ys: Vec<f64> = values.iter().map(|v| v.ln()).collect();
    let (mx, my) = (xs.iter().sum::<f64>() / k, ys.iter().sum::<f64>() / k);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let slope = sxy / sxx;
    Ok((slope, my - slope * mx))
}

fn refuse(reason: String) -> KpError {
    KpError::Parameter { name: "scan", reason }
}

/// `‖Σ aᵢk(·, xᵢ)‖_H = √(aᵀKa)`.
fn h_norm(model: &MrlsrModel, a: &DVector<f64>) -> f64 {
    (model.gram() * a).dot(a).max(0.0).sqrt()
}

impl NScanRun {
    /// On a checked spec (its fields refused by their paths first), check what the scan needs
    /// (generated data, a fixed Gaussian or other fixed kernel, n from 24 to [`SCAN_MAX_N`],
    /// m > 1 for λ₂'s move) and start at n/8.
    pub fn new(checked: &MrlsrChecked, kind: ScanKind) -> Result<Self> {
        let spec = checked.spec();
        let n = match spec.data {
            DataSpec::Sine { n, drop: None, .. } | DataSpec::Friedman { n, drop: None, .. } => n,
            _ => {
                return Err(refuse(
                    "the n-scan needs generated data without a removed point (it draws samples of n/8 … n)".into(),
                ))
            }
        };
        if matches!(&spec.kernel, Kernel::Gaussian(g) if matches!(g.bandwidth, Bandwidth::Heuristic))
        {
            return Err(refuse(
                "the n-scan needs a fixed kernel: the heuristic μ changes with the sample, and with it the space H".into(),
            ));
        }
        if !(24..=SCAN_MAX_N).contains(&n) {
            return Err(refuse(format!("the n-scan runs at n from 24 to {SCAN_MAX_N} (got {n})")));
        }
        if kind == ScanKind::Lambda2Move && spec.m <= 1.0 {
            return Err(refuse(format!("λ₂'s move needs m > 1, Theorem 1 (got {})", spec.m)));
        }
        let ns = vec![n / 8, n / 4, n / 2, n];
        let total = ns.iter().sum();
        let series = if kind == ScanKind::Stability { 2 } else { 1 };
        Ok(Self {
            kind,
            spec: spec.clone(),
            ns,
            level: None,
            values: vec![Vec::new(); series],
            done: 0,
            total,
        })
    }

    /// `[removals done, removals in all]`.
    pub fn progress(&self) -> (usize, usize) {
        (self.done, self.total)
    }

    /// Whether every n is scanned.
    pub fn is_done(&self) -> bool {
        self.values[0].len() == self.ns.len()
    }

    /// The regularizers of the full sample of `n` points: Stability A's λ and B's λ_B/n.
    fn lambdas(&self, n: usize) -> (f64, f64) {
        let big_n = *self.ns.last().unwrap_or(&1) as f64;
        (self.spec.lambda, big_n * self.spec.lambda / n as f64)
    }

    fn open(&self, n: usize) -> Result<Level> {
        let mut data_spec = self.spec.data.clone();
        match &mut data_spec {
            DataSpec::Sine { n: k, .. } | DataSpec::Friedman { n: k, .. } => *k = n,
            _ => {}
        }
        let data = build_data(&data_spec, PAGE_MAX_N)?;
        let model = MrlsrModel::from_dataset(&data, &self.spec.kernel)?;
        let base = self.fits(&model, n)?;
        let best = vec![0.0; self.values.len()];
        Ok(Level { data, model, base, best, next: 0 })
    }

    /// The fits a removal is compared with, on `model` of `n` points.
    fn fits(&self, model: &MrlsrModel, n: usize) -> Result<Vec<DVector<f64>>> {
        Ok(match self.kind {
            ScanKind::Stability => {
                let (a, b) = self.lambdas(n);
                vec![model.krr(a)?.alpha, model.krr(b)?.alpha]
            }
            ScanKind::Lambda2Move => {
                let fit = model.fit_theorem1(self.spec.m, self.spec.lambda)?;
                vec![DVector::from_element(1, fit.lambda2)]
            }
        })
    }

    /// Remove point `i` of the level and fold its change into the maxima.
    fn remove(&self, level: &mut Level, i: usize) -> Result<()> {
        let n = level.data.n();
        let x = level.data.x.clone().remove_row(i);
        let y = level.data.y.clone().remove_row(i);
        let model = MrlsrModel::new(&x, &y, &self.spec.kernel)?;
        let fits = match self.kind {
            ScanKind::Stability => {
                // The (n − 1)-point sample: A keeps λ, B's regularizer is λ_B/(n − 1).
                let (a, _) = self.lambdas(n);
                let (_, b) = self.lambdas(n - 1);
                vec![model.krr(a)?.alpha, model.krr(b)?.alpha]
            }
            ScanKind::Lambda2Move => self.fits(&model, n - 1)?,
        };
        for (k, (full, less)) in level.base.iter().zip(&fits).enumerate() {
            let change = match self.kind {
                ScanKind::Stability => {
                    h_norm(&level.model, &(full - less.clone().insert_row(i, 0.0)))
                }
                ScanKind::Lambda2Move => (full[0] - less[0]).abs(),
            };
            level.best[k] = level.best[k].max(change);
        }
        Ok(())
    }

    /// The finished scan (an error before it is done).
    pub fn result(&self) -> Result<NScan> {
        if !self.is_done() {
            return Err(refuse("the scan is not finished".into()));
        }
        let labels: &[&str] = match self.kind {
            ScanKind::Stability => &["A (λ)", "B (λ_B/|Z|)"],
            ScanKind::Lambda2Move => &["λ₂ move"],
        };
        let mut series = Vec::new();
        for (label, values) in labels.iter().zip(&self.values) {
            let (slope, intercept) = log_log_fit(&self.ns, values)?;
            series.push(ScanSeries {
                label: label.to_string(),
                values: values.clone(),
                slope,
                intercept,
            });
        }
        Ok(NScan { kind: self.kind, ns: self.ns.clone(), series })
    }

    /// Every removal at once (`kplay`'s and the tests' path).
    pub fn run_to_end(mut self) -> Result<NScan> {
        while self.unit()? == Progress::More {}
        self.result()
    }
}

impl Task for NScanRun {
    type Error = KpError;
    /// One removal (the first unit of each n also builds its sample and model).
    fn unit(&mut self) -> Result<Progress> {
        if self.is_done() {
            return Ok(Progress::Done);
        }
        let k = self.values[0].len();
        let mut level = match self.level.take() {
            Some(l) => l,
            None => self.open(self.ns[k])?,
        };
        let i = level.next;
        self.remove(&mut level, i)?;
        level.next += 1;
        self.done += 1;
        if level.next == level.data.n() {
            for (v, b) in self.values.iter_mut().zip(&level.best) {
                v.push(*b);
            }
        } else {
            self.level = Some(level);
        }
        Ok(if self.is_done() { Progress::Done } else { Progress::More })
    }
}
