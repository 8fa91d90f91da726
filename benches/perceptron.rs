//! Paper D: iterations and time to the outcome (separator or ε-certificate) for n = 200 and
//! 2000, every algorithm, next to the paper's bound for the separately measured margin ρ_K.
//! The table is printed once (single timed runs); criterion then times the n = 200 runs.
//!
//! `cargo bench --bench perceptron` (add `-- --quick` style filters as usual).

use std::sync::Arc;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use kernel_playground::exec::{Run, Stepper};
use kernel_playground::kernels::{Bandwidth, Kernel};
use kernel_playground::papers::perceptron::testbeds::{arc, circles, overlapping, separable};
use kernel_playground::solvers::perceptron::bounds::{
    certificate_bound, separator_bound, snkpvn_certificate_bound,
};
use kernel_playground::solvers::perceptron::margin::{margin, MarginOptions, Separability};
use kernel_playground::solvers::perceptron::{
    start, Isnkpvn, Outcome, PerceptronAlgorithm, PerceptronProblem,
};
use nalgebra::{DMatrix, DVector};

const CAP: usize = 50_000;

struct Case {
    name: String,
    problem: Arc<PerceptronProblem>,
    algorithms: Vec<PerceptronAlgorithm>,
}

fn primal(rho: f64) -> Vec<PerceptronAlgorithm> {
    vec![
        PerceptronAlgorithm::Perceptron,
        PerceptronAlgorithm::Nkp,
        PerceptronAlgorithm::Snkp,
        PerceptronAlgorithm::Nvn { epsilon: 0.5 * rho },
        PerceptronAlgorithm::Snkpvn { delta: 0.5 * rho },
        PerceptronAlgorithm::Isnkpvn { gamma: 2.0, epsilon: 0.5 * rho },
    ]
}

fn dual(eps: f64) -> Vec<PerceptronAlgorithm> {
    vec![
        PerceptronAlgorithm::Nvn { epsilon: eps },
        PerceptronAlgorithm::Snkpvn { delta: eps },
        PerceptronAlgorithm::Isnkpvn { gamma: 2.0, epsilon: eps },
    ]
}

fn case(name: String, x: DMatrix<f64>, y: Vec<f64>, kernel: Kernel, eps: Option<f64>) -> Case {
    let problem = Arc::new(PerceptronProblem::new(&x, &y, &kernel).unwrap());
    let algorithms = match eps {
        Some(e) => dual(e),
        None => primal(margin(problem.gram(), &MarginOptions::default()).unwrap().lower),
    };
    Case { name, problem, algorithms }
}

fn cases(n: usize) -> Vec<Case> {
    let gauss = Kernel::gaussian(Bandwidth::Heuristic);
    let (x, y) = separable(n, 0.1, 1);
    let mut out =
        vec![case(format!("separable (gap 0.1), linear, n={n}"), x, y, Kernel::linear(), None)];
    let (x, y) = arc(n, 85.0, 2);
    out.push(case(format!("arc 85° (rho = cos 85°), linear, n={n}"), x, y, Kernel::linear(), None));
    let (x, y) = circles(n, 3);
    out.push(case(format!("circles, Gaussian, n={n}"), x, y, gauss, None));
    let (x, y) = arc(n, 100.0, 4);
    out.push(case(
        format!("arc 100° (|rho| = |cos 100°|), linear, n={n}, eps=1e-2"),
        x,
        y,
        Kernel::linear(),
        Some(1e-2),
    ));
    let (x, y) = arc(n, 92.0, 5);
    out.push(case(
        format!("arc 92° (|rho| = |cos 92°|), linear, n={n}, eps=1e-2"),
        x,
        y,
        Kernel::linear(),
        Some(1e-2),
    ));
    let (x, y) = overlapping(n, 6);
    out.push(case(
        format!("overlapping, linear, n={n}, eps=1e-3"),
        x,
        y,
        Kernel::linear(),
        Some(1e-3),
    ));
    out
}

fn table() {
    for n in [200usize, 2000] {
        for case in cases(n) {
            let pb = &case.problem;
            let t0 = Instant::now();
            let m = margin(pb.gram(), &MarginOptions::default()).unwrap();
            let tm = t0.elapsed().as_secs_f64() * 1e3;
            let q0 = pb.norm_g(&DVector::from_element(pb.n(), 1.0 / pb.n() as f64));
            println!(
                "\n## {}: rho_K in [{:.6}, {:.6}] ({:?}, {} FW iterations, {:.1} ms)",
                case.name, m.lower, m.upper, m.separability, m.iterations, tm
            );
            println!("| algorithm | outcome | verified | iterations | bound | time (ms) |");
            println!("|---|---|---|---:|---:|---:|");
            for algo in &case.algorithms {
                let t0 = Instant::now();
                let (out, iters) = run_capped(pb, *algo);
                let ms = t0.elapsed().as_secs_f64() * 1e3;
                let rho_abs = (-m.upper).max(0.0);
                let bound = match (m.separability, *algo) {
                    (Separability::Separable, _) => separator_bound(algo, pb.n(), m.lower, q0),
                    (_, PerceptronAlgorithm::Isnkpvn { gamma, epsilon }) => {
                        // Lemma 9 phase by phase, with the run's δ_t and ‖q_t‖_G = γ δ_t.
                        let mut s = Isnkpvn::new(pb.clone(), gamma, epsilon).unwrap();
                        while s.record().iter < CAP && s.step().is_some() {}
                        Some(
                            s.phases()
                                .iter()
                                .map(|&(_, d)| {
                                    snkpvn_certificate_bound(pb.n(), d, gamma * d, rho_abs)
                                })
                                .sum(),
                        )
                    }
                    _ => certificate_bound(algo, pb.n(), q0, rho_abs),
                };
                let kind = match &out {
                    Outcome::Separator { .. } => "separator",
                    Outcome::Certificate { .. } => "certificate",
                    Outcome::IterationCap { .. } => "cap",
                };
                let b = bound.map_or("–".to_string(), |b| format!("{b:.0}"));
                println!(
                    "| {} | {} | {} | {} | {} | {:.2} |",
                    algo.name(),
                    kind,
                    out.verified(),
                    iters,
                    b,
                    ms
                );
            }
        }
    }
}

/// `algo` on `pb` through the executor ([`Run`], capped at `CAP`): its verified outcome and
/// iterations.
fn run_capped(pb: &Arc<PerceptronProblem>, algo: PerceptronAlgorithm) -> (Outcome, usize) {
    let mut run = Run::new(start(pb.clone(), algo).unwrap()).capped(CAP);
    let stop = run.run();
    let iters = run.last().iter;
    (Outcome::of(stop, iters, &run.solution(), &algo, pb).unwrap(), iters)
}

fn bench(c: &mut Criterion) {
    table();
    let mut group = c.benchmark_group("paper_d_n200");
    group.sample_size(10);
    group.measurement_time(std::time::Duration::from_secs(2));
    group.warm_up_time(std::time::Duration::from_millis(300));
    for case in cases(200) {
        for algo in case.algorithms.clone() {
            let pb = case.problem.clone();
            group.bench_function(format!("{} / {}", case.name, algo.name()), |b| {
                b.iter(|| run_capped(&pb, algo).0)
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
