//! Paper A through the experiment layer: the features and Gram-tensor paths give the same
//! iterates (Section 2.3), every algorithm runs from a spec, and bad specs give one clear error.
#![cfg(not(target_arch = "wasm32"))]

use kernel_playground::papers::lp::{top_k_recovery, LpSpec};

fn spec(data: &str, model_extra: &str, algorithm: &str) -> LpSpec {
    let text = format!(
        r#"{{"data":{data},"model":{{"problem":"lp_regression","p":1.3333333333333333,"gamma":2{model_extra}}},
            "solver":{{"algorithm":"{algorithm}","tol":1e-30,"max_iter":25}}}}"#
    );
    LpSpec::from_json(&text).unwrap()
}

const REG: &str = r#"{"kind":"sparse_regression","n":9,"d":4,"k":2,"sigma":0.1,"seed":3}"#;
const BLOBS: &str = r#"{"kind":"two_blobs","n":10,"separation":3,"spread":1,"flip":0.1,"seed":2}"#;

fn alphas(e: &LpSpec, iters: usize) -> Vec<Vec<f64>> {
    let v = e.validate().unwrap();
    let mut run = v.start_any().unwrap();
    let mut out = vec![];
    for _ in 0..iters {
        run.step();
        out.push(run.stepper().alpha().unwrap().as_slice().to_vec());
    }
    out
}

fn max_rel(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let mut m = 0.0f64;
    for (x, y) in a.iter().zip(b) {
        let num: f64 = x.iter().zip(y).map(|(p, q)| (p - q) * (p - q)).sum::<f64>().sqrt();
        let den: f64 = y.iter().map(|q| q * q).sum::<f64>().sqrt().max(1e-300);
        m = m.max(num / den);
    }
    m
}

#[test]
fn tensor_and_feature_paths_give_the_same_iterates() {
    for kernel in [r#""kernel":{"kind":"linear"}"#, r#""kernel":{"kind":"polynomial","degree":2}"#]
    {
        for (data, loss, alg) in [
            (REG, r#""loss":{"kind":"square"}"#, "prox_dual"),
            (REG, r#""loss":{"kind":"huber","rho":0.5}"#, "prox_dual"),
            (REG, r#""loss":{"kind":"square"}"#, "dual_newton"),
            (BLOBS, r#""loss":{"kind":"logistic"}"#, "dual_newton"),
            (BLOBS, r#""loss":{"kind":"hinge"}"#, "prox_dual"),
        ] {
            let f = spec(data, &format!(",{loss},{kernel}"), alg);
            let t = spec(data, &format!(",{loss},{kernel},\"path\":\"tensor\""), alg);
            let (a, b) = (alphas(&f, 12), alphas(&t, 12));
            let r = max_rel(&a, &b);
            assert!(r < 1e-10, "{kernel} {loss} {alg}: features vs tensor iterates differ by {r}");
        }
    }
}

#[test]
fn every_algorithm_reaches_the_newton_optimum_on_a_small_case() {
    let base = spec(REG, "", "dual_gradient");
    let v = base.validate().unwrap();
    let (f_star, _) = v.reference_optimum(None).unwrap();
    for alg in ["dual_gradient", "prox_dual", "dual_newton", "primal_gd", "fista"] {
        let mut e = base.clone();
        e.solver.algorithm = alg.into();
        e.solver.max_iter = 20000;
        e.solver.tol = 1e-9;
        let mut run = e.validate().unwrap().start_any().unwrap();
        run.run();
        let f = run.last().primal.unwrap();
        assert!((f - f_star) / f_star < 1e-7, "{alg}: F = {f}, F* = {f_star}");
        assert!(f >= f_star * (1.0 - 1e-12), "{alg}: F = {f} below the Newton optimum {f_star}");
    }
}

#[test]
fn bad_specs_give_one_clear_message() {
    let cases = [
        (spec(REG, r#","path":"tensor""#, "prox_dual"), "p"),
        (
            spec(REG, r#","path":"tensor","kernel":{"kind":"polynomial","degree":0}"#, "prox_dual"),
            "degree",
        ),
        (spec(REG, r#","loss":{"kind":"eps_insensitive","eps":-1}"#, "prox_dual"), "ε"),
        (spec(REG, r#","loss":{"kind":"huber","rho":0}"#, "prox_dual"), "ρ"),
        (spec(REG, r#","loss":{"kind":"hinge"}"#, "prox_dual"), "±1"),
        (spec(REG, r#","kernel":{"kind":"exponential"}"#, "prox_dual"), "tensor path"),
        (spec(REG, r#","path":"tensor""#, "dual_gradient"), "prox_dual"),
        (spec(REG, r#","loss":{"kind":"hinge"}"#, "dual_newton"), "twice differentiable"),
        (
            spec(
                r#"{"kind":"sparse_regression","n":300,"d":4,"k":2,"sigma":0.1,"seed":3}"#,
                r#","path":"tensor""#,
                "prox_dual",
            ),
            "budget",
        ),
    ];
    let mut cases = cases.to_vec();
    cases[0].0.model = LpSpec::from_json(
        r#"{"data":{"kind":"csv","text":"a,y\n1,2\n"},"model":{"problem":"lp_regression","p":1.5,"gamma":1,"path":"tensor"}}"#,
    )
    .unwrap()
    .model;
    for (e, needle) in cases {
        let err = e
            .validate()
            .err()
            .unwrap_or_else(|| panic!("spec accepted: {}", e.to_json()))
            .to_string();
        assert!(err.contains(needle), "message `{err}` does not mention `{needle}`");
    }
}

#[test]
fn exponential_kernel_overflow_is_reported_not_panicked() {
    let e = spec(
        r#"{"kind":"sparse_regression","n":6,"d":400,"k":2,"sigma":0.1,"seed":3}"#,
        r#","path":"tensor","kernel":{"kind":"exponential"}"#,
        "prox_dual",
    );
    let err =
        e.validate().unwrap().start_any().err().expect("overflow must be an error").to_string();
    assert!(
        err.contains("non-finite") || err.contains("overflow") || err.contains("too large"),
        "{err}"
    );
}

#[test]
fn top_k_recovery_counts_against_a_brute_force_definition() {
    let w_true = [0.0, 2.0, 0.0, -1.0, 0.0, 0.5];
    let w = [0.1, 1.5, -0.9, 0.05, 0.0, 0.4];
    // top-3 of |w|: indices 1, 2, 6th (0.4) → true support {1, 3, 5}: recovers 1 and 5.
    assert_eq!(top_k_recovery(&w, &w_true), (3, 2));
}

#[test]
fn a_tensor_built_elsewhere_is_adopted_only_by_the_experiment_it_fits() {
    let tensor = |extra: &str| {
        spec(REG, &format!(r#","path":"tensor"{extra}"#), "prox_dual").validate().unwrap()
    };
    let v = tensor("");
    let key = v.tensor_key().expect("tensor path has a key");
    let built = v.build_tensor().unwrap();
    // Adopted values give the same iterates as a tensor built in place.
    let adopted = v.tensor_from_values(&key, built.values().to_vec()).unwrap();
    let (mut r1, mut r2) =
        (v.start_with_tensor(built.clone()).unwrap(), v.start_with_tensor(adopted).unwrap());
    for _ in 0..8 {
        let (a, b) = (r1.step().unwrap(), r2.step().unwrap());
        assert_eq!(a.primal.map(f64::to_bits), b.primal.map(f64::to_bits));
    }
    // γ, loss and algorithm do not change the tensor: same key.
    let g = spec(REG, r#","path":"tensor""#, "dual_newton").validate().unwrap();
    assert_eq!(g.tensor_key().as_deref(), Some(key.as_str()));
    // Other data (seed), another kernel, another q: other keys, and the values are refused.
    let other_seed =
        spec(&REG.replace(r#""seed":3"#, r#""seed":4"#), r#","path":"tensor""#, "prox_dual")
            .validate()
            .unwrap();
    let other_kernel = tensor(r#","kernel":{"kind":"polynomial","degree":2}"#);
    let q6 = LpSpec::from_json(
        &spec(REG, r#","path":"tensor""#, "prox_dual")
            .to_json()
            .replace("1.3333333333333333", "1.2"),
    )
    .unwrap()
    .validate()
    .unwrap();
    for other in [&other_seed, &other_kernel, &q6] {
        let k = other.tensor_key().unwrap();
        assert_ne!(k, key);
        let err = other
            .tensor_from_values(&key, built.values().to_vec())
            .map(|_| ())
            .expect_err("a foreign tensor must be refused")
            .to_string();
        assert!(err.contains("build it again"), "{err}");
    }
    // The right key with a corrupted value or a wrong count is still refused.
    let mut bad = built.values().to_vec();
    bad[3] = f64::NAN;
    assert!(v.tensor_from_values(&key, bad).is_err());
    assert!(v.tensor_from_values(&key, built.values()[1..].to_vec()).is_err());
    // The features path has no key and adopts nothing; a lower budget refuses the build.
    let f = spec(REG, "", "prox_dual").validate().unwrap();
    assert!(f.tensor_key().is_none());
    assert!(f.tensor_from_values(&key, built.values().to_vec()).is_err());
    assert!(f.tensor_build_within(1 << 30).is_err());
    let err = v.tensor_build_within(100).err().expect("over a 100-byte budget").to_string();
    assert!(err.contains("budget"), "{err}");
    assert!(v.tensor_build_within(u64::MAX).is_ok());
}

// ---- the page's state machine, natively (papers::lp::page, issue 20) ------------------------

mod page {
    use kernel_playground::exec::Stop;
    use kernel_playground::papers::lp::page::{LpPage, RacePhase};
    use kernel_playground::papers::Spec;

    const SPEC: &str = r#"{"data":{"kind":"sparse_regression","n":30,"d":60,"k":3,"sigma":0.05,"seed":4},
        "model":{"problem":"lp_regression","p":1.3333333333333333,"gamma":5},
        "solver":{"algorithm":"dual_gradient","tol":1e-10,"max_iter":5000}}"#;

    fn with(edit: impl Fn(&mut serde_json::Value)) -> String {
        let mut v: serde_json::Value = serde_json::from_str(SPEC).unwrap();
        edit(&mut v);
        v.to_string()
    }

    #[test]
    fn a_run_to_its_end_is_kplay_runs_and_step_after_the_end_advances_nothing() {
        let mut page = LpPage::new(SPEC).unwrap();
        while page.run_for(50.0) > 0 {}
        let (last, stop, phase) = page.last();
        assert_eq!((stop, phase), (Stop::Converged, "solving"));
        // The CLI's run of the same spec (papers::run, its own loop): the same iterations and bits.
        let report = kernel_playground::papers::run(&Spec::from_json(SPEC).unwrap()).unwrap();
        assert_eq!(report.iterations, last.iter);
        assert_eq!(report.last.primal.map(f64::to_bits), last.primal.map(f64::to_bits));
        assert_eq!(report.data_digest, page.digest());
        assert_eq!(page.step(), 0);
        assert_eq!(page.last().0.iter, last.iter);
        page.restart().unwrap();
        assert_eq!(page.last().0.iter, 0);
        assert_eq!(page.step(), 1);
    }

    #[test]
    fn a_new_p_keeps_the_data_and_new_data_regenerate_them() {
        let mut page = LpPage::new(SPEC).unwrap();
        let x0 = page.valid().data.x.clone();
        let d0 = page.digest().to_string();
        page.update(&with(|v| v["model"]["p"] = 1.5.into())).unwrap();
        assert_eq!(page.digest(), d0);
        assert_eq!(page.valid().data.x, x0);
        assert_eq!(page.valid().p, 1.5);
        page.update(&with(|v| v["data"]["seed"] = 5.into())).unwrap();
        assert_ne!(page.digest(), d0);
        // A bad spec is refused with the field named, and the state stays.
        let d1 = page.digest().to_string();
        let e = page.update(&with(|v| v["model"]["p"] = 3.0.into())).unwrap_err().to_string();
        assert!(e.contains('p'), "{e}");
        assert_eq!(page.digest(), d1);
        assert_eq!(page.valid().p, 4.0 / 3.0, "the spec before the refused one");
    }

    #[test]
    fn the_tensor_path_waits_for_its_tensor_keeps_it_across_gamma_and_drops_it_for_a_new_q() {
        let tensor = with(|v| {
            v["data"]["d"] = 5.into();
            v["data"]["n"] = 12.into();
            v["model"]["path"] = "tensor".into();
            v["solver"]["algorithm"] = "prox_dual".into();
        });
        let mut page = LpPage::new(&tensor).unwrap();
        assert_eq!(page.last().2, "needs_build");
        assert_eq!(page.step(), 0);
        assert!(page.start_race().unwrap_err().to_string().contains("model.path"));
        let key = page.valid().tensor_key().unwrap();
        let values = page.valid().build_tensor().unwrap().into_values();
        // Another experiment's key is refused and nothing changes.
        assert!(page.adopt_tensor("other", values.clone(), 1.0).is_err());
        assert!(!page.has_tensor());
        page.adopt_tensor(&key, values, 12.5).unwrap();
        assert!(page.has_tensor());
        assert_eq!(page.build_ms(), 12.5);
        assert_eq!(page.last().2, "solving");
        assert_eq!(page.step(), 1);
        // γ does not enter the tensor: kept. q does (p = 6/5 → q = 6): dropped.
        let mut v: serde_json::Value = serde_json::from_str(&tensor).unwrap();
        v["model"]["gamma"] = 9.into();
        page.update(&v.to_string()).unwrap();
        assert!(page.has_tensor());
        v["model"]["p"] = 1.2.into();
        page.update(&v.to_string()).unwrap();
        assert!(!page.has_tensor());
        assert_eq!(page.last().2, "needs_build");
    }

    #[test]
    fn the_page_race_and_kplay_race_give_the_same_standings() {
        let mut page = LpPage::new(SPEC).unwrap();
        assert!(matches!(page.race_phase(), RacePhase::Idle));
        page.start_race().unwrap();
        assert!(matches!(page.race_phase(), RacePhase::Reference(_)));
        let mut lanes = None;
        for _ in 0..100_000 {
            page.race_for(5.0).unwrap();
            if let RacePhase::Lanes(job, race) = page.race_phase() {
                if !race.running() {
                    let f_star = race.target().map(|t| t.f_star).unwrap();
                    lanes = Some((f_star, job.reference_iter(), race.standings()));
                    break;
                }
            }
        }
        let (f_star, reference_iter, standings) = lanes.expect("the race ends");
        let cli = kernel_playground::papers::lp::run::race(
            &kernel_playground::papers::lp::LpSpec::from_json(SPEC).unwrap(),
        )
        .unwrap();
        assert_eq!(cli["f_star"].as_f64().unwrap().to_bits(), f_star.to_bits());
        assert_eq!(cli["reference_newton_iterations"].as_u64().unwrap() as usize, reference_iter);
        let cli_lanes = cli["lanes"].as_array().unwrap();
        assert_eq!(cli_lanes.len(), standings.len());
        for (c, s) in cli_lanes.iter().zip(&standings) {
            assert_eq!(c["algorithm"].as_str().unwrap(), s.algorithm);
            assert_eq!(c["iterations"].as_u64().unwrap() as usize, s.iterations, "{}", s.algorithm);
            assert_eq!(c["status"].as_str().unwrap(), s.status.word(), "{}", s.algorithm);
        }
    }
}
