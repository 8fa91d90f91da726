//! The preset job (src/papers/lp/job.rs): sliced data → build → solve ends exactly where one
//! uninterrupted run of the same spec ends (`LpProblem::start_any` + the executor's `Run::run`, the
//! path `kplay run` takes), reuses data and tensors only when they fit, and reports errors.

use kernel_playground::papers::lp::job::{Job, JobCache, JobPhase};
use kernel_playground::papers::lp::LpSpec;

fn spec(json: &str) -> LpSpec {
    LpSpec::from_json(json).expect("test spec parses")
}

const FEATURES: &str = r#"{"data":{"kind":"sparse_regression","n":30,"d":80,"k":3,"sigma":0.05,"seed":2},
  "model":{"problem":"lp_regression","p":1.25,"gamma":10},"solver":{"algorithm":"dual_gradient","tol":1e-8,"max_iter":5000}}"#;
const TENSOR: &str = r#"{"data":{"kind":"sparse_regression","n":14,"d":40,"k":3,"sigma":0.05,"seed":3},
  "model":{"problem":"lp_regression","p":1.3333333333333333,"gamma":10,"path":"tensor"},"solver":{"algorithm":"prox_dual","tol":1e-8,"max_iter":5000}}"#;

/// The reference: one uninterrupted run (what `kplay run` prints).
fn reference(json: &str) -> (usize, f64, f64) {
    let valid = spec(json).validate().expect("valid");
    let mut run = valid.start_any().expect("starts");
    run.run();
    let l = run.last();
    (l.iter, l.primal.unwrap(), l.rel_gap.unwrap())
}

#[test]
fn sliced_job_ends_where_an_uninterrupted_run_ends() {
    for json in [FEATURES, TENSOR] {
        let (it, f, rg) = reference(json);
        let mut job = Job::new(spec(json), JobCache::default()).expect("job");
        let mut phases = vec![];
        let last = loop {
            // A zero budget: one unit of work per call (data, one build block, one iteration).
            let p = job.advance(0.0).expect("advance");
            if phases.last() != Some(&p.phase) {
                phases.push(p.phase);
            }
            if p.phase == JobPhase::Done {
                break p;
            }
        };
        let tensor = json.contains("tensor");
        let want = if tensor {
            vec![JobPhase::Build, JobPhase::Solve, JobPhase::Done]
        } else {
            vec![JobPhase::Solve, JobPhase::Done]
        };
        assert_eq!(phases, want);
        assert_eq!(last.iter, it);
        assert_eq!(last.primal, f, "same arithmetic, same bits");
        assert_eq!(last.rel_gap, rg);
        assert!(last.rel_gap <= 1e-8);
        assert_eq!(last.build_fraction, if tensor { 1.0 } else { 0.0 });
        assert_eq!(last.tensor_path, tensor);
    }
}

#[test]
fn the_next_job_reuses_data_and_tensor_only_when_they_fit() {
    let mut a = Job::new(spec(TENSOR), JobCache::default()).expect("job");
    let pa = a.run_to_end().expect("runs");
    assert!(!pa.tensor_reused && !pa.data_reused);
    // Same data, kernel and q, another algorithm: both reused, same optimum as a fresh run.
    let newton = TENSOR.replace("prox_dual", "dual_newton");
    let mut b = Job::new(spec(&newton), a.into_cache()).expect("job");
    let first = b.advance(0.0).expect("advance");
    assert_eq!(first.phase, JobPhase::Solve, "no build when the tensor is reused");
    let pb = b.run_to_end().expect("runs");
    assert!(pb.tensor_reused && pb.data_reused);
    assert_eq!(pb.build_ms, 0.0);
    let (it, f, _) = reference(&newton);
    assert_eq!((pb.iter, pb.primal), (it, f));
    assert!(
        (pb.primal - pa.primal).abs() <= 1e-7 * pa.primal.abs(),
        "{} vs {}",
        pb.primal,
        pa.primal
    );
    // Other data (seed): neither is reused, and the result is that spec's own.
    let other = newton.replace("\"seed\":3", "\"seed\":4");
    let mut c = Job::new(spec(&other), b.into_cache()).expect("job");
    let pc = c.run_to_end().expect("runs");
    assert!(!pc.tensor_reused && !pc.data_reused);
    let (it, f, _) = reference(&other);
    assert_eq!((pc.iter, pc.primal), (it, f));
}

#[test]
fn bad_jobs_are_errors_not_panics() {
    // Refused at once: unknown algorithm, p out of range.
    assert!(
        Job::from_json(&FEATURES.replace("dual_gradient", "newton"), JobCache::default()).is_err()
    );
    assert!(Job::from_json(&FEATURES.replace("1.25", "2.5"), JobCache::default()).is_err());
    assert!(Job::from_json("{", JobCache::default()).is_err());
    // Refused when the data are generated: k > d.
    let mut j = Job::from_json(&FEATURES.replace("\"k\":3", "\"k\":90"), JobCache::default())
        .expect("checks pass");
    assert!(j.advance(10.0).is_err());
    // The exponential kernel overflows on large inputs: an error during the build, naming exp.
    let exp = TENSOR
        .replace("\"path\":\"tensor\"", "\"path\":\"tensor\",\"kernel\":{\"kind\":\"exponential\"}")
        .replace("\"d\":40", "\"d\":3000");
    let mut j = Job::from_json(&exp, JobCache::default()).expect("checks pass");
    let err = loop {
        match j.advance(50.0) {
            Ok(p) => assert_ne!(p.phase, JobPhase::Done, "the overflowing build finished"),
            Err(e) => break e.to_string(),
        }
    };
    assert!(err.contains("exp"), "{err}");
    assert!(j.advance(50.0).is_err(), "a failed job stays failed");
}
