//! The compacted active set of the greedy rule ([`Compact`]): a field of
//! [`CoordinateDescent`](super::CoordinateDescent), so in a file of its own — `greedy.rs`, which
//! implements the greedy steps on `CoordinateDescent`, imports `mod.rs`, and `mod.rs` imports
//! this file only (issue 34: no parent ⇄ child import cycle).

/// The greedy rule's active coordinates side by side once shrinking has set some aside
/// (libsvm keeps its active variables at the front of its arrays): position k holds index
/// `idx[k]`'s label, `1/k_ii`, coefficient, prediction and step.
#[derive(Debug, Clone)]
pub(super) struct Compact {
    pub(super) idx: Vec<usize>,
    pub(super) y: Vec<f64>,
    pub(super) inv: Vec<f64>,
    /// `k_jj` (greedy pairs only; empty otherwise).
    pub(super) kd: Vec<f64>,
    pub(super) c: Vec<f64>,
    pub(super) z: Vec<f64>,
    pub(super) h: Vec<f64>,
}
