//! The papers' synthetic data sets, each seeded with [`crate::rng::Rng`] and drawn through the
//! pure-Rust `libm`, so a seed gives bit-identical data natively and in wasm. Paper A's sparse
//! regression generator and CSV import live in [`crate::data`].
//!
//! * [`blobs`]: two Gaussian blobs with ±1 labels (paper A's margin losses).
//! * [`regression`]: paper B's synthetic set (Friedman #1, §5.3) and a 1-D sine.
//! * [`plane`]: 2-D classification shapes, clicked points and 1-D regression data for the
//!   decision pictures of papers C and D.

pub mod blobs;
pub mod plane;
pub mod regression;
