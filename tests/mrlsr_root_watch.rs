//! Paper B's root search drawn on F(C) (issue 32 §9): the page steps the direct solve's own
//! search for the roots of F (eq. 6) one Newton or bisection step per frame; its end must be the
//! direct fit's C₀ (m > 1) or stationary points (m ≤ 1), bit for bit, with as many steps as the
//! direct solve reports — on every lesson B step that moves the fit, and on m around 1.
#![cfg(not(target_arch = "wasm32"))]

use kernel_playground::papers::mrlsr::{
    MrlsrChecked, MrlsrSession, MrlsrSpec, ParamSweep, SWEEP_FRAMES,
};
use serde_json::Value;

/// The page's session on `spec`, checked first ([`MrlsrChecked::for_page`]): the only way in.
fn session_of(spec: MrlsrSpec) -> kernel_playground::error::Result<MrlsrSession> {
    MrlsrSession::new(MrlsrChecked::for_page(&spec)?)
}

/// Step the session's root search to its end, checking that each call is at most one step and
/// that the bracket always holds the iterate; returns (roots found, steps, frames).
fn watch_to_end(session: &MrlsrSession) -> (Vec<f64>, usize, usize) {
    let mut w = session.root_watch().unwrap();
    let mut frames = 0;
    let mut last = w.view().steps;
    while !w.ended() {
        w.step();
        frames += 1;
        let v = w.view();
        assert!(v.steps <= last + 1, "one step per frame at most");
        last = v.steps;
        if let (Some((lo, hi)), Some(&(c, _))) = (v.bracket, v.path.last()) {
            assert!(lo <= c && c <= hi, "iterate {c} outside its bracket [{lo}, {hi}]");
        }
        assert!(frames < 10_000, "the search never ends");
    }
    let v = w.view();
    assert!(v.ended && v.bracket.is_none());
    (w.found().to_vec(), v.steps, frames)
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The direct solve's roots: C₀ (m > 1), the stationary points' C (m ≤ 1); and its steps.
fn direct(session: &MrlsrSession) -> (Vec<f64>, usize) {
    let s = session.summary(0.0);
    if s.kind == "theorem1" {
        let c0 = s.c0.unwrap();
        // m = 2: C₀ = 1 in closed form, nothing searched.
        return (if s.m == 2.0 { vec![] } else { vec![c0] }, s.iterations);
    }
    (s.roots.iter().map(|r| r.c).collect(), usize::MAX)
}

fn check(spec: MrlsrSpec, what: &str) -> usize {
    let session = session_of(spec).unwrap();
    let (found, steps, frames) = watch_to_end(&session);
    let (want, want_steps) = direct(&session);
    assert_eq!(bits(&found), bits(&want), "{what}: the search's roots are the direct solve's");
    if want_steps != usize::MAX {
        assert_eq!(steps, want_steps, "{what}: as many steps as the direct solve reports");
    }
    assert!(frames >= steps, "{what}: a frame per step");
    steps
}

#[test]
fn every_lesson_root_search_ends_on_the_direct_solve() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/www/lessons/b.json"))
        .unwrap();
    let lesson: Value = serde_json::from_str(&text).unwrap();
    let mut searched = 0;
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
        // The page's path: the sweep to the target, then the search there.
        let mut session = session_of(start.clone()).unwrap();
        let mut sweep =
            ParamSweep::new((start.m, start.lambda), (target.m, target.lambda), SWEEP_FRAMES);
        session.sweep_to_end(&mut sweep).unwrap();
        let (found, _, _) = watch_to_end(&session);
        let (want, _) = direct(&session_of(target.clone()).unwrap());
        assert_eq!(bits(&found), bits(&want), "step {}: after the sweep", k + 1);
        if check(target, &format!("step {}", k + 1)) > 0 {
            searched += 1;
        }
    }
    assert!(searched >= 8, "lesson B searches in {searched} steps");
}

#[test]
fn searches_around_m_one_end_on_the_direct_solve() {
    let text = r#"{"data": {"kind": "sine", "n": 60, "sigma": 0.2, "seed": 3},
        "kernel": {"kind": "gaussian", "bandwidth": "heuristic"}, "m": 1.5, "lambda": 0.001}"#;
    let base: MrlsrSpec = serde_json::from_str(text).unwrap();
    let mut two_roots = 0;
    for (m, lambda) in
        [(0.3, 1e-3), (0.5, 1e-4), (0.9, 1e-2), (1.0, 1e-3), (1.01, 1e-3), (3.5, 1e-5)]
    {
        let mut s = base.clone();
        s.m = m;
        s.lambda = lambda;
        check(s.clone(), &format!("m = {m}, λ = {lambda}"));
        let session = session_of(s).unwrap();
        if session.summary(0.0).roots.len() == 2 {
            two_roots += 1;
        }
    }
    assert!(two_roots >= 1, "some m < 1 has two roots to search");
}
