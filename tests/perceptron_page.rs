//! Page D's state machine, natively (`papers::perceptron::PerceptronPage`, which the wasm
//! `PerceptronPlayground` only translates): the reuse rule (only the algorithm restarts on the
//! same G, seen by the `Arc`'s identity, not by time), a large data set prepared in slices while
//! the old session stays shown, a refused update keeping the old run and its race, the heatmap's
//! cross kernel cached under its grid, and the race of the page's spec equal to `kplay race` of
//! its link. Every number is checked against a session built afresh from the same spec.

use std::sync::Arc;

use kernel_playground::papers::perceptron::{
    hand_points, to_data, HeatGrid, PageSummary, PerceptronChecked, PerceptronPage,
    PerceptronSession, PerceptronSpec, SYNC_GRAM, SYNC_HEAT,
};
use kernel_playground::papers::{self, Spec};

/// A generated set of `n` points with a kernel, an algorithm and extra top-level fields.
fn spec(shape: &str, n: usize, seed: u64, kernel: &str, algorithm: &str, extra: &str) -> String {
    format!(
        r#"{{"paper":"perceptron","data":{{"kind":"generated","set":{{"shape":{shape},"n":{n},"label_noise":0,"seed":{seed}}}}},"kernel":{kernel},"algorithm":{algorithm},"max_iter":20000{extra}}}"#
    )
}

const BLOBS: &str = r#"{"kind":"blobs","margin":0.4,"spread":0.5}"#;
/// Overlapping blobs: the plain perceptron never stops before its cap, so every step counts.
const OVERLAP: &str = r#"{"kind":"blobs","margin":-1.5,"spread":0.5}"#;
const LINEAR: &str = r#"{"kind":"linear"}"#;
const GAUSSIAN: &str = r#"{"kind":"gaussian","bandwidth":{"fixed":0.5}}"#;

/// A session built afresh from the JSON spec, as `kplay run` builds it.
fn fresh(json: &str) -> PerceptronSession {
    PerceptronSession::new(
        PerceptronChecked::check(PerceptronSpec::from_json(json).unwrap()).unwrap(),
    )
    .unwrap()
}

fn run_to_end(page: &mut PerceptronPage) {
    while page.step().unwrap() > 0 {}
}

fn problem(
    page: &PerceptronPage,
) -> Arc<kernel_playground::solvers::perceptron::PerceptronProblem> {
    page.session().expect("a session").problem.clone()
}

/// Prepare in slices of one unit each (a zero budget: one unit per call, whatever the
/// machine's speed); how many calls it took.
fn prepare_in_slices(page: &mut PerceptronPage) -> usize {
    let mut calls = 0;
    loop {
        calls += 1;
        if page.prepare(0.0).unwrap() && page.preparing().is_empty() {
            return calls;
        }
        assert!(calls < 1_000_000, "the preparation ends");
    }
}

#[test]
fn updating_only_the_algorithm_keeps_g_and_rho_and_runs_as_a_fresh_session() {
    let first = spec(OVERLAP, 80, 1, LINEAR, r#"{"kind":"perceptron"}"#, "");
    let mut page = PerceptronPage::new(&first).unwrap();
    assert!(page.ready());
    let g = problem(&page);
    let rho = page.session().unwrap().margin.rho.to_bits();
    page.step().unwrap();
    page.step().unwrap();
    assert_eq!(page.session().unwrap().record().iter, 2);

    // Same data and kernel, another algorithm, cap and race: the same G (the same allocation),
    // the same ρ_K, the algorithm restarted at its first iterate.
    let second = spec(
        OVERLAP,
        80,
        1,
        LINEAR,
        r#"{"kind":"nvn","epsilon":0.05}"#,
        r#","race":{"delta":0.05}"#,
    );
    page.update(&second).unwrap();
    assert!(page.ready(), "nothing to prepare");
    assert!(Arc::ptr_eq(&g, &problem(&page)), "G reused");
    let s = page.session().unwrap();
    assert_eq!(s.margin.rho.to_bits(), rho);
    assert_eq!((s.record().iter, s.spec().algorithm.name()), (0, "NVN"));
    assert_eq!(s.spec().race_parameters(), (0.05, 0.05, 2.0));
    let link = page.spec_json();
    assert!(link.contains("nvn") && link.contains("\"delta\":0.05"), "{link}");

    // The restarted run is a fresh session's of the same spec, bit for bit.
    run_to_end(&mut page);
    let mut direct = fresh(&second);
    while direct.step() {}
    let (a, b) = (page.session().unwrap().record(), direct.record());
    assert_eq!((a.iter, a.norm_p_g.map(f64::to_bits)), (b.iter, b.norm_p_g.map(f64::to_bits)));
    assert_eq!(page.session().unwrap().stop(), direct.stop());

    // Another seed, another kernel, or another margin search: a new G.
    for other in [
        spec(OVERLAP, 80, 2, LINEAR, r#"{"kind":"perceptron"}"#, ""),
        spec(OVERLAP, 80, 1, GAUSSIAN, r#"{"kind":"perceptron"}"#, ""),
        spec(OVERLAP, 80, 1, LINEAR, r#"{"kind":"perceptron"}"#, r#","margin":{"rel_tol":0.01}"#),
    ] {
        let mut p = PerceptronPage::new(&first).unwrap();
        let g = problem(&p);
        p.update(&other).unwrap();
        assert!(p.ready(), "80² ≤ {SYNC_GRAM}: prepared at once");
        assert!(!Arc::ptr_eq(&g, &problem(&p)), "a new G for {other}");
        assert_eq!(p.session().unwrap().digest, fresh(&other).digest);
    }
}

#[test]
fn a_large_data_set_is_prepared_in_slices_while_the_old_session_stays_shown() {
    let small = spec(OVERLAP, 60, 1, LINEAR, r#"{"kind":"perceptron"}"#, "");
    let mut page = PerceptronPage::new(&small).unwrap();
    for _ in 0..5 {
        page.step().unwrap();
    }
    let (old_digest, old_iter) = {
        let s = page.session().unwrap();
        (s.digest.clone(), s.record().iter)
    };
    assert_eq!(old_iter, 5);
    let large = spec(BLOBS, 700, 3, GAUSSIAN, r#"{"kind":"snkp"}"#, "");
    const { assert!(700 * 700 > SYNC_GRAM) };
    page.update(&large).unwrap();
    assert!(!page.ready() && page.offloadable(), "the whole matrix is ahead");
    assert!(page.step().is_err(), "no step while a new session is prepared");
    assert!(page.start_race().is_err());
    assert_eq!(page.session().unwrap().digest, old_digest, "the old session is shown");
    assert!(page.spec_json().contains("\"n\":700"), "the link is the new spec's");
    match page.summary(0) {
        PageSummary::Preparing(p) => {
            assert_eq!(p.n, 700);
            assert!(p.preparing.starts_with("computing the normalized Gram matrix G"), "{p:?}");
        }
        s => panic!("expected the preparation's progress, got {s:?}"),
    }

    // A few slices, then back to the shown session's spec: the preparation is dropped and the
    // old session runs on, its run untouched.
    assert!(!page.prepare(0.0).unwrap());
    assert!(!page.offloadable(), "slices started: the page finishes them");
    page.update(&small).unwrap();
    assert!(page.ready());
    assert_eq!(page.session().unwrap().digest, old_digest);
    assert_eq!(page.session().unwrap().record().iter, 0, "the algorithm restarted");
    for _ in 0..old_iter {
        page.step().unwrap();
    }

    // Again, to the end, one unit per call: many calls, the old session shown until the last.
    page.update(&large).unwrap();
    let mut calls = 0;
    while !page.prepare(0.0).unwrap() {
        calls += 1;
        assert_eq!(page.session().unwrap().digest, old_digest);
        assert_eq!(page.session().unwrap().record().iter, old_iter);
    }
    assert!(calls > 1, "prepared in {calls} slices");
    assert!(page.ready());
    let direct = fresh(&large);
    let s = page.session().unwrap();
    assert_eq!(s.digest, direct.digest);
    assert_eq!(s.margin.rho.to_bits(), direct.margin.rho.to_bits());
    assert_eq!(s.problem.gram(), direct.problem.gram(), "G equals the one built at once");
}

#[test]
fn a_refused_update_keeps_the_old_run_its_link_and_its_race() {
    let good = spec(OVERLAP, 60, 1, LINEAR, r#"{"kind":"perceptron"}"#, "");
    let mut page = PerceptronPage::new(&good).unwrap();
    for _ in 0..3 {
        page.step().unwrap();
    }
    let iter = page.session().unwrap().record().iter;
    assert_eq!(iter, 3);
    let g = problem(&page);
    let link = page.spec_json();
    page.start_race().unwrap();
    let one_class = r#"{"paper":"perceptron","data":{"kind":"points","points":[[0.5,0.5,1],[1,-0.2,1]]},"kernel":{"kind":"linear"},"algorithm":{"kind":"snkp"}}"#;
    let origin = r#"{"paper":"perceptron","data":{"kind":"points","points":[[0,0,1],[1,1,-1]]},"kernel":{"kind":"linear"},"algorithm":{"kind":"snkp"}}"#;
    let refused = [
        ("{not json".to_string(), ""),
        (spec(BLOBS, 60, 1, LINEAR, r#"{"kind":"nvn","epsilon":0}"#, ""), "algorithm.epsilon"),
        (
            spec(BLOBS, 60, 1, LINEAR, r#"{"kind":"isnkpvn","gamma":1,"epsilon":0.1}"#, ""),
            "algorithm.gamma",
        ),
        (spec(BLOBS, 60, 1, LINEAR, r#"{"kind":"snkp"}"#, r#","race":{"gamma":1}"#), "race.gamma"),
        (
            spec(BLOBS, 60, 1, LINEAR, r#"{"kind":"snkp"}"#, r#","margin":{"rel_tol":2}"#),
            "margin.rel_tol",
        ),
        (good.replace("\"max_iter\":20000", "\"max_iter\":0"), "max_iter"),
        (spec(BLOBS, 1, 1, LINEAR, r#"{"kind":"snkp"}"#, ""), "data."),
        (one_class.to_string(), "data.points"),
        // Checked, but G cannot be built (K(x, x) = 0 at the origin): refused by the
        // preparation, which is dropped.
        (origin.to_string(), "K(x,x) = 0"),
    ];
    for (json, says) in &refused {
        let e = page.update(json).unwrap_err().to_string();
        assert!(e.contains(says), "{json}: {e}");
        assert!(page.ready(), "{json}");
        assert!(Arc::ptr_eq(&g, &problem(&page)), "{json}");
        assert_eq!(page.session().unwrap().record().iter, iter, "{json}");
        assert_eq!(page.spec_json(), link, "{json}");
        assert!(page.race_for(0.0).is_ok(), "the race is kept: {json}");
    }
    let e = page.update(one_class).unwrap_err().to_string();
    assert!(e.contains("all labels are equal"), "{e}");
    // The old run still runs, to its cap as a fresh session's.
    run_to_end(&mut page);
    match page.summary(0) {
        PageSummary::Run(r) => {
            assert_eq!(r.status, "max_iterations");
            assert_eq!(r.iter, fresh(&good).run_to_end_iter());
        }
        s => panic!("{s:?}"),
    }

    // A refused update during a large preparation keeps that preparation.
    let large = spec(BLOBS, 700, 3, GAUSSIAN, r#"{"kind":"snkp"}"#, "");
    page.update(&large).unwrap();
    assert!(page.update(&refused[1].0).is_err());
    assert!(!page.ready() && page.spec_json().contains("\"n\":700"));
    prepare_in_slices(&mut page);
    assert_eq!(page.session().unwrap().digest, fresh(&large).digest);
}

/// A fresh session's iterations to its end.
trait ToEnd {
    fn run_to_end_iter(self) -> usize;
}

impl ToEnd for PerceptronSession {
    fn run_to_end_iter(mut self) -> usize {
        self.run_to_end();
        self.record().iter
    }
}

#[test]
fn the_heatmaps_cross_kernel_is_cached_under_its_grid_and_kept_by_an_algorithm_update() {
    let (n, pw, ph) = (700, 420, 300);
    let mut page =
        PerceptronPage::new(&spec(BLOBS, n, 5, GAUSSIAN, r#"{"kind":"snkp"}"#, "")).unwrap();
    prepare_in_slices(&mut page);
    assert!(page.ready());
    for _ in 0..5 {
        page.step().unwrap();
    }
    let view = page.session().unwrap().view;
    let grid = HeatGrid::for_area(view, pw, ph, n, false);
    assert!(grid.nx * grid.ny * n > SYNC_HEAT, "a cross kernel computed in slices");

    // A new grid: no values until its cross kernel is computed; then the decision function,
    // equal to the kernel sum computed directly.
    let h = page.heatmap(view, pw, ph).unwrap().unwrap();
    assert_eq!(h.grid, grid);
    assert!(h.values.is_none());
    assert!(page.preparing().starts_with("computing the heatmap's kernel values"));
    let calls = prepare_in_slices(&mut page);
    assert!(calls > 1, "the heatmap's kernel values in {calls} slices");
    let check = |page: &mut PerceptronPage| {
        let values = page.heatmap(view, pw, ph).unwrap().unwrap().values.expect("cached");
        let direct = page.session().unwrap().decision_grid(view, grid.nx, grid.ny).unwrap();
        assert_eq!(values.len(), direct.len());
        for (u, v) in values.iter().zip(&direct) {
            assert!((u - v).abs() <= 1e-9 * (1.0 + v.abs()), "{u} vs {v}");
        }
    };
    check(&mut page);

    // Another algorithm on the same data: the cache serves its α at once.
    page.update(&spec(BLOBS, n, 5, GAUSSIAN, r#"{"kind":"nkp"}"#, "")).unwrap();
    assert!(page.ready());
    for _ in 0..7 {
        page.step().unwrap();
    }
    check(&mut page);
    assert!(page.preparing().is_empty(), "no job: the cache was kept");

    // Another grid (a wider canvas): computed anew.
    assert!(page.heatmap(view, pw + 40, ph).unwrap().unwrap().values.is_none());
    // The linear kernel needs no cache: its values at once, equal to the kernel sum.
    let mut lin =
        PerceptronPage::new(&spec(BLOBS, 60, 5, LINEAR, r#"{"kind":"snkp"}"#, "")).unwrap();
    lin.step().unwrap();
    let v = lin.session().unwrap().view;
    let h = lin.heatmap(v, pw, ph).unwrap().unwrap();
    assert_eq!(
        (h.grid.nx, h.grid.ny),
        (HeatGrid::for_area(v, pw, ph, 60, true).nx, HeatGrid::for_area(v, pw, ph, 60, true).ny)
    );
    let s = lin.session().unwrap();
    let g = kernel_playground::datasets::plane::grid(v[0], v[1], v[2], v[3], h.grid.nx, h.grid.ny)
        .unwrap();
    let slow = s.problem.decision_function(&s.alpha(), &g).unwrap();
    for (u, w) in h.values.unwrap().iter().zip(slow.iter()) {
        assert!((u - w).abs() <= 1e-12 * (1.0 + w.abs()));
    }
}

#[test]
fn the_pages_race_is_kplays_race_of_its_link_and_an_update_drops_it() {
    let json = spec(
        r#"{"kind":"blobs","margin":-1.5,"spread":0.5}"#,
        50,
        4,
        LINEAR,
        r#"{"kind":"nvn","epsilon":0.03}"#,
        r#","race":{"delta":0.05,"gamma":3}"#,
    );
    let mut page = PerceptronPage::new(&json).unwrap();
    assert!(page.race_for(1.0).is_err(), "no race yet");
    page.start_race().unwrap();
    let mut state = page.race_for(0.0).unwrap();
    while !state.finished {
        state = page.race_for(1e9).unwrap();
    }
    let cli = papers::race(&Spec::from_json(&page.spec_json()).unwrap()).unwrap();
    let cli = cli["lanes"].as_array().unwrap();
    assert_eq!(state.lanes.len(), 6);
    for (mine, theirs) in state.lanes.iter().zip(cli) {
        for key in ["algorithm", "iterations", "status", "outcome", "verified", "bound"] {
            assert_eq!(mine[key], theirs[key], "{key}: {mine} vs {theirs}");
        }
    }
    // Inseparable data: the von Neumann algorithms' certificates, verified; the primal ones'
    // cap.
    let entries = page.race_entries();
    for e in &entries {
        let certifies = ["NVN", "SNKPVN", "ISNKPVN"].contains(&e.name.as_str());
        let want = if certifies { ("certificate", true) } else { ("cap", false) };
        assert_eq!((e.outcome.as_str(), e.verified), want, "{e:?}");
    }
    // Any update drops the race (here one that keeps G).
    page.update(&json.replace("0.03", "0.02")).unwrap();
    assert!(page.race_for(1.0).is_err() && page.race_entries().is_empty());
}

#[test]
fn clicks_map_into_the_drawn_view() {
    let mut page =
        PerceptronPage::new(&spec(BLOBS, 60, 1, LINEAR, r#"{"kind":"snkp"}"#, "")).unwrap();
    let (view, rect) = ([-2.0, 3.0, -1.0, 4.0], [10, 20, 110, 220]);
    page.set_drawn(view, rect);
    // The rectangle's corners are the view's (the canvas's y grows downwards).
    assert_eq!(page.data_at(10.0, 20.0), [-2.0, 4.0]);
    assert_eq!(page.data_at(110.0, 220.0), [3.0, -1.0]);
    assert_eq!(page.data_at(60.0, 120.0), [0.5, 1.5]);
    assert_eq!(to_data(view, rect, 35.0, 70.0), [-0.75, 2.75]);
    // Hand-made points: the drawable ones, in a view holding them, the origin and [−1.5, 1.5]².
    let (x, y, v) = hand_points(&[[2.0, 0.5, 1.0], [f64::NAN, 0.0, -1.0], [-0.2, -3.0, -1.0]]);
    assert_eq!((x, y), (vec![(2.0, 0.5), (-0.2, -3.0)], vec![1.0, -1.0]));
    assert!(v[0] <= -1.5 && v[1] >= 2.0 && v[2] <= -3.0 && v[3] >= 1.5, "{v:?}");
}
