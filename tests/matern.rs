//! The proof of the kernel catalogue (issue 20, item 5): the Matérn 3/2 kernel, added in
//! src/kernels.rs alone, checked against its closed form and for positive definiteness, then
//! run in papers B, C and D through their specs.

use kernel_playground::exec::Stop;
use kernel_playground::kernels::{CrossJob, Kernel, ResolvedKernel};
use kernel_playground::papers::{self, Spec};
use kernel_playground::rng::Rng;
use nalgebra::{DMatrix, DVector, SymmetricEigen};

fn points(n: usize, d: usize, seed: u64) -> DMatrix<f64> {
    let mut rng = Rng::new(seed);
    DMatrix::from_fn(n, d, |_, _| 2.0 * rng.uniform() - 1.0)
}

fn matern(length: f64, x: &DMatrix<f64>) -> ResolvedKernel {
    Kernel::matern32(length).resolve(x).expect("a positive length")
}

/// `k(r) = (1 + √3r/ℓ)e^(−√3r/ℓ)`: 1 at r = 0, 2/e at r = ℓ/√3, (1 + √3)e^(−√3) at r = ℓ,
/// computed by `eval` on points at those distances along a random direction.
#[test]
fn closed_form_values() {
    let x = points(4, 3, 1);
    for length in [0.1, 0.5, 3.0] {
        let k = matern(length, &x);
        let a = [0.3, -0.2, 0.7];
        let dir = [2.0 / 7.0, 3.0 / 7.0, 6.0 / 7.0]; // a unit vector
        let at = |r: f64| -> f64 {
            let b: Vec<f64> = a.iter().zip(dir).map(|(u, v)| u + r * v).collect();
            k.eval(&a, &b)
        };
        let e = std::f64::consts::E;
        assert_eq!(at(0.0), 1.0);
        assert!((at(length / 3f64.sqrt()) - 2.0 / e).abs() < 1e-12);
        assert!((at(length) - (1.0 + 3f64.sqrt()) * (-(3f64.sqrt())).exp()).abs() < 1e-12);
        // Decreasing in r.
        let v: Vec<f64> = (0..50).map(|i| at(i as f64 * length / 10.0)).collect();
        assert!(v.windows(2).all(|w| w[1] < w[0]), "{v:?}");
    }
}

/// The Gram matrix of distinct points is symmetric positive definite (every eigenvalue > 0);
/// its entries equal `eval`; the row-by-row, diagonal and block-by-block builders give the same
/// matrix.
#[test]
fn gram_is_positive_definite_and_builders_agree() {
    for (n, d, seed) in [(40, 1, 1), (60, 2, 2), (50, 5, 3)] {
        let x = points(n, d, seed);
        let k = matern(0.4, &x);
        let g = k.gram(&x).unwrap();
        let rows: Vec<Vec<f64>> = x.row_iter().map(|r| r.iter().copied().collect()).collect();
        for i in 0..n {
            for j in 0..n {
                assert!((g[(i, j)] - k.eval(&rows[i], &rows[j])).abs() < 1e-12);
                assert_eq!(g[(i, j)], g[(j, i)]);
            }
        }
        let ev = SymmetricEigen::new(g.clone()).eigenvalues;
        let min = ev.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(min > 0.0, "n = {n}, d = {d}: smallest eigenvalue {min}");
        let sq = ResolvedKernel::squared_norms(&x);
        let mut row = DVector::zeros(n);
        for i in [0, n / 2, n - 1] {
            k.gram_row_into(&x, &sq, i, &mut row);
            assert!((&row - g.column(i)).amax() < 1e-12);
        }
        assert!((k.gram_diagonal(&x, &sq) - g.diagonal()).amax() < 1e-12);
        let job = CrossJob::gram(k, x.clone()).unwrap().finish().unwrap();
        assert_eq!(job, g);
    }
}

/// The catalogue lists it with its parameter, its kind is the spec's tag, and a bad length is a
/// message naming `kernel.length`.
#[test]
fn catalogue_and_checks() {
    for k in Kernel::ALL {
        let json = serde_json::to_value(k).unwrap();
        assert_eq!(json["kind"], k.info().kind);
        for p in k.info().parameters {
            assert!(json.get(p.name).is_some(), "{}: {}", k.info().kind, p.name);
        }
    }
    let info = Kernel::matern32(1.0).info();
    assert!(info.pair && info.needs_bandwidth && !info.bandwidth);
    assert_eq!(info.parameters[0].name, "length");
    let x = points(5, 2, 1);
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let e = Kernel::matern32(bad).resolve(&x).unwrap_err().to_string();
        assert!(e.contains("kernel.length"), "{e}");
    }
}

/// Paper D separates XOR with it (strictly positive definite: every labelling separable) with a
/// verified separator; paper C's coordinate descent closes its duality gap; paper B's root solve
/// finds C₀ with F(C₀) ≈ 0.
#[test]
fn runs_in_papers_b_c_and_d() {
    let k = r#"{"kind":"matern32","length":0.5}"#;
    let d = format!(
        r#"{{"paper":"perceptron","data":{{"kind":"generated","set":{{"shape":{{"kind":"xor","noise":0.0}},"n":80,"label_noise":0,"seed":2}}}},"kernel":{k},"algorithm":{{"kind":"perceptron"}},"max_iter":200000}}"#
    );
    let r = papers::run(&Spec::from_json(&d).expect("D parses")).expect("D runs");
    assert_eq!(r.status, Stop::Separator);
    assert_eq!(r.solution["outcome"]["check"]["verified"], true);

    let c = format!(
        r#"{{"paper":"dinuzzo","data":{{"kind":"classification","shape":{{"kind":"circles","noise":0.05,"factor":0.5}},"n":120,"label_noise":0,"seed":1}},"loss":{{"kind":"squared_hinge"}},"lambda":1,"kernel":{k},"method":{{"kind":"coordinate","rule":"cyclic","seed":1,"tol":1e-9,"max_sweeps":20000}}}}"#
    );
    let r = papers::run(&Spec::from_json(&c).expect("C parses")).expect("C runs");
    assert_eq!(r.status, Stop::Converged);
    assert!(r.last.rel_gap.unwrap() < 1e-6, "{:?}", r.last);

    let b = format!(
        r#"{{"paper":"mrlsr","data":{{"kind":"sine","n":60,"sigma":0.1,"seed":4}},"kernel":{k},"m":1.3,"lambda":0.001}}"#
    );
    let r = papers::run(&Spec::from_json(&b).expect("B parses")).expect("B runs");
    let c0 = r.solution["C0"].as_f64().expect("C0");
    assert!(r.last.residual.unwrap().abs() <= 1e-9 * c0.max(1.0), "F(C0) = {:?}", r.last.residual);
    let bad = b.replace("0.5", "-1");
    let e = papers::run(&Spec::from_json(&bad).expect("parses")).expect_err("ℓ < 0").to_string();
    assert!(e.contains("kernel.length"), "{e}");
}
