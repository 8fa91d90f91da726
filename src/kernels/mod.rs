//! Pair kernels `k(x, x')` and their Gram matrices, shared by papers B, C and D, and their
//! algebra: sums, products and positive scalings of kernels are kernels (the sum of positive
//! semi-definite matrices is one, and so is their entrywise product by Schur's product theorem),
//! as scikit-learn's kernel algebra allows. Composites are ours, in none of the papers.
//!
//! One file per kernel (issue 34): each is a type implementing [`KernelDef`] (its catalogue
//! entry, checks, expression text) whose checked form implements [`ResolvedDef`] (the function
//! of `⟨x, x'⟩` or of `‖x − x'‖²` it is); neither trait has a default method. The one list is
//! `catalogue!` below: a line per kernel, from which [`Kernel`], [`ResolvedKernel`],
//! [`Kernel::ALL`] and every dispatch from the enums to the files are generated, so a new kernel
//! is its file and one line there. Everything else here (Gram rows, cross matrices in blocks,
//! composites) is written once for every kernel over [`ResolvedDef`].

#[cfg(test)]
mod catalogue_tests;
mod def;
pub mod expr;
pub mod schema;

pub use def::{
    bandwidth_heuristic, Argument, Bandwidth, KernelDef, KernelInfo, Parameter, ResolvedDef,
};

use std::fmt;

use crate::fmath;
use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::error::{KpError, Result};
use crate::exec::{run_task_for, Progress, Task};

/// The catalogue's one list: `Variant(file::Type)`, one line per kernel (a `#[cfg(test)]` line
/// for a test-only kernel). The variant's snake_case name is the spec's `kind`.
macro_rules! catalogue {
    ($($(#[cfg($c:meta)])? $V:ident($file:ident::$T:ident),)*) => {
        $($(#[cfg($c)])? mod $file;)*
        $($(#[cfg($c)])? pub use $file::$T;)*

        /// A positive semi-definite pair kernel: one of the catalogue's, or a sum, product or
        /// positive scaling of kernels (`{"kind": "sum", "of": [k₁, k₂]}`, `{"kind": "scaled",
        /// "scale": 2, "of": k}`; written `k₁ + k₂`, `2·k` in [`expr`]). Every variant is a
        /// struct (a catalogue kernel's own), so an unknown field is an error naming it.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
        pub enum Kernel {
            $(
                $(#[cfg($c)])?
                #[doc = concat!("[`", stringify!($T), "`].")]
                $V($T),
            )*
            /// `k(x, x') = Σ_t k_t(x, x')`: 2 to [`MAX_TERMS`] kernels.
            Sum { of: Vec<Kernel> },
            /// `k(x, x') = Π_t k_t(x, x')`: 2 to [`MAX_TERMS`] kernels.
            Product { of: Vec<Kernel> },
            /// `k(x, x') = s·k₀(x, x')` with `s > 0` finite.
            Scaled { scale: f64, of: Box<Kernel> },
        }

        /// A kernel with every parameter checked and the Gaussian bandwidth resolved to a
        /// number (serialized as `{"kind": "gaussian", "mu": …}`, what `kplay run` reports);
        /// composites hold their resolved terms.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum ResolvedKernel {
            $(
                $(#[cfg($c)])?
                #[doc = concat!("[`", stringify!($T), "`], checked.")]
                $V(<$T as KernelDef>::Resolved),
            )*
            /// The terms' sum.
            Sum { of: Vec<ResolvedKernel> },
            /// The terms' product.
            Product { of: Vec<ResolvedKernel> },
            /// `s·k₀`.
            Scaled { scale: f64, of: Box<ResolvedKernel> },
        }

        impl Kernel {
            /// Every catalogue kernel, with a page's default parameters.
            pub const ALL: &'static [Kernel] =
                &[$($(#[cfg($c)])? Kernel::$V(<$T as KernelDef>::DEFAULT),)*];

            /// What this kernel is and needs (a composite's entry names its operation).
            pub fn info(&self) -> KernelInfo {
                match self {
                    $($(#[cfg($c)])? Kernel::$V(k) => k.info(),)*
                    Kernel::Sum { .. } => composite_info("sum", "k₁ + k₂ + …"),
                    Kernel::Product { .. } => composite_info("product", "k₁ · k₂ · …"),
                    Kernel::Scaled { .. } => composite_info("scaled", "s · k, s > 0"),
                }
            }

            /// [`Self::resolve`] once the composite's size is checked.
            fn resolve_checked(&self, x: &DMatrix<f64>) -> Result<ResolvedKernel> {
                match self {
                    $($(#[cfg($c)])? Kernel::$V(k) => k.resolve(x).map(ResolvedKernel::$V),)*
                    Kernel::Sum { .. } | Kernel::Product { .. } | Kernel::Scaled { .. } => {
                        self.resolve_composite(x)
                    }
                }
            }

            /// The same catalogue kernel with other parameter values ([`KernelDef::from_values`]);
            /// `None` for a composite.
            pub(crate) fn with_values(&self, values: &[f64], bandwidth: Bandwidth) -> Option<Kernel> {
                match self {
                    $($(#[cfg($c)])? Kernel::$V(_) => {
                        Some(Kernel::$V(<$T as KernelDef>::from_values(values, bandwidth)))
                    })*
                    Kernel::Sum { .. } | Kernel::Product { .. } | Kernel::Scaled { .. } => None,
                }
            }

        }

        impl fmt::Display for Kernel {
            /// The expression [`expr::parse`] reads back to this kernel.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $($(#[cfg($c)])? Kernel::$V(k) => k.write(f),)*
                    Kernel::Sum { .. } | Kernel::Product { .. } | Kernel::Scaled { .. } => {
                        write_composite(self, f)
                    }
                }
            }
        }

        impl ResolvedKernel {
            /// `v` applied to the catalogue kernel, its type known at compile time (so the
            /// kernel's function inlines into the Gram loops), or to the composite.
            fn visit<V: Visit>(&self, v: V) -> V::Out {
                match self {
                    $($(#[cfg($c)])? ResolvedKernel::$V(r) => v.leaf(r),)*
                    ResolvedKernel::Sum { .. }
                    | ResolvedKernel::Product { .. }
                    | ResolvedKernel::Scaled { .. } => v.composite(self),
                }
            }
        }
    };
}

catalogue! {
    Linear(linear::Linear),
    Polynomial(polynomial::Polynomial),
    Gaussian(gaussian::Gaussian),
    Laplacian(laplacian::Laplacian),
    Matern32(matern32::Matern32),
    #[cfg(test)] TestImq(test_imq::TestImq),
}

pub use gaussian::ResolvedGaussian;

/// Something done with a catalogue kernel whose type is known at compile time
/// ([`ResolvedKernel::visit`]).
trait Visit {
    /// What it gives.
    type Out;
    /// Do it with the catalogue kernel `r`.
    fn leaf<R: ResolvedDef>(self, r: &R) -> Self::Out;
    /// Do it with a sum, product or scaling of kernels.
    fn composite(self, k: &ResolvedKernel) -> Self::Out;
}

/// Inner products turned into kernel values in place: `norms(j)` gives the two squared norms
/// of entry `j` in the order the distance adds them (`‖a‖² + ‖b‖² − 2⟨a, b⟩`).
struct MapProducts<'a, F: Fn(usize) -> (f64, f64)> {
    values: &'a mut [f64],
    norms: F,
}

impl<F: Fn(usize) -> (f64, f64)> Visit for MapProducts<'_, F> {
    type Out = ();
    #[inline(always)]
    fn leaf<R: ResolvedDef>(self, r: &R) {
        match r.argument() {
            Argument::InnerProduct => {
                for v in self.values.iter_mut() {
                    *v = r.of(*v);
                }
            }
            Argument::SquaredDistance => {
                for (j, v) in self.values.iter_mut().enumerate() {
                    let (a, b) = (self.norms)(j);
                    let d2 = fmath::max(a + b - 2.0 * *v, 0.0);
                    *v = r.of(d2);
                }
            }
        }
    }
    /// Not reached: the Gram builders combine a composite's terms first. The values become
    /// NaN, which every builder refuses as non-finite.
    fn composite(self, _k: &ResolvedKernel) {
        self.values.fill(f64::NAN);
    }
}

/// `k(a, b)` of a catalogue kernel, from its argument computed directly.
struct Eval<'a> {
    a: &'a [f64],
    b: &'a [f64],
}

impl Visit for Eval<'_> {
    type Out = f64;
    fn leaf<R: ResolvedDef>(self, r: &R) -> f64 {
        match r.argument() {
            Argument::InnerProduct => r.of(dot(self.a, self.b)),
            Argument::SquaredDistance => {
                r.of(self.a.iter().zip(self.b).map(|(u, v)| (u - v) * (u - v)).sum())
            }
        }
    }
    fn composite(self, k: &ResolvedKernel) -> f64 {
        match k {
            ResolvedKernel::Sum { of } => of.iter().map(|t| t.eval(self.a, self.b)).sum(),
            ResolvedKernel::Product { of } => of.iter().map(|t| t.eval(self.a, self.b)).product(),
            ResolvedKernel::Scaled { scale, of } => scale * of.eval(self.a, self.b),
            leaf => leaf.visit(self),
        }
    }
}

/// Conveniences for writing a catalogue kernel in code (a new kernel needs none).
impl Kernel {
    /// `⟨x, x'⟩`.
    pub const fn linear() -> Kernel {
        Kernel::Linear(Linear {})
    }
    /// `(⟨x, x'⟩ + offset)^degree`.
    pub const fn polynomial(degree: u32, offset: f64) -> Kernel {
        Kernel::Polynomial(Polynomial { degree, offset })
    }
    /// `exp(−‖x − x'‖²/μ)`.
    pub const fn gaussian(bandwidth: Bandwidth) -> Kernel {
        Kernel::Gaussian(Gaussian { bandwidth })
    }
    /// `exp(−‖x − x'‖/σ)`.
    pub const fn laplacian(sigma: f64) -> Kernel {
        Kernel::Laplacian(Laplacian { sigma })
    }
    /// Matérn 3/2 with length scale ℓ.
    pub const fn matern32(length: f64) -> Kernel {
        Kernel::Matern32(Matern32 { length })
    }
}

/// At most this many catalogue kernels in one composite (a lecturer's `k₁ + k₂·k₃` has three).
pub const MAX_TERMS: usize = 8;
/// At most this nesting depth of sums, products and scalings.
pub const MAX_DEPTH: usize = 4;

/// A sum, product or scaling written as the expression [`expr::parse`] reads back (the `Display`
/// of [`Kernel`] for composites; a catalogue kernel writes itself, [`super::KernelDef::write`]).
pub(crate) fn write_composite(k: &Kernel, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let grouped = |k: &Kernel, f: &mut fmt::Formatter<'_>, paren: bool| {
        if paren {
            write!(f, "({k})")
        } else {
            write!(f, "{k}")
        }
    };
    match k {
        Kernel::Sum { of } => {
            for (i, k) in of.iter().enumerate() {
                if i > 0 {
                    write!(f, " + ")?;
                }
                grouped(k, f, matches!(k, Kernel::Sum { .. }))?;
            }
            Ok(())
        }
        Kernel::Product { of } => {
            for (i, k) in of.iter().enumerate() {
                if i > 0 {
                    write!(f, " · ")?;
                }
                grouped(k, f, k.is_composite())?;
            }
            Ok(())
        }
        Kernel::Scaled { scale, of } => {
            write!(f, "{scale}·")?;
            grouped(of, f, of.is_composite())
        }
        leaf => write!(f, "{leaf}"),
    }
}

/// A composite's catalogue entry: its operation.
fn composite_info(kind: &'static str, formula: &'static str) -> KernelInfo {
    KernelInfo {
        kind,
        label: kind,
        formula,
        pair: true,
        needs_bandwidth: false,
        parameters: &[],
        bandwidth: false,
    }
}

/// The catalogue as JSON text: each kernel's [`KernelInfo`] (kind, label, formula,
/// capabilities, parameters with ranges and defaults), from which pages B, C and D build their
/// kernel selects and fields (the wasm export `kernelCatalogue()`).
pub fn catalogue_json() -> String {
    let info: Vec<_> = Kernel::ALL.iter().map(|k| k.info()).collect();
    serde_json::to_string(&info).unwrap_or_else(|_| "[]".into())
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
            _catalogue_kernel => (1, 0),
        }
    }

    /// Whether this is a sum, product or scaling of kernels.
    pub fn is_composite(&self) -> bool {
        matches!(self, Kernel::Sum { .. } | Kernel::Product { .. } | Kernel::Scaled { .. })
    }

    /// A composite's terms resolved, each error naming its term.
    fn resolve_composite(&self, x: &DMatrix<f64>) -> Result<ResolvedKernel> {
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
            leaf => leaf.resolve_checked(x),
        }
    }
}

impl ResolvedKernel {
    /// `k(a, b)` for two input vectors of equal length.
    pub fn eval(&self, a: &[f64], b: &[f64]) -> f64 {
        self.visit(Eval { a, b })
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
        self.visit(MapProducts { values: out.as_mut_slice(), norms: |j| (sq[j], sq_b) });
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
        let sq = sq.as_slice();
        self.visit(MapProducts { values: out.as_mut_slice(), norms: |j| (sq[j], sq[j]) });
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
        let na: DVector<f64> =
            DVector::from_iterator(a.nrows(), a.row_iter().map(|r| r.norm_squared()));
        let nb: DVector<f64> =
            DVector::from_iterator(b.nrows(), b.row_iter().map(|r| r.norm_squared()));
        // Column-major: column j of K is the j-th chunk of m values.
        let m = a.nrows().max(1);
        for (j, values) in k.as_mut_slice().chunks_mut(m).enumerate() {
            let nbj = nb[j];
            self.visit(MapProducts { values, norms: |i| (na[i], nbj) });
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

// ---- CrossJob (in this file, not a child module: it holds a `ResolvedKernel`, which the
// catalogue list above generates here, so a child would import its parent — a cycle).
// [`CrossJob`]: a cross-kernel (or Gram) matrix built a block of columns at a time (a page's
// slices), run to its end on every thread ([`CrossJob::run_to_end`], a worker's), or adopted
// from values computed elsewhere after a spot check ([`CrossJob::adopt`], issue 21 §3).

/// A cross-kernel (or Gram) matrix computed a block of columns at a time, so a page can spread
/// an n × n build over animation frames instead of blocking its main thread (issue #13: no task
/// over 200 ms). Each block is [`ResolvedKernel::cross`] of the rows of `a` against a block of
/// rows of `b`, so the result is bit-identical to `cross(a, b)` (tested).
#[derive(Debug, Clone)]
pub struct CrossJob {
    kernel: ResolvedKernel,
    a: DMatrix<f64>,
    b: DMatrix<f64>,
    k: DMatrix<f64>,
    done: usize,
}

impl CrossJob {
    /// The `m × n` cross kernel of the rows of `a` against the rows of `b`; the budget is
    /// checked before the matrix is allocated.
    pub fn new(kernel: ResolvedKernel, a: DMatrix<f64>, b: DMatrix<f64>) -> Result<Self> {
        let k = kernel_matrix_zeros(&a, &b)?;
        Ok(Self { kernel, a, b, k, done: 0 })
    }

    /// The n × n Gram matrix of the rows of `x` (the budget's kernel limit applies, as for
    /// [`ResolvedKernel::gram`]).
    pub fn gram(kernel: ResolvedKernel, x: DMatrix<f64>) -> Result<Self> {
        crate::budget::active().kernel("data.n", "the n × n Gram matrix", x.nrows())?;
        Self::new(kernel, x.clone(), x)
    }

    /// Compute blocks of columns until done or `budget_ms` has elapsed (at least one block; the
    /// executor's slicing, [`run_task_for`]); returns whether the matrix is complete. Fails (and
    /// stays failed) on a non-finite value.
    pub fn advance(&mut self, budget_ms: f64) -> Result<bool> {
        run_task_for(self, budget_ms)?;
        Ok(self.is_done())
    }

    /// Compute every column not yet computed, in one call: on [`crate::par::threads`] threads
    /// blocks of columns in parallel, each exactly as [`ResolvedKernel::cross`] builds it, so the
    /// matrix has the same bits as the sliced one for any thread count (tests/threads.rs). For a
    /// worker, whose threads may block (a page's main thread keeps [`Self::advance`]).
    pub fn run_to_end(&mut self) -> Result<()> {
        let (m, n) = (self.a.nrows(), self.b.nrows());
        let threads = crate::par::threads();
        if threads > 1 && m > 0 && self.done < n && !self.kernel.is_composite() {
            let s0 = self.done;
            let width = (n - s0).div_ceil(4 * threads).max(1);
            let (kernel, a, b) = (&self.kernel, &self.a, &self.b);
            // Column-major: the columns [s, s + w) of K are one contiguous chunk.
            let rest = &mut self.k.as_mut_slice()[s0 * m..];
            let results = crate::par::for_each_chunk(rest, width * m, |c, chunk| {
                let (s, w) = (s0 + c * width, chunk.len() / m);
                let block = kernel.cross_plain(a, &b.rows(s, w).into_owned())?;
                chunk.copy_from_slice(block.as_slice());
                Ok(())
            });
            results.into_iter().collect::<Result<Vec<()>>>()?;
            self.done = n;
        }
        while !self.advance(f64::INFINITY)? {}
        Ok(())
    }

    /// The matrix's entries (column-major) once complete, e.g. to hand them to a page.
    pub fn values(&self) -> Option<&[f64]> {
        self.is_done().then(|| self.k.as_slice())
    }

    /// Take the whole matrix from `len` values (column-major) that `fill` writes into the
    /// job's own storage, allocated and budget-checked when the job was made, so adopting
    /// allocates nothing: `len` must be `m·n`. The values must be the ones this job computes:
    /// they are checked to be finite and one block of columns (in the middle) is recomputed
    /// here and compared bit for bit. On any failure the job starts over from column 0 (the
    /// caller continues in slices) and the error says why.
    pub fn adopt(&mut self, len: usize, fill: impl FnOnce(&mut [f64])) -> Result<()> {
        let (m, n) = (self.a.nrows(), self.b.nrows());
        if len != m.saturating_mul(n) {
            return Err(KpError::Parameter {
                name: "kernel values",
                reason: format!("{len} values handed over for a {m} × {n} matrix"),
            });
        }
        fill(self.k.as_mut_slice());
        let width = (JOB_BLOCK_ENTRIES / m.max(1)).clamp(1, n.max(1));
        let s = (n - width.min(n)) / 2;
        let checked = if self.k.iter().any(|v| !v.is_finite()) {
            Err(KpError::NonFinite("a kernel value handed over is not finite".into()))
        } else if n == 0 {
            Ok(())
        } else {
            let w = width.min(n - s);
            let block = self.kernel.cross(&self.a, &self.b.rows(s, w).into_owned())?;
            let same = block
                .as_slice()
                .iter()
                .zip(self.k.columns(s, w).iter())
                .all(|(u, v)| u.to_bits() == v.to_bits());
            if same {
                Ok(())
            } else {
                Err(KpError::Parameter {
                    name: "kernel values",
                    reason: format!(
                        "the values handed over differ from this build's in columns {s}..{}",
                        s + w
                    ),
                })
            }
        };
        self.done = if checked.is_ok() { n } else { 0 };
        checked
    }

    /// Whether every column has been computed.
    pub fn is_done(&self) -> bool {
        self.done == self.b.nrows()
    }

    /// The fraction of columns computed, in [0, 1].
    pub fn fraction(&self) -> f64 {
        if self.b.nrows() == 0 {
            1.0
        } else {
            self.done as f64 / self.b.nrows() as f64
        }
    }

    /// Run to the end and return the matrix.
    pub fn finish(self) -> Result<DMatrix<f64>> {
        Ok(self.into_parts()?.1)
    }

    /// Run to the end and return the rows of `a` with the matrix.
    pub fn into_parts(mut self) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
        while !self.advance(f64::INFINITY)? {}
        Ok((self.a, self.k))
    }
}

impl Task for CrossJob {
    type Error = KpError;
    /// One block of columns (about [`JOB_BLOCK_ENTRIES`] entries); done once every column is.
    fn unit(&mut self) -> Result<Progress> {
        let (m, n) = (self.a.nrows(), self.b.nrows());
        if self.done >= n {
            return Ok(Progress::Done);
        }
        let width = (JOB_BLOCK_ENTRIES / m.max(1)).clamp(1, n.max(1));
        let w = width.min(n - self.done);
        let rows = self.b.rows(self.done, w).into_owned();
        let block = self.kernel.cross(&self.a, &rows)?;
        self.k.columns_mut(self.done, w).copy_from(&block);
        self.done += w;
        Ok(Progress::More)
    }
}
