//! Paper B: cost of the one-off eigendecomposition (Theorem 1, steps 1–3) and of one m-slider
//! refit (root-solve for C₀ + α = Qα', Theorem 1 steps 4–5) on the synthetic set.

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use kernel_playground::datasets::regression::Friedman1;
use kernel_playground::exec::{Run, Watch};
use kernel_playground::kernels::{Bandwidth, Kernel};
use kernel_playground::solvers::mrlsr::{EigenPayload, MrlsrModel, ROOT_MAX_ITER};

const GAUSS: Kernel = Kernel::gaussian(Bandwidth::Heuristic);

fn eigendecomposition(c: &mut Criterion) {
    let mut g = c.benchmark_group("mrlsr_model_build");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for &n in &[500usize, 1000, 2000] {
        let data = Friedman1 { n, sigma: 1.0, seed: 1 }.generate().unwrap();
        let kernel = GAUSS.resolve(&data.x).unwrap();
        g.bench_with_input(BenchmarkId::new("gram_plus_eigen", n), &n, |b, _| {
            b.iter(|| {
                MrlsrModel::with_kernel(black_box(&data.x), black_box(&data.y), kernel.clone())
                    .unwrap()
            })
        });
    }
    g.finish();
}

/// What the page's main thread does with the worker's result: rebuild the Gram matrix, check the
/// payload (random probes, O(n²)) and form y' (`MrlsrModel::with_kernel_and_eigen`).
fn adopt(c: &mut Criterion) {
    let mut g = c.benchmark_group("mrlsr_adopt_eigen");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for &n in &[500usize, 1000] {
        let data = Friedman1 { n, sigma: 1.0, seed: 1 }.generate().unwrap();
        let kernel = GAUSS.resolve(&data.x).unwrap();
        let payload = EigenPayload::compute(&data.x, &data.y, kernel.clone()).unwrap();
        g.bench_with_input(BenchmarkId::new("with_kernel_and_eigen", n), &n, |b, _| {
            b.iter(|| {
                MrlsrModel::with_kernel_and_eigen(
                    black_box(&data.x),
                    black_box(&data.y),
                    kernel.clone(),
                    payload.clone(),
                )
                .unwrap()
            })
        });
    }
    g.finish();
}

fn refit(c: &mut Criterion) {
    let data = Friedman1 { n: 500, sigma: 1.0, seed: 1 }.generate().unwrap();
    let model = MrlsrModel::from_dataset(&data, &GAUSS).unwrap();
    let mut g = c.benchmark_group("mrlsr_refit_n500");
    g.sample_size(50)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for &m in &[1.2, 1.5, 3.0] {
        g.bench_with_input(BenchmarkId::new("theorem1", m), &m, |b, &m| {
            b.iter(|| model.fit_theorem1(black_box(m), black_box(1e-3)).unwrap())
        });
    }
    g.bench_function("krr", |b| b.iter(|| model.krr(black_box(1e-3)).unwrap()));
    g.bench_function("outside_theorem_m0.5", |b| {
        b.iter(|| model.fit(black_box(0.5), black_box(1e-3)).unwrap())
    });
    g.bench_function("root_solve_only_m1.5", |b| {
        b.iter(|| {
            let solve = model.root_solve(black_box(1.5), black_box(1e-3));
            Run::with_watch(solve, Watch::capped(ROOT_MAX_ITER)).run()
        })
    });
    g.finish();
}

criterion_group!(benches, eigendecomposition, adopt, refit);
criterion_main!(benches);
