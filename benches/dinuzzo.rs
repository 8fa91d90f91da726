//! Paper C (Dinuzzo): fixed point (eq. 10) against coordinate descent (Algorithm 1) with each
//! index rule, Gaussian kernel, hinge (L1-SVM) and square (RLS) losses, n = 500 and 2000.
//!
//! First a table: sweeps and time to `max|h| < δ = 1e-8` (capped), sweeps per second, final
//! duality gap. Then criterion measures one sweep of each solver (short measurement time).
//! `DINUZZO_BENCH_N=500` restricts the sizes; `DINUZZO_BENCH_TABLE_ONLY=1` skips criterion.

use std::time::{Duration, Instant};

use criterion::{black_box, Criterion};
use kernel_playground::datasets::plane::{Classification2d, Shape2d};
use kernel_playground::exec::{Record, Stop, Watch};
use kernel_playground::kernels::{Bandwidth, Kernel};
use kernel_playground::losses::Loss;
use kernel_playground::rng::Rng;
use kernel_playground::solvers::coordinate::{
    start, CoordinateConfig, IndexRule, Method, SweepSolver,
};
use kernel_playground::solvers::fixed_point::{
    FixedPointConfig, RegularizationProblem, Representation, StepRule,
};

const DELTA: f64 = 1e-8;
const MAX_SWEEPS: usize = 20_000;
const TIME_CAP: Duration = Duration::from_secs(40);

fn problem(n: usize, loss: Loss) -> RegularizationProblem {
    problem_ordered(n, loss, false)
}

/// The generator interleaves the classes (+1, −1, +1, …); `shuffle` permutes the rows once, to
/// see how much the cyclic rule depends on the data order.
fn problem_ordered(n: usize, loss: Loss, shuffle: bool) -> RegularizationProblem {
    let data =
        Classification2d { shape: Shape2d::Moons { noise: 0.15 }, n, label_noise: 0.05, seed: 1 }
            .generate()
            .unwrap();
    let (mut x, mut y) = (data.x.clone(), data.y.clone());
    if shuffle {
        let perm = Rng::new(99).choose_distinct(n, n);
        for (r, &i) in perm.iter().enumerate() {
            x.set_row(r, &data.x.row(i));
            y[r] = data.y[i];
        }
    }
    let kernel = Kernel::gaussian(Bandwidth::Heuristic);
    RegularizationProblem::new(&x, &y, &kernel, loss, 1.0, Representation::Gram).unwrap()
}

/// A solver under the executor's rules (the sweep cap, the stall rule).
struct Any {
    s: Box<dyn SweepSolver>,
    watch: Watch,
}

impl Any {
    fn step(&mut self) -> Option<Record> {
        self.watch.step(&mut self.s)
    }
    fn status(&self) -> Stop {
        self.watch.stop(&self.s)
    }
}

const SOLVERS: [&str; 4] = ["fixed point 1/‖K‖", "CD cyclic", "CD Aitken", "CD randomized"];

fn make(p: &RegularizationProblem, which: usize, max_sweeps: usize) -> Any {
    let rules = [IndexRule::Cyclic, IndexRule::AitkenDoubleSweep, IndexRule::RandomizedCyclic];
    let method = if which == 0 {
        Method::FixedPoint(FixedPointConfig {
            step: StepRule::InverseNorm,
            tol: DELTA,
            gap_tol: None,
        })
    } else {
        Method::Coordinate(CoordinateConfig {
            rule: rules[which - 1],
            seed: 7,
            tol: DELTA,
            gap_tol: None,
            ..CoordinateConfig::default()
        })
    };
    Any { s: start(p.clone(), method).unwrap(), watch: Watch::capped(max_sweeps) }
}

fn sizes() -> Vec<usize> {
    match std::env::var("DINUZZO_BENCH_N").ok().and_then(|v| v.parse().ok()) {
        Some(n) => vec![n],
        None => vec![500, 2000],
    }
}

fn run_to_tol(p: &RegularizationProblem, which: usize) -> (usize, f64, Stop, f64) {
    let mut s = make(p, which, MAX_SWEEPS);
    let t0 = Instant::now();
    let mut last = None;
    while let Some(r) = s.step() {
        last = Some(r);
        if t0.elapsed() > TIME_CAP {
            break;
        }
    }
    let r = last.unwrap();
    (r.iter, t0.elapsed().as_secs_f64(), s.status(), r.gap.unwrap_or(f64::NAN))
}

fn table() {
    println!(
        "| loss | n | solver | sweeps to δ=1e-8 | status | time to δ (s) | sweeps/s | final gap |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for loss in [Loss::Hinge, Loss::Square] {
        for n in sizes() {
            let p = problem(n, loss);
            for (which, name) in SOLVERS.iter().enumerate() {
                let t_setup = Instant::now();
                let mut s = make(&p, which, MAX_SWEEPS);
                let setup = t_setup.elapsed().as_secs_f64();
                let t0 = Instant::now();
                let mut last = None;
                while let Some(r) = s.step() {
                    last = Some(r);
                    if t0.elapsed() > TIME_CAP {
                        break;
                    }
                }
                let secs = t0.elapsed().as_secs_f64();
                let r = last.unwrap();
                let status = match s.status() {
                    Stop::Running => "time cap".to_string(),
                    st => format!("{st:?}"),
                };
                println!(
                    "| {} | {n} | {} | {} | {status} | {secs:.3} (+{setup:.3} setup) | {:.0} | {:.2e} |",
                    loss.name(),
                    name,
                    r.iter,
                    r.iter as f64 / secs,
                    r.gap.unwrap_or(f64::NAN)
                );
            }
        }
    }
}

fn sweeps(c: &mut Criterion) {
    for loss in [Loss::Hinge, Loss::Square] {
        for n in sizes() {
            let p = problem(n, loss);
            let mut group = c.benchmark_group(format!("sweep/{}/n={n}", loss.name()));
            group
                .sample_size(10)
                .warm_up_time(Duration::from_millis(300))
                .measurement_time(Duration::from_secs(2));
            for (which, name) in SOLVERS.iter().enumerate() {
                group.bench_function(*name, |b| {
                    let mut s = make(&p, which, usize::MAX);
                    b.iter(|| {
                        // A converged solver stops stepping: restart it (rare, counted in the time).
                        if s.status() != Stop::Running {
                            s = make(&p, which, usize::MAX);
                        }
                        black_box(s.step())
                    })
                });
            }
            group.finish();
        }
    }
}

fn order_table() {
    println!("\n| loss | n | solver | rows | sweeps to δ | status | time (s) | final gap |");
    println!("|---|---|---|---|---|---|---|---|");
    for loss in [Loss::Hinge, Loss::Square] {
        for n in sizes() {
            for shuffle in [false, true] {
                let p = problem_ordered(n, loss, shuffle);
                for (which, name) in SOLVERS.iter().enumerate().take(3).skip(1) {
                    let (sw, secs, st, gap) = run_to_tol(&p, which);
                    let rows = if shuffle { "shuffled once" } else { "classes interleaved" };
                    println!(
                        "| {} | {n} | {name} | {rows} | {sw} | {st:?} | {secs:.3} | {gap:.2e} |",
                        loss.name()
                    );
                }
            }
        }
    }
}

fn main() {
    if std::env::var("DINUZZO_BENCH_ORDER").is_ok() {
        order_table();
        return;
    }
    table();
    if std::env::var("DINUZZO_BENCH_TABLE_ONLY").is_err() {
        let mut c = Criterion::default().configure_from_args();
        sweeps(&mut c);
        c.final_summary();
    }
}
