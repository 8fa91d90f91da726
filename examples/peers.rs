//! Our side of `make bench-peers` (issue 12): native timings of the workloads that
//! `benches/peers/peers.py` times in numpy / scipy / scikit-learn, and the data both read
//! (raw little-endian f64 files, written once). Every subcommand prints one JSON object.
//!
//! * `stream N D` — a STREAM-style read of an N × D f64 matrix (four accumulators, best of 7):
//!   the cost of one pass over X at this machine's memory bandwidth.
//! * `gen-a SPEC PREFIX` — paper A's data of a spec as `PREFIX.X.bin` (row-major) and `PREFIX.y.bin`.
//! * `eigen N PREFIX` — paper B: Friedman #1 data (seed 1), Gaussian kernel (heuristic μ); writes
//!   the Gram matrix to `PREFIX.K.bin`, times the symmetric eigendecomposition (`EigenPayload::of_gram`)
//!   and the mean m-slider refit (`fit_theorem1`, m cycling 1.2, 1.5, 3 at λ = 1e-3).
//! * `svm N LAMBDA MU PREFIX [TARGET]` — paper C: N noisy 2-D points symmetric under
//!   `(x, y) ↦ (−x, −y)` (so the optimal intercept of an SVM is zero and SVC solves the same
//!   problem), Gaussian kernel `exp(−‖x − x'‖²/μ)`, hinge loss; writes `PREFIX.K.bin`, `PREFIX.y.bin`.
//!   Without TARGET: the best objective F reached (greedy pair CD with shrinking until the relative
//!   duality gap is ≤ 1e-13). With TARGET: for each
//!   method of METHODS (the paper's three rules, greedy, greedy + shrinking, greedy + shrinking on
//!   kernel rows with a CACHE_MIB cache, and the same three with greedy pairs: `pairs`,
//!   `pairs_shrink`, `pairs_shrink_rows`), the solver time until `F(c) ≤ TARGET`, the sweeps and
//!   coordinate updates it took (`svm N LAMBDA MU PREFIX TARGET [METHODS [CACHE_MIB [CAP_S]]]`).
//!
//! * `tensor N D PREFIX` — paper A's Table 2 Gram tensor: N × D standard normal X (seed 2), the
//!   polynomial tensor kernel of degree 2 at q = 4; writes `PREFIX.X.bin`, times
//!   `GramTensor::build` (one value per symmetry class, C(N+3, 4) of them) and prints a checksum.
//!
//! Usage: `cargo run --release --example peers -- stream 200 10000`.

use std::io::Write;
use std::time::Instant;

use kernel_playground::datasets::regression::Friedman1;
use kernel_playground::exec::{Stepper, Watch};
use kernel_playground::kernels::{Bandwidth, Kernel, ResolvedGaussian, ResolvedKernel};
use kernel_playground::losses::Loss;
use kernel_playground::papers::lp::LpSpec;
use kernel_playground::rng::Rng;
use kernel_playground::solvers::coordinate::{CoordinateConfig, CoordinateDescent, IndexRule};
use kernel_playground::solvers::fixed_point::{RegularizationProblem, Representation};
use kernel_playground::solvers::mrlsr::{EigenPayload, MrlsrModel};
use nalgebra::{DMatrix, DVector};

type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn write_f64(path: &str, values: impl Iterator<Item = f64>) -> Res<()> {
    let mut f = std::io::BufWriter::new(
        std::fs::File::create(path).map_err(|e| format!("cannot write `{path}`: {e}"))?,
    );
    for v in values {
        f.write_all(&v.to_le_bytes())?;
    }
    f.flush()?;
    Ok(())
}

/// Row-major bytes of a matrix (numpy's default layout).
fn write_matrix(path: &str, m: &DMatrix<f64>) -> Res<()> {
    let (r, c) = m.shape();
    write_f64(path, (0..r).flat_map(move |i| (0..c).map(move |j| m[(i, j)])))
}

fn arg<T: std::str::FromStr>(args: &[String], i: usize, name: &str) -> Res<T> {
    args.get(i)
        .ok_or_else(|| format!("missing {name}"))?
        .parse::<T>()
        .map_err(|_| format!("bad {name}").into())
}

/// One read pass over `data` with four accumulators (what a bandwidth-bound kernel can reach).
fn read_pass(data: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let chunks = data.chunks_exact(4);
    for c in chunks {
        acc[0] += c[0];
        acc[1] += c[1];
        acc[2] += c[2];
        acc[3] += c[3];
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

fn stream(n: usize, d: usize) -> Res<()> {
    let data: Vec<f64> = (0..n * d).map(|k| (k % 1000) as f64 * 1e-3).collect();
    let mut best = f64::INFINITY;
    let mut sink = 0.0;
    for _ in 0..7 {
        let t = Instant::now();
        sink += read_pass(std::hint::black_box(&data));
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    let bytes = (n * d * 8) as f64;
    println!("{{\"n\":{n},\"d\":{d},\"bytes\":{bytes},\"pass_ms\":{best},\"gb_per_s\":{},\"sink\":{sink}}}", bytes / best / 1e6);
    Ok(())
}

fn tensor(n: usize, d: usize, prefix: &str) -> Res<()> {
    use kernel_playground::tensor::{GramTensor, TensorKernel, TensorKernelConfig};
    let mut rng = Rng::new(2);
    let x = DMatrix::from_fn(n, d, |_, _| rng.normal());
    write_matrix(&format!("{prefix}.X.bin"), &x)?;
    let cfg = TensorKernelConfig::new(TensorKernel::Polynomial { degree: 2 }, 4)?;
    let t = Instant::now();
    let k = GramTensor::build(&x, cfg, 8 << 30)?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let values = k.values();
    let sum: f64 = values.iter().sum();
    println!("{{\"ms\":{ms},\"values\":{},\"sum\":{sum}}}", values.len());
    Ok(())
}

fn gen_a(spec: &str, prefix: &str) -> Res<()> {
    let text = std::fs::read_to_string(spec).map_err(|e| format!("cannot read `{spec}`: {e}"))?;
    let data = LpSpec::from_json(&text)?.build_data()?;
    write_matrix(&format!("{prefix}.X.bin"), &data.x)?;
    write_f64(&format!("{prefix}.y.bin"), data.y.iter().copied())?;
    println!(
        "{{\"n\":{},\"d\":{},\"digest\":\"{}\"}}",
        data.x.nrows(),
        data.x.ncols(),
        data.digest()
    );
    Ok(())
}

fn eigen(n: usize, prefix: &str) -> Res<()> {
    let data = Friedman1 { n, sigma: 1.0, seed: 1 }.generate()?;
    let kernel = Kernel::gaussian(Bandwidth::Heuristic).resolve(&data.x)?;
    let gram = kernel.gram(&data.x)?;
    write_matrix(&format!("{prefix}.K.bin"), &gram)?;
    write_f64(&format!("{prefix}.y.bin"), data.y.iter().copied())?;
    let t = Instant::now();
    let payload = EigenPayload::of_gram(&gram)?;
    let eigen_ms = t.elapsed().as_secs_f64() * 1e3;
    let model = MrlsrModel::with_kernel_and_eigen(&data.x, &data.y, kernel, payload)?;
    let ms = [1.2, 1.5, 3.0];
    let reps = 300;
    let t = Instant::now();
    for r in 0..reps {
        model.fit_theorem1(ms[r % 3], 1e-3)?;
    }
    let refit_ms = t.elapsed().as_secs_f64() * 1e3 / reps as f64;
    println!("{{\"n\":{n},\"eigen_ms\":{eigen_ms},\"refit_ms\":{refit_ms}}}");
    Ok(())
}

/// N points: N/2 from two overlapping Gaussian blobs (centres ±(0.5, 0.3), spread 0.6, the
/// label of the centre), then their mirror images `(−x, −y)`.
fn symmetric_points(n: usize) -> (DMatrix<f64>, DVector<f64>) {
    let half = n / 2;
    let mut rng = Rng::new(12);
    let mut x = DMatrix::zeros(2 * half, 2);
    let mut y = DVector::zeros(2 * half);
    for i in 0..half {
        let lab = if i % 2 == 0 { 1.0 } else { -1.0 };
        let (a, b) = (lab * 0.5 + 0.6 * rng.normal(), lab * 0.3 + 0.6 * rng.normal());
        x[(i, 0)] = a;
        x[(i, 1)] = b;
        y[i] = lab;
        x[(half + i, 0)] = -a;
        x[(half + i, 1)] = -b;
        y[half + i] = -lab;
    }
    (x, y)
}

/// The points of `svm N` as page C's hand-placed data (`{"points": [[x₁, x₂, ±1], …], "view": […]}`),
/// for the browser column: the page runs on exactly these inputs.
fn svm_points(n: usize) -> Res<()> {
    let (x, y) = symmetric_points(n);
    let pts: Vec<[f64; 3]> = (0..y.len()).map(|i| [x[(i, 0)], x[(i, 1)], y[i]]).collect();
    let m = pts.iter().fold(0.0f64, |m, p| m.max(p[0].abs()).max(p[1].abs())) * 1.05;
    println!("{}", serde_json::json!({"points": pts, "view": [-m, m, -m, m]}));
    Ok(())
}

fn svm(args: &[String]) -> Res<()> {
    let n: usize = arg(args, 1, "N")?;
    let lambda: f64 = arg(args, 2, "LAMBDA")?;
    let mu: f64 = arg(args, 3, "MU")?;
    let prefix: String = arg(args, 4, "PREFIX")?;
    let target: Option<f64> =
        args.get(5).map(|s| s.parse()).transpose().map_err(|_| "bad TARGET")?;
    let (x, y) = symmetric_points(n);
    let gram = ResolvedKernel::Gaussian(ResolvedGaussian { mu }).gram(&x)?;
    match target {
        None => {
            write_matrix(&format!("{prefix}.K.bin"), &gram)?;
            write_f64(&format!("{prefix}.y.bin"), y.iter().copied())?;
            let problem = RegularizationProblem::from_gram(gram, &y, Loss::Hinge, lambda)?;
            // The reference: greedy pair coordinate descent with shrinking until the duality gap
            // certifies F within 1e-13 (relative) of the optimum (cyclic CD to δ = 1e-13 took
            // minutes at n = 2000 and is out of reach at n = 5000).
            let cfg = CoordinateConfig {
                rule: IndexRule::GreedyPairs,
                seed: 7,
                tol: 1e-300,
                gap_tol: Some(1e-13),
                shrinking: true,
                cache_mib: None,
            };
            let mut cd = CoordinateDescent::new(problem, cfg)?;
            let mut watch = Watch::capped(400_000);
            let mut best = f64::INFINITY;
            while let Some(rec) = watch.step(&mut cd) {
                best = best.min(rec.primal.unwrap_or(f64::INFINITY));
            }
            let last = cd.record();
            println!(
                "{{\"n\":{},\"objective\":{best},\"gap\":{},\"sweeps\":{}}}",
                y.len(),
                last.gap.unwrap_or(f64::NAN),
                last.iter
            );
        }
        Some(target) => {
            // METHODS (comma-separated, default all): the paper's rules (cyclic, aitken,
            // randomized) and the options beyond it (greedy, greedy_shrink on the stored Gram
            // matrix; greedy_shrink_rows: kernel rows computed from the inputs, CACHE_MIB MiB of
            // cache). CAP_S: seconds per method before giving up.
            let methods: String = args.get(6).cloned().unwrap_or_else(|| "cyclic,aitken,randomized,greedy,greedy_shrink,greedy_shrink_rows,pairs,pairs_shrink,pairs_shrink_rows".into());
            let cache_mib: f64 = args
                .get(7)
                .map(|s| s.parse())
                .transpose()
                .map_err(|_| "bad CACHE_MIB")?
                .unwrap_or(64.0);
            let cap_s: f64 = args
                .get(8)
                .map(|s| s.parse())
                .transpose()
                .map_err(|_| "bad CAP_S")?
                .unwrap_or(120.0);
            let mut out = Vec::new();
            for name in methods.split(',').filter(|m| !m.is_empty()) {
                let (rule, shrinking, rows) = match name {
                    "cyclic" => (IndexRule::Cyclic, false, false),
                    "aitken" => (IndexRule::AitkenDoubleSweep, false, false),
                    "randomized" => (IndexRule::RandomizedCyclic, false, false),
                    "cyclic_shrink" => (IndexRule::Cyclic, true, false),
                    "randomized_shrink" => (IndexRule::RandomizedCyclic, true, false),
                    "greedy" => (IndexRule::Greedy, false, false),
                    "greedy_shrink" => (IndexRule::Greedy, true, false),
                    "greedy_shrink_rows" => (IndexRule::Greedy, true, true),
                    "pairs" => (IndexRule::GreedyPairs, false, false),
                    "pairs_shrink" => (IndexRule::GreedyPairs, true, false),
                    "pairs_shrink_rows" => (IndexRule::GreedyPairs, true, true),
                    other => return Err(format!("unknown method {other}").into()),
                };
                let cfg = CoordinateConfig {
                    rule,
                    seed: 7,
                    tol: 1e-300,
                    gap_tol: None,
                    shrinking,
                    cache_mib: if rows { Some(cache_mib) } else { None },
                };
                // Kernel rows: the problem keeps the inputs only, and the timed run computes the
                // rows it needs (into the cache); otherwise K is given, as to SVC.
                let problem = if rows {
                    RegularizationProblem::new(
                        &x,
                        &y,
                        &Kernel::gaussian(Bandwidth::Fixed(mu)),
                        Loss::Hinge,
                        lambda,
                        Representation::KernelRows,
                    )?
                } else {
                    RegularizationProblem::from_gram(gram.clone(), &y, Loss::Hinge, lambda)?
                };
                let t = Instant::now();
                let mut cd = CoordinateDescent::new(problem, cfg)?;
                let mut watch = Watch::capped(400_000);
                let mut hit = None;
                while let Some(rec) = watch.step(&mut cd) {
                    if rec.primal.is_some_and(|f| f <= target) {
                        hit = Some((rec.iter, t.elapsed().as_secs_f64() * 1e3));
                        break;
                    }
                    if t.elapsed().as_secs_f64() > cap_s {
                        break;
                    }
                }
                let cache = match cd.cache_stats() {
                    Some((cap, h, m)) => {
                        format!(",\"cache_rows\":{cap},\"cache_hits\":{h},\"cache_misses\":{m}")
                    }
                    None => String::new(),
                };
                out.push(match hit {
                    Some((s, ms)) => format!(
                        "\"{name}\":{{\"sweeps\":{s},\"ms\":{ms},\"updates\":{},\"active\":{}{cache}}}",
                        cd.updates(),
                        cd.active_len()
                    ),
                    None => format!("\"{name}\":null"),
                });
            }
            println!("{{{}}}", out.join(","));
        }
    }
    Ok(())
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // KPLAY_THREADS=N: ours on N threads (as `kplay --threads N`; issue 21 §3).
    if let Ok(v) = std::env::var("KPLAY_THREADS") {
        let n: usize = v.parse().map_err(|_| format!("KPLAY_THREADS: `{v}` is not a number"))?;
        kernel_playground::par::set_threads(n).map_err(|e| e.to_string())?;
    }
    match args.first().map(String::as_str) {
        Some("stream") => stream(arg(&args, 1, "N")?, arg(&args, 2, "D")?),
        Some("tensor") => tensor(arg(&args, 1, "N")?, arg(&args, 2, "D")?, &arg::<String>(&args, 3, "PREFIX")?),
        Some("gen-a") => gen_a(&arg::<String>(&args, 1, "SPEC")?, &arg::<String>(&args, 2, "PREFIX")?),
        Some("eigen") => eigen(arg(&args, 1, "N")?, &arg::<String>(&args, 2, "PREFIX")?),
        Some("svm") => svm(&args),
        Some("svm-points") => svm_points(arg(&args, 1, "N")?),
        _ => Err("usage: peers stream N D | gen-a SPEC PREFIX | tensor N D PREFIX | eigen N PREFIX | svm N LAMBDA MU PREFIX [TARGET [METHODS [CACHE_MIB [CAP_S]]]] | svm-points N".into()),
    }
}
