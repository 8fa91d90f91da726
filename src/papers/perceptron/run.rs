//! Paper D (Ramdas, Peña), `kplay run` and `kplay race`: the spec checked
//! ([`PerceptronChecked::check`]), its [`PerceptronSession`] (2-D data, G, ρ_K and the running
//! perceptron-family algorithm, a [`crate::exec::Stepper`] under the executor's [`crate::exec::Run`]) run to
//! its end, and the race of the six algorithms ([`PerceptronRace`], each a lane of the
//! executor's race, capped by the race). A run ends with a verified separator (`Gα > 0`), a
//! verified ε-certificate (`‖p‖_G ≤ ε`), or the iteration cap.

use serde_json::{json, Value};

use crate::data::Dataset;
use crate::error::Result;
use crate::papers::perceptron::{
    build_points, DataSpec, PerceptronChecked, PerceptronRace, PerceptronSession, PerceptronSpec,
};
use crate::papers::report::Report;
use crate::spec_json::Paper;

/// The spec's points as a [`Dataset`].
pub fn dataset(data: &DataSpec) -> Result<Dataset> {
    let (x, y) = build_points(data)?;
    Ok(Dataset {
        x,
        y: nalgebra::DVector::from_vec(y),
        w_true: None,
        feature_names: vec!["x1".into(), "x2".into()],
    })
}

/// Run a paper-D experiment to its verified outcome (or the cap) and report `alpha`, `p` and
/// the outcome with its independent check.
/// The report's `time_ms` is the whole run's (paper D's iterations are O(n) and not timed one
/// by one).
pub fn run(spec: &PerceptronSpec) -> Result<Report> {
    let t0 = web_time::Instant::now();
    let mut session = PerceptronSession::new(PerceptronChecked::check(spec.clone())?)?;
    let setup_ms = t0.elapsed().as_secs_f64() * 1e3;
    let t1 = web_time::Instant::now();
    let status = session.run_to_end();
    let mut last = session.record();
    last.elapsed_ms = t1.elapsed().as_secs_f64() * 1e3;
    let outcome = session.outcome().ok().flatten();
    let mut solution = session.solution();
    solution["outcome"] = json!(outcome);
    solution["margin"] = json!(session.margin);
    Ok(Report {
        paper: Paper::Perceptron,
        status,
        iterations: last.iter,
        last,
        data_digest: session.digest.clone(),
        setup_ms,
        solution,
        trace: session.trace(),
        extra: serde_json::Map::new(),
    })
}

/// The six algorithms of paper D on the spec's data (ε, δ, γ: the spec's `race`, else its
/// algorithm's, else 0.01, 0.01, 2), each to its verified outcome or the cap.
pub fn race(spec: &PerceptronSpec) -> Result<Value> {
    let session = PerceptronSession::new(PerceptronChecked::check(spec.clone())?)?;
    let mut race = PerceptronRace::new(&session)?;
    race.run_parallel();
    Ok(json!({"paper": "perceptron", "margin": session.margin, "lanes": race.lanes_json()}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datasets::plane::{Classification2d, Shape2d};
    use crate::kernels::Kernel;
    use crate::solvers::perceptron::margin::Separability;
    use crate::solvers::perceptron::{start, PerceptronAlgorithm};

    /// A session of `spec`, through its check.
    fn session(spec: PerceptronSpec) -> Result<PerceptronSession> {
        PerceptronSession::new(PerceptronChecked::check(spec)?)
    }

    /// The race parameters of `spec`, through its check.
    fn race_parameters(spec: &PerceptronSpec) -> Result<(f64, f64, f64)> {
        Ok(PerceptronChecked::check(spec.clone())?.race_parameters())
    }

    #[test]
    fn gaussian_kernel_separates_circles_and_race_results_are_verified() {
        let data = DataSpec::Generated {
            set: Classification2d {
                shape: Shape2d::Circles { noise: 0.05, factor: 0.4 },
                n: 60,
                label_noise: 0.0,
                seed: 2,
            },
        };
        let lin = session(PerceptronSpec {
            data: data.clone(),
            algorithm: PerceptronAlgorithm::Nvn { epsilon: 0.01 },
            ..Default::default()
        })
        .unwrap();
        assert_ne!(lin.margin.separability, Separability::Separable);
        let kernel = Kernel::gaussian(crate::kernels::Bandwidth::Fixed(0.5));
        let s = session(PerceptronSpec { data, kernel, ..Default::default() }).unwrap();
        assert_eq!(s.margin.separability, Separability::Separable);
        let mut race = PerceptronRace::new(&s).unwrap();
        while !race.finished() {
            race.run_for(1e9);
        }
        let e = race.entries();
        assert_eq!(e.len(), 6);
        for r in &e {
            assert!(r.outcome == "separator" && r.verified, "{r:?}");
        }
        // The CLI's lanes read the same standings.
        for (j, r) in race.lanes_json().iter().zip(&e) {
            assert_eq!(
                (j["algorithm"].as_str(), j["iterations"].as_u64(), j["status"].as_str()),
                (Some(r.name.as_str()), Some(r.iterations as u64), Some("separator"))
            );
        }
    }

    #[test]
    fn the_race_runs_the_specs_race_parameters_and_refuses_bad_ones_by_name() {
        let base = r#"{"paper": "perceptron", "data": {"kind": "generated", "set": {"shape": {"kind": "blobs", "margin": -1.5, "spread": 0.5}, "n": 40, "label_noise": 0, "seed": 4}}, "kernel": {"kind": "linear"}, "algorithm": {"kind": "nvn", "epsilon": 0.03}, "max_iter": 20000"#;
        let spec = |race: &str| PerceptronSpec::from_json(&format!("{base}{race}}}")).unwrap();
        // Absent: the algorithm's ε, else the defaults; given: the race's own.
        assert_eq!(race_parameters(&spec("")).unwrap(), (0.03, 0.01, 2.0));
        let s = spec(r#", "race": {"delta": 0.05, "gamma": 4}"#);
        assert_eq!(race_parameters(&s).unwrap(), (0.03, 0.05, 4.0));
        // Each lane is the algorithm with those parameters run alone through the executor.
        let v = race(&s).unwrap();
        let session = session(s.clone()).unwrap();
        let algs = [
            PerceptronAlgorithm::Nvn { epsilon: 0.03 },
            PerceptronAlgorithm::Snkpvn { delta: 0.05 },
            PerceptronAlgorithm::Isnkpvn { gamma: 4.0, epsilon: 0.03 },
        ];
        for (lane, a) in v["lanes"].as_array().unwrap()[3..].iter().zip(algs) {
            let mut run = crate::exec::Run::new(start(session.problem.clone(), a).unwrap())
                .capped(s.max_iter);
            let stop = run.run();
            assert_eq!(lane["status"].as_str(), Some(stop.word()), "{lane}");
            assert_eq!(lane["iterations"].as_u64(), Some(run.last().iter as u64), "{lane}");
            assert_eq!(lane["verified"], true, "{lane}");
        }
        // δ = 0.05 certifies sooner than δ = 0.01 would (Lemma 9's bound falls as 1/δ).
        let default = race(&spec("")).unwrap();
        let snkpvn = |v: &Value| v["lanes"][4]["iterations"].as_u64().unwrap();
        assert!(snkpvn(&v) < snkpvn(&default), "{} vs {}", snkpvn(&v), snkpvn(&default));
        // A bad value names its field, for `kplay race` and `kplay run` alike.
        for (race_json, field) in [
            (r#", "race": {"gamma": 1}"#, "race.gamma"),
            (r#", "race": {"epsilon": 0}"#, "race.epsilon"),
            (r#", "race": {"delta": -1}"#, "race.delta"),
        ] {
            let e = race(&spec(race_json)).unwrap_err().to_string();
            assert!(e.contains(field), "{e}");
            let e = run(&spec(race_json)).unwrap_err().to_string();
            assert!(e.contains(field), "{e}");
        }
        let e = PerceptronSpec::from_json(&format!("{base}, \"race\": {{\"eta\": 1}}}}"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("race") && e.contains("eta"), "{e}");
        // Written back only when given, so the links of specs without a race stay as they were.
        assert!(!spec("").to_json().contains("race"));
        let back = PerceptronSpec::from_json(&s.to_json()).unwrap();
        assert_eq!(back, s);
    }
}
