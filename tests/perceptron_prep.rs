//! Paper D's preparation computed elsewhere and adopted by the page (issue 21 §3): a worker
//! runs `PerceptronPreparation::kernel_matrix_all` on several threads, then ρ_K's min-norm search
//! (`margin_search_all`), and hands over the matrix behind G and the search's weights; the page
//! adopts them (`adopt_kernel_matrix`, `adopt_margin_search`) and computes ρ_K's bracket from
//! them. Its session is then exactly the sliced page's and `kplay`'s: ρ_K's bracket, the run's
//! iterations and outcome, α's bits. What does not fit this page's spec is refused with a
//! message, and the page prepares in slices.

use kernel_playground::papers::perceptron::{
    PerceptronChecked, PerceptronPreparation, PerceptronSession, PerceptronSpec,
};

/// The spec checked (the only form a preparation accepts).
fn checked(spec: PerceptronSpec) -> PerceptronChecked {
    PerceptronChecked::check(spec).unwrap()
}

/// A large data set (n² = 490 000 > the page's 250 000 prepared at once) of `shape` with the
/// given kernel and algorithm.
fn spec(shape: &str, noise: f64, seed: u64, kernel: &str, algorithm: &str) -> PerceptronSpec {
    PerceptronSpec::from_json(&format!(
        r#"{{"paper":"perceptron","data":{{"kind":"generated","set":{{"n":700,"seed":{seed},"label_noise":{noise},"shape":{shape}}}}},"kernel":{kernel},"algorithm":{algorithm},"max_iter":4000}}"#
    ))
    .unwrap()
}

/// Blobs apart, a Gaussian kernel: SNKP's separator.
fn separable() -> PerceptronSpec {
    let gaussian = r#"{"kind":"gaussian","bandwidth":{"fixed":0.5}}"#;
    spec(r#"{"kind":"blobs","margin":0.4,"spread":0.5}"#, 0.0, 1, gaussian, r#"{"kind":"snkp"}"#)
}

/// Overlapping blobs with label noise and a linear kernel: no separator (ρ_K < 0, the margin's
/// inseparable branch), the von Neumann algorithm's ε-certificate.
fn inseparable() -> PerceptronSpec {
    let linear = r#"{"kind":"linear"}"#;
    spec(
        r#"{"kind":"blobs","margin":0.0,"spread":1.0}"#,
        0.1,
        2,
        linear,
        r#"{"kind":"nvn","epsilon":0.05}"#,
    )
}

/// What a worker computes, on `threads` threads: the digest, the kernel matrix, the search's
/// weights and iterations.
struct Worker {
    digest: String,
    k: Vec<f64>,
    p: Vec<f64>,
    it: usize,
}

fn worker(spec: &PerceptronSpec, threads: usize) -> Worker {
    kernel_playground::par::set_threads(threads).unwrap();
    let mut prep = PerceptronPreparation::new(checked(spec.clone())).unwrap();
    assert!(prep.offloadable(), "nothing computed yet: the whole matrix is ahead");
    let k = prep.kernel_matrix_all().unwrap().to_vec();
    let (p, it) = prep.margin_search_all().unwrap();
    let digest = prep.digest();
    kernel_playground::par::set_threads(1).unwrap();
    Worker { digest, k, p, it }
}

fn adopt(
    prep: &mut PerceptronPreparation,
    digest: &str,
    k: &[f64],
) -> kernel_playground::Result<()> {
    prep.adopt_kernel_matrix(digest, k.len(), |d| d.copy_from_slice(k))
}

fn adopt_all(prep: &mut PerceptronPreparation, w: &Worker) -> kernel_playground::Result<()> {
    adopt(prep, &w.digest, &w.k)?;
    prep.adopt_margin_search(w.p.clone(), w.it)
}

/// A session's margin and run to its end, as bits: (ρ_K's rho, lower, upper, its min-norm
/// iterations, separability), (iterations, outcome), α.
type Run = ([u64; 3], usize, String, usize, String, Vec<u64>);

fn finish(mut prep: PerceptronPreparation) -> (Run, String) {
    let mut s = loop {
        if let Some(s) = prep.advance(2.0).unwrap() {
            break s;
        }
    };
    let m = &s.margin;
    let head = (
        [m.rho.to_bits(), m.lower.to_bits(), m.upper.to_bits()],
        m.iterations,
        format!("{:?}", m.separability),
    );
    while s.step() {}
    let outcome = format!("{:?}", s.outcome().unwrap());
    let alpha = s.alpha().iter().map(|v| v.to_bits()).collect();
    ((head.0, head.1, head.2, s.record().iter, outcome, alpha), s.digest.clone())
}

#[test]
fn an_adopted_preparation_gives_the_sliced_session_and_kplays() {
    for spec in [separable(), inseparable()] {
        let w = worker(&spec, 3);
        let (sliced, _) = finish(PerceptronPreparation::new(checked(spec.clone())).unwrap());
        assert_eq!(w.it, sliced.1, "the worker's search stopped where the page's does");
        // The matrix alone (the search then runs here), and the matrix with the search.
        for with_search in [false, true] {
            let mut prep = PerceptronPreparation::new(checked(spec.clone())).unwrap();
            assert_eq!(prep.digest(), w.digest);
            if with_search {
                adopt_all(&mut prep, &w).unwrap();
            } else {
                adopt(&mut prep, &w.digest, &w.k).unwrap();
            }
            assert!(!prep.offloadable(), "adopted: nothing left to hand over");
            let (mine, d) = finish(prep);
            assert_eq!(d, w.digest, "the session's digest is the one handed over");
            assert_eq!(mine, sliced, "the same session and run, bit for bit, as the slices");
        }
        // With the search adopted, one unit of work gives the session: no search left to run.
        let mut prep = PerceptronPreparation::new(checked(spec.clone())).unwrap();
        adopt_all(&mut prep, &w).unwrap();
        assert!(prep.advance(0.0).unwrap().is_some());

        // kplay's run (the engine's own path, not the page's), independently of the above.
        let mut whole = PerceptronSession::new(checked(spec.clone())).unwrap();
        while whole.step() {}
        assert_eq!(whole.record().iter, sliced.3);
        assert_eq!(whole.margin.rho.to_bits(), sliced.0[0]);
        let alpha: Vec<u64> = whole.alpha().iter().map(|v| v.to_bits()).collect();
        assert_eq!(alpha, sliced.5);
    }
    // The two cases are what they claim to be: a separator on separable data, and a
    // certificate on inseparable data.
    let (s, _) = finish(PerceptronPreparation::new(checked(separable())).unwrap());
    assert!(s.4.contains("Separator") && s.2 == "Separable", "{} {}", s.4, s.2);
    let (i, _) = finish(PerceptronPreparation::new(checked(inseparable())).unwrap());
    assert!(i.4.contains("Certificate") && i.2 == "Inseparable", "{} {}", i.4, i.2);
}

#[test]
fn the_worker_computes_the_same_bits_on_any_number_of_threads() {
    let spec = separable();
    let w1 = worker(&spec, 1);
    let (d1, one) = (w1.digest.clone(), w1.k.clone());
    // And an independent check of a few entries: the Gaussian kernel evaluated directly.
    let prep = PerceptronPreparation::new(checked(spec.clone())).unwrap();
    let pts: Vec<[f64; 3]> = {
        let (x, y) = kernel_playground::papers::perceptron::build_points(&spec.data).unwrap();
        (0..x.nrows()).map(|i| [x[(i, 0)], x[(i, 1)], y[i]]).collect()
    };
    let n = prep.n();
    for (i, j) in [(0, 0), (3, 17), (699, 2), (350, 351)] {
        let d2 = (pts[i][0] - pts[j][0]).powi(2) + (pts[i][1] - pts[j][1]).powi(2);
        let want = (-d2 / 0.5).exp();
        assert!((one[j * n + i] - want).abs() <= 1e-13, "K[{i},{j}]");
    }
    for t in [2, 4] {
        let w = worker(&spec, t);
        assert_eq!(w.digest, d1);
        assert!(w.k.iter().zip(&one).all(|(a, b)| a.to_bits() == b.to_bits()), "{t} threads");
        assert_eq!(
            (w.p.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), w.it),
            (w1.p.iter().map(|v| v.to_bits()).collect(), w1.it),
            "{t} threads: the search"
        );
    }
}

#[test]
fn what_does_not_fit_the_spec_is_refused_and_the_page_prepares_in_slices() {
    let spec = separable();
    let w = worker(&spec, 2);
    let (digest, k) = (w.digest.clone(), w.k.clone());
    let want = finish(PerceptronPreparation::new(checked(spec.clone())).unwrap());

    // Another data set's matrix (another seed): its digest is refused, nothing adopted.
    let mut other_spec = spec.clone();
    other_spec.data = inseparable().data;
    let other = worker(&other_spec, 2);
    let mut prep = PerceptronPreparation::new(checked(spec.clone())).unwrap();
    let e = adopt(&mut prep, &other.digest, &other.k).unwrap_err().to_string();
    assert!(e.contains("digest"), "{e}");
    assert!(prep.offloadable());
    assert_eq!(finish(prep), want);

    // The wrong number of values: refused before anything is written.
    let mut prep = PerceptronPreparation::new(checked(spec.clone())).unwrap();
    let e = adopt(&mut prep, &digest, &k[1..]).unwrap_err().to_string();
    assert!(e.contains("values handed over"), "{e}");
    assert_eq!(finish(prep), want);

    // One value changed in the spot-checked block (the middle columns), or one not finite:
    // refused, and the matrix is computed again from column 0.
    let n = 700;
    let mut bad = k.clone();
    bad[n * (n / 2) + 3] += 1e-12;
    let mut prep = PerceptronPreparation::new(checked(spec.clone())).unwrap();
    let e = adopt(&mut prep, &digest, &bad).unwrap_err().to_string();
    assert!(e.contains("differ"), "{e}");
    assert!(prep.offloadable(), "the refused matrix is computed again from column 0");
    assert_eq!(finish(prep), want);
    let mut bad = k.clone();
    bad[5] = f64::NAN;
    let mut prep = PerceptronPreparation::new(checked(spec.clone())).unwrap();
    assert!(adopt(&mut prep, &digest, &bad).unwrap_err().to_string().contains("finite"));
    assert_eq!(finish(prep), want);

    // Weights that are not a stopped search on n points: refused, the matrix is kept and the
    // search runs here from its start.
    let bad_weights: [(Vec<f64>, usize, &str); 4] = [
        (w.p[1..].to_vec(), w.it, "weights handed over"),
        (
            {
                let mut p = w.p.clone();
                p[3] = -1e-3;
                p
            },
            w.it,
            "≥ 0",
        ),
        (
            {
                let mut p = w.p.clone();
                p[3] = f64::NAN;
                p
            },
            w.it,
            "finite",
        ),
        (w.p.clone(), usize::MAX, "the cap"),
    ];
    for (p, it, says) in bad_weights {
        let mut prep = PerceptronPreparation::new(checked(spec.clone())).unwrap();
        adopt(&mut prep, &digest, &k).unwrap();
        let e = prep.adopt_margin_search(p, it).unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
        assert!(prep.progress().0.starts_with("margin"), "G built, the search ahead");
        assert_eq!(finish(prep), want);
    }
    // The search's weights before the matrix: refused.
    let mut prep = PerceptronPreparation::new(checked(spec.clone())).unwrap();
    assert!(prep.adopt_margin_search(w.p.clone(), w.it).is_err());
    assert!(prep.offloadable());

    // A preparation whose slices have started, or which is past its matrix, has nothing to
    // adopt (and a worker's request for it is refused too).
    let mut prep = PerceptronPreparation::new(checked(spec.clone())).unwrap();
    assert!(prep.advance(0.0).unwrap().is_none());
    assert!(!prep.offloadable(), "slices started: the page finishes them");
    let e = adopt(&mut prep, &digest, &k).unwrap_err().to_string();
    assert!(e.contains("no whole kernel matrix"), "{e}");
    assert_eq!(finish(prep), want);
    let mut prep = PerceptronPreparation::new(checked(spec.clone())).unwrap();
    // One unit of work per call: the blocks of the matrix, then the min-norm search.
    while !prep.progress().0.starts_with("margin") {
        assert!(prep.advance(0.0).unwrap().is_none());
    }
    assert!(prep.kernel_matrix_all().is_err());
}

/// ρ_K's bracket is computed from whatever weights are adopted, so other weights in the simplex
/// (here the search's start, the centre, or one vertex) can only widen it: it still holds the
/// ρ_K the page's own search brackets.
#[test]
fn weights_from_elsewhere_widen_the_bracket_never_falsify_it() {
    let spec = separable();
    let w = worker(&spec, 1);
    let ((truth, _, _, _, _, _), _) =
        finish(PerceptronPreparation::new(checked(spec.clone())).unwrap());
    let (lo, hi) = (f64::from_bits(truth[1]), f64::from_bits(truth[2]));
    let n = w.p.len();
    let mut vertex = vec![0.0; n];
    vertex[7] = 1.0;
    for p in [vec![1.0 / n as f64; n], vertex] {
        let mut prep = PerceptronPreparation::new(checked(spec.clone())).unwrap();
        adopt(&mut prep, &w.digest, &w.k).unwrap();
        prep.adopt_margin_search(p, 0).unwrap();
        let s = prep.advance(0.0).unwrap().expect("the session, from the adopted weights");
        assert!(
            s.margin.lower <= lo && hi <= s.margin.upper,
            "[{}, {}] ⊇ [{lo}, {hi}]",
            s.margin.lower,
            s.margin.upper
        );
        assert!(s.margin.upper > hi, "other weights: a wider bracket");
    }
}
