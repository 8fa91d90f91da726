//! Pair kernels `k(x, x')` and their Gram matrices, shared by papers B, C and D, and their
//! algebra: sums, products and positive scalings of kernels are kernels (the sum of positive
//! semi-definite matrices is one, and so is their entrywise product by Schur's product theorem),
//! as scikit-learn's kernel algebra allows. Composites are ours, in none of the papers.

pub mod expr;
mod job;

pub use job::CrossJob;

use crate::fmath;
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::error::{KpError, Result};

/// Bandwidth of the Gaussian kernel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bandwidth {
    /// Paper B's heuristic `μ = (1/n²) Σ_ij ‖x_i − x_j‖²`, computed from the training inputs.
    Heuristic,
    /// A chosen `μ > 0`.
    Fixed(f64),
}

/// A positive semi-definite pair kernel: one of the catalogue's, or a sum, product or positive
/// scaling of kernels (`{"kind": "sum", "of": [k₁, k₂]}`, `{"kind": "scaled", "scale": 2,
/// "of": k}`; written `k₁ + k₂`, `2·k` in [`expr`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields, from = "strict::Kernel")]
pub enum Kernel {
    /// `k(x, x') = ⟨x, x'⟩`.
    Linear,
    /// `k(x, x') = (⟨x, x'⟩ + offset)^degree`, degree ≥ 1, offset ≥ 0.
    Polynomial { degree: u32, offset: f64 },
    /// `k(x, x') = exp(−‖x − x'‖²/μ)` (paper B's parametrization).
    Gaussian { bandwidth: Bandwidth },
    /// `k(x, x') = exp(−‖x − x'‖/σ)`, σ > 0: positive definite on distinct points, with a
    /// rougher (Lipschitz, not smooth) feature space than the Gaussian's.
    Laplacian { sigma: f64 },
    /// Matérn 3/2 with length scale ℓ > 0 (ours, in none of the papers):
    /// `k(x, x') = (1 + √3 r/ℓ) exp(−√3 r/ℓ)`, `r = ‖x − x'‖`; positive definite on distinct
    /// points in every dimension (Rasmussen & Williams, eq. 4.17), once differentiable.
    Matern32 { length: f64 },
    /// `k(x, x') = Σ_t k_t(x, x')`: 2 to [`MAX_TERMS`] kernels.
    Sum { of: Vec<Kernel> },
    /// `k(x, x') = Π_t k_t(x, x')`: 2 to [`MAX_TERMS`] kernels.
    Product { of: Vec<Kernel> },
    /// `k(x, x') = s·k₀(x, x')` with `s > 0` finite.
    Scaled { scale: f64, of: Box<Kernel> },
}

/// The spec's form of [`Kernel`], read strictly: serde's `deny_unknown_fields` does not reach
/// a unit variant of an internally tagged enum (`{"kind": "linear", "x": 1}` would pass), so
/// every variant here is a struct variant, and an unknown field is an error naming it.
mod strict {
    use super::Bandwidth;
    use serde::Deserialize;

    #[derive(Deserialize)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
    pub enum Kernel {
        Linear {},
        Polynomial { degree: u32, offset: f64 },
        Gaussian { bandwidth: Bandwidth },
        Laplacian { sigma: f64 },
        Matern32 { length: f64 },
        Sum { of: Vec<super::Kernel> },
        Product { of: Vec<super::Kernel> },
        Scaled { scale: f64, of: Box<super::Kernel> },
    }

    impl From<Kernel> for super::Kernel {
        fn from(k: Kernel) -> Self {
            match k {
                Kernel::Linear {} => Self::Linear,
                Kernel::Polynomial { degree, offset } => Self::Polynomial { degree, offset },
                Kernel::Gaussian { bandwidth } => Self::Gaussian { bandwidth },
                Kernel::Laplacian { sigma } => Self::Laplacian { sigma },
                Kernel::Matern32 { length } => Self::Matern32 { length },
                Kernel::Sum { of } => Self::Sum { of },
                Kernel::Product { of } => Self::Product { of },
                Kernel::Scaled { scale, of } => Self::Scaled { scale, of },
            }
        }
    }
}

/// At most this many catalogue kernels in one composite (a lecturer's `k₁ + k₂·k₃` has three).
pub const MAX_TERMS: usize = 8;
/// At most this nesting depth of sums, products and scalings.
pub const MAX_DEPTH: usize = 4;

/// One numeric parameter of a kernel, declared once (name, range, default) for the pages' fields.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KernelParameter {
    /// The field of the kernel's spec object (`{"kind": "laplacian", "sigma": 0.5}`).
    pub name: &'static str,
    /// The id of the page field that holds it (shared by pages B, C and D).
    pub field: &'static str,
    /// The symbol a page shows.
    pub symbol: &'static str,
    /// What it means, one line (a page's tooltip).
    pub doc: &'static str,
    /// The lower bound.
    pub min: f64,
    /// Whether the lower bound itself is excluded (`> min`).
    pub min_exclusive: bool,
    /// A whole number (the polynomial degree).
    pub integer: bool,
    /// A page's initial value.
    pub default: f64,
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
    pub parameters: &'static [KernelParameter],
    /// The Gaussian's `bandwidth` field: `"heuristic"` or `{"fixed": μ > 0}`.
    pub bandwidth: bool,
}

/// A [`KernelParameter`] in one line: (name, field, symbol, doc), (min, exclusive), integer, default.
const fn kparam(
    names: (&'static str, &'static str, &'static str, &'static str),
    min: (f64, bool),
    integer: bool,
    default: f64,
) -> KernelParameter {
    let (name, field, symbol, doc) = names;
    KernelParameter { name, field, symbol, doc, min: min.0, min_exclusive: min.1, integer, default }
}

impl Kernel {
    /// Every pair kernel, with a page's default parameters.
    pub const ALL: [Kernel; 5] = [
        Kernel::Linear,
        Kernel::Polynomial { degree: 2, offset: 1.0 },
        Kernel::Gaussian { bandwidth: Bandwidth::Heuristic },
        Kernel::Laplacian { sigma: 0.5 },
        Kernel::Matern32 { length: 0.5 },
    ];

    /// What this kernel is and needs.
    pub fn info(&self) -> KernelInfo {
        const POLY: &[KernelParameter] = &[
            kparam(("degree", "degree", "d", "the power of ⟨x, x′⟩ + c"), (1.0, false), true, 2.0),
            kparam(("offset", "offset", "c", "added to ⟨x, x′⟩"), (0.0, false), false, 1.0),
        ];
        const LAP: &[KernelParameter] =
            &[kparam(("sigma", "lap-sigma", "σ", "the length scale"), (0.0, true), false, 0.5)];
        const MATERN: &[KernelParameter] = &[kparam(
            ("length", "matern-length", "ℓ", "the length scale"),
            (0.0, true),
            false,
            0.5,
        )];
        let (kind, label, formula, parameters, needs_bandwidth): (_, _, _, &'static [_], _) =
            match self {
                Kernel::Linear => ("linear", "linear", "⟨x, x′⟩", &[], false),
                Kernel::Polynomial { .. } => {
                    ("polynomial", "polynomial", "(⟨x, x′⟩ + c)^d", POLY, false)
                }
                Kernel::Gaussian { .. } => ("gaussian", "Gaussian", "exp(−‖x − x′‖²/μ)", &[], true),
                Kernel::Laplacian { .. } => {
                    ("laplacian", "Laplacian", "exp(−‖x − x′‖/σ)", LAP, true)
                }
                Kernel::Matern32 { .. } => (
                    "matern32",
                    "Matérn 3/2",
                    "(1 + √3r/ℓ) exp(−√3r/ℓ), r = ‖x − x′‖",
                    MATERN,
                    true,
                ),
                Kernel::Sum { .. } => ("sum", "sum", "k₁ + k₂ + …", &[], false),
                Kernel::Product { .. } => ("product", "product", "k₁ · k₂ · …", &[], false),
                Kernel::Scaled { .. } => ("scaled", "scaled", "s · k, s > 0", &[], false),
            };
        KernelInfo {
            kind,
            label,
            formula,
            pair: true,
            needs_bandwidth,
            parameters,
            bandwidth: matches!(self, Kernel::Gaussian { .. }),
        }
    }
}

/// A kernel with every parameter checked and the Gaussian bandwidth resolved to a number
/// (serialized as `{"kind": "gaussian", "mu": …}`, what `kplay run` reports); composites hold
/// their resolved terms.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ResolvedKernel {
    Linear,
    Polynomial { degree: u32, offset: f64 },
    Gaussian { mu: f64 },
    Laplacian { sigma: f64 },
    Matern32 { length: f64 },
    Sum { of: Vec<ResolvedKernel> },
    Product { of: Vec<ResolvedKernel> },
    Scaled { scale: f64, of: Box<ResolvedKernel> },
}

/// The zero `m × n` matrix for the cross kernel of the rows of `a` and `b`: dimensions checked,
/// the budget checked before allocating, and the memory reserved fallibly (a message, not an
/// abort, when the machine has less free memory than the budget allows).
fn kernel_matrix_zeros(a: &DMatrix<f64>, b: &DMatrix<f64>) -> Result<DMatrix<f64>> {
    if a.ncols() != b.ncols() {
        return Err(KpError::Parameter {
            name: "inputs",
            reason: format!("dimension mismatch: {} vs {} features", a.ncols(), b.ncols()),
        });
    }
    let (m, n) = (a.nrows() as f64, b.nrows() as f64);
    crate::budget::active().bytes(
        "data.n",
        "the kernel matrix",
        &format!("{} × {} entries", crate::budget::group(m), crate::budget::group(n)),
        8.0 * m * n,
    )?;
    crate::budget::zeros("data.n", "the kernel matrix", a.nrows(), b.nrows())
}

/// A term's error, its field path moved under the composite's: `kernel.sigma` of term 2
/// becomes `kernel.of[1].sigma` (the form of a spec's parse errors).
fn nest(e: KpError, step: &str) -> KpError {
    let (path, reason) = match e {
        KpError::Parameter { name, reason } => (name.to_string(), reason),
        KpError::Spec(m) => match m.split_once(": ") {
            Some((p, r)) if p.starts_with("kernel") => (p.to_string(), r.to_string()),
            _ => return KpError::Spec(m),
        },
        other => return other,
    };
    let rest = path.strip_prefix("kernel").unwrap_or(&path);
    KpError::Spec(format!("kernel.{step}{rest}: {reason}"))
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

impl Kernel {
    /// Check the parameters and resolve the bandwidth on the training inputs `x` (rows); a
    /// composite is checked as a whole first (2 to [`MAX_TERMS`] terms in all, nested at most
    /// [`MAX_DEPTH`] deep, positive finite scales), then term by term, an error naming the term.
    pub fn resolve(&self, x: &DMatrix<f64>) -> Result<ResolvedKernel> {
        let (leaves, depth) = self.size();
        if leaves > MAX_TERMS || depth > MAX_DEPTH {
            return Err(KpError::Parameter {
                name: "kernel",
                reason: format!(
                    "a composite kernel may hold at most {MAX_TERMS} kernels nested at most \
                     {MAX_DEPTH} deep (this one: {leaves} kernels, depth {depth})"
                ),
            });
        }
        self.resolve_checked(x)
    }

    /// (catalogue kernels, nesting depth) of this kernel; a catalogue kernel is (1, 0).
    pub fn size(&self) -> (usize, usize) {
        match self {
            Kernel::Sum { of } | Kernel::Product { of } => {
                of.iter().map(Kernel::size).fold((0, 1), |(n, d), (ln, ld)| (n + ln, d.max(ld + 1)))
            }
            Kernel::Scaled { of, .. } => {
                let (n, d) = of.size();
                (n, d + 1)
            }
            Kernel::Linear
            | Kernel::Polynomial { .. }
            | Kernel::Gaussian { .. }
            | Kernel::Laplacian { .. }
            | Kernel::Matern32 { .. } => (1, 0),
        }
    }

    /// Whether this is a sum, product or scaling of kernels.
    pub fn is_composite(&self) -> bool {
        matches!(self, Kernel::Sum { .. } | Kernel::Product { .. } | Kernel::Scaled { .. })
    }

    fn resolve_checked(&self, x: &DMatrix<f64>) -> Result<ResolvedKernel> {
        let terms = |of: &[Kernel], what: &str| -> Result<Vec<ResolvedKernel>> {
            if of.len() < 2 {
                return Err(KpError::Parameter {
                    name: "kernel.of",
                    reason: format!("a {what} needs at least 2 kernels (got {})", of.len()),
                });
            }
            of.iter()
                .enumerate()
                .map(|(i, k)| k.resolve_checked(x).map_err(|e| nest(e, &format!("of[{i}]"))))
                .collect()
        };
        match self {
            Kernel::Sum { of } => Ok(ResolvedKernel::Sum { of: terms(of, "sum")? }),
            Kernel::Product { of } => Ok(ResolvedKernel::Product { of: terms(of, "product")? }),
            Kernel::Scaled { scale, of } => {
                if !(scale.is_finite() && *scale > 0.0) {
                    return Err(KpError::Parameter {
                        name: "kernel.scale",
                        reason: format!("must be a finite number > 0 (got {scale})"),
                    });
                }
                let inner = of.resolve_checked(x).map_err(|e| nest(e, "of"))?;
                Ok(ResolvedKernel::Scaled { scale: *scale, of: Box::new(inner) })
            }
            leaf => leaf.resolve_leaf(x),
        }
    }

    fn resolve_leaf(&self, x: &DMatrix<f64>) -> Result<ResolvedKernel> {
        match *self {
            Kernel::Linear => Ok(ResolvedKernel::Linear),
            Kernel::Polynomial { degree, offset } => {
                if degree < 1 {
                    return Err(KpError::Parameter {
                        name: "kernel.degree",
                        reason: format!("must be at least 1 (got {degree})"),
                    });
                }
                if !(offset.is_finite() && offset >= 0.0) {
                    return Err(KpError::Parameter {
                        name: "kernel.offset",
                        reason: format!("must be a finite number ≥ 0 (got {offset})"),
                    });
                }
                Ok(ResolvedKernel::Polynomial { degree, offset })
            }
            Kernel::Gaussian { bandwidth } => {
                let mu = match bandwidth {
                    Bandwidth::Fixed(mu) => mu,
                    Bandwidth::Heuristic => bandwidth_heuristic(x),
                };
                if !(mu.is_finite() && mu > 0.0) {
                    let why = if matches!(bandwidth, Bandwidth::Heuristic) {
                        "the heuristic gave μ = 0: all inputs are identical".to_string()
                    } else {
                        format!("must be a finite number > 0 (got {mu})")
                    };
                    return Err(KpError::Parameter { name: "kernel.mu", reason: why });
                }
                Ok(ResolvedKernel::Gaussian { mu })
            }
            Kernel::Laplacian { sigma } => {
                if !(sigma.is_finite() && sigma > 0.0) {
                    return Err(KpError::Parameter {
                        name: "kernel.sigma",
                        reason: format!("must be a finite number > 0 (got {sigma})"),
                    });
                }
                Ok(ResolvedKernel::Laplacian { sigma })
            }
            Kernel::Matern32 { length } => {
                if !(length.is_finite() && length > 0.0) {
                    return Err(KpError::Parameter {
                        name: "kernel.length",
                        reason: format!("must be a finite number > 0 (got {length})"),
                    });
                }
                Ok(ResolvedKernel::Matern32 { length })
            }
            Kernel::Sum { .. } | Kernel::Product { .. } | Kernel::Scaled { .. } => {
                self.resolve_checked(x)
            }
        }
    }
}

impl ResolvedKernel {
    /// `k(a, b)` for two input vectors of equal length.
    pub fn eval(&self, a: &[f64], b: &[f64]) -> f64 {
        match self {
            ResolvedKernel::Sum { of } => return of.iter().map(|k| k.eval(a, b)).sum(),
            ResolvedKernel::Product { of } => return of.iter().map(|k| k.eval(a, b)).product(),
            ResolvedKernel::Scaled { scale, of } => return scale * of.eval(a, b),
            ResolvedKernel::Linear
            | ResolvedKernel::Polynomial { .. }
            | ResolvedKernel::Gaussian { .. }
            | ResolvedKernel::Laplacian { .. }
            | ResolvedKernel::Matern32 { .. } => {}
        }
        match *self {
            ResolvedKernel::Linear => dot(a, b),
            ResolvedKernel::Polynomial { degree, offset } => {
                (dot(a, b) + offset).powi(degree as i32)
            }
            ResolvedKernel::Gaussian { .. }
            | ResolvedKernel::Laplacian { .. }
            | ResolvedKernel::Matern32 { .. } => {
                self.of_squared_distance(a.iter().zip(b).map(|(u, v)| (u - v) * (u - v)).sum())
            }
            ResolvedKernel::Sum { .. }
            | ResolvedKernel::Product { .. }
            | ResolvedKernel::Scaled { .. } => f64::NAN,
        }
    }

    /// The terms' values combined as this composite combines them: `acc` holds the first
    /// term's, `t` each further term's in turn (`fill(k, t)` writes term `k`'s values into `t`).
    fn combine<T>(
        &self,
        acc: &mut T,
        fill: &mut dyn FnMut(&ResolvedKernel, &mut T),
        fresh: &dyn Fn() -> T,
        add: &dyn Fn(&mut T, &T),
        mul: &dyn Fn(&mut T, &T),
        scale: &dyn Fn(&mut T, f64),
    ) {
        match self {
            ResolvedKernel::Sum { of } | ResolvedKernel::Product { of } => {
                let sum = matches!(self, ResolvedKernel::Sum { .. });
                let mut first = true;
                for k in of {
                    if first {
                        k.combine(acc, fill, fresh, add, mul, scale);
                        first = false;
                    } else {
                        let mut t = fresh();
                        k.combine(&mut t, fill, fresh, add, mul, scale);
                        if sum {
                            add(acc, &t)
                        } else {
                            mul(acc, &t)
                        }
                    }
                }
            }
            ResolvedKernel::Scaled { scale: s, of } => {
                of.combine(acc, fill, fresh, add, mul, scale);
                scale(acc, *s);
            }
            leaf => fill(leaf, acc),
        }
    }

    /// Whether this is a sum, product or scaling of kernels.
    pub fn is_composite(&self) -> bool {
        matches!(
            self,
            ResolvedKernel::Sum { .. }
                | ResolvedKernel::Product { .. }
                | ResolvedKernel::Scaled { .. }
        )
    }

    /// A distance kernel's value at squared distance `d2` (NaN for the other kernels, which
    /// the Gram builders reject as non-finite).
    fn of_squared_distance(&self, d2: f64) -> f64 {
        match *self {
            ResolvedKernel::Gaussian { mu } => fmath::exp(-d2 / mu),
            ResolvedKernel::Laplacian { sigma } => fmath::exp(-d2.sqrt() / sigma),
            ResolvedKernel::Matern32 { length } => {
                let u = 3f64.sqrt() * d2.sqrt() / length;
                (1.0 + u) * fmath::exp(-u)
            }
            ResolvedKernel::Linear
            | ResolvedKernel::Polynomial { .. }
            | ResolvedKernel::Sum { .. }
            | ResolvedKernel::Product { .. }
            | ResolvedKernel::Scaled { .. } => f64::NAN,
        }
    }

    /// The n × n Gram matrix `K_ij = k(x_i, x_j)` of the rows of `x`, computed from `X Xᵀ`
    /// (one nalgebra product) for every kernel. Fails if a value is not finite.
    pub fn gram(&self, x: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        crate::budget::active().kernel("data.n", "the n × n Gram matrix", x.nrows())?;
        self.cross(x, x)
    }

    /// Row `i` of the Gram matrix of the rows of `x`, computed alone (no n × n matrix):
    /// `out[j] = k(x_i, x_j)`. `sq` holds `‖x_j‖²` (as [`Self::squared_norms`] gives). It repeats
    /// the arithmetic of [`Self::gram`] entry by entry (the same product `X x_i`, the same
    /// `‖x_j‖² + ‖x_i‖² − 2⟨x_j, x_i⟩`), so for inputs with at most 5 columns — where nalgebra
    /// forms `X Xᵀ` column by column too — the row equals column i of the stored Gram matrix
    /// bit for bit (paper C's data are 1-D or 2-D); with more columns the stored matrix comes
    /// from a blocked product and the two agree to rounding.
    pub fn gram_row_into(
        &self,
        x: &DMatrix<f64>,
        sq: &DVector<f64>,
        i: usize,
        out: &mut DVector<f64>,
    ) {
        if self.is_composite() {
            let n = out.len();
            self.combine(
                out,
                &mut |k, t| k.gram_row_into(x, sq, i, t),
                &|| DVector::zeros(n),
                &|a, b| *a += b,
                &|a, b| a.component_mul_assign(b),
                &|a, s| *a *= s,
            );
            return;
        }
        let xi: DVector<f64> = x.row(i).transpose();
        out.gemv(1.0, x, &xi, 0.0);
        self.finish_row(sq, sq[i], out);
    }

    /// The map from inner products to kernel values of [`Self::cross`], applied to a column of
    /// inner products `⟨x_j, b⟩` with `‖b‖² = sq_b`.
    fn finish_row(&self, sq: &DVector<f64>, sq_b: f64, out: &mut DVector<f64>) {
        match *self {
            ResolvedKernel::Linear
            | ResolvedKernel::Sum { .. }
            | ResolvedKernel::Product { .. }
            | ResolvedKernel::Scaled { .. } => {}
            ResolvedKernel::Polynomial { degree, offset } => {
                out.apply(|v| *v = (*v + offset).powi(degree as i32));
            }
            ResolvedKernel::Gaussian { .. }
            | ResolvedKernel::Laplacian { .. }
            | ResolvedKernel::Matern32 { .. } => {
                for (j, v) in out.iter_mut().enumerate() {
                    let d2 = fmath::max(sq[j] + sq_b - 2.0 * *v, 0.0);
                    *v = self.of_squared_distance(d2);
                }
            }
        }
    }

    /// The diagonal `k(x_i, x_i)` with the arithmetic of [`Self::gram_row_into`].
    pub fn gram_diagonal(&self, x: &DMatrix<f64>, sq: &DVector<f64>) -> DVector<f64> {
        if self.is_composite() {
            let mut out = DVector::zeros(x.nrows());
            self.combine(
                &mut out,
                &mut |k, t| *t = k.gram_diagonal(x, sq),
                &|| DVector::zeros(x.nrows()),
                &|a, b| *a += b,
                &|a, b| a.component_mul_assign(b),
                &|a, s| *a *= s,
            );
            return out;
        }
        let mut out = DVector::from_iterator(
            x.nrows(),
            x.row_iter().map(|r| {
                if r.is_empty() {
                    return 0.0;
                }
                // The product's order: x_0·x_0 first, then each further term added to the sum.
                let mut dot = 1.0 * r[0] * r[0];
                for k in 1..r.len() {
                    dot = 1.0 * r[k] * r[k] + 1.0 * dot;
                }
                dot
            }),
        );
        match *self {
            ResolvedKernel::Linear
            | ResolvedKernel::Sum { .. }
            | ResolvedKernel::Product { .. }
            | ResolvedKernel::Scaled { .. } => {}
            ResolvedKernel::Polynomial { degree, offset } => {
                out.apply(|v| *v = (*v + offset).powi(degree as i32))
            }
            ResolvedKernel::Gaussian { .. }
            | ResolvedKernel::Laplacian { .. }
            | ResolvedKernel::Matern32 { .. } => {
                for (j, v) in out.iter_mut().enumerate() {
                    let d2 = fmath::max(sq[j] + sq[j] - 2.0 * *v, 0.0);
                    *v = self.of_squared_distance(d2);
                }
            }
        }
        out
    }

    /// `‖x_j‖²` of every row, as [`Self::cross`] computes them.
    pub fn squared_norms(x: &DMatrix<f64>) -> DVector<f64> {
        DVector::from_iterator(x.nrows(), x.row_iter().map(|r| r.norm_squared()))
    }

    /// The cross-kernel matrix `K_ij = k(a_i, b_j)` between the rows of `a` (m × d) and `b` (n × d).
    /// A composite's matrix is built a block of columns at a time (each term's block, then
    /// combined), so it needs one m × n matrix and a few blocks, not one matrix per term.
    pub fn cross(&self, a: &DMatrix<f64>, b: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        if self.is_composite() {
            let mut k = kernel_matrix_zeros(a, b)?;
            let n = b.nrows();
            let width = (JOB_BLOCK_ENTRIES / a.nrows().max(1)).clamp(1, n.max(1));
            let mut start = 0;
            while start < n {
                let w = width.min(n - start);
                let rows = b.rows(start, w).into_owned();
                let mut failed = None;
                let mut block = DMatrix::zeros(a.nrows(), w);
                self.combine(
                    &mut block,
                    &mut |t, m| match t.cross(a, &rows) {
                        Ok(v) => *m = v,
                        Err(e) => failed = Some(e),
                    },
                    &|| DMatrix::zeros(a.nrows(), w),
                    &|x, y| *x += y,
                    &|x, y| x.component_mul_assign(y),
                    &|x, s| *x *= s,
                );
                if let Some(e) = failed {
                    return Err(e);
                }
                k.columns_mut(start, w).copy_from(&block);
                start += w;
            }
            if k.iter().any(|v| !v.is_finite()) {
                return Err(KpError::NonFinite("a kernel value overflowed".into()));
            }
            return Ok(k);
        }
        let n = b.nrows();
        if crate::par::threads() > 1 && a.nrows().saturating_mul(n) >= 2 * JOB_BLOCK_ENTRIES {
            // Blocks of columns in parallel, each exactly as a `CrossJob` block (the same bits as
            // the sequential matrix, tested by tests/threads.rs).
            let mut k = kernel_matrix_zeros(a, b)?;
            let m = a.nrows();
            let width = n.div_ceil(4 * crate::par::threads()).max(1);
            // Column-major: the columns [s, s + w) of K are one contiguous chunk.
            let results = crate::par::for_each_chunk(k.as_mut_slice(), width * m, |c, chunk| {
                let (s, w) = (c * width, chunk.len() / m);
                let block = self.cross_plain(a, &b.rows(s, w).into_owned())?;
                chunk.copy_from_slice(block.as_slice());
                Ok(())
            });
            results.into_iter().collect::<Result<Vec<()>>>()?;
            return Ok(k);
        }
        self.cross_plain(a, b)
    }

    /// [`Self::cross`] of a kernel that is not composite, on one thread.
    fn cross_plain(&self, a: &DMatrix<f64>, b: &DMatrix<f64>) -> Result<DMatrix<f64>> {
        // Then the same product `a bᵀ` nalgebra's `*` computes.
        let mut k = kernel_matrix_zeros(a, b)?;
        k.gemm(1.0, a, &b.transpose(), 0.0);
        match *self {
            ResolvedKernel::Linear
            | ResolvedKernel::Sum { .. }
            | ResolvedKernel::Product { .. }
            | ResolvedKernel::Scaled { .. } => {}
            ResolvedKernel::Polynomial { degree, offset } => {
                k.apply(|v| *v = (*v + offset).powi(degree as i32));
            }
            ResolvedKernel::Gaussian { .. }
            | ResolvedKernel::Laplacian { .. }
            | ResolvedKernel::Matern32 { .. } => {
                let na: DVector<f64> =
                    DVector::from_iterator(a.nrows(), a.row_iter().map(|r| r.norm_squared()));
                let nb: DVector<f64> =
                    DVector::from_iterator(b.nrows(), b.row_iter().map(|r| r.norm_squared()));
                for j in 0..k.ncols() {
                    for i in 0..k.nrows() {
                        let d2 = fmath::max(na[i] + nb[j] - 2.0 * k[(i, j)], 0.0);
                        k[(i, j)] = self.of_squared_distance(d2);
                    }
                }
            }
        }
        if k.iter().any(|v| !v.is_finite()) {
            return Err(KpError::NonFinite("a kernel value overflowed".into()));
        }
        Ok(k)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| u * v).sum()
}

/// Columns of a [`CrossJob`] computed per block: about this many kernel entries.
pub(crate) const JOB_BLOCK_ENTRIES: usize = 1 << 15;
