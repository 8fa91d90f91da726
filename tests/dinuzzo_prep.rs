//! Paper C's preparation computed elsewhere and adopted by the page (issue 21 §3): a worker
//! runs `DinuzzoPage::prepare_all` on several threads and hands over the Gram matrix, ‖K‖₂ and
//! the decision map's kernel values; the page adopts them (`DinuzzoPage::adopt`) and its run is
//! then exactly the sliced page's and `kplay`'s (sweeps, objective bits, coefficients). What
//! does not fit this page's spec is refused with a message and the page prepares in slices.

use kernel_playground::papers::dinuzzo::page::{DinuzzoPage, Handover};
use kernel_playground::papers::{Paper, Spec};

fn spec_with(edit: impl Fn(&mut serde_json::Value)) -> String {
    let mut v = Spec::default_for(Paper::Dinuzzo).to_value();
    v["data"]["n"] = 700.into();
    edit(&mut v);
    v.to_string()
}

/// The fixed point with α = 1/‖K‖₂ (the norm is part of the preparation).
fn fixed_point(v: &mut serde_json::Value) {
    v["method"] = serde_json::json!({ "kind": "fixed_point", "step": { "kind": "inverse_norm" }, "tol": 1e-8, "max_sweeps": 60 });
}

/// What a worker computes: the whole preparation on `threads` threads, owned.
struct Worker {
    digest: String,
    gram: Vec<f64>,
    norm: Option<f64>,
    map: Option<Vec<f64>>,
}

fn worker(spec: &str, threads: usize) -> Worker {
    kernel_playground::par::set_threads(threads).unwrap();
    let mut page = DinuzzoPage::new(spec).unwrap();
    assert!(page.offloadable(), "n² = 490 000: a whole kernel matrix to prepare");
    page.prepare_all().unwrap();
    assert!(page.ready() && page.map().is_some());
    let Handover { digest, gram, norm, map } = page.handover().unwrap();
    let w = Worker { digest, gram: gram.unwrap().to_vec(), norm, map: map.map(<[f64]>::to_vec) };
    kernel_playground::par::set_threads(1).unwrap();
    w
}

fn adopt(page: &mut DinuzzoPage, w: &Worker) -> kernel_playground::Result<()> {
    let gram = w.gram.clone();
    let mut fill_gram = move |d: &mut [f64]| d.copy_from_slice(&gram);
    let map = w.map.clone();
    let mut fill_map = |d: &mut [f64]| d.copy_from_slice(map.as_deref().unwrap());
    let map_fill = w.map.as_ref().map(|m| (m.len(), &mut fill_map as &mut dyn FnMut(&mut [f64])));
    page.adopt(&w.digest, (w.gram.len(), &mut fill_gram), w.norm, map_fill)
}

/// Run a page to its end; (sweeps, objective bits, c bits, map values' bits).
fn finish(page: &mut DinuzzoPage) -> (usize, u64, Vec<u64>, Vec<u64>) {
    while !page.prepare(3.0).unwrap() {}
    while page.run_for(50.0) > 0 {}
    let lane = page.selected_lane().unwrap();
    let last = *lane.trace().last().unwrap();
    let c = lane.solver.c().iter().map(|v| v.to_bits()).collect();
    let map = page.map().unwrap().0.cross_values().unwrap().iter().map(|v| v.to_bits()).collect();
    (last.iter, last.primal.unwrap().to_bits(), c, map)
}

fn sliced(spec: &str) -> (usize, u64, Vec<u64>, Vec<u64>) {
    let mut page = DinuzzoPage::new(spec).unwrap();
    assert!(!page.ready());
    finish(&mut page)
}

#[test]
fn an_adopted_preparation_gives_the_sliced_run_and_kplays() {
    for spec in [spec_with(|_| {}), spec_with(fixed_point)] {
        let w = worker(&spec, 3);
        assert_eq!(
            w.norm.is_some(),
            spec.contains("fixed_point"),
            "‖K‖₂ only when the solver needs it"
        );
        let mut page = DinuzzoPage::new(&spec).unwrap();
        assert!(page.offloadable());
        adopt(&mut page, &w).unwrap();
        assert!(page.ready(), "adopted: ready without a slice");
        assert!(page.map().is_some(), "the map's kernel values adopted too");
        assert!(!page.offloadable());
        let adopted = finish(&mut page);
        assert_eq!(adopted, sliced(&spec), "the same run, bit for bit, as the page's slices");
        let report = kernel_playground::papers::run(&Spec::from_json(&spec).unwrap()).unwrap();
        assert_eq!(report.iterations, adopted.0);
        assert_eq!(report.last.primal.map(f64::to_bits), Some(adopted.1));
        assert_eq!(report.data_digest, w.digest);
    }
}

#[test]
fn the_worker_computes_the_same_bits_on_any_number_of_threads() {
    let spec = spec_with(fixed_point);
    let one = worker(&spec, 1);
    for t in [2, 4] {
        let w = worker(&spec, t);
        assert!(
            w.gram.iter().zip(&one.gram).all(|(a, b)| a.to_bits() == b.to_bits()),
            "{t} threads: Gram"
        );
        assert_eq!(w.norm.map(f64::to_bits), one.norm.map(f64::to_bits), "{t} threads: ‖K‖₂");
        let (a, b) = (w.map.as_ref().unwrap(), one.map.as_ref().unwrap());
        assert!(a.iter().zip(b).all(|(a, b)| a.to_bits() == b.to_bits()), "{t} threads: map");
    }
}

#[test]
fn what_does_not_fit_the_spec_is_refused_and_the_page_prepares_in_slices() {
    let spec = spec_with(fixed_point);
    let w = worker(&spec, 2);
    let want = sliced(&spec);

    // Another spec's preparation (another seed): its digest is refused, nothing adopted.
    let other = worker(
        &spec_with(|v| {
            fixed_point(v);
            v["data"]["seed"] = 2.into();
        }),
        2,
    );
    let mut page = DinuzzoPage::new(&spec).unwrap();
    let e = adopt(&mut page, &other).unwrap_err().to_string();
    assert!(e.contains("digest"), "{e}");
    assert!(page.offloadable() && !page.ready());
    assert_eq!(finish(&mut page), want);

    // The wrong number of values: refused before anything is written.
    let mut short = Worker {
        digest: w.digest.clone(),
        gram: w.gram[1..].to_vec(),
        norm: w.norm,
        map: w.map.clone(),
    };
    let mut page = DinuzzoPage::new(&spec).unwrap();
    let e = adopt(&mut page, &short).unwrap_err().to_string();
    assert!(e.contains("values handed over"), "{e}");
    assert_eq!(finish(&mut page), want);

    // One value changed in the spot-checked block (the middle columns), or one not finite.
    let n = 700;
    short.gram = w.gram.clone();
    short.gram[n * (n / 2) + 3] += 1e-12;
    let mut page = DinuzzoPage::new(&spec).unwrap();
    let e = adopt(&mut page, &short).unwrap_err().to_string();
    assert!(e.contains("differ"), "{e}");
    assert!(page.offloadable(), "the refused matrix is computed again from column 0");
    assert_eq!(finish(&mut page), want);
    short.gram = w.gram.clone();
    short.gram[5] = f64::NAN;
    let mut page = DinuzzoPage::new(&spec).unwrap();
    assert!(adopt(&mut page, &short).unwrap_err().to_string().contains("finite"));
    assert_eq!(finish(&mut page), want);

    // ‖K‖₂ above Gershgorin's bound: the matrix is kept, the page computes ‖K‖₂ itself.
    short.gram = w.gram.clone();
    short.norm = Some(2.0 * n as f64);
    let mut page = DinuzzoPage::new(&spec).unwrap();
    let e = adopt(&mut page, &short).unwrap_err().to_string();
    assert!(e.contains("Gershgorin"), "{e}");
    assert!(!page.offloadable() && !page.ready(), "the Gram matrix was adopted; ‖K‖₂ is left");
    assert_eq!(finish(&mut page), want);

    // A small problem (ready at once) or one already under way has nothing to adopt.
    let small = spec_with(|v| v["data"]["n"] = 80.into());
    let mut page = DinuzzoPage::new(&small).unwrap();
    assert!(!page.offloadable());
    assert!(adopt(&mut page, &w).is_err());
    let mut page = DinuzzoPage::new(&spec).unwrap();
    page.prepare(0.0).unwrap();
    assert!(!page.offloadable(), "slices started: the page finishes them");
    assert!(adopt(&mut page, &w).is_err());
    assert_eq!(finish(&mut page), want);
}

#[test]
fn kc_on_threads_has_the_one_thread_bits() {
    let spec = spec_with(fixed_point);
    let mut page = DinuzzoPage::new(&spec).unwrap();
    while !page.prepare(f64::INFINITY).unwrap() {}
    let p = &page.built().unwrap().problem;
    let c = nalgebra::DVector::from_fn(p.n(), |i, _| ((i * 7919) % 101) as f64 / 50.0 - 1.0);
    kernel_playground::par::set_threads(1).unwrap();
    let one = p.kc(&c);
    // And an independent check of the product: K's columns summed directly.
    let k = p.dense_gram();
    let direct = &k * &c;
    assert!((&one - &direct).amax() <= 1e-12 * direct.amax());
    for t in [2, 3, 4] {
        kernel_playground::par::set_threads(t).unwrap();
        let many = p.kc(&c);
        kernel_playground::par::set_threads(1).unwrap();
        assert!(
            many.iter().zip(one.iter()).all(|(a, b)| a.to_bits() == b.to_bits()),
            "{t} threads"
        );
    }
}
