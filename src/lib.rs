//! Kernel Playground: the solvers of four papers on kernel methods, as a plain Rust core
//! (data, kernels, losses, solvers, experiment description, plots) with a thin wasm shell.
//!
//! * Paper A — Salzo, Suykens, Rosasco: ℓp regularization solved in the dual
//!   ([`solvers::dual_lp`]).

pub mod budget;
pub mod clock;
pub mod cv;
pub mod data;
pub mod datasets;
pub mod engine;
pub mod error;
pub mod fmath;
pub mod job;
pub mod kernels;
pub mod losses;
pub mod lp;
pub mod lp_experiment;
pub mod margin;
pub mod plot;
pub mod plot_dinuzzo;
pub mod plot_mrlsr;
pub mod plot_perceptron;
pub mod plot_style;
pub mod rng;
pub mod simplex;
pub mod solvers;
pub mod tensor;
pub mod testbeds;

#[cfg(target_arch = "wasm32")]
pub mod web;

pub use error::{KpError, Result};
