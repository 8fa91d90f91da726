//! Paper B's two experiments as optional sections of its spec (issue 34: everything a page can
//! run is in the spec a link carries): `"selection"`, the Table-1 model selection (k-fold CV over
//! an (m, λ) grid for M-RLSR and a λ₂ grid for kernel ridge, Appendix E.1.1), and
//! `"equivalence"`, Fig. 1's protocol (M-RLSR(λ) against KRR(λ₂) on the parts Z₁…Z_p,
//! Proposition 5.1). Each is parsed strictly ([`MrlsrSelectionSpec`], [`MrlsrEquivalenceSpec`]),
//! checked once into its checked form ([`MrlsrSelectionChecked`], [`MrlsrEquivalenceChecked`]:
//! every field validated with a message naming it, the memory its folds and parts need checked
//! before anything is allocated), and run as a [`crate::exec::Task`] the executor slices
//! ([`super::cv::ModelSelectionRun`], [`super::cv::EquivalenceRun`]) — by the page's worker and by
//! `kplay run` alike, so a copied link reproduces the page's tables. The spec itself
//! ([`MrlsrSpec`]: data, kernel, m, λ and these sections) and its data ([`build_data`]) live here
//! too, so that the page's session (`mod.rs`) and the n-scan import a sibling, not their parent
//! (no parent ⇄ child import cycle, docs/design.md "Layers").

use serde::{Deserialize, Serialize};

use super::cv::{
    log_grid, step_grid, EquivalenceConfig, EquivalenceReport, EquivalenceRun, ModelSelection,
    ModelSelectionConfig, ModelSelectionRun,
};
use crate::data::{CsvSource, Dataset};
use crate::datasets::regression::{Friedman1, Sine1d};
use crate::error::{KpError, Result};
use crate::exec::run_task_for;
use crate::kernels::{Bandwidth, Kernel};

pub use super::schema::PAGE_MAX_N;

/// The data part of paper B's spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DataSpec {
    /// [`Sine1d`]; `drop`: the index of one generated point left out (stability, Definition 4.2).
    Sine {
        n: usize,
        sigma: f64,
        seed: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        drop: Option<usize>,
    },
    /// [`Friedman1`], paper B's synthetic set; `drop` as for `Sine`.
    Friedman {
        n: usize,
        sigma: f64,
        seed: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        drop: Option<usize>,
    },
    /// CSV data with a `y` column.
    Csv(CsvSource),
}

/// The page's model-selection form fields (kept in its links; `kplay run` does not use them:
/// a selection that ran is the spec's `selection` section).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectionSettings {
    /// Samples of the model-selection data set.
    pub n: usize,
    /// Cross-validation folds.
    pub folds: usize,
}

/// Paper B's experiment: data, kernel (the core's serde form), m and λ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MrlsrSpec {
    pub data: DataSpec,
    pub kernel: Kernel,
    /// Exponent m > 0 of the regularizer `λ‖f‖_H^m`.
    pub m: f64,
    /// λ > 0.
    pub lambda: f64,
    /// The page's model-selection form fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sel: Option<SelectionSettings>,
    /// The Table-1 model selection, run after the fit (`kplay run` reports it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<Box<MrlsrSelectionSpec>>,
    /// Fig. 1's equivalence experiment, run after the fit (`kplay run` reports it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equivalence: Option<Box<MrlsrEquivalenceSpec>>,
}

impl Default for MrlsrSpec {
    /// The page's opening state: 100 noisy samples of a sine, Gaussian kernel (μ by paper B's heuristic: the mean squared distance between inputs),
    /// m = 1.5, λ = 10⁻³.
    fn default() -> Self {
        Self {
            data: DataSpec::Sine { n: 100, sigma: 0.2, seed: 1, drop: None },
            kernel: Kernel::gaussian(Bandwidth::Heuristic),
            m: 1.5,
            lambda: 1e-3,
            sel: None,
            selection: None,
            equivalence: None,
        }
    }
}

impl MrlsrSpec {
    /// The default spec with both sections written out field by field — what `kplay spec mrlsr`
    /// prints: the selection the page's form writes by default (the 10-D synthetic set, n = 300,
    /// σ = 1, seed 1, the heuristic Gaussian, 5 folds) and Fig. 1 at the spec's m with 4 parts,
    /// 10 folds and seed 1; every grid, the split and its seed the defaults an absent field takes
    /// (the paper's, and for Fig. 1's λ grid ours).
    pub fn default_with_sections() -> Self {
        let s = Self::default();
        let selection = MrlsrSelectionSpec {
            data: Some(DataSpec::Friedman { n: 300, sigma: 1.0, seed: 1, drop: None }),
            kernel: Some(Kernel::gaussian(Bandwidth::Heuristic)),
            folds: Some(5),
            ms: Some(StepGrid { from: 0.1, to: 2.9, step: 0.1 }),
            lambdas: Some(LogGrid { from: 1e-5, to: 1e2, count: 7 }),
            lambda2s: Some(LogGrid { from: 1e-7, to: 1e3, count: 25 }),
            train_fraction: Some(0.7),
            seed: Some(1),
        };
        let equivalence = MrlsrEquivalenceSpec {
            m: Some(s.m),
            parts: Some(4),
            folds: Some(10),
            seed: Some(1),
            lambdas: Some(LogGrid { from: 1e-7, to: 1e2, count: 10 }),
        };
        Self { selection: Some(Box::new(selection)), equivalence: Some(Box::new(equivalence)), ..s }
    }
}

/// A generated point the spec's `drop` left out: its inputs and target (the fit plot marks it).
#[derive(Debug, Clone, PartialEq)]
pub struct RemovedPoint {
    /// The point's index among the generated points.
    pub index: usize,
    /// Its inputs.
    pub x: Vec<f64>,
    /// Its target.
    pub y: f64,
}

/// Build the data, refusing more than `max_n` samples (the page's eigendecomposition budget).
pub fn build_data(spec: &DataSpec, max_n: usize) -> Result<Dataset> {
    Ok(build_data_and_removed(spec, max_n)?.0)
}

/// As [`build_data`], with the point `drop` left out (if any): the data keep the other points in
/// their order.
pub fn build_data_and_removed(
    spec: &DataSpec,
    max_n: usize,
) -> Result<(Dataset, Option<RemovedPoint>)> {
    let (data, drop) = match spec {
        DataSpec::Sine { n, sigma, seed, drop } => {
            (Sine1d { n: *n, sigma: *sigma, seed: *seed }.generate()?, *drop)
        }
        DataSpec::Friedman { n, sigma, seed, drop } => {
            (Friedman1 { n: *n, sigma: *sigma, seed: *seed }.generate()?, *drop)
        }
        DataSpec::Csv(c) => (c.parse()?, None),
    };
    let (data, removed) = match drop {
        None => (data, None),
        Some(i) => drop_point(data, i)?,
    };
    if data.n() > max_n {
        return Err(KpError::Parameter {
            name: "data.n",
            reason: format!(
                "n = {} is above this page's eigendecomposition budget of {max_n} samples (the O(n³) decomposition would take minutes in the browser); use a smaller n",
                data.n()
            ),
        });
    }
    Ok((data, removed))
}

/// The data without point `i`, and that point; `i` must leave at least two points.
fn drop_point(data: Dataset, i: usize) -> Result<(Dataset, Option<RemovedPoint>)> {
    let n = data.n();
    if i >= n || n < 3 {
        return Err(KpError::Parameter {
            name: "data.drop",
            reason: format!(
                "drop is the index of one generated point to leave out, 0..={} for n = {n} (got {i}){}",
                n.saturating_sub(1),
                if n < 3 { "; it needs n ≥ 3 so that two points stay" } else { "" }
            ),
        });
    }
    let removed =
        RemovedPoint { index: i, x: data.x.row(i).iter().copied().collect(), y: data.y[i] };
    let Dataset { x, y, w_true, feature_names } = data;
    Ok((Dataset { x: x.remove_row(i), y: y.remove_row(i), w_true, feature_names }, Some(removed)))
}

/// A linear grid `from, from + step, …, to` (the paper's m grid 0.1 … 2.9 by 0.1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepGrid {
    /// First value.
    pub from: f64,
    /// Last value (included up to rounding).
    pub to: f64,
    /// Step > 0.
    pub step: f64,
}

/// A log-spaced grid of `count` values from `from` to `to` (the paper's λ grids).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogGrid {
    /// First value (> 0).
    pub from: f64,
    /// Last value (≥ `from`).
    pub to: f64,
    /// Number of values (≥ 1).
    pub count: usize,
}

/// The most values one grid of a section may hold (the grid builders' own limit).
pub const MAX_GRID: usize = 10_000;

/// `"selection"`: the Table-1 model selection. Every field is optional: the data and kernel
/// default to the spec's own, the grids to the paper's (m 0.1 … 2.9 by 0.1, λ 1e-5 … 1e2 in 7
/// values, λ₂ 1e-7 … 1e3 in 25 values), 10 folds, a 70/30 split with seed 1 (the CV folds use
/// seed + 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct MrlsrSelectionSpec {
    /// The data the selection runs on (the page: the 10-D synthetic set, σ = 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<DataSpec>,
    /// The kernel (the page: Gaussian, paper B's heuristic μ, resolved on the training part).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<Kernel>,
    /// Folds of the cross-validation on the training part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folds: Option<usize>,
    /// The m grid of M-RLSR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<StepGrid>,
    /// The λ grid of M-RLSR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lambdas: Option<LogGrid>,
    /// The λ₂ grid of kernel ridge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lambda2s: Option<LogGrid>,
    /// The training fraction of the train/test split.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train_fraction: Option<f64>,
    /// The seed of the train/test split (the folds use seed + 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// `"equivalence"`: Fig. 1's protocol on the spec's data and kernel. Every field is optional:
/// m defaults to the spec's m (it must be > 1), 4 parts, 10 folds (reduced to fit small parts:
/// at most `folds`, at least 2 test samples per fold, at least 2), seed 1 (the CV folds on Z₁
/// use seed + 1), λ over 1e-7 … 1e2 in 10 values (ours: the paper does not give Fig. 1's grid).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct MrlsrEquivalenceSpec {
    /// The fixed exponent m > 1 of Fig. 1 (the paper: 1.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub m: Option<f64>,
    /// The number of parts Z₁ … Z_parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<usize>,
    /// Folds of the CV on Z₁ that chooses λ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folds: Option<usize>,
    /// Seed of the split into parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The λ grid of the CV on Z₁ and of the λ → λ₂ curves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lambdas: Option<LogGrid>,
}

fn refuse(name: &'static str, reason: String) -> KpError {
    KpError::Parameter { name, reason }
}

/// A refusal of the section's data or kernel, named by the section's field with the inner
/// field's own name kept in the reason (`selection.data: data.n: …`).
fn inside(name: &'static str, e: KpError) -> KpError {
    match e {
        KpError::Parameter { name: inner, reason } => refuse(name, format!("{inner}: {reason}")),
        other => refuse(name, other.to_string()),
    }
}

impl StepGrid {
    /// The values, checked: 0 < from ≤ to ≤ 100, step > 0, at most [`MAX_GRID`] values.
    fn values(&self, name: &'static str) -> Result<Vec<f64>> {
        let StepGrid { from, to, step } = *self;
        if !(from.is_finite() && to.is_finite() && step.is_finite()) {
            return Err(refuse(
                name,
                format!("from, to and step must be finite (got {from}, {to}, {step})"),
            ));
        }
        if !(from > 0.0 && from <= to && to <= 100.0 && step > 0.0) {
            return Err(refuse(
                name,
                format!("needs 0 < from ≤ to ≤ 100 and step > 0 (got from {from}, to {to}, step {step})"),
            ));
        }
        let count = (to - from) / step + 1.0;
        if count > MAX_GRID as f64 {
            return Err(refuse(
                name,
                format!("{count:.0} values; a grid holds at most {MAX_GRID}"),
            ));
        }
        step_grid(from, to, step).map_err(|e| inside(name, e))
    }
}

impl LogGrid {
    /// The values, checked: 0 < from ≤ to, finite, 1 ≤ count ≤ [`MAX_GRID`].
    fn values(&self, name: &'static str) -> Result<Vec<f64>> {
        let LogGrid { from, to, count } = *self;
        if !(from.is_finite() && to.is_finite() && from > 0.0 && from <= to) {
            return Err(refuse(
                name,
                format!("needs 0 < from ≤ to, finite (got from {from}, to {to})"),
            ));
        }
        if !(1..=MAX_GRID).contains(&count) {
            return Err(refuse(name, format!("count must lie in 1..={MAX_GRID} (got {count})")));
        }
        log_grid(from, to, count).map_err(|e| inside(name, e))
    }
}

/// The checked model selection: its data built, its kernel resolvable, its grids and folds
/// valid for the data's size and the memory budget. Only [`Self::start`] makes a run.
#[derive(Debug, Clone)]
pub struct MrlsrSelectionChecked {
    data: Dataset,
    kernel: Kernel,
    config: ModelSelectionConfig,
}

impl MrlsrSelectionSpec {
    /// Check against the spec it belongs to (its data and kernel by default), building at most
    /// `max_n` samples. Each refusal names its field (`selection.folds`, `selection.ms`, …).
    pub fn check(&self, spec: &MrlsrSpec, max_n: usize) -> Result<MrlsrSelectionChecked> {
        let paper = ModelSelectionConfig::paper(1);
        let ms = match &self.ms {
            Some(g) => g.values("selection.ms")?,
            None => paper.ms.clone(),
        };
        let lambdas = match &self.lambdas {
            Some(g) => g.values("selection.lambdas")?,
            None => paper.lambdas.clone(),
        };
        let lambda2s = match &self.lambda2s {
            Some(g) => g.values("selection.lambda2s")?,
            None => paper.lambda2s.clone(),
        };
        let train_fraction = self.train_fraction.unwrap_or(paper.train_fraction);
        if !(train_fraction.is_finite() && train_fraction > 0.0 && train_fraction < 1.0) {
            return Err(refuse(
                "selection.train_fraction",
                format!("must lie strictly between 0 and 1 (got {train_fraction})"),
            ));
        }
        let folds = self.folds.unwrap_or(paper.folds);
        if folds < 2 {
            return Err(refuse(
                "selection.folds",
                format!("k-fold cross-validation needs k ≥ 2 (got {folds})"),
            ));
        }
        let budget = crate::budget::active();
        // The CV table: one sum per (m, λ) and per λ₂, before anything is allocated.
        let cells = ms.len() as f64 * lambdas.len() as f64 + lambda2s.len() as f64;
        budget.bytes(
            "selection.ms",
            "the cross-validation table",
            &format!("{} m × {} λ + {} λ₂ cells", ms.len(), lambdas.len(), lambda2s.len()),
            8.0 * cells,
        )?;
        let data_spec = self.data.as_ref().unwrap_or(&spec.data);
        let data = build_data(data_spec, max_n).map_err(|e| inside("selection.data", e))?;
        let n = data.n();
        // The split and the folds as ModelSelectionRun makes them (cv::train_test_split, kfold).
        let n_train =
            if n < 2 { 0 } else { ((train_fraction * n as f64).round() as usize).clamp(1, n - 1) };
        if n < 2 || n_train >= n {
            return Err(refuse(
                "selection.train_fraction",
                format!("cannot split {n} samples into non-empty train and test sets"),
            ));
        }
        if n_train < 2 * folds {
            return Err(refuse(
                "selection.folds",
                format!(
                    "{folds} folds need at least {} training samples (2 test samples per fold); the split leaves {n_train} of n = {n}",
                    2 * folds
                ),
            ));
        }
        // Each fold: its Gram matrix, its eigenvectors and the test × train cross matrix.
        let n_fold = n_train - n_train / folds;
        let fold_bytes = 8.0 * (2.0 * (n_fold as f64).powi(2) + (n_train as f64) * (n_fold as f64));
        budget.bytes(
            "selection.data",
            "one fold's Gram matrix, eigenvectors and cross matrix",
            &format!("{} training samples per fold", n_fold),
            fold_bytes,
        )?;
        let kernel = self.kernel.clone().unwrap_or_else(|| spec.kernel.clone());
        kernel.resolve(&data.x).map_err(|e| inside("selection.kernel", e))?;
        let config = ModelSelectionConfig {
            ms,
            lambdas,
            lambda2s,
            folds,
            train_fraction,
            seed: self.seed.unwrap_or(paper.seed),
        };
        Ok(MrlsrSelectionChecked { data, kernel, config })
    }
}

impl MrlsrSelectionChecked {
    /// The grids, folds, split fraction and seed the selection runs with.
    pub fn config(&self) -> &ModelSelectionConfig {
        &self.config
    }

    /// The model selection as a task the executor slices (one fold's eigendecomposition or one
    /// m row per unit); its result equals [`super::cv::model_selection`]'s.
    pub fn start(&self) -> Result<ModelSelectionRun> {
        ModelSelectionRun::new(&self.data, &self.kernel, &self.config)
    }

    /// Run it to the end through the executor ([`run_task_for`]).
    pub fn run(&self) -> Result<ModelSelection> {
        let mut run = self.start()?;
        while !run.is_complete() {
            run_task_for(&mut run, f64::INFINITY)?;
        }
        run.finish()
    }
}

/// The checked equivalence experiment: m > 1, the parts and folds fit the data, the memory of
/// the parts' eigendecompositions within the budget. Only [`Self::start`] makes a run.
#[derive(Debug, Clone)]
pub struct MrlsrEquivalenceChecked {
    data: Dataset,
    kernel: Kernel,
    config: EquivalenceConfig,
}

impl MrlsrEquivalenceSpec {
    /// Check against the spec it belongs to (its data, kernel and, by default, m), building at
    /// most `max_n` samples. Each refusal names its field (`equivalence.m`, `equivalence.parts`, …).
    pub fn check(&self, spec: &MrlsrSpec, max_n: usize) -> Result<MrlsrEquivalenceChecked> {
        let paper = EquivalenceConfig::paper(1);
        let m = self.m.unwrap_or(spec.m);
        if !(m.is_finite() && m > 1.0 && m <= 100.0) {
            return Err(refuse(
                "equivalence.m",
                format!(
                    "Proposition 5.1 (weak equivalence) needs 1 < m ≤ 100 (got {m}{})",
                    if self.m.is_none() { ", the spec's m" } else { "" }
                ),
            ));
        }
        let lambdas = match &self.lambdas {
            Some(g) => g.values("equivalence.lambdas")?,
            None => paper.lambdas.clone(),
        };
        let folds = self.folds.unwrap_or(paper.folds);
        if folds < 2 {
            return Err(refuse(
                "equivalence.folds",
                format!("k-fold cross-validation needs k ≥ 2 (got {folds})"),
            ));
        }
        let parts = self.parts.unwrap_or(paper.parts);
        if parts < 1 {
            return Err(refuse("equivalence.parts", "at least 1 part (Z₁)".into()));
        }
        let budget = crate::budget::active();
        budget.bytes(
            "equivalence.lambdas",
            "the λ → λ₂ curves",
            &format!("{parts} parts × {} λ", lambdas.len()),
            8.0 * parts as f64 * lambdas.len() as f64,
        )?;
        let data = build_data(&spec.data, max_n).map_err(|e| inside("data", e))?;
        let n = data.n();
        // Z₁ holds n / parts samples (rounded down); its CV needs 2 folds of 2 test samples.
        let part_n = n / parts;
        if part_n < 4 {
            return Err(refuse(
                "equivalence.parts",
                format!(
                    "{parts} parts of n = {n} samples leave {part_n} per part; the CV on Z₁ needs at least 4"
                ),
            ));
        }
        // Every part's model (K and its eigenvectors) is kept until the curves are drawn.
        let biggest = n.div_ceil(parts) as f64;
        budget.bytes(
            "equivalence.parts",
            "the parts' Gram matrices and eigenvectors",
            &format!("{parts} parts of up to {biggest} samples"),
            8.0 * 2.0 * biggest * biggest * parts as f64,
        )?;
        spec.kernel.resolve(&data.x).map_err(|e| inside("kernel", e))?;
        let config = EquivalenceConfig {
            m,
            lambdas,
            folds: folds.min(part_n / 2).max(2),
            parts,
            seed: self.seed.unwrap_or(paper.seed),
        };
        Ok(MrlsrEquivalenceChecked { data, kernel: spec.kernel.clone(), config })
    }
}

impl MrlsrEquivalenceChecked {
    /// The settings the experiment runs with (the folds already reduced to fit the parts).
    pub fn config(&self) -> &EquivalenceConfig {
        &self.config
    }

    /// The experiment as a task the executor slices (one fold of the CV on Z₁, or one part,
    /// per unit); its report equals [`super::cv::equivalence_experiment`]'s.
    pub fn start(&self) -> Result<EquivalenceRun> {
        EquivalenceRun::new(&self.data, &self.kernel, &self.config)
    }

    /// Run it to the end through the executor ([`run_task_for`]).
    pub fn run(&self) -> Result<EquivalenceReport> {
        let mut run = self.start()?;
        while !run.is_complete() {
            run_task_for(&mut run, f64::INFINITY)?;
        }
        run.finish()
    }
}

/// Paper B's spec checked as a whole before anything runs: m and λ, the page's model-selection
/// form fields (`sel`), the data within `max_n`, the kernel, and each section present
/// ([`MrlsrSelectionSpec::check`], [`MrlsrEquivalenceSpec::check`]). The only thing a
/// session ([`super::MrlsrSession`]) accepts; made only by [`Self::check`].
#[derive(Debug, Clone)]
pub struct MrlsrChecked {
    spec: MrlsrSpec,
    data: Dataset,
    selection: Option<MrlsrSelectionChecked>,
    equivalence: Option<MrlsrEquivalenceChecked>,
}

/// What a checked spec's data are, for a page to show before the O(n³) step: n, d and the
/// data's digest.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckedData {
    /// Samples.
    pub n: usize,
    /// Features.
    pub d: usize,
    /// The data's 64-bit digest ([`Dataset::digest`]).
    pub digest: String,
}

impl MrlsrChecked {
    /// Check `spec` (each refusal names its field), building data of at most `max_n` samples.
    pub fn check(spec: &MrlsrSpec, max_n: usize) -> Result<Self> {
        crate::solvers::mrlsr::check_m_lambda(spec.m, spec.lambda)?;
        // The page schema's ranges (`schema.rs`): the data's knobs, the kernel's parameters,
        // the model-selection form's n and folds (`sel.n`, `sel.folds`: declared there only).
        crate::schema::check_spec(&super::schema::schema().fields, spec)?;
        let data = build_data(&spec.data, max_n)?;
        spec.kernel.resolve(&data.x)?;
        let selection = spec.selection.as_ref().map(|s| s.check(spec, max_n)).transpose()?;
        let equivalence = spec.equivalence.as_ref().map(|s| s.check(spec, max_n)).transpose()?;
        Ok(Self { spec: spec.clone(), data, selection, equivalence })
    }

    /// [`Self::check`] within the page's eigendecomposition budget ([`PAGE_MAX_N`]).
    pub fn for_page(spec: &MrlsrSpec) -> Result<Self> {
        Self::check(spec, PAGE_MAX_N)
    }

    /// The spec as checked.
    pub fn spec(&self) -> &MrlsrSpec {
        &self.spec
    }

    /// The spec's data.
    pub fn data(&self) -> &Dataset {
        &self.data
    }

    /// n, d and the digest of the data.
    pub fn data_facts(&self) -> CheckedData {
        CheckedData { n: self.data.n(), d: self.data.d(), digest: self.data.digest() }
    }

    /// The model selection, if the spec has one.
    pub fn selection(&self) -> Option<&MrlsrSelectionChecked> {
        self.selection.as_ref()
    }

    /// The equivalence experiment, if the spec has one.
    pub fn equivalence(&self) -> Option<&MrlsrEquivalenceChecked> {
        self.equivalence.as_ref()
    }

    /// The spec and its data, for the session that fits them.
    pub fn into_spec_and_data(self) -> (MrlsrSpec, Dataset) {
        (self.spec, self.data)
    }
}
