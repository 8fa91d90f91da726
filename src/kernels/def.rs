//! What a catalogue kernel is, declared by the kernel's own file: [`KernelDef`] for its spec
//! (catalogue entry, checks, expression text) and [`ResolvedDef`] for its checked form (the
//! function `k` is of). Neither trait has a default method, so a new kernel decides each.

use std::fmt;

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use crate::error::Result;
pub use crate::param::Parameter;

/// Bandwidth of the Gaussian kernel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bandwidth {
    /// Paper B's heuristic `μ = (1/n²) Σ_ij ‖x_i − x_j‖²`, computed from the training inputs.
    Heuristic,
    /// A chosen `μ > 0`.
    Fixed(f64),
}

/// What a kernel is and what it needs, declared once: the pages' kernel selects and fields are
/// built from these (the exported `kernelCatalogue()`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KernelInfo {
    /// The spec's `kind`.
    pub kind: &'static str,
    /// The name a page shows.
    pub label: &'static str,
    /// `k(x, x')` written out.
    pub formula: &'static str,
    /// A pair kernel `k(x, x')` (papers B, C, D); all of these are.
    pub pair: bool,
    /// A function of the distance with a length scale to choose (Gaussian, Laplacian, Matérn).
    pub needs_bandwidth: bool,
    /// Its plain numeric parameters. The Gaussian's bandwidth (`"heuristic"` or
    /// `{"fixed": μ}`) is declared apart as `bandwidth`.
    pub parameters: &'static [Parameter],
    /// The Gaussian's `bandwidth` field: `"heuristic"` or `{"fixed": μ > 0}`.
    pub bandwidth: bool,
}

/// What a catalogue kernel's value is a function of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Argument {
    /// `k(x, x') = f(⟨x, x'⟩)`: computed from the product `X Xᵀ` alone.
    InnerProduct,
    /// `k(x, x') = f(‖x − x'‖²)`, the squared distance formed as `‖x‖² + ‖x'‖² − 2⟨x, x'⟩`
    /// (clamped at 0) from the same product.
    SquaredDistance,
}

/// A catalogue kernel's spec, in its own file (one line of `catalogue!` in kernels/mod.rs lists
/// it). Every method is required.
pub trait KernelDef: Sized {
    /// Its checked form, ready to evaluate.
    type Resolved: ResolvedDef;
    /// Its entry in [`super::Kernel::ALL`]: a page's default parameters.
    const DEFAULT: Self;
    /// Kind, label, formula and parameters, for the pages and the expression parser.
    fn info(&self) -> KernelInfo;
    /// The kernel with its parameters' values in the order of [`KernelInfo::parameters`] (a
    /// whole number already checked for an integer parameter) and the Gaussian's bandwidth.
    fn from_values(values: &[f64], bandwidth: Bandwidth) -> Self;
    /// Its expression text, every parameter written (`laplacian(sigma=0.5)`), which
    /// [`super::expr::parse`] reads back to the same kernel.
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// Check its parameters (an error naming the field, `kernel.sigma`) and resolve what is
    /// computed from the training inputs `x` (rows).
    fn resolve(&self, x: &DMatrix<f64>) -> Result<Self::Resolved>;
}

/// A checked catalogue kernel: `k(x, x') = f(t)` with `t` its [`Argument`].
pub trait ResolvedDef {
    /// What `f` takes.
    fn argument(&self) -> Argument;
    /// `f(t)`.
    fn of(&self, t: f64) -> f64;
}

/// `μ = (1/n²) Σ_ij ‖x_i − x_j‖²`, computed in O(nd) as `2·(mean ‖x‖² − ‖mean x‖²)`.
pub fn bandwidth_heuristic(x: &DMatrix<f64>) -> f64 {
    let n = x.nrows() as f64;
    if n == 0.0 {
        return 0.0;
    }
    let mean_sq = x.row_iter().map(|r| r.norm_squared()).sum::<f64>() / n;
    let mean = x.row_mean();
    (2.0 * (mean_sq - mean.norm_squared())).max(0.0)
}

/// `Err(kernel.NAME: must be a finite number > 0 (got v))` unless `v` is one.
pub(crate) fn positive(path: &'static str, v: f64) -> Result<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(crate::error::KpError::Parameter {
            name: path,
            reason: format!("must be a finite number > 0 (got {v})"),
        })
    }
}
