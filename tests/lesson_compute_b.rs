//! Paper B's leave-one-out computations for lessons (src/lesson/compute.rs, the uniform
//! stability block): checked against the engine run on each Zⁱ written out as CSV (another
//! code path: the engine's Newton solve on its own eigendecomposition), against the closed
//! form at m = 2 (Φ(λ, Z) = λ for every Z), and against Theorem 3's formula evaluated here.

use kernel_playground::lesson::compute::{eval, eval_from, Compute};
use kernel_playground::papers::{self, Paper, Spec};
use nalgebra::{DMatrix, DVector};
use serde_json::{json, Value};

fn spec_value(m: f64, data: Value) -> Value {
    json!({"data": data, "kernel": {"kind": "gaussian", "bandwidth": {"fixed": 0.1}},
           "m": m, "lambda": 1e-3})
}

fn sine(n: usize) -> Value {
    json!({"kind": "sine", "n": n, "sigma": 0.2, "seed": 3})
}

fn parse(v: &Value) -> Spec {
    Spec::from_json_for(Paper::Mrlsr, &v.to_string()).expect("spec")
}

fn run(v: &Value) -> Value {
    papers::run(&parse(v)).expect("run").to_json()
}

fn compute(what: Compute, v: &Value) -> f64 {
    eval(what, &parse(v), v, &run(v)).expect("computation")
}

fn num(r: &Value, path: &[&str]) -> f64 {
    path.iter().fold(r, |v, k| &v[*k]).as_f64().expect("number")
}

fn alpha(r: &Value) -> DVector<f64> {
    let a: Vec<f64> =
        r["solution"]["alpha"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    DVector::from_vec(a)
}

/// The data as rows (x, y), and each Zⁱ as CSV text (full precision: Rust's shortest
/// round-trip formatting).
fn rows(v: &Value) -> Vec<(f64, f64)> {
    let d = papers::data(&parse(v)).expect("data");
    (0..d.n()).map(|i| (d.x[(i, 0)], d.y[i])).collect()
}

fn csv_without(rows: &[(f64, f64)], i: usize) -> String {
    let mut s = String::from("x,y\n");
    for (j, (x, y)) in rows.iter().enumerate() {
        if j != i {
            s.push_str(&format!("{x:?},{y:?}\n"));
        }
    }
    s
}

#[test]
fn leave_one_out_matches_the_engine_on_each_smaller_sample() {
    let n = 14;
    let v = spec_value(1.5, sine(n));
    let full = run(&v);
    let l2 = num(&full, &["solution", "lambda2"]);
    let a = alpha(&full);
    let pts = rows(&v);
    let k = DMatrix::from_fn(n, n, |i, j| (-(pts[i].0 - pts[j].0).powi(2) / 0.1).exp());
    let (mut worst, mut worst_l2, mut change) = (0.0f64, 0.0, 0.0f64);
    for i in 0..n {
        let r = run(&spec_value(1.5, json!({"kind": "csv", "text": csv_without(&pts, i)})));
        let l2i = num(&r, &["solution", "lambda2"]);
        let moved = (l2i - l2).abs() / l2;
        if moved > worst {
            worst = moved;
            worst_l2 = l2i;
        }
        let d = &a - alpha(&r).insert_row(i, 0.0);
        change = change.max((&k * &d).dot(&d).sqrt());
    }
    assert!(worst > 0.0, "removing a point must move λ₂ at m = 1.5");
    let got = compute(Compute::LooMaxLambda2Change, &v);
    assert!((got - worst).abs() <= 1e-6 * worst, "max change {got} vs engine {worst}");
    let got = compute(Compute::LooWorstLambda2, &v);
    assert!((got - worst_l2).abs() <= 1e-6 * worst_l2, "worst λ₂ {got} vs engine {worst_l2}");
    let got = compute(Compute::LooMaxChange, &v);
    assert!((got - change).abs() <= 1e-4 * change, "max ‖f_Z − f_Zⁱ‖ {got} vs engine {change}");
    // Kernel ridge at Zⁱ's own λ₂ is M-RLSR on Zⁱ; at Z's λ₂ it is not.
    let own = compute(Compute::LooOwnLambda2Gap, &v);
    let fixed = compute(Compute::LooFixedLambda2Gap, &v);
    assert!(own <= 1e-6, "own-λ₂ gap {own}");
    assert!(fixed > 100.0 * own.max(1e-12), "fixed-λ₂ gap {fixed} vs own {own}");
}

#[test]
fn at_m_2_the_map_does_not_depend_on_the_sample() {
    let v = spec_value(2.0, sine(20));
    assert_eq!(compute(Compute::LooMaxLambda2Change, &v), 0.0);
    assert!((compute(Compute::LooWorstLambda2, &v) - 1e-3).abs() <= 1e-15);
    assert!(compute(Compute::LooFixedLambda2Gap, &v) <= 1e-6);
}

#[test]
fn theorem3_bound_is_the_formula() {
    let v = spec_value(3.0, sine(20));
    let cy = rows(&v).iter().fold(0.0f64, |a, p| a.max(p.1.abs()));
    let (lambda, n, m) = (1e-3, 20.0, 3.0);
    let c = 2.0 * (cy + (cy * cy / lambda).powf(1.0 / m));
    let want = (2.0 * c / (lambda * n)).sqrt();
    let got = compute(Compute::Theorem3Bound, &v);
    assert!((got - want).abs() <= 1e-12 * want, "{got} vs {want}");
}

#[test]
fn the_heuristic_width_is_refused() {
    let mut v = spec_value(1.5, sine(10));
    v["kernel"]["bandwidth"] = json!("heuristic");
    let e = eval(Compute::LooMaxChange, &parse(&v), &v, &run(&v)).unwrap_err();
    assert!(e.contains("fixed Gaussian μ"), "{e}");
    let mut v = spec_value(1.0, sine(10));
    v["m"] = json!(1.0);
    let e = eval(Compute::LooMaxChange, &parse(&v), &v, &run(&v)).unwrap_err();
    assert!(e.contains("m > 1"), "{e}");
}

/// The least-squares slope of ln v against ln n (written here, apart from the compute's).
fn slope(points: &[(f64, f64)]) -> f64 {
    let k = points.len() as f64;
    let mx = points.iter().map(|p| p.0.ln()).sum::<f64>() / k;
    let my = points.iter().map(|p| p.1.ln()).sum::<f64>() / k;
    let sxy: f64 = points.iter().map(|p| (p.0.ln() - mx) * (p.1.ln() - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0.ln() - mx).powi(2)).sum();
    sxy / sxx
}

#[test]
fn example_b_matches_the_engine_at_the_scaled_lambda_on_each_smaller_sample() {
    // §4's Example: B(λ_B) is kernel ridge at λ_B/|Z|; with λ_B = nλ it is A(λ) on Z, and on Zⁱ
    // it is kernel ridge at λ_B/(n − 1) — run by the engine (M-RLSR at m = 2) on each Zⁱ.
    let n = 14;
    let v = spec_value(2.0, sine(n));
    let lambda_b = n as f64 * 1e-3;
    let a = alpha(&run(&v));
    let pts = rows(&v);
    let k = DMatrix::from_fn(n, n, |i, j| (-(pts[i].0 - pts[j].0).powi(2) / 0.1).exp());
    let mut change = 0.0f64;
    for i in 0..n {
        let mut vi = spec_value(2.0, json!({"kind": "csv", "text": csv_without(&pts, i)}));
        vi["lambda"] = json!(lambda_b / (n - 1) as f64);
        let d = &a - alpha(&run(&vi)).insert_row(i, 0.0);
        change = change.max((&k * &d).dot(&d).sqrt());
    }
    let got = compute(Compute::ExampleLooMaxChange, &v);
    assert!((got - change).abs() <= 1e-4 * change, "B's change {got} vs engine {change}");
    // A at the same λ keeps its regularizer on Zⁱ: a different change.
    let a_change = compute(Compute::LooMaxChange, &v);
    assert!((a_change - got).abs() > 1e-6 * got, "A {a_change} vs B {got}");
}

#[test]
fn scans_are_the_slopes_of_the_single_sample_values() {
    let big = 32;
    let sizes = [big / 8, big / 4, big / 2, big];
    let lambda = 1e-3;
    let (mut krr, mut ex, mut moves) = (Vec::new(), Vec::new(), Vec::new());
    for &n in &sizes {
        let v2 = spec_value(2.0, sine(n));
        krr.push((n as f64, compute(Compute::LooMaxChange, &v2)));
        // B at the fixed λ_B = big·λ: the spec's λ scaled so that |Z|·λ = λ_B.
        let mut vb = spec_value(2.0, sine(n));
        vb["lambda"] = json!(big as f64 * lambda / n as f64);
        ex.push((n as f64, compute(Compute::ExampleLooMaxChange, &vb)));
        let v15 = spec_value(1.5, sine(n));
        let l2 = num(&run(&v15), &["solution", "lambda2"]);
        moves.push((n as f64, compute(Compute::LooMaxLambda2Change, &v15) * l2));
    }
    let top2 = spec_value(2.0, sine(big));
    let top15 = spec_value(1.5, sine(big));
    for (what, v, pts) in [
        (Compute::ScanKrrChangeSlope, &top2, &krr),
        (Compute::ScanExampleChangeSlope, &top2, &ex),
        (Compute::ScanLambda2MoveSlope, &top15, &moves),
    ] {
        let got = compute(what, v);
        let want = slope(pts);
        assert!((got - want).abs() <= 1e-6 * want.abs().max(1e-3), "{what:?}: {got} vs {want}");
    }
    let mut v = spec_value(2.0, sine(big));
    v["kernel"]["bandwidth"] = json!("heuristic");
    let e = eval(Compute::ScanKrrChangeSlope, &parse(&v), &v, &run(&v)).unwrap_err();
    assert!(e.contains("fixed Gaussian μ"), "{e}");
}

/// f(x) = Σ aᵢ exp(−(x − xᵢ)²/0.1) on the 1001-point grid of the data's range (written here).
fn curve(pts: &[(f64, f64)], a: &DVector<f64>) -> Vec<f64> {
    let lo = pts.iter().fold(f64::INFINITY, |m, p| m.min(p.0));
    let hi = pts.iter().fold(f64::NEG_INFINITY, |m, p| m.max(p.0));
    (0..1001)
        .map(|j| {
            let x = lo + (hi - lo) * j as f64 / 1000.0;
            pts.iter().zip(a.iter()).map(|(p, ai)| ai * (-(x - p.0).powi(2) / 0.1).exp()).sum()
        })
        .collect()
}

/// (max |f₁ − f₀| over the grid, where, as a fraction of the range).
fn max_move(f0: &[f64], f1: &[f64]) -> (f64, f64) {
    f0.iter().zip(f1).enumerate().fold((0.0, 0.0), |(best, at), (j, (a, b))| {
        if (b - a).abs() > best {
            ((b - a).abs(), j as f64 / 1000.0)
        } else {
            (best, at)
        }
    })
}

fn fit_move(what: Compute, start: &Value, end: &Value) -> Result<f64, String> {
    eval_from(what, Some(start), &parse(end), end, &run(end))
}

/// The fit's move against the engine's two fits (its own Theorem 1 solve) at m = 1.5, and
/// against kernel ridge solved here by Cholesky at m = 2; no move without a move; no start, no
/// answer.
#[test]
fn fit_max_move_is_the_largest_gap_between_the_two_curves() {
    let n = 30;
    let start = spec_value(1.5, sine(n));
    let mut end = start.clone();
    end["lambda"] = json!(1e-5);
    let pts = rows(&start);
    let (want, at) = max_move(&curve(&pts, &alpha(&run(&start))), &curve(&pts, &alpha(&run(&end))));
    let got = fit_move(Compute::FitMaxMove, &start, &end).unwrap();
    assert!(want > 1e-3 && (got - want).abs() <= 1e-6 * want, "{got} vs the engine's {want}");
    assert_eq!(fit_move(Compute::FitMaxMoveAt, &start, &end).unwrap(), at);

    let (mut s2, mut e2) = (spec_value(2.0, sine(n)), spec_value(2.0, sine(n)));
    s2["lambda"] = json!(1e-2);
    e2["lambda"] = json!(1e-4);
    let k = DMatrix::from_fn(n, n, |i, j| (-(pts[i].0 - pts[j].0).powi(2) / 0.1).exp());
    let y = DVector::from_iterator(n, pts.iter().map(|p| p.1));
    let krr =
        |l: f64| (&k + DMatrix::identity(n, n) * (n as f64 * l)).cholesky().unwrap().solve(&y);
    let (want, _) = max_move(&curve(&pts, &krr(1e-2)), &curve(&pts, &krr(1e-4)));
    let got = fit_move(Compute::FitMaxMove, &s2, &e2).unwrap();
    assert!((got - want).abs() <= 1e-8 * want, "{got} vs kernel ridge's {want}");

    assert!(fit_move(Compute::FitMaxMove, &start, &start).unwrap() <= 1e-12);
    let e = eval(Compute::FitMaxMove, &parse(&end), &end, &run(&end)).unwrap_err();
    assert!(e.contains("fit"), "{e}");
}

/// Fig. 1's split: at m = 2 the map λ ↦ λ₂ = λ is the same on every sample, so every part is at
/// rounding level; at m = 1.5 only Z₁ is, the other parts differ.
#[test]
fn equivalence_gaps_vanish_on_every_part_only_at_m_2() {
    let mut v = spec_value(2.0, sine(40));
    v["kernel"]["bandwidth"] = json!("heuristic");
    assert!(compute(Compute::EquivalenceGapFirst, &v) <= 1e-10);
    assert!(compute(Compute::EquivalenceGapOthersMin, &v) <= 1e-10);
    v["m"] = json!(1.5);
    assert!(compute(Compute::EquivalenceGapFirst, &v) <= 1e-10);
    let others = compute(Compute::EquivalenceGapOthersMin, &v);
    assert!(others > 1e-6, "{others}");
}
