//! Paper D's page workloads natively (the same code the browser runs in www/bench-perceptron.html):
//! iterations and milliseconds to the outcome, for the table of docs/perceptron.md.
//! `cargo bench --bench perceptron_page`.

use kernel_playground::papers::perceptron::{run_timing_workload, timing_workloads, WorkloadRow};

fn main() {
    println!("| workload | n | algorithm | outcome | verified | iterations | bound | setup ms | run ms |");
    println!("|---|---:|---|---|---|---:|---:|---:|---:|");
    for n in [200usize, 2000] {
        for (name, spec, sep) in timing_workloads(n) {
            // Best of 3 runs (the machine is shared).
            let mut best: Option<Vec<WorkloadRow>> = None;
            for _ in 0..3 {
                let rows = run_timing_workload(&name, &spec, sep, 50_000).expect("workload runs");
                best = Some(match best {
                    None => rows,
                    Some(b) => b
                        .into_iter()
                        .zip(rows)
                        .map(|(a, r)| if r.run_ms < a.run_ms { r } else { a })
                        .collect(),
                });
            }
            for r in best.unwrap_or_default() {
                let b = r.bound.map_or("–".to_string(), |b| format!("{b:.0}"));
                println!(
                    "| {} | {} | {} | {} | {} | {} | {} | {:.1} | {:.2} |",
                    r.workload,
                    r.n,
                    r.algorithm,
                    r.outcome,
                    r.verified,
                    r.iterations,
                    b,
                    r.setup_ms,
                    r.run_ms
                );
            }
        }
    }
}
