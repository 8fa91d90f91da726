//! Paper B's watchable run (issue 32 §9): a sweep of (m, λ) from one fit to another, one refit
//! per frame on the cached eigendecomposition, ends on the very fit a fresh session builds at
//! the target (every lesson B step that moves the fit); and the data spec's `drop` leaves out
//! exactly the generated point it names, which the fit plot marks.
#![cfg(not(target_arch = "wasm32"))]

use kernel_playground::datasets::regression::Sine1d;
use kernel_playground::papers::mrlsr::{
    build_data, build_data_and_removed, DataSpec, FitCurves, MrlsrChecked, MrlsrSession, MrlsrSpec,
    ParamSweep, SWEEP_FRAMES,
};
use kernel_playground::spec_json::{parse_as, Paper};
use serde_json::Value;

/// The page's session on `spec`, checked first ([`MrlsrChecked::for_page`]): the only way in.
fn session_of(spec: MrlsrSpec) -> kernel_playground::error::Result<MrlsrSession> {
    MrlsrSession::new(MrlsrChecked::for_page(&spec)?)
}

/// Every field of the readouts but the timings.
fn readouts(s: &MrlsrSession) -> Value {
    let mut v = serde_json::to_value(s.summary(0.0)).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("refit_ms");
    o.remove("eigen_ms");
    v
}

fn curves(s: &MrlsrSession) -> (Vec<f64>, Option<Vec<f64>>) {
    match s.fit_curves(120).unwrap() {
        FitCurves::OneD { mrlsr, krr, .. } | FitCurves::Fitted { mrlsr, krr, .. } => (mrlsr, krr),
    }
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn every_lesson_sweep_ends_on_the_direct_fit() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/www/lessons/b.json"))
        .unwrap();
    let lesson: Value = serde_json::from_str(&text).unwrap();
    let mut swept = 0;
    for (k, step) in lesson["steps"].as_array().unwrap().iter().enumerate() {
        let Some(to) = step.get("to") else { continue };
        let start: MrlsrSpec = serde_json::from_value(step["spec"].clone()).unwrap();
        let mut target = start.clone();
        if let Some(m) = to.get("m") {
            target.m = m.as_f64().unwrap();
        }
        if let Some(l) = to.get("lambda") {
            target.lambda = l.as_f64().unwrap();
        }
        let mut session = session_of(start.clone()).unwrap();
        let mut sweep =
            ParamSweep::new((start.m, start.lambda), (target.m, target.lambda), SWEEP_FRAMES);
        let mut refits = 0;
        let mut norms = vec![];
        while session.sweep_step(&mut sweep).unwrap() {
            refits += 1;
            norms.push(session.summary(0.0).norm_h);
        }
        assert_eq!(refits + 1, SWEEP_FRAMES, "step {}: one refit per frame", k + 1);
        let direct = session_of(target).unwrap();
        assert_eq!(readouts(&session), readouts(&direct), "step {}: readouts", k + 1);
        let (a, b) = (curves(&session), curves(&direct));
        assert_eq!(bits(&a.0), bits(&b.0), "step {}: M-RLSR curve", k + 1);
        assert_eq!(a.1.map(|v| bits(&v)), b.1.map(|v| bits(&v)), "step {}: KRR curve", k + 1);
        // Something moved on the way: the frames are not all the same fit.
        assert!(norms.windows(2).any(|w| w[0] != w[1]), "step {}: the fit never moved", k + 1);
        // Reset goes back to the start's fit, bit for bit, and the sweep replays.
        session.sweep_reset(&mut sweep).unwrap();
        assert_eq!(readouts(&session), readouts(&session_of(start).unwrap()));
        session.sweep_to_end(&mut sweep).unwrap();
        assert_eq!(readouts(&session), readouts(&direct), "step {}: replayed", k + 1);
        swept += 1;
    }
    assert!(swept >= 10, "lesson B moves the fit in {swept} steps");
}

#[test]
fn a_sweep_is_geometric_in_lambda_and_linear_in_m() {
    let s = ParamSweep::new((1.5, 1e-3), (2.5, 1e-6), 40);
    assert_eq!(s.point(0), (1.5, 1e-3));
    assert_eq!(s.point(40), (2.5, 1e-6));
    assert_eq!(s.point(99), (2.5, 1e-6));
    let ratio = 1e-3_f64.powf(1.0 / 40.0);
    for k in 1..40 {
        let (m0, l0) = s.point(k - 1);
        let (m1, l1) = s.point(k);
        assert!((l1 / l0 - ratio).abs() < 1e-12 * ratio, "λ step {k}: {}", l1 / l0);
        assert!((m1 - m0 - 1.0 / 40.0).abs() < 1e-12, "m step {k}");
    }
    // Halfway on a log scale: 10^-4.5.
    assert!((s.point(20).1 / 10f64.powf(-4.5) - 1.0).abs() < 1e-12);
    assert!(!s.ended());
    assert_eq!(ParamSweep::new((1.0, 1.0), (1.0, 1.0), 0).frames(), 1);
}

#[test]
fn drop_leaves_out_exactly_the_named_point() {
    let full = Sine1d { n: 30, sigma: 0.2, seed: 7 }.generate().unwrap();
    for i in [0, 13, 29] {
        let spec = DataSpec::Sine { n: 30, sigma: 0.2, seed: 7, drop: Some(i) };
        let (data, removed) = build_data_and_removed(&spec, 100).unwrap();
        let removed = removed.unwrap();
        assert_eq!(data.n(), 29);
        assert_eq!((removed.index, removed.x[0], removed.y), (i, full.x[(i, 0)], full.y[i]));
        // The other points in their order, by hand.
        let kept: Vec<(f64, f64)> =
            (0..30).filter(|&j| j != i).map(|j| (full.x[(j, 0)], full.y[j])).collect();
        let got: Vec<(f64, f64)> = (0..29).map(|j| (data.x[(j, 0)], data.y[j])).collect();
        assert_eq!(got, kept);
    }
    // Out of range, and too few points: a message naming the field.
    for (n, i) in [(30, 30), (2, 0)] {
        let spec = DataSpec::Sine { n, sigma: 0.2, seed: 7, drop: Some(i) };
        let e = build_data(&spec, 100).unwrap_err().to_string();
        assert!(e.contains("data.drop"), "{e}");
    }
    // Strict JSON: the field parses on sine and friedman, a CSV refuses it.
    let parse = |t: &str| parse_as::<MrlsrSpec>(Paper::Mrlsr, t);
    let ok = parse(
        r#"{"data": {"kind": "friedman", "n": 20, "sigma": 1, "seed": 1, "drop": 3},
            "kernel": {"kind": "linear"}, "m": 2, "lambda": 0.1}"#,
    )
    .unwrap();
    assert!(matches!(ok.data, DataSpec::Friedman { drop: Some(3), .. }));
    let bad = parse(
        r#"{"data": {"kind": "csv", "text": "x,y\n1,2\n", "drop": 0},
            "kernel": {"kind": "linear"}, "m": 2, "lambda": 0.1}"#,
    );
    assert!(bad.unwrap_err().to_string().contains("drop"));
}

#[test]
fn the_fit_plot_gets_the_removed_point() {
    let spec = MrlsrSpec {
        data: DataSpec::Sine { n: 40, sigma: 0.2, seed: 1, drop: Some(5) },
        ..MrlsrSpec::default()
    };
    let full = Sine1d { n: 40, sigma: 0.2, seed: 1 }.generate().unwrap();
    let s = session_of(spec).unwrap();
    let FitCurves::OneD { removed, xs, .. } = s.fit_curves(50).unwrap() else { panic!("1-D") };
    assert_eq!(removed, Some((full.x[(5, 0)], full.y[5])));
    assert_eq!(xs.len(), 39);
    let plain = session_of(MrlsrSpec::default()).unwrap();
    let FitCurves::OneD { removed, .. } = plain.fit_curves(50).unwrap() else { panic!("1-D") };
    assert_eq!(removed, None);
}
