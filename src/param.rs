//! One numeric parameter of a catalogue entry (a loss's ε, a kernel's σ), declared once: the
//! spec's field, the page's field, the symbol, its range and default. The loss and kernel
//! catalogues ([`crate::losses`], [`crate::kernels`]) list theirs with this one type, and the
//! pages build their fields from the exported catalogues.

use serde::Serialize;

/// One numeric parameter, declared once (name, range, default) for checks and the pages' fields.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Parameter {
    /// The field of the spec object (`{"kind": "laplacian", "sigma": 0.5}`).
    pub name: &'static str,
    /// The id of the page field that holds it (a loss's is its name; a kernel's is shared by
    /// pages B, C and D, e.g. `lap-sigma`).
    pub field: &'static str,
    /// The field path an error names (`loss.eps`, `kernel.sigma`).
    pub path: &'static str,
    /// The symbol a page shows (ε, ρ, σ).
    pub symbol: &'static str,
    /// What it means, one line (a page's tooltip).
    pub doc: &'static str,
    /// The lower bound.
    pub min: f64,
    /// Whether the lower bound itself is excluded (`> min` rather than `≥ min`).
    pub min_exclusive: bool,
    /// A whole number (the polynomial degree).
    pub integer: bool,
    /// The value of the catalogue's entry and a page's initial field.
    pub default: f64,
}

impl Parameter {
    /// Whether `v` is a finite number in range (and whole, for an integer parameter).
    pub fn accepts(&self, v: f64) -> bool {
        v.is_finite()
            && (if self.min_exclusive { v > self.min } else { v >= self.min })
            && (!self.integer || v.fract() == 0.0)
    }
}
