//! `kplay`: the native command line of Kernel Playground.
//!
//! ```text
//! kplay run SPEC.json            solve; print one JSON object (status, values, solution, trace)
//! kplay gen SPEC.json -o FILE    write the spec's data as CSV (stdout without -o)
//! kplay digest SPEC.json         print the data's bit digest (equal natively and in wasm)
//! kplay plot SPEC.json -o PREFIX  solve, then write PREFIX-convergence.svg and PREFIX-spikes.svg
//! kplay race SPEC.json           every applicable algorithm against F*: iterations, time, relative error
//! kplay spec                     print the default experiment spec
//! ```
//! Errors go to stderr with a non-zero exit.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kernel_playground::budget::{self, Budget};
use kernel_playground::experiment::{DataSpec, Experiment, PathSpec};
use kernel_playground::KpError;
use serde_json::json;

const USAGE: &str = "usage:
  kplay run SPEC.json            solve; print one JSON object (status, values, solution, trace)
  kplay gen SPEC.json [-o FILE]  write the spec's data as CSV
  kplay digest SPEC.json         print the data's bit digest
  kplay plot SPEC.json -o PREFIX  solve; write PREFIX-convergence.svg and PREFIX-spikes.svg
  kplay race SPEC.json           run every applicable algorithm against F* (dual Newton to machine precision)
  kplay spec                     print the default experiment spec
options (anywhere):
  --budget-gib G                 raise (or lower) the memory budget from 8 GiB to G GiB";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match real_main(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("kplay: {msg}");
            ExitCode::from(2)
        }
    }
}

/// The largest spec file read (a spec with inline CSV text may be as large as a CSV file).
fn spec_limit() -> u64 {
    budget::active().csv_bytes + (1 << 20)
}

fn load_spec(path: &str) -> Result<Experiment, String> {
    let text = budget::read_text_file(Path::new(path), "spec", spec_limit()).map_err(err)?;
    let mut spec = Experiment::from_json(&text).map_err(|e| format!("{path}: {e}"))?;
    if let DataSpec::Csv { text: t @ None, path: Some(csv) } = &mut spec.data {
        let base = Path::new(path).parent().unwrap_or(Path::new("."));
        let full: PathBuf = base.join(&*csv);
        let body = budget::read_text_file(&full, "CSV", budget::active().csv_bytes).map_err(err)?;
        *t = Some(body);
    }
    Ok(spec)
}

/// Write to stdout; a closed pipe (`kplay run … | head`) ends the output quietly instead of
/// panicking the way `println!` does.
fn emit(text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("cannot write to stdout: {e}")),
        _ => Ok(()),
    }
}

fn err(e: KpError) -> String {
    e.to_string()
}

/// Take `--budget-gib G` (anywhere) out of the arguments and install the CLI budget it names.
fn budget_flag(args: &[String]) -> Result<Vec<String>, String> {
    let mut rest = Vec::new();
    let mut it = args.iter();
    let mut budget = Budget::CLI;
    while let Some(a) = it.next() {
        if a == "--budget-gib" {
            let v = it.next().ok_or("--budget-gib needs a number of GiB")?;
            let gib: f64 = v.parse().map_err(|_| format!("--budget-gib: `{v}` is not a number"))?;
            budget = Budget::cli_with_gib(gib).map_err(err)?;
        } else {
            rest.push(a.clone());
        }
    }
    budget::set_active(budget);
    Ok(rest)
}

fn real_main(args: &[String]) -> Result<(), String> {
    let args = &budget_flag(args)?[..];
    let cmd = args.first().map(String::as_str).ok_or_else(|| USAGE.to_string())?;
    match cmd {
        "run" => {
            let path = args.get(1).ok_or_else(|| USAGE.to_string())?;
            let valid = load_spec(path)?.validate().map_err(err)?;
            let t0 = std::time::Instant::now();
            let mut run = valid.start_any().map_err(err)?;
            let setup_ms = t0.elapsed().as_secs_f64() * 1e3;
            let status = run.run();
            let last = run.last();
            let w = valid.weights(&run).map(|w| w.as_slice().to_vec());
            let alpha = run.solver.alpha().map(|a| a.as_slice().to_vec());
            let out = json!({
                "status": status,
                "iterations": last.iter,
                "primal": last.primal,
                "dual": last.dual,
                "gap": last.gap,
                "rel_gap": last.rel_gap,
                "time_ms": last.elapsed_ms,
                "setup_ms": setup_ms,
                "data_digest": valid.data.digest(),
                "solution": {
                    "w": w,
                    "alpha": alpha,
                },
                "trace": run.trace,
            });
            emit(&format!("{out}\n"))?;
            Ok(())
        }
        "gen" => {
            let path = args.get(1).ok_or_else(|| USAGE.to_string())?;
            let out = match args.get(2).map(String::as_str) {
                Some("-o") => Some(args.get(3).ok_or("-o needs a file name")?.clone()),
                Some(other) => return Err(format!("unexpected argument `{other}`\n{USAGE}")),
                None => None,
            };
            let data = load_spec(path)?.build_data().map_err(err)?;
            let csv = data.to_csv();
            match out {
                Some(f) => std::fs::write(&f, csv).map_err(|e| format!("cannot write `{f}`: {e}"))?,
                None => emit(&csv)?,
            }
            Ok(())
        }
        "digest" => {
            let path = args.get(1).ok_or_else(|| USAGE.to_string())?;
            let data = load_spec(path)?.build_data().map_err(err)?;
            emit(&format!("{}\n", data.digest()))?;
            Ok(())
        }
        "plot" => {
            let path = args.get(1).ok_or_else(|| USAGE.to_string())?;
            let prefix = match (args.get(2).map(String::as_str), args.get(3)) {
                (Some("-o"), Some(p)) => p.clone(),
                _ => return Err(format!("plot needs -o PREFIX\n{USAGE}")),
            };
            let valid = load_spec(path)?.validate().map_err(err)?;
            let mut run = valid.start_any().map_err(err)?;
            run.run();
            let w_true = valid.data.w_true.as_ref().map(|v| v.as_slice());
            let w = valid.weights(&run).map(|w| w.as_slice().to_vec()).unwrap_or_default();
            let (conv, spikes) = kernel_playground::plot::svg_pair(&run.trace, &w, w_true)?;
            for (suffix, body) in [("convergence", conv), ("spikes", spikes)] {
                let f = format!("{prefix}-{suffix}.svg");
                std::fs::write(&f, body).map_err(|e| format!("cannot write `{f}`: {e}"))?;
                eprintln!("wrote {f}");
            }
            Ok(())
        }
        "race" => {
            let path = args.get(1).ok_or_else(|| USAGE.to_string())?;
            let valid = load_spec(path)?.validate().map_err(err)?;
            let tensor = match valid.checked.path {
                PathSpec::Tensor => Some(valid.build_tensor().map_err(err)?),
                PathSpec::Features => None,
            };
            let (f_star, newton_iters) = valid.reference_optimum(tensor.clone()).map_err(err)?;
            let mut race = valid.race_on(f_star, tensor.as_ref()).map_err(err)?;
            while race.step_round() {}
            let lanes: Vec<_> = race
                .lanes
                .iter()
                .map(|l| {
                    let last = l.run.last();
                    json!({"algorithm": l.name, "status": l.run.status, "iterations": last.iter,
                           "time_ms": last.elapsed_ms, "rel_err": race.rel_err(&last)})
                })
                .collect();
            emit(&format!("{}\n", json!({"f_star": f_star, "reference_newton_iterations": newton_iters, "lanes": lanes})))?;
            Ok(())
        }
        "spec" => {
            let spec = Experiment::default();
            emit(&format!("{}\n", serde_json::to_string_pretty(&spec).map_err(|e| e.to_string())?))?;
            Ok(())
        }
        "-h" | "--help" | "help" => {
            emit(&format!("{USAGE}\n"))?;
            Ok(())
        }
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    }
}
