//! Paper A's tensor kernels (Section 2.2), one file each behind [`TensorKernelDef`] (no default
//! method): linear, polynomial of degree s, exponential. This file lists them: the spec's enum
//! [`TensorKernel`], [`TensorKernel::ALL`] and the one dispatch `def!` from the enum to the
//! kernel's file (a new tensor kernel: its file and one line in each of the three, the compiler
//! naming each that is missing).

mod def;
mod exponential;
mod linear;
mod polynomial;

pub use def::{TensorKernelDef, TensorKernelInfo};
pub use polynomial::MAX_DEGREE;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use exponential::Exponential;
use linear::Linear;
use polynomial::Polynomial;

/// A tensor kernel of paper A, Section 2.2 (`x'_1 ⊙ ⋯ ⊙ x'_q` is the componentwise product).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TensorKernel {
    /// Linear tensor kernel `K = Σ_k x'_1k ⋯ x'_qk = sum(x'_1 ⊙ ⋯ ⊙ x'_q)` (eq. 13).
    Linear,
    /// Polynomial tensor kernel of degree s ≥ 1: `K = (sum(x'_1 ⊙ ⋯ ⊙ x'_q))^s`.
    Polynomial { degree: u32 },
    /// Exponential tensor kernel `K = exp(sum(x'_1 ⊙ ⋯ ⊙ x'_q))` (infinite feature map).
    Exponential,
}

/// Run `$body` with `$d` bound to the [`TensorKernelDef`] of `$k`: the one dispatch from the
/// spec's enum to the kernel's file (static, so `link` inlines into the build's loop).
macro_rules! def {
    ($k:expr, $d:ident => $body:expr) => {
        match $k {
            TensorKernel::Linear => {
                let $d = Linear;
                $body
            }
            TensorKernel::Polynomial { degree } => {
                let $d = Polynomial { degree };
                $body
            }
            TensorKernel::Exponential => {
                let $d = Exponential;
                $body
            }
        }
    };
}

impl TensorKernel {
    /// Every tensor kernel, with a page's default parameters.
    pub const ALL: [TensorKernel; 3] =
        [TensorKernel::Linear, TensorKernel::Polynomial { degree: 2 }, TensorKernel::Exponential];

    /// Kind, label, formula, parameters.
    pub fn info(&self) -> TensorKernelInfo {
        def!(*self, d => d.info())
    }
    /// Check its parameters (an error naming the field).
    pub fn check(&self) -> Result<()> {
        def!(*self, d => d.check())
    }
    /// The scalar function g with `K = g(sum(x'_1 ⊙ ⋯ ⊙ x'_q))`.
    #[inline]
    pub fn link(&self, s: f64) -> f64 {
        def!(*self, d => d.link(s))
    }
    /// The degree of its monomial features, or why it has no finite feature map.
    pub fn features(&self) -> std::result::Result<usize, &'static str> {
        def!(*self, d => d.features())
    }
    /// Its feature map is the identity (the linear kernel).
    pub fn identity_features(&self) -> bool {
        def!(*self, d => d.identity_features())
    }
    /// What to do when a value overflows.
    pub fn overflow_hint(&self) -> String {
        def!(*self, d => d.overflow_hint())
    }
    /// A short name with its parameters (`polynomial-2`).
    pub fn key(&self) -> String {
        def!(*self, d => d.key())
    }
}

/// The tensor-kernel catalogue as JSON text: each kernel's [`TensorKernelInfo`].
pub fn catalogue_json() -> String {
    let info: Vec<_> = TensorKernel::ALL.iter().map(|k| k.info()).collect();
    serde_json::to_string(&info).unwrap_or_else(|_| "[]".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry's kind is the spec's tag, and the catalogue says what the files decide.
    #[test]
    fn the_catalogue_matches_the_spec_and_the_files() {
        for k in TensorKernel::ALL {
            let v = serde_json::to_value(k).expect("serializes");
            assert_eq!(v["kind"], k.info().kind);
            assert_eq!(k.info().finite_features, k.features().is_ok(), "{}", k.info().kind);
            for p in k.info().parameters {
                assert!(v.get(p.name).is_some(), "{}: {}", k.info().kind, p.name);
            }
            assert!(k.check().is_ok());
        }
        let s = 0.7_f64;
        assert_eq!(TensorKernel::Linear.link(s), s);
        assert_eq!(TensorKernel::Polynomial { degree: 3 }.link(s), s * s * s);
        assert!((TensorKernel::Exponential.link(s) - s.exp()).abs() < 1e-15);
        let bad = TensorKernel::Polynomial { degree: 0 }.check().expect_err("degree 0");
        assert!(bad.to_string().contains("kernel.degree"), "{bad}");
        let cat: serde_json::Value = serde_json::from_str(&catalogue_json()).expect("JSON");
        assert_eq!(cat.as_array().map(Vec::len), Some(3));
    }
}
