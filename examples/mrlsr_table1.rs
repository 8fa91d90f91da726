//! Paper B, Table 1 natively at the paper's size: the 10-D synthetic set (Friedman #1,
//! `x ~ U[0,1]^10`, unit noise), n = 2000, a 70/30 train/test split, 10-fold CV on the training
//! part over the grids of Appendix E.1.1 (m 0.1..2.9 by 0.1 × 7 λ for M-RLSR, 25 λ₂ for KRR),
//! Gaussian kernel with the bandwidth heuristic; test scaled RMSE of both, one line per seed,
//! then the mean and standard deviation over the seeds (the paper reports a mean ± STD). The
//! last column is the scaled RMSE of the noise-free target f* itself on all n samples: the floor
//! any estimator's test RMSE sits on (about σ / max y).
//! Usage: `cargo run --release --example mrlsr_table1 -- [n] [seeds]` (defaults 2000, 5).

use std::time::Instant;

use nalgebra::DVector;

use kernel_playground::datasets::regression::Friedman1;
use kernel_playground::kernels::{Bandwidth, Kernel};
use kernel_playground::papers::mrlsr::cv::{model_selection, scaled_rmse, ModelSelectionConfig};

fn mean_std(v: &[f64]) -> (f64, f64) {
    let n = v.len().max(1) as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, var.sqrt())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map(|a| a.parse()).transpose()?.unwrap_or(2000);
    let seeds: u64 = args.get(1).map(|a| a.parse()).transpose()?.unwrap_or(5);
    let kernel = Kernel::gaussian(Bandwidth::Heuristic);
    println!("| seed | KRR test RMSE (λ₂) | M-RLSR test RMSE (m, λ) | time (s) | f* itself (noise floor) |");
    println!("| --- | --- | --- | --- | --- |");
    let (mut krr, mut mrlsr) = (vec![], vec![]);
    for seed in 1..=seeds {
        let data = Friedman1 { n, sigma: 1.0, seed }.generate()?;
        let clean = DVector::from_iterator(
            data.n(),
            data.x.row_iter().map(|r| Friedman1::target(&r.iter().copied().collect::<Vec<_>>())),
        );
        let floor = scaled_rmse(&data.y, &clean)?;
        let t = Instant::now();
        let sel = model_selection(&data, &kernel, &ModelSelectionConfig::paper(seed))?;
        println!(
            "| {seed} | {:.3e} ({:.1e}) | {:.3e} (m = {:.1}, λ = {:.1e}) | {:.1} | {floor:.3e} |",
            sel.krr_test_rmse,
            sel.krr_cv.best_lambda,
            sel.mrlsr_test_rmse,
            sel.mrlsr_cv.best_m,
            sel.mrlsr_cv.best_lambda,
            t.elapsed().as_secs_f64()
        );
        krr.push(sel.krr_test_rmse);
        mrlsr.push(sel.mrlsr_test_rmse);
    }
    let (km, ks) = mean_std(&krr);
    let (mm, msd) = mean_std(&mrlsr);
    println!("| mean ± STD | {km:.3e} ± {ks:.2e} | {mm:.3e} ± {msd:.2e} | | |");
    println!("| paper (n = 2000) | 3.19e-2 ± 1.56e-3 | 1.26e-2 ± 5.85e-4 (m = 0.4) | | |");
    Ok(())
}
