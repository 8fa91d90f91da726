//! Kernel algebra (issue 20, item 4; ours, not the papers'): sums, products and positive
//! scalings of the catalogue's kernels, in the spec, in the expression syntax the pages' kernel
//! field reads, and in papers B, C and D. Each composite Gram matrix is checked against the
//! terms' own Gram matrices combined here entry by entry, and each run against a closed form.

#![cfg(not(target_arch = "wasm32"))]

use kernel_playground::exec::Stop;
use kernel_playground::kernels::{expr, Bandwidth, CrossJob, Kernel, ResolvedKernel};
use kernel_playground::papers::{self, Spec};
use kernel_playground::rng::Rng;
use nalgebra::{DMatrix, DVector, SymmetricEigen};
use proptest::prelude::*;

fn points(n: usize, d: usize, seed: u64) -> DMatrix<f64> {
    let mut rng = Rng::new(seed);
    DMatrix::from_fn(n, d, |_, _| 2.0 * rng.uniform() - 1.0)
}

/// The Gram matrix of `k` on `x` built from the catalogue kernels' own Gram matrices, combined
/// here with nalgebra's `+`, entrywise product and scalar product.
fn by_hand(k: &Kernel, x: &DMatrix<f64>) -> DMatrix<f64> {
    match k {
        Kernel::Sum { of } => {
            of.iter().map(|t| by_hand(t, x)).reduce(|a, b| a + b).expect("two terms")
        }
        Kernel::Product { of } => {
            of.iter().map(|t| by_hand(t, x)).reduce(|a, b| a.component_mul(&b)).expect("two terms")
        }
        Kernel::Scaled { scale, of } => by_hand(of, x) * *scale,
        leaf => leaf.resolve(x).expect("leaf").gram(x).expect("gram"),
    }
}

fn leaf_strategy() -> impl Strategy<Value = Kernel> {
    prop_oneof![
        Just(Kernel::linear()),
        (1u32..4, 0.0f64..2.0).prop_map(|(degree, offset)| Kernel::polynomial(degree, offset)),
        prop_oneof![Just(Bandwidth::Heuristic), (0.05f64..3.0).prop_map(Bandwidth::Fixed)]
            .prop_map(Kernel::gaussian),
        (0.05f64..3.0).prop_map(Kernel::laplacian),
        (0.05f64..3.0).prop_map(Kernel::matern32),
    ]
}

/// Composites of at most 8 catalogue kernels, nested at most 4 deep.
fn kernel_strategy() -> impl Strategy<Value = Kernel> {
    leaf_strategy().prop_recursive(3, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4).prop_map(|of| Kernel::Sum { of }),
            prop::collection::vec(inner.clone(), 2..4).prop_map(|of| Kernel::Product { of }),
            (0.01f64..10.0, inner)
                .prop_map(|(scale, of)| Kernel::Scaled { scale, of: Box::new(of) }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// The composite's Gram matrix is its terms' combined (to rounding), its rows and diagonal
    /// built alone agree with it, the sliced builder is bit-identical, and it is positive
    /// semi-definite (Schur's product theorem for products) to rounding.
    #[test]
    fn composite_gram_is_its_terms_combined(k in kernel_strategy(), n in 2usize..25, seed in 0u64..500) {
        let (leaves, depth) = k.size();
        let x = points(n, 2, seed);
        let resolved = k.resolve(&x);
        if leaves > kernel_playground::kernels::MAX_TERMS || depth > kernel_playground::kernels::MAX_DEPTH {
            prop_assert!(resolved.is_err());
            return Ok(());
        }
        let rk = resolved.expect("a valid composite resolves");
        let g = rk.gram(&x).expect("gram");
        let h = by_hand(&k, &x);
        let scale = h.amax().max(1.0);
        prop_assert!((&g - &h).amax() <= 1e-12 * scale, "{k}: {}", (&g - &h).amax());
        let sq = ResolvedKernel::squared_norms(&x);
        let mut row = DVector::zeros(n);
        for i in [0, n / 2, n - 1] {
            rk.gram_row_into(&x, &sq, i, &mut row);
            prop_assert!((&row - g.column(i)).amax() <= 1e-12 * scale);
        }
        let diag = rk.gram_diagonal(&x, &sq);
        prop_assert!((&diag - g.diagonal()).amax() <= 1e-12 * scale);
        let mut job = CrossJob::gram(rk.clone(), x.clone()).expect("job");
        while !job.advance(0.0).expect("advances") {}
        prop_assert_eq!(job.finish().expect("K"), g.clone());
        let min = SymmetricEigen::new(g).eigenvalues.min();
        prop_assert!(min >= -1e-9 * scale, "{k}: λ_min = {min}");
        for i in 0..n.min(3) {
            let a: Vec<f64> = x.row(i).iter().copied().collect();
            let b: Vec<f64> = x.row(n - 1).iter().copied().collect();
            prop_assert!((rk.eval(&a, &b) - h[(i, n - 1)]).abs() <= 1e-12 * scale);
        }
    }

    /// Written out and read back, a kernel is the same kernel; so is its spec JSON.
    #[test]
    fn expression_and_json_round_trip(k in kernel_strategy()) {
        let text = k.to_string();
        prop_assert_eq!(expr::parse(&text).expect("reads back"), k.clone(), "{}", text);
        let json = serde_json::to_value(&k).expect("json");
        prop_assert_eq!(serde_json::from_value::<Kernel>(json).expect("json back"), k);
    }

    /// Any text is a kernel or a message naming `kernel`, never a panic.
    #[test]
    fn any_text_is_a_kernel_or_a_message(text in "[a-z0-9 ()+*·=,.μσ_-]{0,60}") {
        if let Err(e) = expr::parse(&text) {
            prop_assert!(e.to_string().contains("kernel"), "{}", e);
        }
    }
}

/// The expression syntax: defaults, symbols, precedence, and messages naming the character.
#[test]
fn expressions_read_as_a_lecturer_writes_them() {
    let k = expr::parse("gaussian(mu=0.5) + 0.1·linear").unwrap();
    assert_eq!(
        k,
        Kernel::Sum {
            of: vec![
                Kernel::gaussian(Bandwidth::Fixed(0.5)),
                Kernel::Scaled { scale: 0.1, of: Box::new(Kernel::linear()) },
            ]
        }
    );
    // · binds tighter than +; a number factor scales the whole product.
    let k = expr::parse("2 * laplacian(σ=1) * matern32 + gaussian").unwrap();
    let Kernel::Sum { of } = &k else { panic!("{k:?}") };
    assert_eq!(of[1], Kernel::gaussian(Bandwidth::Heuristic));
    assert_eq!(
        of[0],
        Kernel::Scaled {
            scale: 2.0,
            of: Box::new(Kernel::Product {
                of: vec![Kernel::laplacian(1.0), Kernel::matern32(0.5)]
            })
        }
    );
    // A parameter left out is the catalogue's default.
    assert_eq!(expr::parse("polynomial(degree=3)").unwrap(), Kernel::polynomial(3, 1.0));
    for (bad, says) in [
        ("", "empty"),
        ("rbf", "unknown kernel “rbf”"),
        ("gaussian(sigma=1)", "no parameter “sigma”"),
        ("polynomial(degree=2.5)", "whole number"),
        ("linear +", "found the end"),
        ("2", "a number alone"),
        ("(linear", "expected “)”"),
        ("linear $ linear", "character 8"),
    ] {
        let e = expr::parse(bad).expect_err(bad).to_string();
        assert!(e.contains("kernel") && e.contains(says), "{bad}: {e}");
    }
    let deep = format!("{}linear{}", "(".repeat(40), ")".repeat(40));
    assert!(expr::parse(&deep).unwrap_err().to_string().contains("nested deeper"));
    let long = ["linear"; 500].join(" + ");
    assert!(expr::parse(&long).unwrap_err().to_string().contains("at most"));
}

/// Bad composites are refused when resolved, the message naming the term's field.
#[test]
fn bad_composites_name_their_field() {
    let x = points(5, 2, 1);
    let bad = |json: &str, says: &str| {
        let k: Kernel = serde_json::from_str(json).expect(json);
        let e = k.resolve(&x).expect_err(json).to_string();
        assert!(e.contains(says), "{json}: {e}");
    };
    bad(
        r#"{"kind":"sum","of":[{"kind":"linear"},{"kind":"scaled","scale":-2,"of":{"kind":"linear"}}]}"#,
        "kernel.of[1].scale",
    );
    bad(
        r#"{"kind":"product","of":[{"kind":"linear"},{"kind":"laplacian","sigma":0}]}"#,
        "kernel.of[1].sigma",
    );
    bad(r#"{"kind":"sum","of":[{"kind":"linear"}]}"#, "at least 2");
    bad(r#"{"kind":"scaled","scale":0,"of":{"kind":"linear"}}"#, "scale");
    let nine = [r#"{"kind":"linear"}"#; 9].join(",");
    bad(&format!(r#"{{"kind":"sum","of":[{nine}]}}"#), "at most 8");
    let deep = (0..5).fold(r#"{"kind":"linear"}"#.to_string(), |k, _| {
        format!(r#"{{"kind":"scaled","scale":2,"of":{k}}}"#)
    });
    bad(&deep, "depth 5");
    let e = Spec::from_json(
        r#"{"paper":"mrlsr","data":{"kind":"sine","n":20,"sigma":0.1,"seed":1},"kernel":{"kind":"sum","of":[{"kind":"linear"},{"kind":"linear","x":1}]},"m":1.5,"lambda":0.01}"#,
    )
    .expect_err("unknown field")
    .to_string();
    assert!(e.contains("unknown field `x`"), "{e}");
    // A field beside a kind without parameters is refused too (serde's deny_unknown_fields
    // alone lets `{"kind": "linear", "x": 1}` and `{"kind": "square", "zz": 1}` through).
    let c = r#"{"paper":"dinuzzo","data":{"kind":"classification","shape":{"kind":"moons","noise":0.1},"n":20,"label_noise":0,"seed":1},"loss":LOSS,"lambda":0.5,"kernel":KERNEL,"method":{"kind":"fixed_point","step":{"kind":"inverse_norm"},"tol":1e-6,"max_sweeps":100}}"#;
    for (loss, kernel, field) in [
        (r#"{"kind":"square","zz":1}"#, r#"{"kind":"linear"}"#, "loss: unknown field `zz`"),
        (r#"{"kind":"hinge"}"#, r#"{"kind":"linear","x":1}"#, "kernel: unknown field `x`"),
    ] {
        let e = Spec::from_json(&c.replace("LOSS", loss).replace("KERNEL", kernel))
            .expect_err(field)
            .to_string();
        assert!(e.contains(field), "{e}");
    }
    let ok = c.replace("LOSS", r#"{"kind":"hinge"}"#).replace("KERNEL", r#"{"kind":"linear"}"#);
    if let Err(e) = Spec::from_json(&ok) {
        panic!("{e}");
    }
}

const COMPOSITE: &str = r#"{"kind":"sum","of":[{"kind":"gaussian","bandwidth":{"fixed":0.5}},{"kind":"scaled","scale":0.1,"of":{"kind":"product","of":[{"kind":"linear"},{"kind":"matern32","length":1}]}}]}"#;

/// Paper C with a composite kernel and the square loss: the run's c is the closed form
/// (K + λI)⁻¹y with K combined here from its terms (problem (2), Theorem 1).
#[test]
fn paper_c_runs_a_composite_to_its_closed_form() {
    let spec = format!(
        r#"{{"paper":"dinuzzo","data":{{"kind":"classification","shape":{{"kind":"moons","noise":0.1}},"n":60,"label_noise":0,"seed":1}},"loss":{{"kind":"square"}},"lambda":0.5,"kernel":{COMPOSITE},"method":{{"kind":"coordinate","rule":"cyclic","seed":1,"tol":1e-12,"max_sweeps":100000}}}}"#
    );
    let parsed = Spec::from_json(&spec).expect("C parses");
    let Spec::Dinuzzo(s) = &parsed else { panic!("paper C") };
    let data = kernel_playground::papers::dinuzzo::dataset(&s.data).expect("data");
    let r = papers::run(&parsed).expect("C runs");
    assert_eq!(r.status, Stop::Converged);
    let k: Kernel = serde_json::from_str(COMPOSITE).unwrap();
    let gram = by_hand(&k, &data.x);
    let n = data.n();
    let closed = (gram + DMatrix::identity(n, n) * 0.5).lu().solve(&data.y).expect("solve");
    let c: Vec<f64> = serde_json::from_value(r.solution["c"].clone()).expect("c");
    let err = closed.iter().zip(&c).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(err <= 1e-6 * closed.amax(), "max |c − closed form| = {err}");
}

/// Paper B at m = 2 is kernel ridge: f = Kα with α = (K + nλI)⁻¹y (Theorem 1), K combined
/// here. (K may be numerically singular, so α itself is not unique: f on the data is compared.)
#[test]
fn paper_b_runs_a_composite_to_kernel_ridge() {
    let spec = format!(
        r#"{{"paper":"mrlsr","data":{{"kind":"sine","n":40,"sigma":0.1,"seed":4}},"kernel":{COMPOSITE},"m":2,"lambda":0.01}}"#
    );
    let parsed = Spec::from_json(&spec).expect("B parses");
    let Spec::Mrlsr(s) = &parsed else { panic!("paper B") };
    let data = kernel_playground::papers::mrlsr::build_data(&s.data, 10_000).expect("data");
    let r = papers::run(&parsed).expect("B runs");
    let k: Kernel = serde_json::from_str(COMPOSITE).unwrap();
    let n = data.n();
    let gram = by_hand(&k, &data.x);
    let closed = &gram
        * (&gram + DMatrix::identity(n, n) * (n as f64 * 0.01)).lu().solve(&data.y).expect("solve");
    let alpha: Vec<f64> = serde_json::from_value(r.solution["alpha"].clone()).expect("alpha");
    let f = &gram * DVector::from_vec(alpha);
    let err = (&f - &closed).amax();
    assert!(err <= 1e-8 * closed.amax(), "max |f − closed form| = {err}");
    assert_eq!(r.solution["kernel"]["kind"], "sum", "the report names the composite");
}

/// Paper D with linear + 2·Gaussian on XOR (not linearly separable): the perceptron's α scores
/// every point positively under the composite kernel, evaluated here term by term (paper D
/// works with normalized features φ(x)/√k(x, x), so f(xᵢ) ∝ Σⱼ αⱼ yⱼ k(xⱼ, xᵢ)/√k(xⱼ, xⱼ)).
#[test]
fn paper_d_separates_with_a_composite() {
    let kernel = r#"{"kind":"sum","of":[{"kind":"linear"},{"kind":"scaled","scale":2,"of":{"kind":"gaussian","bandwidth":{"fixed":0.5}}}]}"#;
    let spec = format!(
        r#"{{"paper":"perceptron","data":{{"kind":"generated","set":{{"shape":{{"kind":"xor","noise":0.0}},"n":80,"label_noise":0,"seed":2}}}},"kernel":{kernel},"algorithm":{{"kind":"perceptron"}},"max_iter":200000}}"#
    );
    let parsed = Spec::from_json(&spec).expect("D parses");
    let r = papers::run(&parsed).expect("D runs");
    assert_eq!(r.status, Stop::Separator);
    let Spec::Perceptron(s) = &parsed else { panic!("paper D") };
    let (x, y) = kernel_playground::papers::perceptron::build_points(&s.data).expect("data");
    let alpha: Vec<f64> = serde_json::from_value(r.solution["alpha"].clone()).expect("alpha");
    let k = |a: usize, b: usize| -> f64 {
        let d2: f64 = (0..x.ncols()).map(|j| (x[(a, j)] - x[(b, j)]).powi(2)).sum();
        let dot: f64 = (0..x.ncols()).map(|j| x[(a, j)] * x[(b, j)]).sum();
        dot + 2.0 * (-d2 / 0.5).exp()
    };
    for i in 0..x.nrows() {
        let f: f64 = (0..x.nrows()).map(|j| alpha[j] * y[j] * k(j, i) / k(j, j).sqrt()).sum();
        assert!(y[i] * f > 0.0, "point {i}: y f = {}", y[i] * f);
    }
}

/// The pages' two conversions: expression → spec JSON → expression, and a bad kernel JSON is a
/// message naming its field.
#[test]
fn page_conversions_name_the_field() {
    let json = expr::json_of_text("gaussian(μ=0.5) + 0.1·linear").unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["kind"], "sum");
    assert_eq!(v["of"][0]["bandwidth"]["fixed"], 0.5);
    assert_eq!(expr::text_of_json(&json).unwrap(), "gaussian(mu=0.5) + 0.1·linear");
    for (bad, says) in [
        (
            r#"{"kind":"sum","of":[{"kind":"linear","x":1},{"kind":"linear"}]}"#,
            "kernel: unknown field `x`",
        ),
        (
            r#"{"kind":"scaled","scale":"two","of":{"kind":"linear"}}"#,
            "kernel: invalid type: string \"two\"",
        ),
        (r#"{"of":[]}"#, "kernel: missing field `kind`"),
        ("[", "not valid JSON"),
    ] {
        let e = expr::text_of_json(bad).expect_err(bad).to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
}
