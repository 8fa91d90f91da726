//! Paper A's lesson computations (src/lesson/compute.rs, issue 19 section 2) on cases with a
//! known answer: the representer theorem (eq. 10) against a perturbed w; Proposition 3.2's bound
//! at α = 0, where Λ(0) = 0 and the gap is γ‖y‖²/2 in closed form, and against ‖w̄‖_p there; the
//! predictor of eq. (14) at α = e₁, where the tensor sum collapses to one kernel value per point;
//! eq. (29)'s factors multiplied over a hand-written trace.

use kernel_playground::lesson::compute::{eval, Compute};
use kernel_playground::lesson::{parse_spec, Page};
use kernel_playground::papers;
use nalgebra::{DMatrix, DVector};
use serde_json::{json, Value};

const P: f64 = 4.0 / 3.0;
const GAMMA: f64 = 10.0;

fn spec_value(kernel: Value) -> Value {
    json!({
        "data": {"kind": "sparse_regression", "n": 6, "d": 5, "k": 2, "sigma": 0.05, "seed": 3},
        "model": {"problem": "lp_regression", "p": P, "gamma": GAMMA, "kernel": kernel},
        "solver": {"tol": 1e-8, "max_iter": 5000, "algorithm": "dual_gradient"}
    })
}

fn report(alpha: &DVector<f64>, w: Option<&DVector<f64>>) -> Value {
    json!({"solution": {
        "alpha": alpha.iter().copied().collect::<Vec<_>>(),
        "w": w.map(|w| w.iter().copied().collect::<Vec<_>>()),
    }})
}

fn setup(kernel: Value) -> (papers::Spec, Value, DMatrix<f64>, DVector<f64>) {
    let v = spec_value(kernel);
    let spec = parse_spec("spec", Page::Lp, &v).expect("spec");
    let data = papers::data(&spec).expect("data");
    (spec, v, data.x, data.y)
}

fn cube(u: &DVector<f64>) -> DVector<f64> {
    u.map(|t| t * t * t)
}

#[test]
fn representer_gap_measures_a_known_perturbation() {
    let (spec, v, x, _) = setup(json!({"kind": "linear"}));
    let alpha = DVector::from_fn(x.nrows(), |i, _| 0.3 - 0.1 * i as f64);
    let w = cube(&(x.transpose() * &alpha)); // J_4(u) = u³
    let exact = eval(Compute::RepresenterGap, &spec, &v, &report(&alpha, Some(&w))).unwrap();
    assert!(exact < 1e-14, "{exact}");
    let mut bumped = w.clone();
    let delta = 1e-3 * w.amax();
    bumped[2] += delta;
    let gap = eval(Compute::RepresenterGap, &spec, &v, &report(&alpha, Some(&bumped))).unwrap();
    let expected = delta / bumped.amax();
    assert!((gap - expected).abs() <= 1e-9 * expected, "{gap} vs {expected}");
}

#[test]
fn prop32_bound_at_alpha_zero_is_the_closed_form_and_holds() {
    let (spec, v, x, y) = setup(json!({"kind": "linear"}));
    let alpha = DVector::zeros(x.nrows());
    let w = DVector::zeros(x.ncols());
    let r = report(&alpha, Some(&w));
    // α = 0: Λ(0) = 0, w(0) = 0, F(0) = γ‖y‖²/2, so the gap is γ‖y‖²/2.
    let q = P / (P - 1.0);
    let g = GAMMA * y.norm_squared() / 2.0;
    let cp = (P - 1.0) / 2.0;
    let expected = ((2f64.powf(P) * q * g).powf((2.0 - P) / P) * g / cp).sqrt();
    let bound = eval(Compute::Prop32Bound, &spec, &v, &r).unwrap();
    assert!((bound - expected).abs() <= 1e-12 * expected, "{bound} vs {expected}");
    // With w = 0 the distance is ‖w̄‖_p, which Proposition 3.2 bounds.
    let dist = eval(Compute::DistToOptimum, &spec, &v, &r).unwrap();
    assert!(dist > 0.0 && dist <= bound, "‖w̄‖_p = {dist}, bound {bound}");
}

#[test]
fn dist_to_optimum_is_zero_at_the_optimum() {
    let (spec, v, _, _) = setup(json!({"kind": "linear"}));
    let mut tight = v.clone();
    tight["solver"] = json!({"tol": 1e-13, "algorithm": "dual_newton"});
    let run = papers::run(&parse_spec("spec", Page::Lp, &tight).unwrap()).unwrap().to_json();
    let dist = eval(Compute::DistToOptimum, &spec, &v, &run).unwrap();
    assert!(dist < 1e-10, "{dist}");
}

#[test]
fn predictor_at_a_unit_alpha_is_one_kernel_value() {
    for (kernel, s) in
        [(json!({"kind": "linear"}), 1), (json!({"kind": "polynomial", "degree": 2}), 2)]
    {
        let (spec, v, x, y) = setup(kernel);
        let n = x.nrows();
        let mut alpha = DVector::zeros(n);
        alpha[0] = 1.0;
        let r = report(&alpha, None);
        // f(x_m) = K(x₁, x₁, x₁, x_m) = (Σ_t x_1t³ x_mt)^s.
        let f: Vec<f64> = (0..n)
            .map(|m| (0..x.ncols()).map(|t| x[(0, t)].powi(3) * x[(m, t)]).sum::<f64>().powi(s))
            .collect();
        let expected =
            (0..n).map(|m| (f[m] - (y[m] - alpha[m] / GAMMA)).abs()).fold(0.0, f64::max) / y.amax();
        let kkt = eval(Compute::PredictorKkt, &spec, &v, &r).unwrap();
        assert!((kkt - expected).abs() <= 1e-12 * expected, "s = {s}: {kkt} vs {expected}");
        // Any α: the tensor sum equals ⟨J_4(Φ*α), Φ(x)⟩ from the features.
        let alpha = DVector::from_fn(n, |i, _| ((i * 7 % 5) as f64 - 2.0) * 0.2);
        let gap = eval(Compute::PredictorFeatureGap, &spec, &v, &report(&alpha, None)).unwrap();
        assert!(gap < 1e-12, "s = {s}: {gap}");
    }
}

#[test]
fn predictor_kkt_sums_the_exponential_tensor_kernel() {
    // At α = c·e₁ the tensor sum collapses: f(x_m) = c³ exp(Σ_t x_1t³ x_mt) (Section 2.2).
    let (spec, v, x, y) = setup(json!({"kind": "exponential"}));
    let n = x.nrows();
    let c = 0.7;
    let mut alpha = DVector::zeros(n);
    alpha[0] = c;
    let f: Vec<f64> = (0..n)
        .map(|m| {
            c * c * c * (0..x.ncols()).map(|t| x[(0, t)].powi(3) * x[(m, t)]).sum::<f64>().exp()
        })
        .collect();
    let expected =
        (0..n).map(|m| (f[m] - (y[m] - alpha[m] / GAMMA)).abs()).fold(0.0, f64::max) / y.amax();
    let kkt = eval(Compute::PredictorKkt, &spec, &v, &report(&alpha, None)).unwrap();
    assert!((kkt - expected).abs() <= 1e-12 * expected, "{kkt} vs {expected}");
    // No finite features: the feature comparison refuses.
    let e = eval(Compute::PredictorFeatureGap, &spec, &v, &report(&alpha, None)).unwrap_err();
    assert!(e.contains("exponential"), "{e}");
}

#[test]
fn predictor_kkt_vanishes_at_the_exponential_kernels_optimum_only() {
    let v = json!({
        "data": {"kind": "two_blobs", "n": 8, "separation": 1.0, "spread": 0.3, "flip": 0.0, "seed": 2},
        "model": {"problem": "lp_regression", "p": P, "gamma": 1.0, "path": "tensor",
                  "kernel": {"kind": "exponential"}},
        "solver": {"tol": 1e-13, "max_iter": 200, "algorithm": "dual_newton"}
    });
    let spec = parse_spec("spec", Page::Lp, &v).expect("spec");
    let r = papers::run(&spec).expect("run").to_json();
    assert_eq!(r["status"], "converged");
    let kkt = eval(Compute::PredictorKkt, &spec, &v, &r).unwrap();
    assert!(kkt < 1e-8, "at the optimum: {kkt}");
    let mut bumped = r.clone();
    let a0 = bumped["solution"]["alpha"][0].as_f64().unwrap();
    bumped["solution"]["alpha"][0] = json!(a0 + 0.05);
    let off = eval(Compute::PredictorKkt, &spec, &v, &bumped).unwrap();
    assert!(off > 1e-3, "away from it: {off}");
}

#[test]
fn predictor_refuses_what_it_does_not_sum() {
    let (spec, mut v, x, _) = setup(json!({"kind": "polynomial", "degree": 3}));
    let r = report(&DVector::zeros(x.nrows()), None);
    assert!(eval(Compute::PredictorFeatureGap, &spec, &v, &r).unwrap_err().contains("degree 3"));
    v["model"]["p"] = json!(1.1);
    let e = eval(Compute::PredictorKkt, &spec, &v, &r).unwrap_err();
    assert!(e.contains("q = 4"), "{e}");
}

#[test]
fn step_factor_decrease_multiplies_eq29_factors_over_the_trace() {
    let (spec, v, _, _) = setup(json!({"kind": "linear"}));
    // Records without a positive step (the start, a rejected step) are not iterations of (29).
    let trace = json!({"trace": [{"step": 0.0}, {"step": 0.1}, {}, {"step": 0.2}]});
    let got = eval(Compute::StepFactorDecrease, &spec, &v, &trace).unwrap();
    // δ = 0.5 by default: 1 − (2/γ)λ(1 − δ) = 1 − λ/γ.
    let expected = 1.0 / ((1.0 - 0.1 / GAMMA) * (1.0 - 0.2 / GAMMA));
    assert!((got - expected).abs() <= 1e-14 * expected, "{got} vs {expected}");
    // δ from the spec when given.
    let mut v25 = v.clone();
    v25["solver"]["delta"] = json!(0.25);
    let got = eval(Compute::StepFactorDecrease, &spec, &v25, &trace).unwrap();
    let expected = 1.0 / ((1.0 - 1.5 * 0.1 / GAMMA) * (1.0 - 1.5 * 0.2 / GAMMA));
    assert!((got - expected).abs() <= 1e-14 * expected, "{got} vs {expected}");
    // No accepted step, or a step beyond λ̄'s cap γ/(2(1 − δ)): refused with a message.
    let none = eval(Compute::StepFactorDecrease, &spec, &v, &json!({"trace": [{"step": 0.0}]}));
    assert!(none.unwrap_err().contains("no accepted step"));
    let big = eval(Compute::StepFactorDecrease, &spec, &v, &json!({"trace": [{"step": GAMMA}]}));
    assert!(big.unwrap_err().contains("non-positive"));
}

/// Algorithm 2.1 replayed from eq. (17)–(18) on [K] built entry by entry, against the engine's
/// features version (Algorithm 2.1 with the gradient X J_q(Xᵀα), another code): the same
/// iterations, the same −Λ to rounding, and the engine's median accepted step — for the linear
/// and the polynomial tensor kernel.
#[test]
fn algorithm_21_replayed_on_the_tensor_matches_the_features_version() {
    for kernel in [json!({"kind": "linear"}), json!({"kind": "polynomial", "degree": 2})] {
        let (spec, v, _, _) = setup(kernel.clone());
        let run = papers::run(&spec).unwrap().to_json();
        let iters = eval(Compute::Alg21TensorIterations, &spec, &v, &run).unwrap();
        assert_eq!(iters, run["iterations"].as_f64().unwrap(), "{kernel}");
        let dual = eval(Compute::Alg21TensorDual, &spec, &v, &run).unwrap();
        let want = run["dual"].as_f64().unwrap();
        assert!((dual - want).abs() <= 1e-12 * want.abs(), "{kernel}: {dual} vs {want}");
        let replay = eval(Compute::Alg21TensorMedianStep, &spec, &v, &run).unwrap();
        let engine_median = eval(Compute::MedianStep, &spec, &v, &run).unwrap();
        assert_eq!(replay, engine_median, "{kernel}");
    }
}

#[test]
fn algorithm_21_replay_refuses_what_it_does_not_replay() {
    let (spec, mut v, _, _) = setup(json!({"kind": "linear"}));
    v["model"]["loss"] = json!({"kind": "hinge"});
    let e = eval(Compute::Alg21TensorIterations, &spec, &v, &Value::Null).unwrap_err();
    assert!(e.contains("square"), "{e}");
    let mut big = spec_value(json!({"kind": "linear"}));
    big["data"]["n"] = json!(30);
    let spec = parse_spec("spec", Page::Lp, &big).unwrap();
    let e = eval(Compute::Alg21TensorIterations, &spec, &big, &Value::Null).unwrap_err();
    assert!(e.contains("n = 30"), "{e}");
}

/// Theorem 3.1's gap with the hinge loss at α = 0: w = 0, F = γ·n (every margin is 0, each
/// loss is 1) and Λ(0) = 0, so the relative gap is 1; an α outside the box 0 ≤ yᵢαᵢ ≤ γ makes
/// Λ = +∞.
/// At the engine's converged run the gap recomputed here is the run's.
#[test]
fn general_loss_gap_of_the_hinge_loss() {
    let v = json!({
        "data": {"kind": "two_blobs", "n": 20, "separation": 1, "spread": 0.3, "flip": 0, "seed": 2},
        "model": {"problem": "lp_regression", "p": P, "gamma": 1, "loss": {"kind": "hinge"},
                  "kernel": {"kind": "linear"}},
        "solver": {"tol": 1e-8, "max_iter": 5000, "algorithm": "prox_dual"}
    });
    let spec = parse_spec("spec", Page::Lp, &v).unwrap();
    let y = papers::data(&spec).unwrap().y;
    let zero = report(&DVector::zeros(y.len()), None);
    let g = eval(Compute::GeneralLossRelGap, &spec, &v, &zero).unwrap();
    assert!((g - 1.0).abs() < 1e-15, "{g}");
    let outside = report(&(-&y * 0.5), None);
    assert_eq!(eval(Compute::GeneralLossRelGap, &spec, &v, &outside).unwrap(), f64::INFINITY);
    let run = papers::run(&spec).unwrap().to_json();
    let here = eval(Compute::GeneralLossRelGap, &spec, &v, &run).unwrap();
    let want = run["rel_gap"].as_f64().unwrap();
    assert!(here >= 0.0 && (here - want).abs() <= 1e-6 * want, "{here} vs {want}");
}

/// The half-run drop on hand-written traces: a gap 1/m gives 1/2, a gap 0.5^m gives 0.5^(M/2).
#[test]
fn trace_gap_half_drop_on_known_traces() {
    let (spec, v, _, _) = setup(json!({"kind": "linear"}));
    let trace = |f: &dyn Fn(f64) -> f64| {
        let recs: Vec<Value> = (1..=40).map(|m| json!({"iter": m, "gap": f(m as f64)})).collect();
        json!({ "trace": recs })
    };
    let h = eval(Compute::TraceGapHalfDrop, &spec, &v, &trace(&|m| 1.0 / m)).unwrap();
    assert!((h - 0.5).abs() < 1e-15, "{h}");
    let l = eval(Compute::TraceGapHalfDrop, &spec, &v, &trace(&|m| 0.5f64.powf(m))).unwrap();
    assert!((l - 0.5f64.powi(20)).abs() < 1e-20, "{l}");
}

/// The quarter-slope ratio on hand-written traces: a linear rate gives 1, a power law C/m^k
/// about 0.71 whatever k (so the ratio tells a straight fall from a power law), and a gap that
/// stops falling in the last quarter gives 0.
#[test]
fn trace_gap_rate_ratio_tells_a_linear_rate_from_a_power_law() {
    let (spec, v, _, _) = setup(json!({"kind": "linear"}));
    let trace = |f: &dyn Fn(f64) -> f64| {
        let recs: Vec<Value> = (0..=80).map(|m| json!({"iter": m, "gap": f(m as f64)})).collect();
        json!({ "trace": recs })
    };
    let r = |f: &dyn Fn(f64) -> f64| eval(Compute::TraceGapRateRatio, &spec, &v, &trace(f));
    let linear = r(&|m| 3.0 * 0.8f64.powf(m)).unwrap();
    assert!((linear - 1.0).abs() < 1e-12, "{linear}");
    for k in [1.0, 4.0, 12.0] {
        let power = r(&|m| (m + 1.0).powf(-k)).unwrap();
        assert!((0.65..0.78).contains(&power), "k = {k}: {power}");
    }
    let stalled = r(&|m| if m <= 60.0 { 0.8f64.powf(m) } else { 0.8f64.powf(60.0) }).unwrap();
    assert!(stalled.abs() < 1e-12, "{stalled}");
    let rising = r(&|m| 1.0 + m);
    assert!(rising.is_err(), "a gap that grows has no rate: {rising:?}");
}

/// The linear-kernel replay of a linear-kernel step is the step's own replay, and on a
/// polynomial step it is the replay of the same data with the linear kernel (checked against
/// the engine's features run of that linear problem: the same iteration count, as lesson A's
/// claim `rep` checks for the tensor).
#[test]
fn linear_kernel_replay_is_the_replay_of_the_linear_problem() {
    let (spec, v, _, _) = setup(json!({"kind": "linear"}));
    let none = json!({});
    for (lin, own) in [
        (Compute::Alg21LinearIterations, Compute::Alg21TensorIterations),
        (Compute::Alg21LinearMedianStep, Compute::Alg21TensorMedianStep),
    ] {
        assert_eq!(eval(lin, &spec, &v, &none).unwrap(), eval(own, &spec, &v, &none).unwrap());
    }
    let (pspec, pv, _, _) = setup(json!({"kind": "polynomial", "degree": 2}));
    let iters = eval(Compute::Alg21LinearIterations, &pspec, &pv, &none).unwrap();
    let features = papers::run(&spec).unwrap().to_json()["iterations"].as_f64().unwrap();
    assert_eq!(iters, features);
    let (lo, med, hi) = (
        eval(Compute::Alg21LinearMinStep, &pspec, &pv, &none).unwrap(),
        eval(Compute::Alg21LinearMedianStep, &pspec, &pv, &none).unwrap(),
        eval(Compute::Alg21LinearMaxStep, &pspec, &pv, &none).unwrap(),
    );
    assert!(lo > 0.0 && lo <= med && med <= hi && hi <= GAMMA, "{lo} {med} {hi}");
    let poly = eval(Compute::Alg21TensorMedianStep, &pspec, &pv, &none).unwrap();
    assert_ne!(poly, med, "the polynomial replay is another problem");
}
