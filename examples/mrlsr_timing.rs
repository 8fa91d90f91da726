//! One-shot native timings of paper B's model (a quick release binary; criterion's repeated
//! samples do not fit n = 2000 in a reasonable time): for each n on the 10-D synthetic set
//! (Gaussian kernel, μ heuristic), the Gram matrix + symmetric eigendecomposition as the page's
//! worker computes it ([`EigenPayload::compute`]), the adoption of that payload
//! ([`MrlsrModel::with_kernel_and_eigen`]: Gram matrix, payload check, y′), and the mean of one
//! m-slider refit (`fit_theorem1`, m cycling 1.2, 1.5, 3 at λ = 1e-3).
//! Usage: `cargo run --release --example mrlsr_timing -- 500 1000 2000`.

use std::time::Instant;

use kernel_playground::datasets::regression::Friedman1;
use kernel_playground::kernels::{Bandwidth, Kernel};
use kernel_playground::solvers::mrlsr::{EigenPayload, MrlsrModel};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sizes: Vec<usize> =
        std::env::args().skip(1).map(|a| a.parse()).collect::<Result<_, _>>()?;
    let sizes = if sizes.is_empty() { vec![500, 1000, 2000] } else { sizes };
    println!(
        "| n | Gram + eigendecomposition (ms) | adopt payload (ms) | refit, mean of 300 (ms) |"
    );
    println!("| --- | --- | --- | --- |");
    for n in sizes {
        let data = Friedman1 { n, sigma: 1.0, seed: 1 }.generate()?;
        let kernel = Kernel::gaussian(Bandwidth::Heuristic).resolve(&data.x)?;
        let t = Instant::now();
        let payload = EigenPayload::compute(&data.x, &data.y, kernel.clone())?;
        let eigen_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let model = MrlsrModel::with_kernel_and_eigen(&data.x, &data.y, kernel, payload)?;
        let adopt_ms = t.elapsed().as_secs_f64() * 1e3;
        let ms = [1.2, 1.5, 3.0];
        let t = Instant::now();
        for r in 0..300 {
            model.fit_theorem1(ms[r % 3], 1e-3)?;
        }
        let refit_ms = t.elapsed().as_secs_f64() * 1e3 / 300.0;
        println!("| {n} | {eigen_ms:.0} | {adopt_ms:.1} | {refit_ms:.3} |");
    }
    Ok(())
}
