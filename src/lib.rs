//! Kernel Playground: the solvers of four papers on kernel methods, as a plain Rust core
//! (data, kernels, losses, the algorithms in [`solvers`], the executor that runs them in
//! [`exec`], each paper as `Spec → Checked → Session` in [`papers`], plots) with a thin wasm
//! shell (`web`, wasm32 only) and the native `kplay` CLI, both driven through [`papers`].
//!
//! | paper | spec | algorithms | run, race, plot |
//! | --- | --- | --- | --- |
//! | A — Salzo, Suykens, Rosasco: ℓp regularization in the dual with tensor kernels | [`papers::lp::LpSpec`] | Algorithm 2.1 ([`solvers::dual_lp`]), Algorithm 3.3 ([`solvers::prox_dual`]), dual Newton (ours, [`solvers::dual_newton`]), primal GD and FISTA ([`solvers::primal`]); Gram tensors ([`tensor`]), duality maps ([`lp`]) | [`papers::lp::run`] |
//! | B — Audiffren, Kadri: M-RLSR and its weak equivalence with kernel ridge | [`papers::mrlsr::MrlsrSpec`] | Theorem 1's eigendecomposition and root solve for C₀ ([`solvers::mrlsr`]), cross-validation ([`papers::mrlsr::cv`]) | [`papers::mrlsr::run`] |
//! | C — Dinuzzo: fixed-point and coordinate-descent solvers | [`papers::dinuzzo::DinuzzoSpec`] | the fixed point, eq. 10 ([`solvers::fixed_point`]), coordinate descent, Algorithms 1–2, and greedy pairs (ours, [`solvers::coordinate`]) | [`papers::dinuzzo::run`] |
//! | D — Ramdas, Peña: smoothed kernel perceptrons and von Neumann certificates | [`papers::perceptron::PerceptronSpec`] | Algorithms 1–7 ([`solvers::perceptron`]), the margin ρ_K ([`solvers::perceptron::margin`]) | [`papers::perceptron::run`] |
//!
//! Shared: [`spec_json`] (the `paper` tag, strict parsing), [`losses`] and [`kernels`] (the
//! catalogues), [`budget`] (memory checked before allocating), [`clock`] (time slices and the
//! CLI's deadline), [`data`] and [`datasets`] (seeded generators, CSV), [`plots`] (plotters).
//! The layers and what may import what: docs/design.md.

pub mod budget;
pub mod catalogue;
pub mod clock;
pub mod data;
pub mod datasets;
pub mod error;
pub mod exec;
pub mod fmath;
pub mod kernels;
pub mod lesson;
pub mod losses;
pub mod lp;
pub mod papers;
pub mod par;
pub mod param;
pub mod plots;
pub mod rng;
pub mod schema;
pub mod solvers;
pub mod spec_diff;
pub mod spec_json;
pub mod tensor;

#[cfg(target_arch = "wasm32")]
pub mod web;

pub use error::{KpError, Result};
