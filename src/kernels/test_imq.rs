//! A test-only kernel (issue 34: "a new kernel lands as one file and one list line"): the
//! inverse multiquadric `k(x, x') = (1 + ‖x − x'‖²/c²)^(−1/2)`, c > 0, positive definite on
//! distinct points in every dimension (a completely monotone function of the squared distance,
//! Schoenberg; Wendland, *Scattered Data Approximation*, Thm 7.15). It is this file and the
//! `#[cfg(test)]` line of `catalogue!` in kernels/mod.rs; its tests below read it through the
//! spec parser, the expression parser, the exported catalogue and the Gram builders.

use std::fmt;

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use super::def::{positive, Argument, Bandwidth, KernelDef, KernelInfo, Parameter, ResolvedDef};
use crate::error::Result;

/// `k(x, x') = (1 + ‖x − x'‖²/c²)^(−1/2)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestImq {
    /// The length scale c > 0.
    pub c: f64,
}

const PARAMETERS: &[Parameter] = &[Parameter {
    name: "c",
    field: "imq-c",
    path: "kernel.c",
    symbol: "c",
    doc: "the length scale",
    min: 0.0,
    min_exclusive: true,
    integer: false,
    default: 1.0,
}];

impl KernelDef for TestImq {
    type Resolved = TestImq;
    const DEFAULT: Self = TestImq { c: 1.0 };
    fn info(&self) -> KernelInfo {
        KernelInfo {
            kind: "test_imq",
            label: "inverse multiquadric",
            formula: "(1 + ‖x − x′‖²/c²)^(−1/2)",
            pair: true,
            needs_bandwidth: true,
            parameters: PARAMETERS,
            bandwidth: false,
        }
    }
    fn from_values(values: &[f64], _bandwidth: Bandwidth) -> Self {
        TestImq { c: values[0] }
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "test_imq(c={})", self.c)
    }
    fn resolve(&self, _x: &DMatrix<f64>) -> Result<TestImq> {
        positive("kernel.c", self.c)?;
        Ok(*self)
    }
}

impl ResolvedDef for TestImq {
    fn argument(&self) -> Argument {
        Argument::SquaredDistance
    }
    fn of(&self, d2: f64) -> f64 {
        1.0 / (1.0 + d2 / (self.c * self.c)).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{catalogue_json, expr, CrossJob, Kernel, ResolvedKernel};
    use super::TestImq;
    use nalgebra::{DMatrix, DVector};

    fn inputs() -> DMatrix<f64> {
        DMatrix::from_fn(9, 3, |i, j| ((i * 7 + j * 3) % 11) as f64 / 5.0 - 1.0)
    }

    /// The formula written out, apart from the kernel's file.
    fn imq(a: &[f64], b: &[f64], c: f64) -> f64 {
        let d2: f64 = a.iter().zip(b).map(|(u, v)| (u - v).powi(2)).sum();
        (1.0 + d2 / (c * c)).powf(-0.5)
    }

    #[test]
    fn the_test_kernel_is_in_the_catalogue_the_pages_read() {
        assert!(Kernel::ALL.contains(&Kernel::TestImq(TestImq { c: 1.0 })));
        let cat: serde_json::Value = serde_json::from_str(&catalogue_json()).expect("JSON");
        let entry = cat
            .as_array()
            .expect("a list")
            .iter()
            .find(|e| e["kind"] == "test_imq")
            .expect("the test kernel's entry");
        assert_eq!(entry["parameters"][0]["name"], "c");
        assert_eq!(entry["parameters"][0]["field"], "imq-c");
        assert_eq!(entry["parameters"][0]["default"], 1.0);
        // Every entry's kind is the spec's tag (serde's name of the variant).
        for k in Kernel::ALL {
            let v = serde_json::to_value(k).expect("serializes");
            assert_eq!(v["kind"], k.info().kind);
        }
    }

    #[test]
    fn the_spec_parser_and_the_expression_parser_read_it() {
        let k: Kernel = crate::spec_json::typed(
            crate::spec_json::json_value(r#"{"kind": "test_imq", "c": 0.7}"#).expect("JSON"),
        )
        .expect("a spec kernel");
        assert_eq!(k, Kernel::TestImq(TestImq { c: 0.7 }));
        let bad = crate::spec_json::json_value(r#"{"kind": "test_imq", "c": 0.7, "d": 1}"#)
            .and_then(crate::spec_json::typed::<Kernel>)
            .expect_err("an unknown field");
        assert!(bad.to_string().contains("`d`"), "{bad}");
        let e = expr::parse("test_imq(c=0.7) + 0.5·linear").expect("an expression");
        assert_eq!(expr::parse(&e.to_string()).expect("round trip"), e);
        assert_eq!(expr::parse("test_imq").expect("defaults"), Kernel::TestImq(TestImq { c: 1.0 }));
        let x = inputs();
        let refused = Kernel::TestImq(TestImq { c: 0.0 }).resolve(&x).expect_err("c = 0");
        assert!(refused.to_string().contains("kernel.c"), "{refused}");
        let nested = expr::parse("linear + test_imq(c=0)").expect("parses").resolve(&x);
        assert!(nested.expect_err("c = 0").to_string().contains("kernel.of[1].c"));
    }

    #[test]
    fn its_gram_matrices_equal_the_formula() {
        let x = inputs();
        let c = 0.8;
        let r = Kernel::TestImq(TestImq { c }).resolve(&x).expect("c > 0");
        assert_eq!(r, ResolvedKernel::TestImq(TestImq { c }));
        let k = r.gram(&x).expect("finite");
        let sq = ResolvedKernel::squared_norms(&x);
        let diag = r.gram_diagonal(&x, &sq);
        let mut row = DVector::zeros(x.nrows());
        for i in 0..x.nrows() {
            r.gram_row_into(&x, &sq, i, &mut row);
            for j in 0..x.nrows() {
                let (a, b): (Vec<f64>, Vec<f64>) = (
                    x.row(i).iter().copied().collect(),
                    x.row(j).iter().copied().collect(),
                );
                let want = imq(&a, &b, c);
                assert!((k[(i, j)] - want).abs() < 1e-12, "K[{i},{j}]");
                assert!((row[j] - want).abs() < 1e-12, "row {i}[{j}]");
                assert!((r.eval(&a, &b) - want).abs() < 1e-12, "eval {i},{j}");
            }
            assert!((diag[i] - 1.0).abs() < 1e-12);
        }
        // The sliced build and a composite with it go through the same code.
        let job = CrossJob::gram(r.clone(), x.clone()).expect("budget").finish().expect("done");
        assert_eq!(job, k);
        let sum = expr::parse("test_imq(c=0.8) + linear").expect("parses").resolve(&x).expect("ok");
        let lin = x.clone() * x.transpose();
        let ks = sum.gram(&x).expect("finite");
        assert!((ks - (&k + &lin)).abs().max() < 1e-12);
    }
}
