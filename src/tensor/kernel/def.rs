//! What one of paper A's tensor kernels is, declared by the kernel's own file ([`TensorKernelDef`],
//! no default method, so a new tensor kernel decides each).

use serde::Serialize;

use crate::error::Result;
pub use crate::param::Parameter;

/// A tensor kernel's catalogue entry, for a page's kernel select and fields.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TensorKernelInfo {
    /// The spec's `kind`.
    pub kind: &'static str,
    /// The name a page shows.
    pub label: &'static str,
    /// `K(x'_1, …, x'_q)` written with `s = sum(x'_1 ⊙ ⋯ ⊙ x'_q)`.
    pub formula: &'static str,
    /// Its parameters (name, symbol, range, default).
    pub parameters: &'static [Parameter],
    /// A finite feature map: the features path (Remark 2.5) can solve with it.
    pub finite_features: bool,
}

/// One tensor kernel `K(x'_1, …, x'_q) = g(sum(x'_1 ⊙ ⋯ ⊙ x'_q))` of paper A, Section 2.2, in
/// its own file. Every method is required.
pub trait TensorKernelDef: Sized {
    /// The kernel with a page's default parameters (an entry of
    /// [`TensorKernel::ALL`](super::TensorKernel::ALL)).
    const DEFAULT: Self;
    /// Kind, label, formula, parameters.
    fn info(&self) -> TensorKernelInfo;
    /// Check its parameters (an error naming the field, `kernel.degree`).
    fn check(&self) -> Result<()>;
    /// The scalar function `g`.
    fn link(&self, s: f64) -> f64;
    /// The degree of its monomial features (Section 2.2: `C(d + s − 1, s)` of them), or why it
    /// has no finite feature map.
    fn features(&self) -> std::result::Result<usize, &'static str>;
    /// Its feature map is the identity (the linear kernel): the features path needs no q and
    /// the primal weights live in the input space (Theorem 2.1).
    fn identity_features(&self) -> bool;
    /// What to do when a value overflows (the build's message).
    fn overflow_hint(&self) -> String;
    /// A short name with its parameters, part of the key a built tensor is shared under.
    fn key(&self) -> String;
}
