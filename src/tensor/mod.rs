//! Tensor kernels and the Gram tensor of paper A (Salzo, Suykens, Rosasco), Sections 2.2–2.3.
//!
//! For an even `q` (here q = 4, p = 4/3 and q = 6, p = 6/5) a tensor kernel is
//! `K(x'_1, …, x'_q) = Σ_k φ_k(x'_1)⋯φ_k(x'_q)` (eq. 16), and the smooth part of the dual is
//! `P(α) = (1/q)‖Φ_n*α‖_q^q = (1/q) Σ_{i1..iq} K(x_{i1}, …, x_{iq}) α_{i1}⋯α_{iq}` (eq. 15).
//!
//! * [`TensorKernel`] / [`TensorKernelConfig`]: linear, polynomial of degree s, exponential,
//!   validated together with q.
//! * [`GramTensor`]: the Gram tensor stored once per symmetry class, i.e. one value per sorted
//!   tuple `i1 ≤ … ≤ iq`, `C(n+q−1, q)` values in colex order ([`rank`] is the combinatorial
//!   number system). Built by the steppable [`GramTensorBuild`] after a cost estimate
//!   ([`estimate_cost`]) and a memory budget check. It implements
//!   [`DualPolynomial`](crate::lp::DualPolynomial): value, gradient `ω` and Hessian in one pass
//!   each over the symmetry classes.
//! * [`TensorPredictor`]: the estimator of Remark 2.4 (eq. 17), with grid helpers for plots.
//! * [`tensor_features`]: the explicit finite feature map of the linear and polynomial tensor
//!   kernels (Section 2.2, Table 2), for the features path of Remark 2.5.
//!
//! Storage order: the block of tuples sharing the "suffix" `(i3, …, iq)` is contiguous, and in it
//! the pair `(i1 ≤ i2 ≤ i3)` sits at `i2(i2+1)/2 + i1`. A block is one matrix product
//! `X_{0..=i3} diag(x_{i3}⊙⋯⊙x_{iq}) X_{0..=i3}ᵀ` (nalgebra/matrixmultiply), and every pass of
//! [`DualPolynomial`](crate::lp::DualPolynomial) walks the blocks with the multiplicity (the
//! number of ordered tuples in the class) of each entry known from the block's suffix.

pub mod kernel;
pub use kernel::{TensorKernel, TensorKernelDef, TensorKernelInfo, MAX_DEGREE};

mod classes;
mod config;
mod cost;
pub use classes::{binomial, multiplicity, rank, symmetry_classes, unrank};
pub use config::{TensorKernelConfig, DEFAULT_MEMORY_BUDGET};
pub use cost::{estimate_cost, TensorCost};

// ---------------------------------------------------------------------------------------------
mod gram;
mod predict;
pub use gram::{BuildProgress, GramTensor, GramTensorBuild};
pub use predict::{
    feature_count, feature_monomials, feature_polynomial, tensor_features, Grid1d, Grid2d,
    TensorPredictor, MAX_GRID_POINTS,
};
