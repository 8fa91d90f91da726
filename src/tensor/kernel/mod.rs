//! Paper A's tensor kernels (Section 2.2), one file each behind [`TensorKernelDef`] (no default
//! method): linear, polynomial of degree s, exponential. This file lists them once, a line each
//! in `variants!` (crate::catalogue), which generates the spec's enum [`TensorKernel`] (read
//! strictly: an unknown field is refused by name), [`TensorKernel::ALL`] (each file's `DEFAULT`)
//! and the one dispatch `def!` from the enum to the kernel's file: a new tensor kernel is its
//! file and one line here.

mod def;

pub use def::{TensorKernelDef, TensorKernelInfo};
pub use polynomial::MAX_DEGREE;

use serde::{Deserialize, Serialize};

use crate::catalogue::variants;
use crate::error::Result;

variants! { $
    /// A tensor kernel of paper A, Section 2.2 (`x'_1 ⊙ ⋯ ⊙ x'_q` is the componentwise product).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields, from = "strict::Strict")]
    pub enum TensorKernel: TensorKernelDef, dispatch def, fixed with_kernel in tensor::kernel {
        /// Linear tensor kernel `K = Σ_k x'_1k ⋯ x'_qk = sum(x'_1 ⊙ ⋯ ⊙ x'_q)` (eq. 13).
        Linear => linear::Linear,
        /// Polynomial tensor kernel of degree s ≥ 1: `K = (sum(x'_1 ⊙ ⋯ ⊙ x'_q))^s`.
        Polynomial { degree: u32 } => polynomial::Polynomial,
        /// Exponential tensor kernel `K = exp(sum(x'_1 ⊙ ⋯ ⊙ x'_q))` (infinite feature map).
        Exponential => exponential::Exponential,
    }
}

impl TensorKernel {
    /// Kind, label, formula, parameters.
    pub fn info(&self) -> TensorKernelInfo {
        def!(self, d => d.info())
    }
    /// Check its parameters (an error naming the field).
    pub fn check(&self) -> Result<()> {
        def!(self, d => d.check())
    }
    /// The scalar function g with `K = g(sum(x'_1 ⊙ ⋯ ⊙ x'_q))`.
    #[inline]
    pub fn link(&self, s: f64) -> f64 {
        def!(self, d => d.link(s))
    }
    /// The degree of its monomial features, or why it has no finite feature map.
    pub fn features(&self) -> std::result::Result<usize, &'static str> {
        def!(self, d => d.features())
    }
    /// Its feature map is the identity (the linear kernel).
    pub fn identity_features(&self) -> bool {
        def!(self, d => d.identity_features())
    }
    /// What to do when a value overflows.
    pub fn overflow_hint(&self) -> String {
        def!(self, d => d.overflow_hint())
    }
    /// A short name with its parameters (`polynomial-2`).
    pub fn key(&self) -> String {
        def!(self, d => d.key())
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

    /// The spec reads a tensor kernel strictly: a field the kernel does not have is refused by
    /// name, even on a kernel with no parameter (serde alone lets `{"kind": "linear", "x": 1}`
    /// through an internally tagged unit variant).
    #[test]
    fn an_unknown_field_is_refused_by_name() {
        let read = |text: &str| {
            crate::spec_json::json_value(text).and_then(crate::spec_json::typed::<TensorKernel>)
        };
        assert_eq!(read(r#"{"kind": "linear"}"#).expect("linear"), TensorKernel::Linear);
        assert_eq!(
            read(r#"{"kind": "polynomial", "degree": 3}"#).expect("polynomial"),
            TensorKernel::Polynomial { degree: 3 }
        );
        for text in [
            r#"{"kind": "linear", "degree": 2}"#,
            r#"{"kind": "exponential", "degree": 2}"#,
            r#"{"kind": "polynomial", "degree": 2, "offset": 1}"#,
        ] {
            let e = read(text).expect_err(text);
            let field = if text.contains("offset") { "`offset`" } else { "`degree`" };
            assert!(e.to_string().contains(field), "{text}: {e}");
        }
        let missing = read(r#"{"kind": "polynomial"}"#).expect_err("no degree");
        assert!(missing.to_string().contains("`degree`"), "{missing}");
        for k in TensorKernel::ALL {
            let text = serde_json::to_string(k).expect("serializes");
            assert_eq!(read(&text).expect("reads back"), *k);
        }
    }
}
