//! Page B's state machine in the core ([`MrlsrPage`], issue 34), stepped natively: a sweep of
//! (m, λ) walks its refits to the target, then the root search there ends, and the page's fit is
//! the fit a fresh session refits at the target; a target with m ≤ 0 or λ ≤ 0 is refused by name
//! and changes nothing; the executor slices the sweep one step per call at a zero budget. No
//! timing: every loop waits for a state.
#![cfg(not(target_arch = "wasm32"))]

use kernel_playground::exec::run_task_for;
use kernel_playground::papers::mrlsr::page::MrlsrPage;
use kernel_playground::papers::mrlsr::{
    FitCurves, MrlsrChecked, MrlsrSession, MrlsrSpec, SWEEP_FRAMES,
};
use serde_json::Value;

/// The sweep's target: another (m, λ) than the default spec's (1.5, 10⁻³).
const TARGET: (f64, f64) = (2.5, 3e-2);

/// A fresh session on the default spec, checked first as the page checks it.
fn session() -> MrlsrSession {
    MrlsrSession::new(MrlsrChecked::for_page(&MrlsrSpec::default()).unwrap()).unwrap()
}

/// Every field of the readouts but the timings.
fn readouts(s: &MrlsrSession) -> Value {
    let mut v = serde_json::to_value(s.summary(0.0)).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("refit_ms");
    o.remove("eigen_ms");
    v
}

/// The fitted curves (M-RLSR, KRR at λ₂) as bits: they are Kα on the grid, so equal bits mean
/// the same α up to the grid's kernel sums.
fn curve_bits(s: &MrlsrSession) -> (Vec<u64>, Option<Vec<u64>>) {
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    match s.fit_curves(120).unwrap() {
        FitCurves::OneD { mrlsr, krr, .. } | FitCurves::Fitted { mrlsr, krr, .. } => {
            (bits(&mrlsr), krr.as_deref().map(bits))
        }
    }
}

#[test]
fn a_sweep_refits_to_its_target_then_the_root_search_ends_on_the_fresh_fit() {
    let start = MrlsrSpec::default();
    assert_ne!((start.m, start.lambda), TARGET);
    let mut page = MrlsrPage::new(session(), 12.0);
    assert!(page.sweep_ended() && !page.has_sweep());
    assert_eq!(page.sweep_progress(), (0, 0));
    page.sweep_to(TARGET.0, TARGET.1).unwrap();
    assert!(page.has_sweep() && !page.sweep_ended());
    assert_eq!(page.sweep_progress(), (0, SWEEP_FRAMES));
    // Nothing is refitted before the first step.
    assert_eq!((page.session().spec().m, page.session().spec().lambda), (start.m, start.lambda));

    let mut refits = 0;
    let mut root_steps = 0;
    let (mut m_prev, mut l_prev) = (start.m, start.lambda);
    while !page.sweep_ended() {
        let (done, _) = page.sweep_progress();
        assert!(page.sweep_step().unwrap(), "a step is left while the sweep is under way");
        let (after, all) = page.sweep_progress();
        assert_eq!(all, SWEEP_FRAMES);
        if after > done {
            assert!(root_steps == 0, "no refit after the root search started");
            refits += 1;
            let spec = page.session().spec();
            // Each refit moves (m, λ) towards the target, never past it.
            assert!(spec.m > m_prev && spec.m <= TARGET.0, "m {} after {m_prev}", spec.m);
            assert!(spec.lambda > l_prev && spec.lambda <= TARGET.1);
            (m_prev, l_prev) = (spec.m, spec.lambda);
            assert_eq!(page.root().is_some(), after == all, "the search starts at the target");
        } else {
            root_steps += 1;
        }
        assert!(refits + root_steps < 10_000, "the sweep never ends");
    }
    assert_eq!(refits, SWEEP_FRAMES);
    assert!(root_steps >= 1, "the root search took no step");
    assert!(!page.sweep_step().unwrap(), "nothing is left once the sweep ended");
    assert!(page.has_sweep());
    assert_eq!((page.session().spec().m, page.session().spec().lambda), TARGET);

    // The page's fit is a fresh session's refit at the target, bit for bit.
    let mut fresh = session();
    fresh.refit(TARGET.0, TARGET.1).unwrap();
    assert_eq!(readouts(page.session()), readouts(&fresh));
    assert_eq!(curve_bits(page.session()), curve_bits(&fresh));
    // The root search ended on the direct solve's C₀ (m > 1: one root).
    let c0 = fresh.summary(0.0).c0.expect("m > 1 has a root C₀");
    let view = page.root().unwrap().view();
    assert!(view.ended);
    assert_eq!(view.found.iter().map(|c| c.to_bits()).collect::<Vec<_>>(), vec![c0.to_bits()]);
    // The summary carries the page's eigendecomposition time.
    assert_eq!(page.summary().eigen_ms, 12.0);

    // Back to the start: the start's fit, no root search, the sweep still there to replay.
    page.sweep_reset().unwrap();
    assert!(page.root().is_none() && page.has_sweep() && !page.sweep_ended());
    assert_eq!(page.sweep_progress(), (0, SWEEP_FRAMES));
    assert_eq!(readouts(page.session()), readouts(&session()));
    page.sweep_drop();
    assert!(!page.has_sweep() && page.sweep_ended());
}

#[test]
fn a_target_with_m_or_lambda_not_positive_is_refused_by_name_and_changes_nothing() {
    let mut page = MrlsrPage::new(session(), f64::INFINITY);
    assert!(page.summary().eigen_ms.is_nan(), "a time that is not finite is shown as NaN");
    let before = readouts(page.session());
    for (m, lambda, name) in [
        (0.0, 1e-2, "parameter m:"),
        (-1.0, 1e-2, "parameter m:"),
        (f64::NAN, 1e-2, "parameter m:"),
        (2.0, 0.0, "parameter lambda:"),
        (2.0, -1e-3, "parameter lambda:"),
        (2.0, f64::INFINITY, "parameter lambda:"),
    ] {
        let err = page.sweep_to(m, lambda).unwrap_err().to_string();
        assert!(err.contains(name), "sweep_to({m}, {lambda}): {err} does not name {name}");
        assert!(!page.has_sweep() && page.sweep_ended() && page.root().is_none());
        assert_eq!(readouts(page.session()), before);
    }
    // A refused target during a sweep leaves that sweep where it was.
    page.sweep_to(TARGET.0, TARGET.1).unwrap();
    page.sweep_step().unwrap();
    let (mid, progress) = (readouts(page.session()), page.sweep_progress());
    assert_eq!(progress, (1, SWEEP_FRAMES));
    assert!(page.sweep_to(0.0, 1e-2).is_err());
    assert_eq!(page.sweep_progress(), progress);
    assert_eq!(readouts(page.session()), mid);
    // And a refused refit keeps the fit too, naming the field as the sweep and the spec do.
    for (m, lambda, name) in
        [(2.0, -1.0, "parameter lambda: λ must"), (f64::NAN, 1e-2, "parameter m:")]
    {
        let err = page.refit(m, lambda).unwrap_err().to_string();
        assert!(err.contains(name), "refit({m}, {lambda}): {err} does not name {name}");
        assert_eq!(readouts(page.session()), mid);
    }
}

#[test]
fn the_executor_slices_the_sweep_one_step_per_call_at_a_zero_budget() {
    // The steps of the sweep one by one, as the Player's "step" does.
    let mut stepped = MrlsrPage::new(session(), 0.0);
    stepped.sweep_to(TARGET.0, TARGET.1).unwrap();
    let mut steps = 0;
    while stepped.sweep_step().unwrap() {
        steps += 1;
        assert!(steps < 10_000, "the sweep never ends");
    }
    assert!(stepped.sweep_ended());

    let mut page = MrlsrPage::new(session(), 0.0);
    page.sweep_to(TARGET.0, TARGET.1).unwrap();
    let mut calls = 0;
    let mut units = 0;
    while !page.sweep_ended() {
        let k = run_task_for(&mut page, 0.0).unwrap();
        assert!(k >= 1, "call {calls} advanced nothing before the sweep ended");
        units += k;
        calls += 1;
        assert!(calls < 10_000, "the sweep never ends");
    }
    assert_eq!(units, steps, "the executor's units are the sweep's steps");
    assert!(calls >= SWEEP_FRAMES, "a zero budget runs one unit per call");
    assert_eq!(run_task_for(&mut page, 0.0).unwrap(), 0, "an ended sweep has no unit left");
    assert_eq!(readouts(page.session()), readouts(stepped.session()));
    assert_eq!(page.root().unwrap().view().found, stepped.root().unwrap().view().found);
}
